/* SPDX-License-Identifier: MIT */
/*
 * calls.c - the call sequences of a profile (decoder.h): each CALLS
 * record decoded in its program.
 *
 * A CALLS record's key "%calls:PROGSUM" names its program; the PROG
 * record "%prog:PROGSUM" lists the program's units by the ids
 * (pap_fnid) of their keys, and the UNIT records "%unit:UNITSUM:METAFILE"
 * are those keys.  PROGSUM must be the sum of those ids, each unit's
 * metadata (METAFILE, else the search directories) must have the unit
 * sum UNITSUM, and libcore/callprog.c builds the program from the units'
 * functions.  The record's breakpoints are decoded as they are packed
 * by libcore/callseq.c, into events whose repeats are kept once; they
 * are expanded for the sequence (callrender.c) and the k-grams when
 * they fit the bound below, and the calling contexts come from the
 * packed events whatever their length.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "fnkey.h"
#include "pathspec.h"
#include "util.h"

/* The events a record may expand into (and the events its packed form
 * may keep): this many per event shown at most (--max-sequence), and
 * never fewer than CALLS_DECODE_MIN, so that a sequence over
 * --max-sequence is expanded whole for its packed JSON form. */
#define DECODE_FACTOR 4
#define CALLS_DECODE_MIN 10000000u
/* Marks and names of a packed form at least (--max-sequence if more). */
#define CALLS_PACK_BUDGET 10000u

/* One program: the units a PROGSUM names. */
struct cprog {
	const char *sum;	/* the 16 hex digits, in a record's key */
	int built;		/* 1: b holds it; -1: it cannot be built */
	char err[512];
	struct pap_cs_built b;
	struct pap_cs_unit *units;
	size_t nunits;
	struct pap_meta_fn ***fns;	/* per unit, owned */
};

/* One call sequence decoded (or not). */
struct dcall {
	const struct pap_prof_rec *r;
	size_t recno;		/* among the CALLS records, from 1 */
	struct cprog *prog;
	struct pap_cev *ev;	/* NULL: not expanded */
	size_t nev;
	int over;		/* more events than could be expanded */
	int packed;		/* pk holds the decoded record */
	struct pap_cseq_packed pk;
};

struct calls {
	struct cprog *progs;
	size_t nprogs, capprogs;
	struct dcall *c;
	size_t n, cap;
	uint64_t decode_max;
};

static const char *key_rest(const char *key, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(key, prefix, n) ? NULL : key + n;
}

/* FNV-1a 64 over @ids (sorted here), 8 bytes each, little-endian: the
 * program sum (doc/formats.md). */
static int u64cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static uint64_t prog_sum(uint64_t *ids, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;
	int k;

	qsort(ids, n, sizeof(*ids), u64cmp);
	for (i = 0; i < n; i++)
		for (k = 0; k < 8; k++) {
			h ^= (ids[i] >> (8 * k)) & 0xff;
			h *= 0x100000001b3ull;
		}
	return h;
}

__attribute__((format(printf, 2, 3)))
static int perr(struct cprog *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->err, sizeof(p->err), fmt, ap);
	va_end(ap);
	p->built = -1;
	return -1;
}

/*
 * The functions of unit @key ("%unit:UNITSUM:METAFILE") into @out (in
 * file order, those with calls): METAFILE's if it has the unit's sum,
 * else those of the first file the search directories give that has it.
 */
static int unit_fns(struct decoder *d, struct cprog *p, const char *key,
		    struct pap_cs_unit *u, struct pap_meta_fn ***own)
{
	const char *rest = key_rest(key, PAP_REC_UNIT_PREFIX), *meta;
	const char *file = NULL;
	char *end;
	uint64_t sum, other = 0;
	size_t i, n = 0;
	int pass;

