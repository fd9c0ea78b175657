/* SPDX-License-Identifier: MIT */
/*
 * calldiff.c - pap-decode diff of two profiles' call sequences and
 * calling contexts: what appears, disappears or changes count, the
 * biggest changes first, --top of each.
 *
 * A sequence is known by its names (the JSON report's "sequence"), as a
 * 64-bit hash and its length, so that two builds of a program compare;
 * a context by its chain of names with each call's caller and line, as
 * the text report prints it.  Equal keys are one (their counts summed).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callctx.h"
#include "decoder.h"
#include "util.h"

/* Names shown of a sequence at most. */
#define SHOWN_NAMES 12

struct ckey {
	uint64_t hash;
	size_t len;		/* sequences: names; contexts: 0 */
	char *text;		/* what is printed */
	uint64_t count;
};

struct ckeys {
	struct ckey *k;
	size_t n, cap;
	int oom;
};

static uint64_t fnv_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (h ^ 0xff) * 0x100000001b3ull;	/* a separator */
}

static void add_key(struct ckeys *ks, uint64_t hash, size_t len, char *text,
		    uint64_t count)
{
	if (!text || (ks->n == ks->cap &&
		      pap_grow(&ks->k, &ks->cap, sizeof(*ks->k), 64))) {
		free(text);
		ks->oom = 1;
		return;
	}
	ks->k[ks->n].hash = hash;
	ks->k[ks->n].len = len;
	ks->k[ks->n].text = text;
	ks->k[ks->n++].count = count;
}

static const char *fname(const struct pap_cs_built *b, uint32_t fn)
{
	return fn < b->prog.nfn ? b->meta[fn]->name : "?";
}

/*
 * The key of sequence @q, names with @nreps repeats @reps (none for an
 * expanded sequence; a sequence too long to expand has its names as
 * the record packs them, a repeat's names once with its count, which
 * the record makes the same for the same sequence): the hash of its
 * names, their number, and its first names for people.
 */
static void seq_key_names(struct ckeys *ks, const struct call_run *run,
			  const struct call_seq *q,
			  const struct pap_cev_rep *reps, size_t nreps)
{
	uint64_t h = 0xcbf29ce484222325ull, names = 0;
	char *text = NULL, num[32];
	size_t size = 0, i, r = 0, shown = 0;
	int opened = 0;		/* the repeat's "(" is shown */
	FILE *m = open_memstream(&text, &size);

	for (i = 0; i < q->n; i++) {
		uint32_t v = q->item[i];
		const char *pre = v & CALL_SEQ_OUTSIDE ? ">" : "";
		const char *name = fname(run->b, v & ~CALL_SEQ_OUTSIDE);
		uint64_t c = 1;

		if (r < nreps && reps[r].at == i) {
			h = fnv_str(h, "(");
			opened = m && shown < SHOWN_NAMES;
			if (opened)
				fputs(shown ? " (" : "(", m);
		}
		if (r < nreps && reps[r].at <= i)
			c = reps[r].count;
		names += c;
		h = fnv_str(fnv_str(h, pre), name);
		if (m && shown < SHOWN_NAMES)
			fprintf(m, "%s%s%s", shown++ &&
				!(r < nreps && reps[r].at == i) ? " " : "",
				pre, name);
		if (r < nreps && reps[r].at + reps[r].len == i + 1) {
			snprintf(num, sizeof(num), ")^%" PRIu64,
				 reps[r].count);
			h = fnv_str(h, num);
			if (opened)
				fputs(num, m);
			opened = 0;
			r++;
		}
	}
	if (m && names > SHOWN_NAMES)
		fprintf(m, " ... (%" PRIu64 " names)", names);
	if (m)
		fclose(m);
	add_key(ks, h, (size_t)names, m ? text : NULL, run->count);
}

/* One decoded sequence's key, from its expansion or, too long to
 * expand, from its packed form. */
static void seq_key(struct ckeys *ks, const struct call_run *run)
{
	struct call_seq q;
	struct pap_cev_rep *reps = NULL;
	size_t nreps = 0;
	int err;

	if (!run->ev && run->pk)
		err = call_sequence_packed(run->b, run->pk, &q, &reps, &nreps);
	else
		err = call_sequence(run->b, run->ev, run->nev, &q);
	if (err) {
		ks->oom = 1;
		return;
	}
	seq_key_names(ks, run, &q, reps, nreps);
	call_seq_free(&q);
	free(reps);
}

