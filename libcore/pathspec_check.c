/* SPDX-License-Identifier: MIT */
/*
 * pathspec_check.c - a spec path checked against its function's graph,
 * and a path named by its source lines resolved to its blocks
 * (pathspec.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cfgmodel.h"
#include "pathspec.h"
#include "util.h"

int pap_spec_fn_init(struct pap_spec_fn *fn, const char *name,
		     const char *file, uint64_t checksum,
		     const struct pap_cfgtext *g, uint32_t *const *lines)
{
	uint32_t b;

	memset(fn, 0, sizeof(*fn));
	fn->name = name;
	fn->file = file;
	fn->checksum = checksum;
	fn->cfg = g->cfg;
	fn->lines = lines;
	fn->number = malloc((g->nblocks + 1) * sizeof(*fn->number));
	if (!fn->number)
		return PAP_ENOMEM;
	for (b = 0; b < g->nblocks; b++) {
		const char *s = g->names[b];
		char *e;
		unsigned long v;

		if (s[0] != 'b' || !(s[1] >= '0' && s[1] <= '9'))
			goto bad;
		v = strtoul(s + 1, &e, 10);
		if (*e || v > UINT32_MAX)
			goto bad;
		fn->number[b] = (uint32_t)v;
	}
	return PAP_OK;
bad:
	pap_spec_fn_free(fn);
	return PAP_EINVAL;
}

int pap_spec_fn_from_meta(struct pap_spec_fn *fn,
			  const struct pap_meta_fn *m)
{
	return pap_spec_fn_init(fn, m->name, m->file, m->checksum, &m->graph,
				m->lines);
}

void pap_spec_fn_free(struct pap_spec_fn *fn)
{
	free(fn->number);
	fn->number = NULL;
}

/* Is there a live edge @a -> @b? */
static int has_edge(const struct pap_cfg *cfg, uint32_t a, uint32_t b)
{
	uint32_t k;

	for (k = cfg->out_off[a]; k < cfg->out_off[a + 1]; k++)
		if (cfg->edges[cfg->out_edge[k]].dst == b)
			return 1;
	return 0;
}

/* The source lines of block @b ([0] their count). */
static const uint32_t *lines_of(const struct pap_spec_fn *fn, uint32_t b)
{
	static const uint32_t none[1];

	return fn->lines && fn->lines[b] ? fn->lines[b] : none;
}

struct num_index {
	uint32_t num, index;
};

static int by_num(const void *a, const void *b)
{
	const struct num_index *x = a, *y = b;

	return x->num < y->num ? -1 : x->num > y->num;
}

/* The lines of a list ([0] their number) into @buf as "a,b,c". */
static void put_lines(char *buf, size_t size, const uint32_t *l)
{
	size_t len = 0;
	uint32_t k;

	buf[0] = 0;
	for (k = 0; k < l[0] && len + 1 < size; k++) {
		int n = snprintf(buf + len, size - len, "%s%u", k ? "," : "",
				 l[k + 1]);

		len += n > 0 ? (size_t)n : 0;
	}
}

/* That block @i of @p has the lines its brackets give. */
static int check_given(struct pap_spec *s, struct pap_spec_path *p,
		       const struct pap_spec_fn *fn, size_t i)
{
	const uint32_t *g = p->given_lines + p->given[i] - 1;
	const uint32_t *l = lines_of(fn, p->index[i]);
	char want[128], have[128];

	if (g[0] == l[0] && !memcmp(g + 1, l + 1, l[0] * sizeof(*l)))
		return PAP_OK;
	put_lines(want, sizeof(want), g);
	put_lines(have, sizeof(have), l);
	return pap_spec_error(s, p, "block %u of %s has lines [%s], not [%s] "
			      "(a report of another build?)", p->blocks[i],
			      p->name, have, want);
}