	if (!rest || strlen(rest) < 17 || rest[16] != ':')
		return perr(p, "bad unit key '%s'", key);
	sum = strtoull(rest, &end, 16);
	if (end != rest + 16)
		return perr(p, "bad unit key '%s'", key);
	meta = rest + 17;
	u->metakey = *meta ? meta : NULL;
	for (pass = 0; pass < 2 && !file; pass++) {
		if (pass == 0 && u->metakey)
			decoder_load_meta(d, meta);
		else if (pass == 1)
			decoder_scan(d);
		for (i = 0; i < d->meta.nfns; i++) {
			struct pap_meta_fn *f = d->meta.fns[i];

			if (!f->calls)
				continue;
			if (f->unit != sum) {
				if (pass == 0 && u->metakey &&
				    !strcmp(f->meta, meta))
					other = f->unit;
				continue;
			}
			if (pass == 0 && (!u->metakey ||
					  strcmp(f->meta, meta)))
				continue;
			file = f->meta;
			break;
		}
	}
	if (!file && other)
		return perr(p, "unit %s: its metadata has the unit sum "
			    "%016" PRIx64 ", the profile's is %016" PRIx64
			    " (recompiled since the run?)", meta, other, sum);
	if (!file)
		return perr(p, "unit %s: no metadata found with the unit sum "
			    "%016" PRIx64 " (use --meta DIR)",
			    u->metakey ? meta : "-", sum);
	*own = calloc(d->meta.nfns + 1, sizeof(**own));
	if (!*own)
		return perr(p, "out of memory");
	for (i = 0; i < d->meta.nfns; i++) {
		struct pap_meta_fn *f = d->meta.fns[i];

		if (f->calls && f->unit == sum && !strcmp(f->meta, file))
			(*own)[n++] = f;
	}
	u->fns = *own;
	u->nfns = n;
	return 0;
}

/* Builds program @p from @prof's PROG and UNIT records. */
static int prog_build(struct decoder *d, const struct pap_profile *prof,
		      struct cprog *p)
{
	const struct pap_prof_rec *g = NULL;
	uint64_t *ids = NULL, want;
	size_t i, j;
	int r = -1;

	for (i = 0; i < prof->nrecs && !g; i++) {
		const struct pap_prof_rec *pr = &prof->recs[i];
		const char *s = key_rest(pr->fn, PAP_REC_PROG_PREFIX);

		if (pr->kind == PAP_REC_PROG && s && !strcmp(s, p->sum))
			g = &prof->recs[i];
	}
	if (!g)
		return perr(p, "program %s: no program record", p->sum);
	if (g->value != g->nbps || !g->nbps)
		return perr(p, "program %s: %" PRIu64 " units but %u listed",
			    p->sum, g->value, g->nbps);
	p->nunits = g->nbps;
	p->units = calloc(p->nunits, sizeof(*p->units));
	p->fns = calloc(p->nunits, sizeof(*p->fns));
	ids = calloc(p->nunits, sizeof(*ids));
	if (!p->units || !p->fns || !ids) {
		perr(p, "out of memory");
		goto out;
	}
	for (i = 0; i < p->nunits; i++) {
		const struct pap_prof_rec *u = NULL;

		if (g->bps[i].site != i) {
			perr(p, "program %s: unit %zu listed as %u", p->sum, i,
			     g->bps[i].site);
			goto out;
		}
		ids[i] = g->bps[i].r;
		for (j = 0; j < prof->nrecs && !u; j++)
			if (prof->recs[j].kind == PAP_REC_UNIT &&
			    pap_fnid(prof->recs[j].fn) == ids[i])
				u = &prof->recs[j];
		if (!u) {
			perr(p, "program %s: no unit record of id %016" PRIx64,
			     p->sum, ids[i]);
			goto out;
		}
		if (unit_fns(d, p, u->fn, &p->units[i], &p->fns[i]))
			goto out;
	}
	want = strtoull(p->sum, NULL, 16);
	if (prog_sum(ids, p->nunits) != want) {
		perr(p, "program %s: its units' ids do not sum to it", p->sum);
		goto out;
	}
	if (pap_cs_prog_build(p->units, p->nunits, &p->b, p->err,
			      sizeof(p->err))) {
		p->built = -1;
		goto out;
	}
	p->built = 1;
	r = 0;
out:
	free(ids);
	return r;
}

static struct cprog *prog_of(struct calls *c, struct decoder *d,
			     const struct pap_profile *prof, const char *sum)
{
	struct cprog *p;
	size_t i;

	for (i = 0; i < c->nprogs; i++)
		if (!strcmp(c->progs[i].sum, sum))
			return &c->progs[i];
	if (c->nprogs == c->capprogs &&
	    pap_grow(&c->progs, &c->capprogs, sizeof(*c->progs), 4))
		return NULL;
	p = &c->progs[c->nprogs++];
	memset(p, 0, sizeof(*p));
	p->sum = sum;
	prog_build(d, prof, p);
	return p;
}

