/* SPDX-License-Identifier: MIT */
/*
 * coverage.c - how much of a function's acyclic paths its decoded paths
 * took, and counts written so that astronomically many stay readable.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "blstream.h"
#include "decoder.h"

int idset_add(struct idset *s, uint64_t v)
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

/* Adds Ball-Larus id @id to f->blset (an id of UINT64_MAX is none). */
static int note_id(void *ctx, uint64_t id, size_t first, size_t n)
{
	struct dfunc *f = ctx;

	(void)first;
	(void)n;
	if (id == UINT64_MAX || idset_add(&f->blset, id))
		return PAP_ENOMEM;
	return 0;
}

/* path_note_bl() of @p, from its form @form when not NULL. */
static void note_bl(struct dfunc *f, struct dpath *p, const uint32_t *edges,
		    size_t nedges, const struct pap_rseq *form)
{
	const struct pap_plan *bl;
	uint64_t *ids;
	size_t m, k;

	if (f->bl_noted < 0)
		return;
	f->bl_noted = 1;
	bl = func_bl_plan(f);
	if (!bl)
		goto failed;
	if (p->bl_only) {
		if (note_id(f, p->bl_id, 0, 0))
			goto failed;
		return;
	}
	if (!path_repeats(p)) {
		/* what path_bl_ids() splits, without decoding it again */
		if (pap_bl_split(bl, edges, nedges, note_id, f))
			goto failed;
		return;
	}
	if (path_bl_idset_of(f, p, form, &ids, &m))
		goto failed;
	for (k = 0; k < m; k++)
		if (note_id(f, ids[k], 0, 0)) {
			free(ids);
			goto failed;
		}
	free(ids);
	return;
failed:
	f->bl_noted = -1;
}

void path_note_bl(struct dfunc *f, struct dpath *p, const uint32_t *edges,
		  size_t nedges)
{
	note_bl(f, p, edges, nedges, NULL);
}

void path_note_bl_form(struct dfunc *f, struct dpath *p,
		       const struct pap_rseq *form)
{
	note_bl(f, p, NULL, 0, form);
}

int64_t func_bl_taken(struct dfunc *f)
{
	struct idset set = { NULL, 0, 0 };
	uint64_t *ids;
	size_t m, i, k;
	int64_t distinct = -1;

	/* gathered while the paths were decoded */
	if (f->bl_noted)
		return f->bl_noted > 0 ? (int64_t)f->blset.n : -1;
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
