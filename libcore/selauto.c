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
	const struct pap_exec_sink sink = pap_exec_null_sink;
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

/* A token of a compressed sequence: a symbol, or a block of tokens
 * repeated reps times. */
struct tok {
	uint8_t block;
	uint8_t height;		/* nesting of blocks, 0 for a symbol */
	uint32_t edge;
	uint64_t digit;
	uint32_t child_off, nchild, reps;
};

#define AUTO_MAX_TOKENS 4096

struct toks {
	struct tok *t;
	size_t n, cap;
	uint32_t *pool;		/* blocks' children */
	size_t npool, cappool;
};

struct symidx {
	uint32_t edge;
	uint64_t digit;
	size_t i;
};

static int symidx_cmp(const void *x, const void *y)
{
	const struct symidx *a = x, *b = y;

	if (a->edge != b->edge)
		return a->edge < b->edge ? -1 : 1;
	if (a->digit != b->digit)
		return a->digit < b->digit ? -1 : 1;
	return 0;
}

/* The symbols of @s as token ids into @seq (equal symbols, equal ids);
 * PAP_ELIMIT when too many distinct ones, PAP_ENOMEM. */
static int auto_intern_symbols(struct toks *tk, const struct sym *s,
			       size_t n, uint32_t *seq)
{
	struct symidx *x = malloc((n + 1) * sizeof(*x));
	size_t i;

	if (!x)
		return PAP_ENOMEM;
	for (i = 0; i < n; i++) {
		x[i].edge = s[i].edge;
		x[i].digit = s[i].digit;
		x[i].i = i;
	}
	qsort(x, n, sizeof(*x), symidx_cmp);
	for (i = 0; i < n; i++) {
		if (!i || symidx_cmp(&x[i - 1], &x[i])) {
			if (tk->n == AUTO_MAX_TOKENS) {
				free(x);
				return PAP_ELIMIT;
			}
			if (tk->n == tk->cap &&
			    pap_grow(&tk->t, &tk->cap, sizeof(*tk->t), 64)) {
				free(x);
				return PAP_ENOMEM;
			}
			memset(&tk->t[tk->n], 0, sizeof(*tk->t));
			tk->t[tk->n].edge = x[i].edge;
			tk->t[tk->n].digit = x[i].digit;
			tk->n++;
		}
		seq[x[i].i] = (uint32_t)(tk->n - 1);
	}
	free(x);
	return PAP_OK;
}

/* The id of the block of @len tokens @c repeated @reps times, added
 * when new; -1 when there would be too many, -2 out of memory. */
static long auto_block(struct toks *tk, const uint32_t *c, size_t len,
		       size_t reps)
{
	size_t i, h = 0;

	for (i = 0; i < tk->n; i++)
		if (tk->t[i].block && tk->t[i].reps == reps &&
		    tk->t[i].nchild == len &&
		    !memcmp(tk->pool + tk->t[i].child_off, c,
			    len * sizeof(*c)))
			return (long)i;
	if (tk->n == AUTO_MAX_TOKENS)
		return -1;
	if (tk->n == tk->cap &&
	    pap_grow(&tk->t, &tk->cap, sizeof(*tk->t), 64))
		return -2;
	while (tk->npool + len > tk->cappool)
		if (pap_grow(&tk->pool, &tk->cappool, sizeof(*tk->pool), 256))
			return -2;
	for (i = 0; i < len; i++)
		if (tk->t[c[i]].height > h)
			h = tk->t[c[i]].height;
	memcpy(tk->pool + tk->npool, c, len * sizeof(*c));
	memset(&tk->t[tk->n], 0, sizeof(*tk->t));
	tk->t[tk->n].block = 1;
	tk->t[tk->n].height = (uint8_t)(h + 1);
	tk->t[tk->n].child_off = (uint32_t)tk->npool;
	tk->t[tk->n].nchild = (uint32_t)len;
	tk->t[tk->n].reps = (uint32_t)reps;
	tk->npool += len;
	return (long)tk->n++;
}

/*
 * One round of compression of @seq (*@n token ids, rewritten in place):
 * greedily, at each place the block of at most PAP_SEL_AUTO_BLOCK
 * tokens whose consecutive repeats there cover most tokens (at least
 * two repeats, nesting at most PAP_SEL_AUTO_DEPTH), else the token
 * once.  Expanding the blocks gives the input back.  Returns how many
 * blocks it made, -1 when too large, -2 out of memory.
 */
static long auto_round(struct toks *tk, uint32_t *seq, size_t *n)
{
	size_t i = 0, o = 0, made = 0;

	while (i < *n) {
		size_t bl = 1, bc = 1, len, c, j, h;
		long id;

		for (len = 1; len <= PAP_SEL_AUTO_BLOCK &&
		     2 * len <= *n - i; len++) {
			c = 1;
			while (i + (c + 1) * len <= *n &&
			       !memcmp(seq + i, seq + i + c * len,
				       len * sizeof(*seq)))
				c++;
			for (j = 0, h = 0; j < len; j++)
				if (tk->t[seq[i + j]].height > h)
					h = tk->t[seq[i + j]].height;
			if (c >= 2 && c * len > bc * bl &&
			    h < PAP_SEL_AUTO_DEPTH) {
				bl = len;
				bc = c;
			}
		}
		if (bc == 1) {
			seq[o++] = seq[i++];
			continue;
		}
		if (bc >= UINT32_MAX)
			return -1;
		id = auto_block(tk, seq + i, bl, bc);
		if (id < 0)
			return id;
		seq[o++] = (uint32_t)id;
		i += bl * bc;
		made++;
	}
	*n = o;
	return (long)made;
}

