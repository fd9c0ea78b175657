/* SPDX-License-Identifier: MIT */
/*
 * blstream.c - cutting whole paths into Ball-Larus path ids.
 */
#include "blstream.h"

/* The value of the numbered edge of @x that is CFG/fold edge @edge and of
 * @kind; -1 if there is none. */
static int num_value(const struct pap_plan *p, uint32_t x, uint8_t kind,
		     uint32_t edge, uint64_t *val, uint32_t *node)
{
	uint32_t i = PAP_NUM_MANY;

	if (p->num_index && (edge < p->cfg->nedges || edge == PAP_NONE))
		i = p->num_index[3 * (size_t)(edge == PAP_NONE ?
					      p->cfg->nedges : edge) + kind];
	if (i != PAP_NUM_MANY) {
		if (i == PAP_NUM_NONE || i < p->num_off[x] ||
		    i >= p->num_off[x + 1])
			return -1;
		*val = p->num[i].val;
		*node = p->num[i].node;
		return 0;
	}
	for (i = p->num_off[x]; i < p->num_off[x + 1]; i++)
		if (p->num[i].kind == kind && p->num[i].edge == edge) {
			*val = p->num[i].val;
			*node = p->num[i].node;
			return 0;
		}
	return -1;
}

int pap_bl_split(const struct pap_plan *bl, const uint32_t *edges,
		 size_t len, pap_bl_emit_fn emit, void *ctx)
{
	const struct pap_cfg *cfg = bl->cfg;
	uint32_t S = cfg->nnodes, x;
	uint64_t id, v;
	size_t i, first = 0;
	int err;

	if (bl->mode != PAP_MODE_EPP)
		return PAP_EINVAL;
	if (!len || edges[0] >= cfg->nedges ||
	    cfg->edges[edges[0]].src != cfg->entry)
		return PAP_ECORRUPT;
	if (num_value(bl, S, PAP_NUM_START, PAP_NONE, &id, &x))
		return PAP_ECORRUPT;
	for (i = 0; i < len; i++) {
		uint32_t e = edges[i];

		if (e >= cfg->nedges || cfg->edges[e].src != x)
			return PAP_ECORRUPT;
		if (bl->is_fold[e]) {
			uint32_t head;

			if (num_value(bl, x, PAP_NUM_END, e, &v, &head))
				return PAP_ECORRUPT;
			err = emit(ctx, id + v, first, i - first);
			if (err)
				return err;
			if (num_value(bl, S, PAP_NUM_START, e, &id, &x))
				return PAP_ECORRUPT;
			first = i + 1;
			continue;
		}
		if (num_value(bl, x, PAP_NUM_REAL, e, &v, &x))
			return PAP_ECORRUPT;
		id += v;
	}
	if (x != cfg->exit || num_value(bl, x, PAP_NUM_END, PAP_NONE, &v, &x))
		return PAP_ECORRUPT;
	return emit(ctx, id + v, first, len - first);
}

int pap_bl_begin(const struct pap_plan *bl, struct pap_bl_state *st)
{
	if (bl->mode != PAP_MODE_EPP)
		return PAP_EINVAL;
	st->first = 1;
	return num_value(bl, bl->cfg->nnodes, PAP_NUM_START, PAP_NONE,
			 &st->id, &st->x) ? PAP_ECORRUPT : PAP_OK;
}

int pap_bl_edge(const struct pap_plan *bl, struct pap_bl_state *st,
		uint32_t e, uint64_t *id)
{
	const struct pap_cfg *cfg = bl->cfg;
	uint64_t v;
	uint32_t head;

	if (e >= cfg->nedges || cfg->edges[e].src != st->x ||
	    (st->first && st->x != cfg->entry))
		return PAP_ECORRUPT;
	st->first = 0;
	if (bl->is_fold[e]) {
		if (num_value(bl, st->x, PAP_NUM_END, e, &v, &head))
			return PAP_ECORRUPT;
		*id = st->id + v;
		if (num_value(bl, cfg->nnodes, PAP_NUM_START, e, &st->id,
			      &st->x))
			return PAP_ECORRUPT;
		return 1;
	}
	if (num_value(bl, st->x, PAP_NUM_REAL, e, &v, &st->x))
		return PAP_ECORRUPT;
	st->id += v;
	return 0;
}

int pap_bl_start_at(const struct pap_plan *bl, struct pap_bl_state *st,
		    uint32_t fold)
{
	st->first = 0;
	return num_value(bl, bl->cfg->nnodes, PAP_NUM_START, fold, &st->id,
			 &st->x) ? PAP_ECORRUPT : PAP_OK;
}

int pap_bl_end(const struct pap_plan *bl, const struct pap_bl_state *st,
	       uint64_t *id)
{
	uint64_t v;
	uint32_t x;

	if (st->first || st->x != bl->cfg->exit ||
	    num_value(bl, st->x, PAP_NUM_END, PAP_NONE, &v, &x))
		return PAP_ECORRUPT;
	*id = st->id + v;
	return PAP_OK;
}
