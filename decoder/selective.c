/* SPDX-License-Identifier: MIT */
/*
 * selective.c - pap-decode's report of selective profiles
 * (--format=selective, selective-json): for each function with paths of
 * interest, each path's count (0 when never taken), its activations and
 * how many ended early.
 *
 * A selective function's records are those of its selective plan
 * (libcore/selective.h): one per activation that was not terminated,
 * matched against the plan's decode table (pap_sel_match()).  Early ends
 * are the records of the companion key "ASMNAME%early" (value: 1, 2 or 3
 * for T1, T2, T3) the plugin emits at a termination.
 */
#include <stdlib.h>
#include <string.h>

#include <pap/version.h>

#include "decoder.h"
#include "fnkey.h"
#include "selective.h"

#define EARLY_SUFFIX "%early:"

int sel_early_key(const char *key)
{
	return strstr(key, EARLY_SUFFIX) != NULL;
}

/* The function of @r (its companion's, for an early end), or NULL. */
static struct pap_meta_fn *sel_fn(struct decoder *d,
				  const struct pap_prof_rec *r, int *early)
{
	const char *at = strstr(r->fn, EARLY_SUFFIX);
	char key[PAP_FNKEY_MAX];
	size_t n = at ? (size_t)(at - r->fn) : 0;

	*early = at != NULL;
	if (!at)
		return resolve_fn(d, r->fn);
	if (strlen(r->fn) >= sizeof(key))
		return NULL;
	memcpy(key, r->fn, n);
	strcpy(key + n, at + strlen(EARLY_SUFFIX) - 1);
	return resolve_fn(d, key);
}

/* @fn's entry of @fs (of *@n), added when new; NULL out of memory. */
static struct sel_func *sel_func_of(struct sel_func **fs, size_t *n,
				    struct pap_meta_fn *fn)
{
	size_t i;
	struct sel_func *f;

	for (i = 0; i < *n; i++)
		if ((*fs)[i].fn == fn)
			return &(*fs)[i];
	f = realloc(*fs, (*n + 1) * sizeof(**fs));
	if (!f)
		return NULL;
	*fs = f;
	f = &(*fs)[(*n)++];
	memset(f, 0, sizeof(*f));
	f->fn = fn;
	f->count = calloc(fn->sel->npaths + 1, sizeof(*f->count));
	return f->count ? f : NULL;
}

/* Counts record @r of selective function @f. */
static int sel_count(struct sel_func *f, const struct pap_prof_rec *r,
		     struct pap_bpack_buf *buf)
{
	struct pap_activation act;
	const struct pap_breakpoint *bps;
	size_t nbps;
	uint64_t id;
	uint32_t k;
	int err;

	f->activations = pap_sat_add(f->activations, r->count);
	pap_activation_init(&act);
	if (r->kind == PAP_REC_BL) {
		id = r->value;
		act.ids = &id;
		act.nids = 1;
	} else {
		err = pap_bunpack_into(buf, r->bps, r->nbps, (uint64_t)1 << 28,
				       &bps, &nbps);
		if (err)
			return err;
		act.bps = (struct pap_breakpoint *)bps;
		act.nbps = nbps;
		act.nrecords = 1;
		act.final = r->value;
	}
	err = pap_sel_match(f->fn->sel, &act, &k);
	if (err)
		return err;
	/* a path of interest may end in a cut (a noreturn call) */
	if (k == PAP_SEL_OTHER && !r->complete)
		f->cut = pap_sat_add(f->cut, r->count);
	else if (k == PAP_SEL_OTHER)
		f->other = pap_sat_add(f->other, r->count);
	else
		f->count[k] = pap_sat_add(f->count[k], r->count);
	return 0;
}

uint64_t sel_path_count(const struct sel_func *f, uint32_t k)
{
	return f->count[f->fn->sel_num[k]];
}

uint32_t sel_paths_taken(const struct sel_func *f)
{
	uint32_t k, n = 0;

	for (k = 0; k < f->fn->nsel; k++)
		n += sel_path_count(f, k) > 0;
	return n;
}