/* Appends token @t's positions and blocks to @au at nesting @level;
 * -1 past PAP_SEL_AUTO_MAX positions. */
static int auto_flatten(struct pap_sel_auto *au, const struct toks *tk,
			uint32_t t, unsigned level, uint32_t base)
{
	const struct tok *x = &tk->t[t];
	uint32_t start = au->npos - base, i, c;

	if (!x->block) {
		if (au->npos == PAP_SEL_AUTO_MAX)
			return -1;
		au->edge[au->npos] = x->edge;
		au->digit[au->npos] = x->digit;
		au->close_off[au->npos + 1] = au->close_off[au->npos];
		au->npos++;
		return 0;
	}
	for (i = 0; i < x->nchild; i++)
		if (auto_flatten(au, tk, tk->pool[x->child_off + i],
				 level + 1, base))
			return -1;
	/* the block ends at the last position: its close goes last */
	c = au->close_off[au->npos]++;
	au->close_first[c] = start;
	au->close_reps[c] = x->reps;
	au->close_level[c] = (uint8_t)level;
	return 0;
}

/*
 * Compresses @s (@n symbols) in rounds (auto_round(), each one level of
 * nesting) and appends the result's positions to @au; PAP_ELIMIT when
 * too large, PAP_ENOMEM.
 */
static int auto_compress(struct pap_sel_auto *au, const struct sym *s,
			 size_t n)
{
	struct toks tk;
	uint32_t *seq = malloc((n + 1) * sizeof(*seq));
	uint32_t base = au->npos;
	size_t i;
	long made = 1;
	int rc, round;

	memset(&tk, 0, sizeof(tk));
	if (!seq)
		return PAP_ENOMEM;
	rc = auto_intern_symbols(&tk, s, n, seq);
	for (round = 0; !rc && made > 0 && round < PAP_SEL_AUTO_DEPTH;
	     round++) {
		made = auto_round(&tk, seq, &n);
		if (made < 0)
			rc = made == -1 ? PAP_ELIMIT : PAP_ENOMEM;
	}
	for (i = 0; !rc && i < n; i++)
		if (auto_flatten(au, &tk, seq[i], 0, base))
			rc = PAP_ELIMIT;
	free(seq);
	free(tk.t);
	free(tk.pool);
	return rc;
}

void pap_sel_auto_free(struct pap_sel_auto *au)
{
	if (!au)
		return;
	free(au->off);
	free(au->edge);
	free(au->digit);
	free(au->close_off);
	free(au->close_first);
	free(au->close_reps);
	free(au->close_level);
	free(au->step);
	free(au->code_edge);
	free(au);
}

/* The number of bits of @v (0 for 0). */
static unsigned auto_bits(uint64_t v)
{
	unsigned b = 0;

	while (v) {
		b++;
		v >>= 1;
	}
	return b;
}

uint64_t pap_sel_auto_code(const struct pap_sel_auto *au, uint32_t e,
			   uint64_t d)
{
	uint64_t lim = (uint64_t)1 << (8 * au->flat - au->code_bits);

	return (d < lim ? d : lim) << au->code_bits | au->code_edge[e];
}

/*
 * Makes @au (its steps set, no position yet) the flat automaton of
 * @sp's paths: every symbol a position, no block.  PAP_ELIMIT when it
 * would be too large, its codes wider than 16 bits, most of its
 * symbols repeats of the one before, or its paths more than
 * PAP_SEL_FLAT_PATHS; PAP_ENOMEM.
 */
