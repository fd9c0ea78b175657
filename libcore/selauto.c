/* SPDX-License-Identifier: MIT */
/*
 * selauto.c - strategy follow: the paths of interest of a selective
 * plan as an automaton over the digits of their acyclic pieces
 * (selective.h, struct pap_sel_auto), and its reference step.
 */
#include <stdlib.h>
#include <string.h>

#include "selective.h"
#include "util.h"

struct sym {
	uint32_t edge;
	uint64_t digit;
};

static void auto_null_bp(void *ctx, uint32_t site, uint64_t r)
{
	(void)ctx;
	(void)site;
	(void)r;
}

static void auto_null_val(void *ctx, uint64_t v)
{
	(void)ctx;
	(void)v;
}

/* What kind of step plan edge @pe is: 0 none, 1 a fold, 2 a record. */
static uint8_t auto_step_kind(const struct pap_plan *p, uint32_t pe)
{
	uint8_t kind = 0;
	uint32_t i;

	for (i = p->op_off[pe]; i < p->op_off[pe + 1]; i++) {
		if (p->ops[i].kind == PAP_OP_RECORD)
			return 2;
		if (p->ops[i].kind == PAP_OP_FOLD)
			kind = 1;
	}
	return kind;
}

/* The symbols of path @k of @sp into *@out (malloc'd), *@n of them. */
static int auto_symbols(const struct pap_sel_plan *sp,
			const struct pap_sel_auto *au, uint32_t k,
			struct sym **out, size_t *n)
{
	struct pap_exec_sink sink = { auto_null_bp, auto_null_val,
				      auto_null_val, NULL };
	struct pap_exec_state st = { 0, 0 };
	size_t cap = 0;
	uint32_t i;

	*out = NULL;
	*n = 0;
	for (i = sp->path_off[k]; i < sp->path_off[k + 1]; i++) {
		uint32_t e = sp->path_edges[i], pe = sp->to_plan[e];

		if (au->step[e]) {
			if (*n == cap &&
			    pap_grow(out, &cap, sizeof(**out), 64)) {
				free(*out);
				*out = NULL;
				return PAP_ENOMEM;
			}
			(*out)[*n].edge = e;
			(*out)[*n].digit = pap_sel_digit(sp->plan, &st, pe);
			(*n)++;
		}
		pap_exec_edge(sp->plan, &st, pe, &sink);
	}
	return PAP_OK;
}

static int sym_eq(const struct sym *a, const struct sym *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (a[i].edge != b[i].edge || a[i].digit != b[i].digit)
			return 0;
	return 1;
}

/*
 * Compresses @s (@n symbols) greedily into blocks with repeat counts:
 * at each place the block of at most PAP_SEL_AUTO_BLOCK symbols whose
 * repeats there cover most symbols (at least two repeats), else one
 * symbol once.  Appends positions to @au from au->npos on; -1 when the
 * total passes PAP_SEL_AUTO_MAX or a count 32 bits.  Expanding the
 * blocks gives @s back exactly.
 */
static int auto_compress(struct pap_sel_auto *au, const struct sym *s,
			 size_t n, uint32_t base)
{
	size_t i = 0;

	while (i < n) {
		size_t bl = 1, bc = 1, len, c, j;

		for (len = 1; len <= PAP_SEL_AUTO_BLOCK && 2 * len <= n - i;
		     len++) {
			c = 1;
			while (i + (c + 1) * len <= n &&
			       sym_eq(s + i, s + i + c * len, len))
				c++;
			if (c >= 2 && c * len > bc * bl) {
				bl = len;
				bc = c;
			}
		}
		if (bc >= UINT32_MAX ||
		    au->npos + bl > PAP_SEL_AUTO_MAX)
			return -1;
		for (j = 0; j < bl; j++) {
			uint32_t p = au->npos++;

			au->edge[p] = s[i + j].edge;
			au->digit[p] = s[i + j].digit;
			au->first[p] = p - base - (uint32_t)j;
			au->reps[p] = j + 1 == bl ? (uint32_t)bc : 0;
		}
		i += bl * bc;
	}
	return 0;
}