/* One context's part of its key: ">" for an entry from outside, the
 * name, " (caller:line)" for a call, into @buf; the name returned. */
static const char *ctx_part(const struct pap_cs_built *b,
			    const struct pap_forest *t, uint32_t v,
			    const char **pre, char *buf, size_t size)
{
	const struct pap_fnode *x = &t->nodes[v];

	buf[0] = 0;
	*pre = x->parent && pap_cctx_outside(x->label) ? ">" : "";
	if (x->parent) {
		uint32_t pf = pap_cctx_fn(t->nodes[x->parent].label);

		snprintf(buf, size, " (%s:%u)", fname(b, pf),
			 call_site_line(b, pf, pap_cctx_site(x->label)));
	}
	return fname(b, pap_cctx_fn(x->label));
}

/* Contexts shown this many calls deep at most; deeper ones show their
 * last CTX_SHOWN calls after "... (depth N) > ". */
#define CTX_SHOWN 8

/*
 * Every context of @t (program @b) as a key: its hash over the chain
 * from the root, made from its parent's (a parent is made before its
 * children, so its index is lower), and its text, at most CTX_SHOWN
 * calls of it.  O(contexts) however deep the chain.
 */
static void ctx_keys(struct ckeys *ks, const struct pap_cs_built *b,
		     const struct pap_forest *t)
{
	uint64_t *hs = malloc((t->n + 1) * sizeof(*hs));
	uint32_t v, w, depth, path[CTX_SHOWN];
	const char *pre, *name;
	char buf[64];

	if (!hs) {
		ks->oom = 1;
		return;
	}
	for (v = 1; v < t->n && !ks->oom; v++) {
		uint32_t up = t->nodes[v].parent;
		uint64_t h = up ? hs[up] : 0xcbf29ce484222325ull;
		char *text = NULL;
		size_t size = 0;
		FILE *m;

		name = ctx_part(b, t, v, &pre, buf, sizeof(buf));
		hs[v] = h = fnv_str(fnv_str(fnv_str(h, pre), name), buf);
		for (depth = 0, w = v; w && depth < CTX_SHOWN;
		     w = t->nodes[w].parent)
			path[depth++] = w;
		m = open_memstream(&text, &size);
		if (m && w)
			fprintf(m, "... (depth %u)", t->nodes[v].depth);
		while (m && depth-- > 0) {
			name = ctx_part(b, t, path[depth], &pre, buf,
					sizeof(buf));
			fprintf(m, "%s%s%s%s", t->nodes[path[depth]].parent ?
				" > " : "", pre, name, buf);
		}
		if (m)
			fclose(m);
		add_key(ks, h, 0, m ? text : NULL, t->nodes[v].count);
	}
	free(hs);
}

static int key_cmp(const void *x, const void *y)
{
	const struct ckey *a = x, *b = y;

	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	return (a->len > b->len) - (a->len < b->len);
}

/* Sorts @ks by key and sums equal keys into one. */
static void merge_equal(struct ckeys *ks)
{
	size_t i, o = 0;

	if (!ks->n)
		return;
	qsort(ks->k, ks->n, sizeof(*ks->k), key_cmp);
	for (i = 1; i < ks->n; i++) {
		if (!key_cmp(&ks->k[o], &ks->k[i])) {
			ks->k[o].count = pap_sat_add(ks->k[o].count,
						     ks->k[i].count);
			free(ks->k[i].text);
		} else {
			ks->k[++o] = ks->k[i];
		}
	}
	ks->n = o + 1;
}

static void keys_free(struct ckeys *ks)
{
	size_t i;

	for (i = 0; i < ks->n; i++)
		free(ks->k[i].text);
	free(ks->k);
	memset(ks, 0, sizeof(*ks));
}

/* One change: a key's count in the old and the new profile. */
struct cchange {
	const struct ckey *key;
	uint64_t a, b;
};

static int change_cmp(const void *x, const void *y)
{
	const struct cchange *p = x, *q = y;
	uint64_t dp = p->a > p->b ? p->a - p->b : p->b - p->a;
	uint64_t dq = q->a > q->b ? q->a - q->b : q->b - q->a;

	if (dp != dq)
		return dp < dq ? 1 : -1;
	return strcmp(p->key->text, q->key->text);
}