static int auto_flat(const struct pap_sel_plan *sp, struct pap_sel_auto *au)
{
	struct sym **s = calloc(sp->npaths, sizeof(*s));
	size_t *n = calloc(sp->npaths, sizeof(*n));
	size_t total = 0, repeats = 0, i;
	uint32_t e, k, nstep = 0;
	uint64_t maxd = 0;
	unsigned bits;
	int rc = PAP_OK;

	if (!s || !n)
		rc = PAP_ENOMEM;
	for (k = 0; !rc && k < sp->npaths; k++) {
		rc = auto_symbols(sp, au, k, &s[k], &n[k]);
		total += n[k];
		if (!rc && total > PAP_SEL_FLAT_MAX)
			rc = PAP_ELIMIT;
		for (i = 0; !rc && i < n[k]; i++) {
			if (s[k][i].digit > maxd)
				maxd = s[k][i].digit;
			repeats += i && s[k][i].edge == s[k][i - 1].edge &&
				   s[k][i].digit == s[k][i - 1].digit;
		}
	}
	for (e = 0; e < sp->cfg->nedges; e++)
		nstep += au->step[e] != 0;
	au->code_bits = (uint8_t)auto_bits(nstep);
	bits = au->code_bits + auto_bits(maxd);
	au->flat = bits <= 8 ? 1 : 2;
	if (!rc && (bits > 16 || 4 * repeats > 3 * total ||
		    sp->npaths > PAP_SEL_FLAT_PATHS))
		rc = PAP_ELIMIT;
	if (!rc) {
		free(au->edge);
		free(au->digit);
		free(au->close_off);
		au->edge = calloc(total + 1, sizeof(*au->edge));
		au->digit = calloc(total + 1, sizeof(*au->digit));
		au->close_off = calloc(total + 2, sizeof(*au->close_off));
		au->code_edge = calloc((size_t)sp->cfg->nedges + 1,
				       sizeof(*au->code_edge));
		if (!au->edge || !au->digit || !au->close_off ||
		    !au->code_edge)
			rc = PAP_ENOMEM;
	}
	for (e = 0, nstep = 0; !rc && e < sp->cfg->nedges; e++)
		if (au->step[e])
			au->code_edge[e] = ++nstep;
	au->npos = 0;
	for (k = 0; !rc && k < sp->npaths; k++) {
		au->off[k] = au->npos;
		for (i = 0; i < n[k]; i++) {
			au->edge[au->npos] = s[k][i].edge;
			au->digit[au->npos++] = s[k][i].digit;
		}
	}
	if (!rc)
		au->off[sp->npaths] = au->npos;
	for (k = 0; s && n && k < sp->npaths; k++)
		free(s[k]);
	free(s);
	free(n);
	return rc;
}

int pap_sel_auto_build(const struct pap_sel_plan *sp,
		       struct pap_sel_auto **out)
{
	const struct pap_cfg *cfg = sp->cfg;
	struct pap_sel_auto *au = calloc(1, sizeof(*au));
	const size_t nclose = (size_t)PAP_SEL_AUTO_MAX * PAP_SEL_AUTO_DEPTH;
	size_t longest = 0;
	uint32_t e, k;
	int rc = PAP_ENOMEM;

	*out = NULL;
	if (!au)
		return PAP_ENOMEM;
	au->npaths = sp->npaths;
	au->off = calloc((size_t)sp->npaths + 1, sizeof(uint32_t));
	au->edge = calloc(PAP_SEL_AUTO_MAX, sizeof(uint32_t));
	au->digit = calloc(PAP_SEL_AUTO_MAX, sizeof(uint64_t));
	au->close_off = calloc(PAP_SEL_AUTO_MAX + 1, sizeof(uint32_t));
	au->close_first = calloc(nclose, sizeof(uint32_t));
	au->close_reps = calloc(nclose, sizeof(uint32_t));
	au->close_level = calloc(nclose, 1);
	au->step = calloc((size_t)cfg->nedges + 1, 1);
	if (!au->off || !au->edge || !au->digit || !au->close_off ||
	    !au->close_first || !au->close_reps || !au->close_level ||
	    !au->step)
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
		if (n > longest)
			longest = n;
		rc = auto_compress(au, s, n);
		free(s);
		if (rc == PAP_ELIMIT)
			break;
		if (rc)
			goto fail;
	}
	if (rc == PAP_ELIMIT) {
		/* too large compressed: flat, or no automaton */
		rc = auto_flat(sp, au);
		if (rc == PAP_ELIMIT) {
			pap_sel_auto_free(au);
			return PAP_OK;
		}
		if (rc)
			goto fail;
	}
	au->off[sp->npaths] = au->npos;
	if (longest <= 1) {
		/* every path of interest is its record alone: psp3 counts
		 * its number in place, without the automaton's compares */
		pap_sel_auto_free(au);
		return PAP_OK;
	}
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
		pos[k] = 0;
	for (k = 0; k < au->npaths * PAP_SEL_AUTO_DEPTH; k++)
		cnt[k] = 0;
}

uint32_t pap_sel_auto_step(const struct pap_sel_auto *au, uint32_t *pos,
			   uint32_t *cnt, uint32_t e, uint64_t d)
{
	uint32_t k, alive = 0;

	for (k = 0; k < au->npaths; k++) {
		uint32_t p = pos[k], g, c;
		uint32_t *ck = cnt + (size_t)k * PAP_SEL_AUTO_DEPTH;

		if (p == PAP_SEL_DEAD || p >= au->off[k + 1] - au->off[k]) {
			pos[k] = PAP_SEL_DEAD;
			continue;
		}
		g = au->off[k] + p;
		if (au->flat ? pap_sel_auto_code(au, e, d) !=
			       pap_sel_auto_code(au, au->edge[g], au->digit[g]) :
			       au->edge[g] != e || au->digit[g] != d) {
			pos[k] = PAP_SEL_DEAD;
			continue;
		}
		alive++;
		pos[k] = p + 1;
		for (c = au->close_off[g]; c < au->close_off[g + 1]; c++) {
			if (++ck[au->close_level[c]] < au->close_reps[c]) {
				pos[k] = au->close_first[c];
				break;
			}
			ck[au->close_level[c]] = 0;
		}
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
