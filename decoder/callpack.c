/* SPDX-License-Identifier: MIT */
/*
 * callpack.c - the packed form of a long call sequence (doc/formats.md,
 * "call_paths", "packed"): the sequence's names cut into pieces, each
 * distinct piece listed once, and a form over the pieces' numbers in the
 * shape of a path's blocks_packed: each number after a space, a repeated
 * run written once as " ( ... )^N", runs nested.  Expanding the form and
 * writing each piece's names in its place gives the sequence exactly.
 *
 * Repeats are found on the names, not on the record: a pass replaces,
 * from left to right, the longest-covering tandem repeat of a period of
 * 1 to PACK_PERIOD items (the shortest period among equals) by one item
 * standing for it, interned so that equal repeats are one item; passes
 * go on over the items, nesting repeats, while one shortens the list.
 * Each pass is O(n * PACK_PERIOD^2) at worst, O(n * PACK_PERIOD) when
 * items rarely match.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decoder.h"
#include "util.h"

#define PACK_PERIOD 32
#define PACK_PASSES 6

/* An item: a name (nkids == 0) or a repeat of its kids reps times. */
struct pitem {
	uint64_t reps;
	uint32_t sym;		/* a name: the call_seq item */
	uint32_t kid, nkids;	/* a repeat: kids[kid..kid + nkids) */
	uint64_t hash;
};