void pap_sel_auto_free(struct pap_sel_auto *au)
{
	if (!au)
		return;
	free(au->off);
	free(au->edge);
	free(au->digit);
	free(au->first);
	free(au->reps);
	free(au->step);
	free(au);
}

int pap_sel_auto_build(const struct pap_sel_plan *sp,
		       struct pap_sel_auto **out)
{
	const struct pap_cfg *cfg = sp->cfg;
	struct pap_sel_auto *au = calloc(1, sizeof(*au));
	uint32_t e, k;
	int rc = PAP_ENOMEM;

	*out = NULL;
	if (!au)
		return PAP_ENOMEM;
	au->npaths = sp->npaths;
	au->off = calloc((size_t)sp->npaths + 1, sizeof(uint32_t));
	au->edge = calloc(PAP_SEL_AUTO_MAX, sizeof(uint32_t));
	au->digit = calloc(PAP_SEL_AUTO_MAX, sizeof(uint64_t));
	au->first = calloc(PAP_SEL_AUTO_MAX, sizeof(uint32_t));
	au->reps = calloc(PAP_SEL_AUTO_MAX, sizeof(uint32_t));
	au->step = calloc((size_t)cfg->nedges + 1, 1);
	if (!au->off || !au->edge || !au->digit || !au->first ||
	    !au->reps || !au->step)
		goto fail;
	for (e = 0; e < cfg->nedges; e++) {
		if (sp->to_plan[e] == PAP_NONE)
			continue;
		au->step[e] = auto_step_kind(sp->plan, sp->to_plan[e]);
		/* a step on a cut or a resume would be code where no
		 * statement can go: none then */
		if (au->step[e] && cfg->edges[e].kind == PAP_EDGE_FAKE) {
			pap_sel_auto_free(au);
			return PAP_OK;
		}
	}
	for (k = 0; k < sp->npaths; k++) {
		struct sym *s;
		size_t n;

		au->off[k] = au->npos;
		rc = auto_symbols(sp, au, k, &s, &n);
		if (rc)
			goto fail;
		if (auto_compress(au, s, n, au->npos)) {
			/* too large: no automaton */
			free(s);
			pap_sel_auto_free(au);
			return PAP_OK;
		}
		free(s);
	}
	au->off[sp->npaths] = au->npos;
	*out = au;
	return PAP_OK;
fail:
	pap_sel_auto_free(au);
	return rc ? rc : PAP_ENOMEM;
}

void pap_sel_auto_start(const struct pap_sel_auto *au, uint32_t *pos,
			uint32_t *cnt)
{
	uint32_t k;

	for (k = 0; k < au->npaths; k++)
		pos[k] = cnt[k] = 0;
}

uint32_t pap_sel_auto_step(const struct pap_sel_auto *au, uint32_t *pos,
			   uint32_t *cnt, uint32_t e, uint64_t d)
{
	uint32_t k, alive = 0;

	for (k = 0; k < au->npaths; k++) {
		uint32_t p = pos[k], g;

		if (p == PAP_SEL_DEAD || p >= au->off[k + 1] - au->off[k]) {
			pos[k] = PAP_SEL_DEAD;
			continue;
		}
		g = au->off[k] + p;
		if (au->edge[g] != e || au->digit[g] != d) {
			pos[k] = PAP_SEL_DEAD;
			continue;
		}
		if (au->reps[g] && ++cnt[k] < au->reps[g]) {
			pos[k] = au->first[g];
		} else {
			if (au->reps[g])
				cnt[k] = 0;
			pos[k] = p + 1;
		}
		alive++;
	}
	return alive;
}

uint32_t pap_sel_auto_result(const struct pap_sel_auto *au,
			     const uint32_t *pos)
{
	uint32_t k;

	for (k = 0; k < au->npaths; k++)
		if (pos[k] == au->off[k + 1] - au->off[k])
			return k;
	return au->npaths;
}