/* Block numbers of @p to their indices, into p->index. */
static int map_blocks(struct pap_spec *s, struct pap_spec_path *p,
		      const struct pap_spec_fn *fn)
{
	uint32_t nb = fn->cfg->nblocks, b;
	struct num_index *t = malloc((nb + 1) * sizeof(*t)), key, *hit;
	size_t i;
	int r = PAP_OK;

	p->index = malloc((p->nblocks + 1) * sizeof(*p->index));
	if (!t || !p->index) {
		free(t);
		return PAP_ENOMEM;
	}
	for (b = 0; b < nb; b++)
		t[b] = (struct num_index){ fn->number[b], b };
	qsort(t, nb, sizeof(*t), by_num);
	for (i = 0; i < p->nblocks; i++) {
		key.num = p->blocks[i];
		hit = bsearch(&key, t, nb, sizeof(*t), by_num);
		if (!hit) {
			free(t);
			return pap_spec_error(s, p, "block %u is not a block "
					      "of %s", p->blocks[i], p->name);
		}
		p->index[i] = hit->index;
		if (p->given && p->given[i] &&
		    (r = check_given(s, p, fn, i)))
			break;
	}
	free(t);
	return r;
}

/* That the blocks p->index[] are a whole path of @fn's graph. */
static int check_walk(struct pap_spec *s, struct pap_spec_path *p,
		      const struct pap_spec_fn *fn)
{
	const struct pap_cfg *cfg = fn->cfg;
	size_t i;

	if (!has_edge(cfg, cfg->entry, p->index[0]))
		return pap_spec_error(s, p, "the path starts at block %u, "
				      "where no path of %s starts (its entry "
				      "is block %u)", p->blocks[0], p->name,
				      fn->number[cfg->entry_block]);
	for (i = 1; i < p->nblocks; i++)
		if (!has_edge(cfg, p->index[i - 1], p->index[i]))
			return pap_spec_error(s, p, "no edge from block %u to "
					      "block %u in %s (blocks %zu and "
					      "%zu of the path)",
					      p->blocks[i - 1], p->blocks[i],
					      p->name, i, i + 1);
	if (!has_edge(cfg, p->index[p->nblocks - 1], cfg->exit))
		return pap_spec_error(s, p, "the path ends at block %u, which "
				      "does not leave %s (it must end where "
				      "the function returns)",
				      p->blocks[p->nblocks - 1], p->name);
	return PAP_OK;
}

/* ---- a path by its lines ---- */

/* States searched at most: the graph's blocks times the lines bound
 * them, and this bounds both. */
#define LINES_MAX_STATES ((size_t)1 << 22)
/* Candidates listed for an ambiguous line sequence, blocks shown of each. */
#define LINES_SHOW_PATHS 3
#define LINES_SHOW_BLOCKS 12

/*
 * The search: a state is (block, k), the block just run with the first k
 * lines seen.  Running a block from (v, k) gives one next state or none:
 * each of its lines must be the last line seen (consecutive equal lines
 * count once) or the next one expected.  State 0 is ENTRY before any
 * line, state 1 the end: a leaving block with every line seen.  The
 * block paths asked for are the paths from state 0 to state 1.
 */
struct lsearch {
	const struct pap_spec_fn *fn;
	const uint32_t *want;	/* the lines, consecutive equal ones once */
	size_t m;
	uint32_t *node;		/* per state */
	size_t *k;
	size_t n, cap;
	size_t *slots;		/* state + 1 by (node, k) */
	size_t nslots;
	size_t *esrc, *edst;	/* the steps between states */
	size_t ne, cape;
};

static size_t state_hash(const struct lsearch *ls, uint32_t v, size_t k)
{
	uint64_t h = ((uint64_t)k << 32 | v) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (ls->nslots - 1);
}

