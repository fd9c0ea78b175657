/* SPDX-License-Identifier: MIT */
/*
 * coverage.c - how much of a function's acyclic paths its decoded paths
 * took, and counts written so that astronomically many stay readable.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "decoder.h"

/* A set of 64-bit values: open addressing, the value plus one stored. */
struct idset {
	uint64_t *slot;
	size_t nslots, n;
};

/* Adds @v to @s; 0, or -1 when memory is short. */
static int idset_add(struct idset *s, uint64_t v)
{
	size_t i;

	if (s->n + 1 > s->nslots / 2) {
		struct idset g = { NULL, s->nslots ? 2 * s->nslots : 1024, 0 };

		g.slot = calloc(g.nslots, sizeof(*g.slot));
		if (!g.slot)
			return -1;
		for (i = 0; i < s->nslots; i++)
			if (s->slot[i])
				idset_add(&g, s->slot[i] - 1);
		free(s->slot);
		*s = g;
	}
	/* v + 1 == 0 only for UINT64_MAX, above every Ball-Larus id */
	for (i = (size_t)((v * 0x9e3779b97f4a7c15ull) >> 20) & (s->nslots - 1);
	     s->slot[i]; i = (i + 1) & (s->nslots - 1))
		if (s->slot[i] == v + 1)
			return 0;
	s->slot[i] = v + 1;
	s->n++;
	return 0;
}

int64_t func_bl_taken(struct dfunc *f)
{
	struct idset set = { NULL, 0, 0 };
	uint64_t *ids;
	size_t m, i, k;
	int64_t distinct = -1;

	for (i = 0; i < f->npaths; i++) {
		progress("counting Ball-Larus paths", i, f->npaths);
		/* a path without repeats is cheaper split than formed */
		if (path_repeats(&f->paths[i]) ?
		    path_bl_idset(f, &f->paths[i], &ids, &m) :
		    path_bl_ids(f, &f->paths[i], &ids, &m))
			goto out;
		for (k = 0; k < m; k++)
			if (ids[k] == UINT64_MAX || idset_add(&set, ids[k])) {
				free(ids);
				goto out;
			}
		free(ids);
	}
	distinct = (int64_t)set.n;
out:
	progress_done();
	free(set.slot);
	return distinct;
}


void fmt_count(char *buf, size_t len, uint64_t v)
{
	if (v < COUNT_EXACT)
		snprintf(buf, len, "%" PRIu64, v);
	else
		snprintf(buf, len, "%.2e", (double)v);
}

void fmt_share(char *buf, size_t len, double part, double whole)
{
	double pct = whole > 0 ? 100.0 * part / whole : 0;

	if (whole <= 0)
		snprintf(buf, len, "-");
	else if (pct >= 0.1 || part <= 0)
		snprintf(buf, len, "%.1f%%", pct);
	else
		snprintf(buf, len, "%.2g%%", pct);
}

int func_coverage(struct dfunc *f, struct bl_coverage *c)
{
	int64_t t = func_bl_taken(f);

	c->taken = 0;
	c->feasible = 0;
	if (t < 0 || !f->bl)
		return -1;
	c->taken = (uint64_t)t;
	c->feasible = f->bl->start_count;
	return 0;
}
