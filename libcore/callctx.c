/* SPDX-License-Identifier: MIT */
/*
 * callctx.c - the calling-context tree of call sequences (callctx.h).
 */
#include <stdlib.h>

#include "callctx.h"
#include "papdefs.h"
#include "util.h"

/* An open activation as the source sees it. */
struct cframe {
	uint32_t node;		/* its context */
	uint32_t fn;
	uint32_t site;		/* the call in progress, 0: none */
	uint8_t tailed;		/* it made a tail call: it returns when
				 * its caller's call does */
	uint8_t outside;	/* entered from outside */
};

struct cstack {
	struct cframe *f;
	size_t n, cap;
};

static struct cframe *push(struct cstack *s)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct cframe *f = realloc(s->f, cap * sizeof(*f));

		if (!f)
			return NULL;
		s->f = f;
		s->cap = cap;
	}
	return &s->f[s->n++];
}

/* An entry of @fn: its context under the top frame, counted. */
static int enter(struct pap_forest *cct, struct cstack *s, uint32_t fn,
		 int outside, uint64_t count)
{
	struct cframe *top = s->n ? &s->f[s->n - 1] : NULL, *f;
	uint32_t site = top ? top->site : 0, node;

	if (!top && !outside)
		return PAP_EINVAL;	/* a call with no caller */
	node = top ? pap_forest_child(cct, top->node,
				      pap_cctx_label(fn, site, outside)) :
		     pap_forest_root(cct, pap_cctx_label(fn, 0, 1));
	f = node ? push(s) : NULL;
	if (!f)
		return PAP_ENOMEM;
	cct->nodes[node].count = pap_sat_add(cct->nodes[node].count, count);
	f->node = node;
	f->fn = fn;
	f->site = 0;
	f->tailed = 0;
	f->outside = (uint8_t)outside;
	return PAP_OK;
}

/* One event; the stack as the source sees it after it. */
static int step(struct pap_forest *cct, struct cstack *s,
		const struct pap_cev *v, uint64_t count)
{
	struct cframe *top;
	uint32_t real;
	int err;

	switch (v->kind) {
	case PAP_CEV_FORK:
		/* a frame open at a fork, entered before the record */
		err = enter(cct, s, v->fn, v->cls, 0);
		if (!err)
			s->f[s->n - 1].site = v->site;
		return err;
	case PAP_CEV_OUT_ENTER:
		return enter(cct, s, v->fn, 1, count);
	case PAP_CEV_ENTER:
		return enter(cct, s, v->fn, 0, count);
	case PAP_CEV_LONGJMP:
		/* v->arg activations above fn's are abandoned; frames
		 * waiting on a tail chain go with their callees */
		for (real = v->arg; s->n && (real || s->f[s->n - 1].tailed);
		     s->n--)
			if (!s->f[s->n - 1].tailed)
				real--;
		break;
	case PAP_CEV_RETURN:
		/* a chain of tail calls ends at its first caller's return */
		while (s->n && s->f[s->n - 1].tailed)
			s->n--;
		break;
	default:
		break;
	}
	top = s->n ? &s->f[s->n - 1] : NULL;
	if (!top || top->fn != v->fn)
		return PAP_EINVAL;
	switch (v->kind) {
	case PAP_CEV_CALL:
		top->site = v->site;
		break;
	case PAP_CEV_TAIL:
		/* an activation entered from outside is gone: its tail
		 * callee is an entry from outside in its place, as the
		 * record has it (callseq.h, OUT_TAIL) */
		if (top->outside) {
			s->n--;
			break;
		}
		top->site = v->site;
		top->tailed = 1;
		break;
	case PAP_CEV_RETURN:
	case PAP_CEV_LONGJMP:
		top->site = 0;
		break;
	case PAP_CEV_EXIT:
		s->n--;
		break;
	default:
		return PAP_EINVAL;
	}
	return PAP_OK;
}

int pap_cctx_add(struct pap_forest *cct, const struct pap_cev *ev, size_t n,
		 uint64_t count)
{
	struct cstack s = { NULL, 0, 0 };
	size_t i;
	int err = PAP_OK;

	for (i = 0; i < n && !err; i++)
		err = step(cct, &s, &ev[i], count);
	free(s.f);
	return err;
}

int pap_cctx_add_packed(struct pap_forest *cct,
			const struct pap_cseq_packed *pk, uint64_t count)
{
	struct cstack s = { NULL, 0, 0 };
	size_t i, r = 0;
	int err = PAP_OK;

	for (i = 0; i < pk->nev && !err; i++) {
		uint64_t w = count;

		while (r < pk->nrep && pk->rep[r].at + pk->rep[r].len <= i)
			r++;
		/* a body is walked once, its contexts counted for each
		 * copy: it leaves the stack as it found it */
		if (r < pk->nrep && pk->rep[r].at <= i)
			w = pk->rep[r].count && count > UINT64_MAX /
			    pk->rep[r].count ? UINT64_MAX :
			    count * pk->rep[r].count;
		err = step(cct, &s, &pk->ev[i], w);
	}
	free(s.f);
	return err;
}