/* The state (@v, @k), made if new; PAP_ENOMEM or PAP_ELIMIT. */
static int state_of(struct lsearch *ls, uint32_t v, size_t k, size_t *id)
{
	size_t h, i;

	if (2 * (ls->n + 1) > ls->nslots) {
		size_t ns = ls->nslots ? 2 * ls->nslots : 1024, *t;

		t = calloc(ns, sizeof(*t));
		if (!t)
			return PAP_ENOMEM;
		free(ls->slots);
		ls->slots = t;
		ls->nslots = ns;
		for (i = 2; i < ls->n; i++) {
			h = state_hash(ls, ls->node[i], ls->k[i]);
			while (ls->slots[h])
				h = (h + 1) & (ns - 1);
			ls->slots[h] = i + 1;
		}
	}
	h = state_hash(ls, v, k);
	while (ls->slots[h]) {
		i = ls->slots[h] - 1;
		if (ls->node[i] == v && ls->k[i] == k) {
			*id = i;
			return PAP_OK;
		}
		h = (h + 1) & (ls->nslots - 1);
	}
	if (ls->n == LINES_MAX_STATES)
		return PAP_ELIMIT;
	if (ls->n == ls->cap) {
		size_t cap = ls->cap;

		if (pap_grow(&ls->node, &cap, sizeof(*ls->node), 256))
			return PAP_ENOMEM;
		cap = ls->cap;
		if (pap_grow(&ls->k, &cap, sizeof(*ls->k), 256))
			return PAP_ENOMEM;
		ls->cap = cap;
	}
	ls->node[ls->n] = v;
	ls->k[ls->n] = k;
	ls->slots[h] = ++ls->n;
	*id = ls->n - 1;
	return PAP_OK;
}

static int step_add(struct lsearch *ls, size_t a, size_t b)
{
	size_t cap = ls->cape;

	if (ls->ne == cap) {
		if (pap_grow(&ls->esrc, &cap, sizeof(*ls->esrc), 256))
			return PAP_ENOMEM;
		cap = ls->cape;
		if (pap_grow(&ls->edst, &cap, sizeof(*ls->edst), 256))
			return PAP_ENOMEM;
		ls->cape = cap;
	}
	ls->esrc[ls->ne] = a;
	ls->edst[ls->ne++] = b;
	return PAP_OK;
}

/* The lines seen after block @w runs at @k lines seen; SIZE_MAX when
 * its lines are not the ones expected. */
static size_t run_block(const struct lsearch *ls, uint32_t w, size_t k)
{
	const uint32_t *l = lines_of(ls->fn, w);
	uint32_t j;

	for (j = 0; j < l[0]; j++) {
		if (k && l[j + 1] == ls->want[k - 1])
			continue;
		if (k < ls->m && l[j + 1] == ls->want[k]) {
			k++;
			continue;
		}
		return SIZE_MAX;
	}
	return k;
}

/* Every state reachable from state 0 and the steps between them. */
static int search_forward(struct lsearch *ls)
{
	const struct pap_cfg *cfg = ls->fn->cfg;
	size_t i, id;
	int r;

	for (i = 0; i < ls->n; i++) {
		uint32_t v = ls->node[i], e;
		size_t first = ls->ne, j;

		if (i == 1)
			continue;
		for (e = cfg->out_off[v]; e < cfg->out_off[v + 1]; e++) {
			uint32_t w = cfg->edges[cfg->out_edge[e]].dst;
			size_t k;

			if (w == cfg->exit) {
				if (ls->k[i] != ls->m)
					continue;
				id = 1;
			} else {
				k = run_block(ls, w, ls->k[i]);
				if (k == SIZE_MAX)
					continue;
				if ((r = state_of(ls, w, k, &id)))
					return r;
			}
			for (j = first; j < ls->ne && ls->edst[j] != id; j++)
				;
			if (j == ls->ne && (r = step_add(ls, i, id)))
				return r;
		}
	}
	return PAP_OK;
}

/* Appends " NUM" (@str NULL) or @str to the message @buf (@len of
 * @size), truncated. */
static void put_num(char *buf, size_t size, size_t *len, const char *str,
		    uint32_t num)
{
	int n;

	if (*len + 1 >= size)
		return;
	n = str ? snprintf(buf + *len, size - *len, "%s", str) :
	    snprintf(buf + *len, size - *len, " %u", num);
	*len += n > 0 ? (size_t)n : 0;
	if (*len >= size)
		*len = size - 1;
}