static void sel_print_text(FILE *out, const struct sel_func *f)
{
	uint64_t early = f->early[1] + f->early[2] + f->early[3];
	uint32_t k;

	fprintf(out, "function %s (%s, %u paths of interest)\n",
		f->fn->name, pap_sel_strategy_name(f->fn->sel->strategy),
		f->fn->sel->npaths);
	fprintf(out, "  activations %llu, ended early %llu (T1 %llu, T2 %llu, "
		"T3 %llu), other paths %llu, cut short %llu\n",
		(unsigned long long)f->activations,
		(unsigned long long)early, (unsigned long long)f->early[1],
		(unsigned long long)f->early[2],
		(unsigned long long)f->early[3],
		(unsigned long long)f->other, (unsigned long long)f->cut);
	for (k = 0; k < f->fn->nsel; k++)
		fprintf(out, "  %12llu  %s\n",
			(unsigned long long)sel_path_count(f, k),
			f->fn->sel_where[k]);
}

void print_selective_json(FILE *out, const struct sel_report *rep)
{
	size_t i;
	uint32_t k;

	fputs("[", out);
	for (i = 0; i < rep->nfs; i++) {
		const struct sel_func *f = &rep->fs[i];

		fprintf(out, "%s\n    {\"function\": ", i ? "," : "");
		json_string(out, f->fn->name);
		fprintf(out, ", \"strategy\": \"%s\", \"activations\": %llu, "
			"\"ended_early\": {\"t1\": %llu, \"t2\": %llu, "
			"\"t3\": %llu}, \"other\": %llu, \"cut\": %llu, "
			"\"paths\": [",
			pap_sel_strategy_name(f->fn->sel->strategy),
			(unsigned long long)f->activations,
			(unsigned long long)f->early[1],
			(unsigned long long)f->early[2],
			(unsigned long long)f->early[3],
			(unsigned long long)f->other,
			(unsigned long long)f->cut);
		for (k = 0; k < f->fn->nsel; k++) {
			fprintf(out, "%s\n      {\"spec\": ", k ? "," : "");
			json_string(out, f->fn->sel_where[k]);
			fprintf(out, ", \"count\": %llu}",
				(unsigned long long)sel_path_count(f, k));
		}
		fputs("]}", out);
	}
	fputs("\n]", out);
}

/*
 * Adds to @rep the selective functions of the metadata read that have no
 * record (never run): their paths of interest count 0.  One of the same
 * name and file as a function already there (another build's metadata)
 * is left out.  0, or -1 out of memory (said).
 */
static int sel_add_unrun(struct decoder *d, const struct ropts *o,
			 struct sel_report *rep)
{
	size_t i, j, had = rep->nfs;

	for (i = 0; i < d->meta.nfns; i++) {
		struct pap_meta_fn *fn = d->meta.fns[i];

		if (!fn->sel || (o && o->have_regex &&
				 regexec(&o->fn_regex, fn->name, 0, NULL, 0)))
			continue;
		for (j = 0; j < rep->nfs; j++)
			if (rep->fs[j].fn == fn ||
			    (j < had && !strcmp(rep->fs[j].fn->name, fn->name) &&
			     !strcmp(rep->fs[j].fn->file, fn->file)))
				break;
		if (j < rep->nfs)
			continue;
		if (!sel_func_of(&rep->fs, &rep->nfs, fn)) {
			fprintf(stderr, "%s: error: out of memory\n", pap_prog);
			return -1;
		}
	}
	return 0;
}

int sel_report_build(struct decoder *d, const struct pap_profile *prof,
		     const struct ropts *o, struct sel_report *rep)
{
	struct pap_bpack_buf buf;
	size_t i;
	int rc = 0, early, err;

	memset(rep, 0, sizeof(*rep));
	memset(&buf, 0, sizeof(buf));
	for (i = 0; i < prof->nrecs; i++) {
		const struct pap_prof_rec *r = &prof->recs[i];
		struct pap_meta_fn *fn = sel_fn(d, r, &early);
		struct sel_func *f;

		if (!fn || !fn->sel)
			continue;
		if (o && o->have_regex &&
		    regexec(&o->fn_regex, fn->name, 0, NULL, 0))
			continue;
		f = sel_func_of(&rep->fs, &rep->nfs, fn);
		if (!f) {
			fprintf(stderr, "%s: error: out of memory\n", pap_prog);
			rc = -1;
			break;
		}
		if (early) {
			f->early[r->value < 4 ? r->value : 0] += r->count;
			f->activations = pap_sat_add(f->activations, r->count);
			continue;
		}
		err = sel_count(f, r, &buf);
		if (err) {
			fprintf(stderr, "%s: error: function %s: a record "
				"cannot be matched: %s\n", pap_prog, fn->name,
				pap_strerror(err));
			rc = -1;
		}
	}
	pap_bpack_buf_free(&buf);
	if (sel_add_unrun(d, o, rep))
		rc = -1;
	return rc;
}

