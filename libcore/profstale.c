/* SPDX-License-Identifier: MIT */
/*
 * profstale.c - records of a function's older build left out of a
 * profile, as gcov drops the counts of an object that was rebuilt
 * (profdata.h, pap_profile_drop_stale; doc/formats.md, "Stale builds").
 */
#include <stdlib.h>
#include <string.h>

#include "fnkey.h"
#include "profdata.h"

/* A function name of a profile, split, to be grouped by function. */
struct st_name {
	struct pap_fnkey k;
	uint32_t gen;
	uint32_t index;		/* in the profile's names */
};

/* Orders by ASMNAME, then METAFILE, then newest first. */
static int st_cmp(const void *a, const void *b)
{
	const struct st_name *x = a, *y = b;
	size_t n = x->k.name_len < y->k.name_len ? x->k.name_len :
		   y->k.name_len;
	int c = memcmp(x->k.name, y->k.name, n);

	if (c || x->k.name_len != y->k.name_len)
		return c ? c : x->k.name_len < y->k.name_len ? -1 : 1;
	n = x->k.meta_len < y->k.meta_len ? x->k.meta_len : y->k.meta_len;
	c = n ? memcmp(x->k.meta, y->k.meta, n) : 0;
	if (c || x->k.meta_len != y->k.meta_len)
		return c ? c : x->k.meta_len < y->k.meta_len ? -1 : 1;
	if (x->gen != y->gen)
		return x->gen > y->gen ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Do @a and @b name one function (ASMNAME and METAFILE)? */
static int st_same_fn(const struct st_name *a, const struct st_name *b)
{
	return a->k.name_len == b->k.name_len &&
	       !memcmp(a->k.name, b->k.name, a->k.name_len) &&
	       a->k.meta_len == b->k.meta_len &&
	       (!a->k.meta_len || !memcmp(a->k.meta, b->k.meta,
					  a->k.meta_len));
}

/*
 * Marks in @stale[] the names of @v[0..@n) (sorted by st_cmp) that an
 * untied newer checksum of the same function replaces; the functions
 * that lose records.
 */
static size_t st_mark(const struct st_name *v, size_t n, unsigned char *stale)
{
	size_t i = 0, j, nfns = 0;

	while (i < n) {
		for (j = i + 1; j < n && st_same_fn(&v[i], &v[j]); j++)
			;
		/* v[i] is the newest; a tie with the next decides nothing */
		if (j - i > 1 && v[i + 1].gen < v[i].gen) {
			nfns++;
			for (i++; i < j; i++)
				stale[v[i].index] = 1;
		}
		i = j;
	}
	return nfns;
}

int pap_profile_drop_stale(struct pap_profile *p, uint64_t *nrecs,
			   size_t *nfns)
{
	struct pap_profile keep;
	struct st_name *v;
	unsigned char *stale;
	size_t i, n = 0, fns;
	uint64_t dropped = 0;
	int err = PAP_OK;

	if (nrecs)
		*nrecs = 0;
	if (nfns)
		*nfns = 0;
	if (p->by_address || p->nnames < 2)
		return PAP_OK;
	v = malloc(p->nnames * sizeof(*v));
	stale = calloc(p->nnames, 1);
	if (!v || !stale) {
		free(v);
		free(stale);
		return PAP_ENOMEM;
	}
	for (i = 0; i < p->nnames; i++) {
		const char *t = p->names[i].text;

		if (pap_fnkey_split(t, strlen(t), &v[n].k))
			continue;	/* not a key: never dropped */
		/* a program's or unit's key (pap/records.h) names a build by
		 * its sum: two sums are two programs, not a rebuild of one,
		 * and the decoder checks them against the units' metadata */
		if (t[0] == '%')
			continue;
		v[n].gen = p->names[i].gen;
		v[n++].index = (uint32_t)i;
	}
	qsort(v, n, sizeof(*v), st_cmp);
	fns = st_mark(v, n, stale);
	free(v);
	if (!fns)
		goto out;
	/* the records kept, into a profile of their own */
	pap_profile_init(&keep);
	keep.mem = p->mem;
	keep.max_recs = p->max_recs;
	keep.gen = p->gen;
	for (i = 0; i < p->nrecs && !err; i++) {
		const struct pap_prof_rec *r = &p->recs[i];

		if (stale[r->name]) {
			dropped++;
			continue;
		}
		err = pap_profile_add(&keep, p->names[r->name].text, r->kind,
				      r->complete, r->value, r->bps, r->nbps,
				      r->count);
	}
	if (err) {
		pap_profile_free(&keep);
		goto out;
	}
	keep.lost = p->lost;
	pap_profile_free(p);
	*p = keep;
	if (nrecs)
		*nrecs = dropped;
	if (nfns)
		*nfns = fns;
out:
	free(stale);
	return err;
}