struct packer {
	struct pitem *it;
	size_t nit, capit;
	uint32_t *kids;
	size_t nkids, capkids;
	uint32_t *slot;		/* items by content, index + 1 */
	size_t nslot;
	int oom;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static int same(const struct packer *p, const struct pitem *x, uint64_t reps,
		uint32_t sym, const uint32_t *kids, uint32_t nkids)
{
	return x->reps == reps && x->nkids == nkids &&
	       (nkids ? !memcmp(p->kids + x->kid, kids,
				nkids * sizeof(*kids)) : x->sym == sym);
}

static int rehash(struct packer *p)
{
	size_t n = p->nslot ? 2 * p->nslot : 1024, i, j;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -1;
	for (i = 0; i < p->nit; i++) {
		for (j = p->it[i].hash & (n - 1); s[j]; j = (j + 1) & (n - 1))
			;
		s[j] = (uint32_t)i + 1;
	}
	free(p->slot);
	p->slot = s;
	p->nslot = n;
	return 0;
}

/* The item for a name @sym (@nkids 0) or for @kids repeated @reps
 * times; the same one for the same content.  UINT32_MAX: no memory. */
static uint32_t intern(struct packer *p, uint64_t reps, uint32_t sym,
		       const uint32_t *kids, uint32_t nkids)
{
	uint64_t h = mix(mix(0, reps), nkids ? nkids : (uint64_t)sym << 1 | 1);
	struct pitem *x;
	uint32_t i;
	size_t j;

	for (i = 0; i < nkids; i++)
		h = mix(h, p->it[kids[i]].hash);
	if (2 * (p->nit + 1) > p->nslot && rehash(p))
		goto oom;
	for (j = h & (p->nslot - 1); p->slot[j]; j = (j + 1) & (p->nslot - 1)) {
		x = &p->it[p->slot[j] - 1];
		if (x->hash == h && same(p, x, reps, sym, kids, nkids))
			return p->slot[j] - 1;
	}
	if (p->nit >= UINT32_MAX - 1 ||
	    (p->nit == p->capit &&
	     pap_grow(&p->it, &p->capit, sizeof(*p->it), 256)))
		goto oom;
	while (p->nkids + nkids > p->capkids)
		if (pap_grow(&p->kids, &p->capkids, sizeof(*p->kids), 256))
			goto oom;
	x = &p->it[p->nit];
	x->reps = reps;
	x->sym = sym;
	x->kid = (uint32_t)p->nkids;
	x->nkids = nkids;
	x->hash = h;
	if (nkids)
		memcpy(p->kids + p->nkids, kids, nkids * sizeof(*kids));
	p->nkids += nkids;
	p->slot[j] = (uint32_t)++p->nit;
	return (uint32_t)p->nit - 1;
oom:
	p->oom = 1;
	return UINT32_MAX;
}

/* One pass over @a[0..*@m), in place; 1 when it shortened the list. */
static int pass(struct packer *p, uint32_t *a, size_t *m)
{
	size_t i = 0, o = 0, n = *m, per, r, best_p, best_r;

	while (i < n) {
		best_p = 0;
		best_r = 1;
		for (per = 1; per <= PACK_PERIOD && i + 2 * per <= n; per++) {
			for (r = 1; i + (r + 1) * per <= n &&
			     !memcmp(a + i, a + i + r * per,
				     per * sizeof(*a)); r++)
				;
			if (r >= 2 && r * per > best_r * best_p) {
				best_p = per;
				best_r = r;
			}
		}
		if (!best_p) {
			a[o++] = a[i++];
			continue;
		}
		a[o] = intern(p, best_r, 0, a + i, (uint32_t)best_p);
		if (a[o] == UINT32_MAX)
			return 0;
		o++;
		i += best_p * best_r;
	}
	*m = o;
	return o < n;
}

/* The distinct pieces: runs of names, by content. */
struct pieces {
	uint32_t *sym;		/* all pieces' names, one after another */
	size_t nsym, capsym;
	size_t *start;		/* piece i: sym[start[i]..start[i + 1]) */
	size_t n, cap;
	uint32_t *slot;
	size_t nslot;
	uint64_t *hash;
	size_t caphash;
};

/* The number of the piece @s[0..@n); SIZE_MAX when memory is short. */
static size_t piece_of(struct pieces *pc, const uint32_t *s, size_t n)
{
	uint64_t h = mix(0, n);
	size_t i, j;

	for (i = 0; i < n; i++)
		h = mix(h, s[i]);
	if (2 * (pc->n + 1) > pc->nslot) {
		size_t ns = pc->nslot ? 2 * pc->nslot : 256;
		uint32_t *sl = calloc(ns, sizeof(*sl));

		if (!sl)
			return SIZE_MAX;
		for (i = 0; i < pc->n; i++) {
			for (j = pc->hash[i] & (ns - 1); sl[j];
			     j = (j + 1) & (ns - 1))
				;
			sl[j] = (uint32_t)i + 1;
		}
		free(pc->slot);
		pc->slot = sl;
		pc->nslot = ns;
	}
	for (j = h & (pc->nslot - 1); pc->slot[j];
	     j = (j + 1) & (pc->nslot - 1)) {
		size_t k = pc->slot[j] - 1;

		if (pc->hash[k] == h && pc->start[k + 1] - pc->start[k] == n &&
		    !memcmp(pc->sym + pc->start[k], s, n * sizeof(*s)))
			return k;
	}
	while (pc->nsym + n > pc->capsym)
		if (pap_grow(&pc->sym, &pc->capsym, sizeof(*pc->sym), 256))
			return SIZE_MAX;
	if (pc->n + 2 > pc->cap &&
	    pap_grow(&pc->start, &pc->cap, sizeof(*pc->start), 64))
		return SIZE_MAX;
	if (pc->n + 1 > pc->caphash &&
	    pap_grow(&pc->hash, &pc->caphash, sizeof(*pc->hash), 64))
		return SIZE_MAX;
	if (!pc->n)
		pc->start[0] = 0;
	memcpy(pc->sym + pc->nsym, s, n * sizeof(*s));
	pc->nsym += n;
	pc->hash[pc->n] = h;
	pc->start[pc->n + 1] = pc->nsym;
	pc->slot[j] = (uint32_t)++pc->n;
	return pc->n - 1;
}

/* Writing the form: what is left of the budget of marks and names. */
struct fout {
	FILE *f;
	struct packer *p;
	struct pieces pc;
	uint32_t *run;		/* the names of the piece being made */
	size_t nrun, caprun;
	size_t budget;
	int cut, oom;
};

static void flush_run(struct fout *w)
{
	size_t k;

	if (!w->nrun || w->cut)
		return;
	k = piece_of(&w->pc, w->run, w->nrun);
	if (k == SIZE_MAX) {
		w->oom = 1;
		return;
	}
	fprintf(w->f, " %zu", k);
	w->nrun = 0;
}

static void use(struct fout *w, size_t n)
{
	if (w->budget < n) {
		w->cut = 1;
		w->budget = 0;
	} else {
		w->budget -= n;
	}
}

/* The form of the items @a[0..@n); nested repeats recurse, at most
 * PACK_PASSES deep. */
static void form(struct fout *w, const uint32_t *a, size_t n)
{
	size_t i;

	for (i = 0; i < n && !w->cut && !w->oom; i++) {
		const struct pitem *x = &w->p->it[a[i]];

		if (!x->nkids) {
			use(w, 1);
			if (w->cut)
				break;
			if (w->nrun == w->caprun &&
			    pap_grow(&w->run, &w->caprun, sizeof(*w->run),
				     64)) {
				w->oom = 1;
				break;
			}
			w->run[w->nrun++] = x->sym;
			continue;
		}
		flush_run(w);
		use(w, 2);
		if (w->cut)
			break;
		fputs(" (", w->f);
		form(w, w->p->kids + x->kid, x->nkids);
		flush_run(w);
		if (!w->cut)
			fprintf(w->f, " )^%" PRIu64, x->reps);
	}
}

/* Folds @a[0..@m) (items of @p) and writes its JSON packed form. */
static int pack_write(FILE *out, const struct pap_cs_built *b,
		      struct packer *p, uint32_t *a, size_t m, size_t budget,
		      int *cut)
{
	struct fout w = { 0 };
	char *buf = NULL;
	size_t i, nbuf = 0;
	int level, r = -1;

	for (level = 0; level < PACK_PASSES && pass(p, a, &m); level++)
		;
	if (p->oom)
		goto out;
	w.f = open_memstream(&buf, &nbuf);
	if (!w.f)
		goto out;
	w.p = p;
	w.budget = budget;
	form(&w, a, m);
	flush_run(&w);
	fclose(w.f);
	if (w.oom)
		goto out;
	fputs("{\"pieces\": [", out);
	for (i = 0; i < w.pc.n; i++) {
		struct call_seq one = { w.pc.sym + w.pc.start[i],
					w.pc.start[i + 1] - w.pc.start[i], 0 };

		fputs(i ? ", " : "", out);
		call_seq_json(out, b, &one, one.n);
	}
	fputs("], \"form\": ", out);
	json_string(out, buf ? buf : "");
	fputc('}', out);
	*cut = w.cut;
	r = 0;
out:
	free(buf);
	free(w.run);
	free(w.pc.sym);
	free(w.pc.start);
	free(w.pc.slot);
	free(w.pc.hash);
	return r;
}

static void packer_free(struct packer *p)
{
	free(p->it);
	free(p->kids);
	free(p->slot);
}

int call_pack_json(FILE *out, const struct pap_cs_built *b,
		   const struct call_seq *q, size_t budget, int *cut)
{
	return call_pack_json_packed(out, b, q, NULL, 0, budget, cut);
}

int call_pack_json_packed(FILE *out, const struct pap_cs_built *b,
			  const struct call_seq *q,
			  const struct pap_cev_rep *reps, size_t nreps,
			  size_t budget, int *cut)
{
	struct packer p = { 0 };
	uint32_t *a = malloc((q->n + 1) * sizeof(*a));
	size_t i, m = 0, r = 0;
	int ret = -1;

	*cut = 0;
	if (!a)
		return -1;
	for (i = 0; i < q->n; i++) {
		a[i] = intern(&p, 1, q->item[i], NULL, 0);
		if (a[i] == UINT32_MAX)
			goto out;
	}
	/* each repeat of the record one item over its body's names */
	for (i = 0; i < q->n; m++) {
		if (r < nreps && reps[r].at == i) {
			a[m] = intern(&p, reps[r].count, 0, a + i,
				      (uint32_t)reps[r].len);
			i += reps[r++].len;
		} else {
			a[m] = a[i++];
		}
		if (a[m] == UINT32_MAX)
			goto out;
	}
	ret = pack_write(out, b, &p, a, m, budget, cut);
out:
	packer_free(&p);
	free(a);
	return ret;
}
