/* SPDX-License-Identifier: MIT */
/*
 * callkgram.c - the k-grams of call sequences (doc/reports.md, "call
 * k-grams"): every window of 1 to k consecutive names of a thread's
 * sequence (callrender.c's items: the function entered at a call, ">f"
 * for an entry from outside, the function returned to), counted as many
 * times as it occurred, each sequence weighted by its count.  A window
 * never spans two sequences.  The forest is libcore/kipf.c's k-IPF over
 * the items in place of Ball-Larus ids: a root is a name, a node at
 * depth d a window of d names.  A sequence too long to expand is counted
 * from its packed names (add_packed).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "decoder.h"
#include "util.h"

/* A position in packed names: segment, copy, offset in it. */
struct vpos {
	size_t s, o;
	uint64_t j;
};

/* A segment: names [at, at + len) standing for count copies. */
struct vseg {
	size_t at, len;
	uint64_t count;
};

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The windows of 1..k names from @p counted @w times more. */
static int add_windows(struct pap_forest *ipf, const struct call_seq *q,
		       const struct vseg *seg, size_t nseg, struct vpos p,
		       uint32_t k, uint64_t w)
{
	uint32_t d, node = 0;

	for (d = 0; d < k && p.s < nseg; d++) {
		uint64_t item = q->item[seg[p.s].at + p.o];

		node = d ? pap_forest_child(ipf, node, item) :
			   pap_forest_root(ipf, item);
		if (!node)
			return PAP_ENOMEM;
		ipf->nodes[node].count = pap_sat_add(ipf->nodes[node].count,
						     w);
		if (++p.o == seg[p.s].len) {
			p.o = 0;
			if (++p.j == seg[p.s].count) {
				p.j = 0;
				p.s++;
			}
		}
	}
	return PAP_OK;
}

/*
 * Adds to @ipf the windows of @pk's names, each counted @w times, in
 * time of its packed names times k^2: the windows that start in a copy
 * of a repeat followed by k - 1 names of the same repeat are those of
 * its first copy, counted for each such copy; those of the last copies,
 * which reach past the repeat, are counted one by one.
 */
static int add_packed(struct pap_forest *ipf, const struct pap_cs_built *b,
		      const struct pap_cseq_packed *pk, uint32_t k,
		      uint64_t w)
{
	struct call_seq q;
	struct pap_cev_rep *reps;
	struct vseg *seg;
	size_t nreps, nseg = 0, i, at = 0, o;
	int err = PAP_OK;

	if (call_sequence_packed(b, pk, &q, &reps, &nreps))
		return PAP_EINVAL;
	seg = calloc(2 * nreps + 2, sizeof(*seg));
	if (!seg) {
		call_seq_free(&q);
		free(reps);
		return PAP_ENOMEM;
	}
	for (i = 0; i <= nreps; i++) {
		size_t to = i < nreps ? reps[i].at : q.n;

		if (to > at) {
			seg[nseg].at = at;
			seg[nseg].len = to - at;
			seg[nseg++].count = 1;
		}
		if (i < nreps) {
			seg[nseg].at = reps[i].at;
			seg[nseg].len = reps[i].len;
			seg[nseg++].count = reps[i].count;
			at = reps[i].at + reps[i].len;
		}
	}
	for (i = 0; i < nseg && !err; i++) {
		uint64_t len = seg[i].len, c = seg[i].count, tail, j;

		/* copies whose windows reach past the repeat */
		tail = c == 1 ? 1 : (k - 1 + len - 1) / len;
		if (tail > c)
			tail = c;
		for (o = 0; o < len && !err && c > tail; o++)
			err = add_windows(ipf, &q, seg, nseg,
					  (struct vpos){ i, o, 0 }, k,
					  sat_mul(w, c - tail));
		for (j = c - tail; j < c && !err; j++)
			for (o = 0; o < len && !err; o++)
				err = add_windows(ipf, &q, seg, nseg,
						  (struct vpos){ i, o, j }, k,
						  w);
	}
	free(seg);
	free(reps);
	call_seq_free(&q);
	return err;
}

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
			continue;	/* too long to expand: add_packed */
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
	for (i = 0; i < n && !err; i++)
		if (runs[i].b == b && !runs[i].ev && runs[i].pk)
			err = add_packed(ipf, b, runs[i].pk, k, runs[i].count);
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
