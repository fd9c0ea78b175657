/* SPDX-License-Identifier: MIT */
/*
 * activation.c - collecting what one activation's probes emit.
 */
#include <stdlib.h>
#include <string.h>

#include "decode.h"

void pap_activation_init(struct pap_activation *act)
{
	memset(act, 0, sizeof(*act));
}

void pap_activation_reset(struct pap_activation *act)
{
	act->nbps = act->nids = act->nrecords = 0;
	act->final = 0;
	act->oom = 0;
}

void pap_activation_free(struct pap_activation *act)
{
	free(act->bps);
	free(act->ids);
	pap_activation_init(act);
}

/* Makes room for one more element of @size in *@p; 0 on failure. */
static int act_grow(void **p, size_t *cap, size_t len, size_t size)
{
	size_t ncap;
	void *n;

	if (len < *cap)
		return 1;
	ncap = *cap ? *cap * 2 : 256;
	n = realloc(*p, ncap * size);
	if (!n)
		return 0;
	*p = n;
	*cap = ncap;
	return 1;
}

static void act_breakpoint(void *ctx, uint32_t site, uint64_t r)
{
	struct pap_activation *act = ctx;

	if (!act_grow((void **)&act->bps, &act->cap_bps, act->nbps,
		      sizeof(*act->bps))) {
		act->oom = 1;
		return;
	}
	act->bps[act->nbps].site = site;
	act->bps[act->nbps++].r = r;
}

static void act_record(void *ctx, uint64_t r)
{
	struct pap_activation *act = ctx;

	act->final = r;
	act->nrecords++;
}

static void act_count(void *ctx, uint64_t id)
{
	struct pap_activation *act = ctx;

	if (!act_grow((void **)&act->ids, &act->cap_ids, act->nids,
		      sizeof(*act->ids))) {
		act->oom = 1;
		return;
	}
	act->ids[act->nids++] = id;
}

struct pap_exec_sink pap_activation_sink(struct pap_activation *act)
{
	struct pap_exec_sink sink = { act_breakpoint, act_record, act_count,
				      act };

	return sink;
}