void sel_report_free(struct sel_report *rep)
{
	size_t i;

	for (i = 0; i < rep->nfs; i++)
		free(rep->fs[i].count);
	free(rep->fs);
	memset(rep, 0, sizeof(*rep));
}

int print_selective(FILE *out, struct decoder *d,
		    const struct pap_profile *prof, const struct ropts *o,
		    int json)
{
	struct sel_report rep;
	int rc = sel_report_build(d, prof, o, &rep);
	size_t i;

	if (json) {
		fprintf(out, "{\"format_version\": %d, \"pap_version\": \"%s\", "
			"\"lost\": %llu, \"selective\": ", JSON_FORMAT_VERSION,
			PAP_VERSION_STRING,
			(unsigned long long)(prof ? prof->lost : 0));
		print_selective_json(out, &rep);
		fputs("}\n", out);
	} else if (rep.nfs) {
		fprintf(out, "selective functions: each path of interest's "
			"count, by its spec's FILE:LINE\n");
		for (i = 0; i < rep.nfs; i++)
			sel_print_text(out, &rep.fs[i]);
	}
	sel_report_free(&rep);
	return rc;
}

/* The metadata files read by sel_profile_selective() (meta_read_once()). */
struct sel_metas {
	struct pap_meta meta;
	char **loaded;
	size_t nloaded;
};

/*
 * Is @p a selective build's profile: one with an early end, or with a
 * function whose metadata (found through its key) has a selection?
 */
static int sel_profile_selective(const struct pap_profile *p,
				 struct sel_metas *s)
{
	char name[PAP_FNKEY_MAX], meta[PAP_FNKEY_MAX], err[256];
	struct pap_meta_fn *fn;
	struct pap_fnkey k;
	size_t i;

	for (i = 0; i < p->nrecs; i++) {
		const char *key = p->recs[i].fn;

		if (sel_early_key(key))
			return 1;
		if (pap_fnkey_split(key, strlen(key), &k) || !k.meta)
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)k.name_len, k.name);
		snprintf(meta, sizeof(meta), "%.*s", (int)k.meta_len, k.meta);
		/* one that cannot be read or parsed adds nothing, quietly
		 * (the merge does not need it) */
		meta_read_once(&s->meta, &s->loaded, &s->nloaded, meta, err,
			       sizeof(err));
		fn = pap_meta_find(&s->meta, name, k.checksum, meta);
		if (fn && fn->sel)
			return 1;
	}
	return 0;
}

struct sel_check {
	struct sel_metas s;
	int kind;		/* -1 until the first profile */
	const char *first;	/* its name */
};

struct sel_check *sel_check_new(void)
{
	struct sel_check *c = calloc(1, sizeof(*c));

	if (c) {
		pap_meta_init(&c->s.meta);
		c->kind = -1;
	}
	return c;
}

int sel_check_add(struct sel_check *c, const struct pap_profile *p,
		  const char *file)
{
	int k = sel_profile_selective(p, &c->s);

	if (c->kind < 0) {
		c->kind = k;
		c->first = file;
		return 0;
	}
	if (k == c->kind)
		return 0;
	fprintf(stderr, "%s: error: merge: %s is a selective build's profile "
		"and %s a full build's: their counts are of different paths; "
		"not merged\n", pap_prog, k ? file : c->first,
		k ? c->first : file);
	return -1;
}

void sel_check_free(struct sel_check *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->s.nloaded; i++)
		free(c->s.loaded[i]);
	free(c->s.loaded);
	pap_meta_free(&c->s.meta);
	free(c);
}