/* Decodes @dc; an error is named on standard error and counted. */
static void decode_one(struct calls *c, struct dprofile *dp, struct dcall *dc)
{
	struct pap_cs_rec rec;
	const char *why = NULL;
	size_t at = 0;
	int err;

	if (dc->prog->built != 1) {
		fprintf(stderr, "%s: %s: calls record %zu: %s\n", pap_prog,
			dp->file, dc->recno, dc->prog->err);
		dp->d->errors++;
		return;
	}
	/* read in place, repeats and all: never unpacked */
	rec.value = dc->r->value;
	rec.bps = dc->r->bps;
	rec.nbps = dc->r->nbps;
	err = pap_cseq_decode_packed(&dc->prog->b.prog, &rec, UINT64_MAX,
				     c->decode_max, &dc->pk, &why, &at);
	if (!err) {
		dc->packed = 1;
		err = pap_cseq_expand(&dc->pk, c->decode_max, &dc->ev,
				      &dc->nev);
		if (err && err != PAP_ELIMIT)
			why = pap_strerror(err);
	}
	if (err == PAP_ELIMIT) {
		dc->over = 1;
		fprintf(stderr, "%s: %s: calls record %zu: more than %" PRIu64
			" events: not shown (--max-sequence)\n", pap_prog,
			dp->file, dc->recno, c->decode_max);
	} else if (err) {
		fprintf(stderr, "%s: %s: calls record %zu: cannot be decoded "
			"(breakpoint %zu): %s\n", pap_prog, dp->file,
			dc->recno, at, why ? why : pap_strerror(err));
		dp->d->errors++;
		dc->ev = NULL;
	}
}

/* Hottest first; the profile's order among equals. */
static int by_count(const void *a, const void *b)
{
	const struct dcall *x = a, *y = b;

	if (x->r->count != y->r->count)
		return x->r->count < y->r->count ? 1 : -1;
	return (x->recno > y->recno) - (x->recno < y->recno);
}

/* Decodes every CALLS record of dp->prof into @c; 0 when there is
 * none. */
static size_t calls_load(struct calls *c, struct dprofile *dp,
			 const struct ropts *o)
{
	const struct pap_profile *prof = dp->prof;
	size_t i, recno = 0;
	uint64_t max = o->max_sequence ? o->max_sequence : CALLS_MAX_SEQUENCE;

	memset(c, 0, sizeof(*c));
	c->decode_max = max > UINT64_MAX / DECODE_FACTOR ? UINT64_MAX :
			max * DECODE_FACTOR;
	if (c->decode_max < CALLS_DECODE_MIN)
		c->decode_max = CALLS_DECODE_MIN;
	if (!prof)
		return 0;
	for (i = 0; i < prof->nrecs; i++) {
		const struct pap_prof_rec *r = &prof->recs[i];
		const char *sum;
		struct dcall *dc;

		if (r->kind != PAP_REC_CALLS)
			continue;
		recno++;
		/* threads off every sequence of interest (callspec.c) */
		if (pap_cseq_left(r->value, r->nbps))
			continue;
		if (c->n == c->cap &&
		    pap_grow(&c->c, &c->cap, sizeof(*c->c), 16)) {
			fprintf(stderr, "%s: error: out of memory\n", pap_prog);
			dp->d->errors++;
			break;
		}
		dc = &c->c[c->n];
		memset(dc, 0, sizeof(*dc));
		dc->r = r;
		dc->recno = recno;
		sum = key_rest(r->fn, PAP_REC_CALLS_PREFIX);
		dc->prog = sum ? prog_of(c, dp->d, prof, sum) : NULL;
		if (!dc->prog) {
			fprintf(stderr, "%s: %s: calls record %zu: bad key "
				"'%s'\n", pap_prog, dp->file, recno, r->fn);
			dp->d->errors++;
			continue;
		}
		c->n++;
		decode_one(c, dp, dc);
	}
	if (c->n)
		qsort(c->c, c->n, sizeof(*c->c), by_count);
	return c->n;
}

static void calls_free(struct calls *c)
{
	size_t i, u;

	for (i = 0; i < c->n; i++) {
		free(c->c[i].ev);
		pap_cseq_packed_free(&c->c[i].pk);
	}
	free(c->c);
	for (i = 0; i < c->nprogs; i++) {
		struct cprog *p = &c->progs[i];

		if (p->built == 1)
			pap_cs_built_free(&p->b);
		for (u = 0; p->fns && u < p->nunits; u++)
			free(p->fns[u]);
		free(p->fns);
		free(p->units);
	}
	free(c->progs);
}