/* Prints the three sections of @what for keys @ka (old) and @kb. */
static int print_changes(const char *what, struct ckeys *ka, struct ckeys *kb,
			 const char *old, const char *new, size_t top)
{
	struct cchange *c = calloc(ka->n + kb->n + 1, sizeof(*c));
	size_t i = 0, j = 0, n = 0, s, k, shown;

	if (!c)
		return -1;
	while (i < ka->n || j < kb->n) {
		int d = i == ka->n ? 1 : j == kb->n ? -1 :
			key_cmp(&ka->k[i], &kb->k[j]);

		c[n].key = d <= 0 ? &ka->k[i] : &kb->k[j];
		c[n].a = d <= 0 ? ka->k[i++].count : 0;
		c[n].b = d >= 0 ? kb->k[j++].count : 0;
		if (c[n].a != c[n].b)
			n++;
	}
	qsort(c, n, sizeof(*c), change_cmp);
	for (s = 0; s < 3; s++) {
		if (s == 0)
			printf("%s that appear in %s:\n", what, new);
		else if (s == 1)
			printf("%s that disappear from %s:\n", what, old);
		else
			printf("%s whose count changes most:\n", what);
		for (k = shown = 0; k < n && (!top || shown < top); k++) {
			const struct cchange *x = &c[k];
			int sec = !x->a ? 0 : !x->b ? 1 : 2;

			if (sec != (int)s)
				continue;
			if (s < 2)
				printf("  %-10s %12" PRIu64 "  %s\n", s ?
				       "disappears" : "appears", s ? x->a :
				       x->b, x->key->text);
			else
				printf("  %-10s %" PRIu64 " -> %" PRIu64 "  %s\n",
				       x->b > x->a ? "grows" : "shrinks", x->a,
				       x->b, x->key->text);
			shown++;
		}
	}
	free(c);
	return 0;
}

int calls_diff(struct dprofile *da, struct dprofile *db, const struct ropts *o,
	       const char *old, const char *new)
{
	struct ckeys sa = { 0 }, sb = { 0 }, ca = { 0 }, cb = { 0 };
	struct call_runs xa, xb;
	struct call_run *ra, *rb;
	size_t na, nb, i;
	struct pap_forest t;
	int rc = 0;

	if (calls_runs_load_packed(da, o, &xa) |
	    calls_runs_load_packed(db, o, &xb))
		rc = -1;
	ra = xa.run;
	na = xa.n;
	rb = xb.run;
	nb = xb.n;
	if (!na && !nb)
		goto out;
	for (i = 0; i < na; i++)
		seq_key(&sa, &ra[i]);
	for (i = 0; i < nb; i++)
		seq_key(&sb, &rb[i]);
	/* contexts: one tree per program of each side */
	for (i = 0; i < na + nb; i++) {
		struct call_run *r = i < na ? &ra[i] : &rb[i - na];
		size_t j, first = i < na ? 0 : na;

		for (j = first; j < i; j++)
			if ((j < na ? ra[j].b : rb[j - na].b) == r->b)
				break;
		if (j < i)
			continue;	/* its program's tree is made */
		pap_forest_init(&t);
		for (j = i; j < (i < na ? na : na + nb); j++) {
			struct call_run *s = j < na ? &ra[j] : &rb[j - na];

			if (s->b == r->b &&
			    (s->pk ? pap_cctx_add_packed(&t, s->pk, s->count) :
			     pap_cctx_add(&t, s->ev, s->nev, s->count)))
				rc = -1;
		}
		ctx_keys(i < na ? &ca : &cb, r->b, &t);
		pap_forest_free(&t);
	}
	merge_equal(&sa);
	merge_equal(&sb);
	merge_equal(&ca);
	merge_equal(&cb);
	if (sa.oom || sb.oom || ca.oom || cb.oom ||
	    print_changes("call sequences", &sa, &sb, old, new, o->top) ||
	    print_changes("calling contexts", &ca, &cb, old, new, o->top)) {
		fprintf(stderr, "%s: error: out of memory\n", pap_prog);
		rc = -1;
	}
out:
	keys_free(&sa);
	keys_free(&sb);
	keys_free(&ca);
	keys_free(&cb);
	calls_runs_free(&xa);
	calls_runs_free(&xb);
	return rc;
}
