/* SPDX-License-Identifier: MIT */
/*
 * callkgram.c - the k-grams of call sequences (doc/reports.md, "call
 * k-grams"): every window of 1 to k consecutive names of a thread's
 * sequence (callrender.c's items: the function entered at a call, ">f"
 * for an entry from outside, the function returned to), counted as many
 * times as it occurred, each sequence weighted by its count.  A window
 * never spans two sequences.  The forest is libcore/kipf.c's k-IPF over
 * the items in place of Ball-Larus ids: a root is a name, a node at
 * depth d a window of d names.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "decoder.h"
#include "util.h"

int call_kgrams(const struct call_run *runs, size_t n,
		const struct pap_cs_built *b, uint32_t k,
		struct pap_forest *ipf)
{
	struct pap_kslab ks;
	struct call_seq q;
	size_t i, j;
	int err = PAP_OK;

	pap_kslab_init(&ks, k);
	for (i = 0; i < n && !err; i++) {
		if (runs[i].b != b || !runs[i].ev)
			continue;	/* too long to expand: not counted */
		if (call_sequence(b, runs[i].ev, runs[i].nev, &q)) {
			err = PAP_EINVAL;
			break;
		}
		for (j = 0; j < q.n && !err; j++)
			err = pap_kslab_item(&ks, q.item[j], runs[i].count);
		pap_kslab_marker(&ks);
		call_seq_free(&q);
	}
	if (!err)
		err = pap_kslab_to_kipf(&ks, ipf);
	pap_kslab_free(&ks);
	return err;
}

/* The distinct programs of @runs, in first-seen order, into a new
 * array; *@n of them (NULL: none, or out of memory). */
static const struct pap_cs_built **programs(const struct call_run *runs,
					    size_t n, size_t *np)
{
	const struct pap_cs_built **p = calloc(n + 1, sizeof(*p));
	size_t i, j;

	*np = 0;
	for (i = 0; p && i < n; i++) {
		for (j = 0; j < *np && p[j] != runs[i].b; j++)
			;
		if (j == *np)
			p[(*np)++] = runs[i].b;
	}
	return p;
}

static void put_name(FILE *out, const struct pap_cs_built *b, uint64_t item,
		     int json)
{
	uint32_t fn = (uint32_t)item & ~CALL_SEQ_OUTSIDE;
	const char *name = fn < b->prog.nfn ? b->meta[fn]->name : "?";
	const char *pre = item & CALL_SEQ_OUTSIDE ? ">" : "";

	if (json)
		json_prefixed_string(out, pre, name);
	else
		fprintf(out, "%s%s", pre, name);
}

struct kg_out {
	FILE *f;
	const struct pap_cs_built *b;
	size_t nodes, left;	/* text: written, and left out */
	size_t max;
	size_t roots;		/* JSON: roots written, all programs */
};

static void kt_enter(void *ctx, const struct pap_forest *ipf, uint32_t v,
		     uint64_t parent, uint64_t root, int first)
{
	struct kg_out *t = ctx;
	const struct pap_fnode *nd = &ipf->nodes[v];

	(void)first;
	if (t->max && t->nodes >= t->max) {
		t->left++;
		return;
	}
	t->nodes++;
	fprintf(t->f, "%12" PRIu64 "  %*s", nd->count, 2 * (nd->depth - 1),
		"");
	put_name(t->f, t->b, nd->label, 0);
	if (nd->depth > 1)
		fprintf(t->f, "  (%.1f%% of parent, %.1f%% of root)",
			parent ? 100.0 * nd->count / parent : 0.0,
			root ? 100.0 * nd->count / root : 0.0);
	fputc('\n', t->f);
}

static void k_leave(void *ctx, int last)
{
	(void)ctx;
	(void)last;
}

static void kj_enter(void *ctx, const struct pap_forest *ipf, uint32_t v,
		     uint64_t parent, uint64_t root, int first)
{
	struct kg_out *t = ctx;
	const struct pap_fnode *nd = &ipf->nodes[v];

	int comma = nd->depth == 1 ? t->roots++ > 0 : !first;

	(void)parent;
	(void)root;
	fprintf(t->f, "%s{\"name\": ", comma ? ", " : "");
	put_name(t->f, t->b, nd->label, 1);
	fprintf(t->f, ", \"count\": %" PRIu64 ", \"children\": [", nd->count);
}

static void kj_leave(void *ctx, int last)
{
	(void)last;
	fputs("]}", ((struct kg_out *)ctx)->f);
}

/* Builds and walks the k-grams of each program of @runs with @kv (whose
 * context is a struct kg_out); errors named and counted in @d. */
static void kgrams_walk(const struct call_run *runs, size_t n,
			const struct ropts *o, struct decoder *d,
			const char *file, struct kipf_visit *kv)
{
	struct kg_out *t = kv->ctx;
	const struct pap_cs_built **p;
	size_t np = 0, i;

	p = programs(runs, n, &np);
	for (i = 0; p && i < np; i++) {
		struct pap_forest ipf;
		int err;

		pap_forest_init(&ipf);
		err = call_kgrams(runs, n, p[i], o->k, &ipf);
		if (err) {
			fprintf(stderr, "%s: %s: the call k-grams could not "
				"be made: %s\n", pap_prog, file,
				pap_strerror(err));
			d->errors++;
		} else {
			t->b = p[i];
			kipf_walk(&ipf, 0, 0, 0, o->min_share, kv);
		}
		pap_forest_free(&ipf);
	}
	free(p);
}

void call_kgrams_text(FILE *out, const struct call_run *runs, size_t n,
		      const struct ropts *o, struct decoder *d,
		      const char *file, size_t max_nodes)
{
	struct kg_out t = { out, NULL, 0, 0, max_nodes, 0 };
	struct kipf_visit kv = { kt_enter, k_leave, NULL, &t };

	fprintf(out, "\ncall %u-grams (windows of 1 to %u consecutive names "
		"of a sequence, with their counts; nodes under %.0f%% of "
		"their root pruned):\n", o->k, o->k, 100.0 * o->min_share);
	kgrams_walk(runs, n, o, d, file, &kv);
	if (t.left)
		fprintf(out, "(%zu more k-gram nodes left out)\n", t.left);
}

void call_kgrams_json(FILE *out, const struct call_run *runs, size_t n,
		      const struct ropts *o, struct decoder *d,
		      const char *file)
{
	struct kg_out t = { out, NULL, 0, 0, 0, 0 };
	struct kipf_visit kv = { kj_enter, kj_leave, NULL, &t };

	fprintf(out, ",\n\"call_k\": %u, \"call_kgrams\": [", o->k);
	kgrams_walk(runs, n, o, d, file, &kv);
	fputs("]", out);
}