/* The search's answers, as CSR arrays over its steps. */
struct lanswer {
	size_t *in_off, *in;	/* steps into each state */
	size_t *out_off;	/* steps out of each state (in order) */
	unsigned char *useful;	/* the state leads to the end */
	size_t *queue, *deg;
	uint64_t *count;	/* paths from state 0, at most 2 */
};

static void lanswer_free(struct lanswer *a)
{
	free(a->in_off);
	free(a->in);
	free(a->out_off);
	free(a->useful);
	free(a->queue);
	free(a->deg);
	free(a->count);
}

/* Why no path has the lines: how far the search got. */
static int say_impossible(struct pap_spec *s, struct pap_spec_path *p,
			  const struct lsearch *ls)
{
	size_t i, kmax = 0;

	for (i = 2; i < ls->n; i++)
		kmax = ls->k[i] > kmax ? ls->k[i] : kmax;
	if (!kmax)
		return pap_spec_error(s, p, "impossible lines: no path of %s "
				      "starts with line %u", p->name,
				      ls->want[0]);
	if (kmax < ls->m)
		return pap_spec_error(s, p, "impossible lines: no path of %s "
				      "runs line %u after line %u", p->name,
				      ls->want[kmax], ls->want[kmax - 1]);
	return pap_spec_error(s, p, "impossible lines: no path of %s leaves "
			      "the function after line %u", p->name,
			      ls->want[ls->m - 1]);
}

/* A few of the several paths, depth first. */
static int say_ambiguous(struct pap_spec *s, struct pap_spec_path *p,
			 const struct lsearch *ls, struct lanswer *a)
{
	size_t *stack = a->queue, *at = a->deg, sp = 0, shown = 0, i;
	char msg[512];
	size_t len = 0;

	msg[0] = 0;
	stack[0] = 0;
	at[0] = a->out_off[0];
	while (shown < LINES_SHOW_PATHS) {
		size_t v = stack[sp], w;

		if (v == 1) {
			for (i = 1; i < sp && i <= LINES_SHOW_BLOCKS; i++)
				put_num(msg, sizeof(msg), &len, NULL,
					ls->fn->number[ls->node[stack[i]]]);
			if (sp > LINES_SHOW_BLOCKS + 1)
				put_num(msg, sizeof(msg), &len, " ...", 0);
			put_num(msg, sizeof(msg), &len, ";", 0);
			shown++;
			sp--;
			continue;
		}
		while (at[v] < a->out_off[v + 1] && !a->useful[ls->edst[at[v]]])
			at[v]++;
		if (at[v] == a->out_off[v + 1]) {
			if (!sp)
				break;
			sp--;
			continue;
		}
		w = ls->edst[at[v]++];
		stack[++sp] = w;
		at[w] = a->out_off[w];
	}
	if (len)
		msg[len - 1] = 0;
	return pap_spec_error(s, p, "ambiguous lines: several block paths of "
			      "%s have them:%s", p->name, msg);
}

/*
 * Of the useful states Kahn's order left (a->deg[i] > 0), keeps marked
 * only those on a cycle and between cycles: the others lead to no state
 * left, and are peeled off from the end.
 */
static void lines_cycle(const struct lsearch *ls, struct lanswer *a)
{
	size_t *out = a->queue, i, j, head = 0, tail = 0;

	/* a->queue is free now: per state, steps to states left; the
	 * states to peel are queued in a->count, no longer needed */
	for (i = 0; i < ls->n; i++)
		out[i] = 0;
	for (j = 0; j < ls->ne; j++)
		if (a->useful[ls->esrc[j]] && a->deg[ls->esrc[j]] &&
		    a->useful[ls->edst[j]] && a->deg[ls->edst[j]])
			out[ls->esrc[j]]++;
	for (i = 0; i < ls->n; i++)
		if (a->useful[i] && a->deg[i] && !out[i])
			a->count[tail++] = i;
	while (head < tail) {
		size_t v = (size_t)a->count[head++];

		a->deg[v] = 0;
		for (j = a->in_off[v]; j < a->in_off[v + 1]; j++) {
			size_t u = ls->esrc[a->in[j]];

			if (a->useful[u] && a->deg[u] && !--out[u])
				a->count[tail++] = u;
		}
	}
}