/* The decoded sequences of @c, for the calling contexts; with
 * @packed those too long to expand (ev NULL, pk set), else only the
 * others.  *@n of them, NULL when none or memory is short. */
static struct call_run *runs_of(const struct calls *c, size_t *n, int packed)
{
	struct call_run *r = calloc(c->n + 1, sizeof(*r));
	size_t i;

	*n = 0;
	for (i = 0; r && i < c->n; i++) {
		const struct dcall *dc = &c->c[i];

		if (!dc->packed || (!packed && (!dc->ev || dc->over)))
			continue;
		r[*n].b = &dc->prog->b;
		r[*n].ev = dc->over ? NULL : dc->ev;
		r[*n].nev = dc->over ? 0 : dc->nev;
		r[*n].pk = &dc->pk;
		r[(*n)++].count = dc->r->count;
	}
	return r;
}

int calls_runs_load(struct dprofile *dp, const struct ropts *o,
		    struct call_runs *out)
{
	struct calls *c = calloc(1, sizeof(*c));

	memset(out, 0, sizeof(*out));
	if (!c)
		return -1;
	calls_load(c, dp, o);
	out->owner = c;
	out->run = runs_of(c, &out->n, 0);
	return out->run ? 0 : -1;
}

int calls_runs_load_packed(struct dprofile *dp, const struct ropts *o,
			   struct call_runs *out)
{
	int r = calls_runs_load(dp, o, out);

	if (!r) {
		free(out->run);
		out->run = runs_of(out->owner, &out->n, 1);
		r = out->run ? 0 : -1;
	}
	return r;
}

void calls_runs_free(struct call_runs *r)
{
	if (r->owner)
		calls_free(r->owner);
	free(r->owner);
	free(r->run);
	memset(r, 0, sizeof(*r));
}

/* The number of the first events shown of @dc, and whether cut. */
static size_t shown_events(const struct dcall *dc, const struct ropts *o,
			   int *cut)
{
	uint64_t max = o->max_sequence ? o->max_sequence : CALLS_MAX_SEQUENCE;

	*cut = dc->over || dc->nev > max;
	return dc->nev > max ? (size_t)max : dc->nev;
}

void print_calls_json(FILE *out, struct dprofile *dp, const struct ropts *o)
{
	uint64_t max = o->max_sequence ? o->max_sequence : CALLS_MAX_SEQUENCE;
	struct calls c;
	struct call_run *runs;
	size_t i, shown = 0, left = 0, nruns;
	int first = 1;

	if (!calls_load(&c, dp, o)) {
		calls_free(&c);
		return;
	}
	fputs(",\n\"call_paths\": [", out);
	for (i = 0; i < c.n; i++) {
		struct dcall *dc = &c.c[i];
		struct call_seq q = { 0 };
		int cut = 0;

		if (!dc->ev && !dc->over)
			continue;	/* named on stderr */
		if (o->top && shown >= o->top) {
			left++;
			continue;
		}
		if (!dc->over &&
		    call_sequence(&dc->prog->b, dc->ev, dc->nev, &q)) {
			fprintf(stderr, "%s: %s: calls record %zu: its events "
				"make no sequence\n", pap_prog, dp->file,
				dc->recno);
			dp->d->errors++;
			continue;
		}
		fprintf(out, "%s\n  {\"count\": %" PRIu64 ", \"complete\": %s, "
			"\"events\": ", first ? "" : ",",
			dc->r->count, dc->r->complete ? "true" : "false");
		if (dc->over)
			fputs("null, \"truncated\": true", out);
		if (dc->over && dc->packed)
			fprintf(out, ", \"events_total\": %" PRIu64,
				dc->pk.total);
		else
			fprintf(out, "%zu", dc->nev);
		if (dc->ev && dc->nev && dc->ev[0].kind == PAP_CEV_FORK)
			fputs(", \"start\": \"fork\"", out);
		if (dc->over && dc->packed) {
			struct pap_cev_rep *reps = NULL;
			size_t nreps = 0;

			/* the record's repeats, never expanded */
			fputs(", \"packed\": ", out);
			if (call_sequence_packed(&dc->prog->b, &dc->pk, &q,
						 &reps, &nreps) ||
			    call_pack_json_packed(out, &dc->prog->b, &q, reps,
						  nreps, max > CALLS_PACK_BUDGET ?
						  max : CALLS_PACK_BUDGET,
						  &cut)) {
				fputs("null", out);
				fprintf(stderr, "%s: %s: calls record %zu: no "
					"packed form\n", pap_prog, dp->file,
					dc->recno);
				dp->d->errors++;
			}
			if (cut)
				fputs(", \"packed_cut\": true", out);
			free(reps);
		} else if (dc->over) {
			fputs(", \"sequence\": []", out);
		} else if (dc->nev <= max) {
			fputs(", \"sequence\": ", out);
			call_seq_json(out, &dc->prog->b, &q, q.n);
		} else {
			fputs(", \"packed\": ", out);
			if (call_pack_json(out, &dc->prog->b, &q,
					   max > CALLS_PACK_BUDGET ? max :
					   CALLS_PACK_BUDGET, &cut)) {
				fputs("null", out);
				fprintf(stderr, "%s: %s: calls record %zu: out "
					"of memory for its packed form\n",
					pap_prog, dp->file, dc->recno);
				dp->d->errors++;
			}
			if (cut)
				fputs(", \"packed_cut\": true", out);
		}
		fputs("}", out);
		call_seq_free(&q);
		first = 0;
		shown++;
	}
	fprintf(out, "\n], \"call_paths_left_out\": %zu", left);
	runs = runs_of(&c, &nruns, 1);
	call_contexts_json(out, runs, nruns, dp->d, dp->file);
	if (o->k)
		call_kgrams_json(out, runs, nruns, o, dp->d, dp->file);
	free(runs);
	calls_free(&c);
}