/*
 * The answer from the reachable states: the states that lead to the end,
 * then those in topological order counting the paths to each (to 2); the
 * one path into p->index and p->blocks, or an error saying why there is
 * none or not one (a loop that adds no line: infinitely many).
 */
static int lines_answer(struct pap_spec *s, struct pap_spec_path *p,
			struct lsearch *ls)
{
	struct lanswer a;
	size_t i, j, head = 0, tail = 0, nuseful = 0, n = ls->n;

	a.in_off = calloc(n + 1, sizeof(size_t));
	a.in = malloc((ls->ne + 1) * sizeof(size_t));
	a.out_off = calloc(n + 1, sizeof(size_t));
	a.useful = calloc(n + 1, 1);
	a.queue = malloc((n + 1) * sizeof(size_t));
	a.deg = calloc(n + 1, sizeof(size_t));
	a.count = calloc(n + 1, sizeof(uint64_t));
	if (!a.in_off || !a.in || !a.out_off || !a.useful || !a.queue ||
	    !a.deg || !a.count) {
		lanswer_free(&a);
		return PAP_ENOMEM;
	}
	for (j = 0; j < ls->ne; j++) {
		a.in_off[ls->edst[j] + 1]++;
		a.out_off[ls->esrc[j] + 1]++;	/* steps are by source */
	}
	for (i = 0; i < n; i++) {
		a.in_off[i + 1] += a.in_off[i];
		a.out_off[i + 1] += a.out_off[i];
	}
	for (j = 0; j < ls->ne; j++)
		a.in[a.in_off[ls->edst[j]] + a.deg[ls->edst[j]]++] = j;
	/* backwards from the end */
	a.useful[1] = 1;
	a.queue[tail++] = 1;
	while (head < tail) {
		size_t v = a.queue[head++];

		for (j = a.in_off[v]; j < a.in_off[v + 1]; j++) {
			size_t u = ls->esrc[a.in[j]];

			if (!a.useful[u]) {
				a.useful[u] = 1;
				a.queue[tail++] = u;
			}
		}
	}
	if (!a.useful[0]) {
		lanswer_free(&a);
		return say_impossible(s, p, ls);
	}
	/* forwards in topological order */
	memset(a.deg, 0, (n + 1) * sizeof(size_t));
	for (j = 0; j < ls->ne; j++)
		if (a.useful[ls->esrc[j]] && a.useful[ls->edst[j]])
			a.deg[ls->edst[j]]++;
	for (i = 0; i < n; i++)
		nuseful += a.useful[i];
	head = tail = 0;
	a.queue[tail++] = 0;
	a.count[0] = 1;
	while (head < tail) {
		size_t v = a.queue[head++];

		for (j = a.out_off[v]; j < a.out_off[v + 1]; j++) {
			size_t w = ls->edst[j];

			if (!a.useful[w])
				continue;
			a.count[w] = a.count[w] + a.count[v] > 2 ? 2 :
				     a.count[w] + a.count[v];
			if (!--a.deg[w])
				a.queue[tail++] = w;
		}
	}
	if (tail < nuseful) {
		char msg[256];
		size_t len = 0;

		/* the states left are on a cycle or after one: peel those
		 * after, which lead to no state left */
		lines_cycle(ls, &a);
		msg[0] = 0;
		for (i = 2; i < n; i++)
			if (a.useful[i] && a.deg[i])
				put_num(msg, sizeof(msg), &len, NULL,
					ls->fn->number[ls->node[i]]);
		lanswer_free(&a);
		return pap_spec_error(s, p, "ambiguous lines: a loop of %s "
				      "through blocks%s adds no line of its "
				      "own, so any number of turns matches",
				      p->name, msg);
	}
	if (a.count[1] > 1) {
		int r = say_ambiguous(s, p, ls, &a);

		lanswer_free(&a);
		return r;
	}
	/* the one path, backwards from the end: each state on it has one
	 * step in from a state state 0 reaches */
	{
		size_t v = 1, len = 0;

		for (;;) {
			size_t u = 0;

			for (j = a.in_off[v]; j < a.in_off[v + 1]; j++)
				if (a.count[ls->esrc[a.in[j]]])
					break;
			if (j < a.in_off[v + 1])
				u = ls->esrc[a.in[j]];
			if (u == 0)
				break;
			a.queue[len++] = u;
			v = u;
		}
		p->index = malloc((len + 1) * sizeof(*p->index));
		p->blocks = malloc((len + 1) * sizeof(*p->blocks));
		if (!p->index || !p->blocks) {
			lanswer_free(&a);
			return PAP_ENOMEM;
		}
		p->nblocks = len;
		for (i = 0; i < len; i++) {
			p->index[i] = ls->node[a.queue[len - 1 - i]];
			p->blocks[i] = ls->fn->number[p->index[i]];
		}
	}
	lanswer_free(&a);
	return PAP_OK;
}

/* Path @p, given by its lines, resolved to its blocks. */
static int resolve_lines(struct pap_spec *s, struct pap_spec_path *p,
			 const struct pap_spec_fn *fn)
{
	struct lsearch ls;
	uint32_t *want = malloc((p->nlines + 1) * sizeof(*want));
	size_t i;
	int r;

	if (!want)
		return PAP_ENOMEM;
	memset(&ls, 0, sizeof(ls));
	ls.fn = fn;
	ls.want = want;
	for (i = 0; i < p->nlines; i++)
		if (!ls.m || want[ls.m - 1] != p->lines[i])
			want[ls.m++] = p->lines[i];
	r = state_of(&ls, fn->cfg->entry, 0, &i);
	if (!r)
		r = state_of(&ls, fn->cfg->exit, SIZE_MAX, &i);
	if (!r)
		r = search_forward(&ls);
	if (r == PAP_ELIMIT)
		r = pap_spec_error(s, p, "too many ways to search for these "
				   "%zu lines in %s (more than %zu states)",
				   ls.m, p->name, LINES_MAX_STATES);
	else if (!r)
		r = lines_answer(s, p, &ls);
	free(want);
	free(ls.node);
	free(ls.k);
	free(ls.slots);
	free(ls.esrc);
	free(ls.edst);
	return r;
}

int pap_spec_check(struct pap_spec *s, size_t i, const struct pap_spec_fn *fn)
{
	struct pap_spec_path *p = &s->paths[i];
	int r;

	free(p->index);
	p->index = NULL;
	free(p->fn_file);
	p->fn_file = NULL;
	if (p->has_checksum && p->checksum != fn->checksum)
		return pap_spec_error(s, p, "%s: the path is for another build "
				      "of the function (checksum %016llx, the "
				      "metadata's is %016llx)", p->name,
				      (unsigned long long)p->checksum,
				      (unsigned long long)fn->checksum);
	if (p->kind == PAP_SPEC_LINES) {
		if (!fn->lines)
			return pap_spec_error(s, p, "%s has no source lines to "
					      "resolve the path by", p->name);
		free(p->blocks);
		p->blocks = NULL;
		p->nblocks = 0;
		r = resolve_lines(s, p, fn);
	} else {
		r = map_blocks(s, p, fn);
		if (!r)
			r = check_walk(s, p, fn);
	}
	if (!r) {
		p->fn_file = strdup(fn->file ? fn->file : "");
		if (!p->fn_file)
			r = PAP_ENOMEM;
	}
	if (r) {
		free(p->index);
		p->index = NULL;
	}
	return r;
}