void print_calls_text(FILE *out, struct dprofile *dp, const struct ropts *o)
{
	struct calls c;
	struct call_run *runs;
	size_t i, shown = 0, nruns;
	uint64_t total = 0;

	if (!calls_load(&c, dp, o)) {
		calls_free(&c);
		return;
	}
	for (i = 0; i < c.n; i++)
		total = pap_sat_add(total, c.c[i].r->count);
	fprintf(out, "\ncall sequences: %zu distinct, %" PRIu64 " recorded\n",
		c.n, total);
	for (i = 0; i < c.n; i++) {
		struct dcall *dc = &c.c[i];
		size_t nev;
		int cut;

		if (o->top && shown >= o->top)
			break;
		shown++;
		fprintf(out, "sequence %zu: count %" PRIu64 ", %s", shown,
			dc->r->count, dc->r->complete ? "complete" :
			"incomplete");
		if (!dc->ev && !dc->over) {
			fputs(", not decoded (see the error above)\n", out);
			continue;
		}
		if (dc->over && dc->packed) {
			uint64_t max = o->max_sequence ? o->max_sequence :
				       CALLS_MAX_SEQUENCE;
			struct pap_cev *pre;
			size_t npre;

			/* the first events of the packed form */
			fprintf(out, ", %" PRIu64 " events (decoded packed)",
				dc->pk.total);
			if (pap_cseq_expand_prefix(&dc->pk, max, &pre,
						   &npre)) {
				fputs(": out of memory to show them\n", out);
				continue;
			}
			fprintf(out, ", the first %zu shown\n", npre);
			if (call_tree_print(out, &dc->prog->b, pre, npre, 2)) {
				fprintf(stderr, "%s: %s: calls record %zu: its "
					"events make no sequence\n", pap_prog,
					dp->file, dc->recno);
				dp->d->errors++;
			}
			free(pre);
			continue;
		}
		if (dc->over) {
			fprintf(out, ", over %" PRIu64 " events: not shown\n",
				c.decode_max);
			continue;
		}
		nev = shown_events(dc, o, &cut);
		fprintf(out, ", %zu events", dc->nev);
		if (dc->nev && dc->ev[0].kind == PAP_CEV_FORK)
			fputs(", starts in a forked child", out);
		if (cut)
			fprintf(out, ", the first %zu shown", nev);
		fputc('\n', out);
		if (call_tree_print(out, &dc->prog->b, dc->ev, nev, 2)) {
			fprintf(stderr, "%s: %s: calls record %zu: its events "
				"make no sequence\n", pap_prog, dp->file,
				dc->recno);
			dp->d->errors++;
		}
	}
	if (shown < c.n)
		fprintf(out, "(%zu more sequences: --top)\n", c.n - shown);
	runs = runs_of(&c, &nruns, 1);
	call_contexts_text(out, runs, nruns, o, dp->d, dp->file);
	if (o->k)
		call_kgrams_text(out, runs, nruns, o, dp->d, dp->file, 0);
	free(runs);
	calls_free(&c);
}
