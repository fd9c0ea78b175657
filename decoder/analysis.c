/* SPDX-License-Identifier: MIT */
/*
 * analysis.c - what reports derive from decoded paths: Ball-Larus id
 * streams and k-IPFs, per-line and per-edge flow, source text, and loop
 * compression of sequences.
 */
#include <stdlib.h>
#include <string.h>

#include "blstream.h"
#include "bpack.h"
#include "decode.h"
#include "decoder.h"
#include "textfile.h"
#include "util.h"

const struct pap_plan *func_bl_plan(struct dfunc *f)
{
	const struct pap_plan *own;

	if (f->bl || f->bl_err)
		return f->bl;
	own = pap_meta_plan(f->fn);
	if (!own) {
		f->bl_err = PAP_EINVAL;
		return NULL;
	}
	f->bl_err = pap_plan_build(own->cfg, PAP_MODE_EPP, NULL, &f->bl);
	if (f->bl_err)
		f->bl = NULL;
	return f->bl;
}

struct id_sink {
	uint64_t *ids;
	size_t n, cap;
};

static int id_push(void *ctx, uint64_t id, size_t first, size_t n)
{
	struct id_sink *s = ctx;

	(void)first;
	(void)n;
	if (s->n == s->cap && pap_grow(&s->ids, &s->cap, sizeof(*s->ids), 16))
		return PAP_ENOMEM;
	s->ids[s->n++] = id;
	return 0;
}

int path_bl_ids(struct dfunc *f, struct dpath *p, uint64_t **ids,
		size_t *nids)
{
	const struct pap_plan *bl = func_bl_plan(f);
	struct id_sink s = { NULL, 0, 0 };
	int err;

	*ids = NULL;
	*nids = 0;
	if (!bl)
		return f->bl_err ? f->bl_err : PAP_EINVAL;
	if (p->bl_only) {
		/* an EPP record is one piece, numbered by the same plan */
		err = id_push(&s, p->bl_id, 0, 0);
		*ids = s.ids;
		*nids = s.n;
		return err;
	}
	if (path_long(p))
		return PAP_ELIMIT;	/* path_bl_form() is its stream */
	if (path_open(f, p))
		return PAP_ENOMEM;
	err = pap_bl_split(bl, p->edges, p->nedges, id_push, &s);
	path_close(p);
	if (err) {
		free(s.ids);
		return err;
	}
	*ids = s.ids;
	*nids = s.n;
	return 0;
}

/* Where k-gram counts of one path go: the forest, times its count. */
struct gram_sink {
	struct pap_forest *ipf;
	uint64_t weight;
};

/* Adds @count occurrences of run @run to the forest's node for it. */
static int gram_add(void *ctx, const uint64_t *run, uint32_t k,
		    uint64_t count)
{
	struct gram_sink *g = ctx;
	uint32_t v = pap_forest_root(g->ipf, run[0]), i;

	for (i = 1; v && i < k; i++)
		v = pap_forest_child(g->ipf, v, run[i]);
	if (!v)
		return PAP_ENOMEM;
	g->ipf->nodes[v].count += count * g->weight;
	return 0;
}

/*
 * The Ball-Larus id stream of @p with its repeats into @ids: from the
 * path's form, or the one id of an EPP record.
 */
static int path_bl_form_of(struct dfunc *f, struct dpath *p,
			   const struct pap_rseq *built, struct pap_rseq *ids)
{
	const struct pap_plan *bl = func_bl_plan(f);
	struct pap_rseq form;
	int err;

	ids->n = 0;
	ids->len = 0;
	if (!bl)
		return f->bl_err ? f->bl_err : PAP_EINVAL;
	if (p->bl_only)
		return pap_rseq_sym(ids, p->bl_id);
	if (built)
		return pap_pathform_bl_ids(bl, &f->pieces, built, ids);
	pap_rseq_init(&form);
	err = path_form(f, p, &form);
	if (!err)
		err = pap_pathform_bl_ids(bl, &f->pieces, &form, ids);
	pap_rseq_free(&form);
	return err;
}

static int path_bl_form(struct dfunc *f, struct dpath *p,
			struct pap_rseq *ids)
{
	return path_bl_form_of(f, p, NULL, ids);
}

int path_repeats(const struct dpath *p)
{
	return !p->bl_only && pap_bpack_has_repeat(p->rec->bps, p->rec->nbps);
}

/*
 * The k-IPF counts every run of 1..k ids inside a path.  Paths without
 * repeats go through the k-slab forest id by id; a path with repeats has
 * its runs counted from its id stream with repeats (pap_rseq_kgrams())
 * and added to the forest built from the others, so a loop of 10^9
 * iterations costs what its distinct runs cost.
 */
int func_kipf(struct dfunc *f, uint32_t k, struct pap_forest *ipf)
{
	struct pap_kslab ks;
	struct pap_rseq ids;
	size_t i, j;
	uint32_t len;
	int err = 0;

	pap_kslab_init(&ks, k);
	for (i = 0; i < f->npaths && !err; i++) {
		uint64_t *v;
		size_t n;

		if (path_repeats(&f->paths[i]))
			continue;
		progress("building the k-IPF", i, f->npaths);
		err = path_bl_ids(f, &f->paths[i], &v, &n);
		for (j = 0; j < n && !err; j++)
			err = pap_kslab_item(&ks, v[j], f->paths[i].count);
		pap_kslab_marker(&ks);
		free(v);
	}
	progress_done();
	if (!err)
		err = pap_kslab_to_kipf(&ks, ipf);
	pap_kslab_free(&ks);
	pap_rseq_init(&ids);
	for (i = 0; i < f->npaths && !err; i++) {
		struct gram_sink g = { ipf, f->paths[i].count };

		if (!path_repeats(&f->paths[i]))
			continue;
		err = path_bl_form(f, &f->paths[i], &ids);
		for (len = 1; len <= k && !err; len++)
			err = pap_rseq_kgrams(&ids, len, gram_add, &g);
	}
	pap_rseq_free(&ids);
	return err;
}

int put_bl_stream_form(FILE *out, struct dfunc *f, struct dpath *p)
{
	struct pap_rseq_cursor at;
	struct pap_rseq s;
	size_t k;
	uint64_t t;
	int err;

	pap_rseq_init(&s);
	pap_rseq_cursor_init(&at, &s);
	err = path_bl_form(f, p, &s);
	for (k = 0; !err && k < s.n; k++) {
		const struct pap_rseq_item *it = &s.it[k];
		uint64_t d = it->dist, from = it->pos - d, tail = it->len;

		if (!d) {
			fprintf(out, " %llu", (unsigned long long)it->sym);
			continue;
		}
		if (it->len >= d) {
			fputs(" (", out);
			for (t = 0; t < d; t++)
				fprintf(out, " %llu", (unsigned long long)
					pap_rseq_cursor_sym(&at, from + t));
			fprintf(out, " )^%llu", (unsigned long long)
				(it->len / d));
			tail = it->len % d;
		}
		for (t = 0; t < tail; t++)
			fprintf(out, " %llu", (unsigned long long)
				pap_rseq_cursor_sym(&at, from + t));
	}
	pap_rseq_cursor_free(&at);
	pap_rseq_free(&s);
	return err;
}

int path_bl_idset(struct dfunc *f, struct dpath *p, uint64_t **ids,
		  size_t *nids)
{
	return path_bl_idset_of(f, p, NULL, ids, nids);
}

int path_bl_idset_of(struct dfunc *f, struct dpath *p,
		     const struct pap_rseq *form, uint64_t **ids,
		     size_t *nids)
{
	struct pap_rseq s;
	size_t k;
	int err;

	*ids = NULL;
	*nids = 0;
	pap_rseq_init(&s);
	err = path_bl_form_of(f, p, form, &s);
	if (!err && !(*ids = malloc((s.n + 1) * sizeof(**ids))))
		err = PAP_ENOMEM;
	for (k = 0; !err && k < s.n; k++)
		if (!s.it[k].dist)
			(*ids)[(*nids)++] = s.it[k].sym;
	pap_rseq_free(&s);
	return err;
}

static int lines_add(uint32_t **v, size_t *n, size_t *cap, uint32_t line)
{
	if (*n && (*v)[*n - 1] == line)
		return 0;
	if (*n == *cap && pap_grow(v, cap, sizeof(**v), 16))
		return -1;
	(*v)[(*n)++] = line;
	return 0;
}

size_t bl_lines(struct dfunc *f, uint64_t id, uint32_t **lines)
{
	const struct pap_plan *bl = func_bl_plan(f);
	const struct pap_cfg *cfg;
	struct pap_path p;
	size_t i, n = 0, cap = 0;
	uint32_t k, b;

	*lines = NULL;
	if (!bl)
		return 0;
	cfg = bl->cfg;
	pap_path_init(&p);
	if (pap_decode_bl(bl, id, &p)) {
		pap_path_free(&p);
		return 0;
	}
	b = p.start_fold != PAP_NONE ? cfg->edges[p.start_fold].dst :
				       PAP_NONE;
	for (i = 0; i <= p.len; i++) {
		if (i > 0)
			b = cfg->edges[p.edges[i - 1]].dst;
		if (b >= cfg->nblocks)
			continue;
		for (k = 0; k < blines(f->fn, b)[0]; k++)
			if (lines_add(lines, &n, &cap, blines(f->fn, b)[k + 1]))
				break;
	}
	pap_path_free(&p);
	return n;
}

int path_counts(struct dfunc *f, struct dpath *p, uint64_t mult,
		uint64_t *block, uint64_t *edge)
{
	const struct pap_cfg *cfg = f->fn->graph.cfg;
	struct pap_rseq form;
	uint64_t *w = NULL;
	size_t j, k;
	int err;

	if (p->bl_only || (!path_long(p) &&
			  !pap_bpack_has_repeat(p->rec->bps, p->rec->nbps))) {
		/* no repeat to exploit: its blocks one by one */
		if (path_open(f, p))
			return -1;
		for (j = 0; block && j < p->n; j++)
			block[p->blocks[j]] += mult;
		for (j = 0; edge && j < p->nedges; j++)
			if (p->edges[j] < cfg->nedges)
				edge[p->edges[j]] += mult;
		path_close(p);
		return 0;
	}
	/* each piece of the form counts as often as the path holds it */
	pap_rseq_init(&form);
	err = path_form(f, p, &form);
	if (!err && !(w = malloc((form.n + 1) * sizeof(*w))))
		err = PAP_ENOMEM;
	if (!err)
		err = pap_rseq_weights(&form, w);
	for (k = 0; !err && k < form.n; k++) {
		uint32_t len, i;
		const uint32_t *e;

		if (form.it[k].dist)
			continue;
		e = pap_piece_edges(&f->pieces, form.it[k].sym, &len);
		for (i = 0; i < len; i++) {
			if (edge && e[i] < cfg->nedges)
				edge[e[i]] += w[k] * mult;
			if (block && cfg->edges[e[i]].dst < cfg->nblocks)
				block[cfg->edges[e[i]].dst] += w[k] * mult;
		}
	}
	free(w);
	pap_rseq_free(&form);
	if (err)
		fprintf(stderr, "%s: error: function %s: a path cannot be "
			"decoded again: %s\n", pap_prog, f->fn->name,
			pap_strerror(err));
	return err ? -1 : 0;
}

void flow_counts(struct dfunc *f, uint64_t **block, uint64_t **edge)
{
	const struct pap_cfg *cfg = f->fn->graph.cfg;
	size_t i;

	*block = calloc(cfg->nnodes, sizeof(uint64_t));
	*edge = calloc(cfg->nedges + 1, sizeof(uint64_t));
	if (!*block || !*edge)
		return;
	for (i = 0; i < f->npaths; i++) {
		progress("counting flow", i, f->npaths);
		path_counts(f, &f->paths[i], f->paths[i].count, *block, *edge);
	}
	progress_done();
}

/* Block @b ran @times more on path @i: each of its lines up to @max
 * counts them, and counts path @i once. */
static void count_block_lines(const struct pap_meta_fn *fn, uint32_t b,
			      size_t i, uint64_t times, uint32_t max,
			      uint64_t *count, uint32_t *paths, uint32_t *last)
{
	const uint32_t *ln = blines(fn, b);
	uint32_t k;

	for (k = 0; k < ln[0]; k++) {
		uint32_t l = ln[k + 1];

		if (l > max)
			continue;
		if (last[l] != i + 1) {
			last[l] = (uint32_t)i + 1;
			paths[l]++;
		}
		count[l] += times;
	}
}

/* line_counts() of path @i, @p, from its blocks one by one. */
static void count_path_lines(struct dfunc *f, struct dpath *p, size_t i,
			     uint32_t max, uint64_t *count, uint32_t *paths,
			     uint32_t *last)
{
	size_t j;

	if (path_open(f, p))
		return;
	for (j = 0; j < p->n; j++)
		count_block_lines(f->fn, p->blocks[j], i, p->count, max, count,
				  paths, last);
	path_close(p);
}

void line_counts(struct dfunc *f, uint64_t **count, uint32_t **paths,
		 uint32_t *nlines)
{
	const struct pap_meta_fn *fn = f->fn;
	uint32_t max = 0, b, k, *last;
	uint64_t *bc;
	size_t i;

	for (b = 0; b < fn->graph.nblocks; b++)
		for (k = 0; k < blines(fn, b)[0]; k++)
			if (blines(fn, b)[k + 1] > max &&
			    blines(fn, b)[k + 1] < PAP_MAX_LINE)
				max = blines(fn, b)[k + 1];
	*nlines = max + 1;
	*count = calloc(max + 1, sizeof(uint64_t));
	*paths = calloc(max + 1, sizeof(uint32_t));
	last = calloc(max + 1, sizeof(uint32_t));
	bc = calloc(fn->graph.cfg->nnodes, sizeof(uint64_t));
	if (!*count || !*paths || !last || !bc) {
		free(last);
		free(bc);
		*nlines = 0;
		return;
	}
	/* a line's count is the executions of the blocks that carry it;
	 * a long path's block counts come from its form */
	for (i = 0; i < f->npaths; i++) {
		struct dpath *p = &f->paths[i];

		progress("counting lines", i, f->npaths);
		if (!path_long(p)) {
			count_path_lines(f, p, i, max, *count, *paths, last);
			continue;
		}
		if (path_counts(f, p, 1, bc, NULL))
			continue;
		for (b = 0; b < fn->graph.nblocks; b++) {
			if (!bc[b])
				continue;
			count_block_lines(fn, b, i, bc[b] * p->count, max,
					  *count, *paths, last);
			bc[b] = 0;
		}
	}
	progress_done();
	free(last);
	free(bc);
}

/* ---- loop compression ---- */

/* The longest period find_repeat() tries. */
#define REPEAT_MAX_PERIOD 64

/*
 * Longest run at @i of a subsequence repeated at least twice: returns
 * the period (0 if none) and its repetitions in *reps.  Periods are
 * tried shortest first, and a longer one wins only by covering more.
 * With @next (next[k]: the next position holding b[k]'s value, or @n),
 * only the periods p with b[i + p] == b[i] are visited, the others
 * failing on their first element anyway: the same answer.
 */
static size_t find_repeat(const uint32_t *b, size_t n, size_t i,
			  const size_t *next, size_t *reps)
{
	size_t best = 0, best_cover = 0, p, at = i;

	*reps = 0;
	for (p = 1; p <= REPEAT_MAX_PERIOD && i + 2 * p <= n; p++) {
		size_t r = 1;

		if (next) {
			/* the next period whose first element agrees */
			at = next[at];
			if (at >= n || at - i > REPEAT_MAX_PERIOD ||
			    i + 2 * (at - i) > n)
				break;
			p = at - i;
		} else if (b[i] != b[i + p]) {
			/* most periods fail on the first element */
			continue;
		}
		while (i + (r + 1) * p <= n &&
		       !memcmp(b + i, b + i + r * p, p * sizeof(*b)))
			r++;
		if (r >= 2 && r * p > best_cover) {
			best = p;
			best_cover = r * p;
			*reps = r;
		}
	}
	return best;
}

/* Sequences at least this long are compressed with find_repeat()'s
 * @next: building it costs less than trying every period. */
#define REPEAT_NEXT_MIN 32
/* Sequences up to this long have @next built on the stack. */
#define REPEAT_NEXT_STACK 512
/* Longer ones try every period: @next would take 40 bytes an element
 * (an open path of 10^7 blocks, 400 MB) where the sequence takes 4. */
#define REPEAT_NEXT_MAX ((size_t)1 << 16)

struct next_slot {
	uint32_t v;
	size_t at;
};

/*
 * next[k] for each position of @v, into @next (@n of room): the next
 * position holding the same value, or @n.  @slot (@nslots, a power of
 * two at least 2 @n) is a hash of the values seen, last position first.
 */
static void next_same(const uint32_t *v, size_t n, size_t *next,
		      struct next_slot *slot, size_t nslots)
{
	size_t k, h;

	for (h = 0; h < nslots; h++)
		slot[h].at = n;		/* empty */
	for (k = n; k-- > 0;) {
		h = (size_t)((v[k] * 0x9e3779b97f4a7c15ull) >> 32) &
		    (nslots - 1);
		while (slot[h].at != n && slot[h].v != v[k])
			h = (h + 1) & (nslots - 1);
		next[k] = slot[h].at;
		slot[h].v = v[k];
		slot[h].at = k;
	}
}

/* print_compressed() of @v, @next as find_repeat() takes it. */
static void compress_seq(const struct seq_printer *sp, const uint32_t *v,
			 size_t n, const size_t *next)
{
	size_t i = 0, reps;

	while (i < n) {
		size_t p = find_repeat(v, n, i, next, &reps);

		if (p) {
			sp->open(sp->ctx);
			print_compressed(sp, v + i, p);
			sp->close(sp->ctx, reps);
			i += p * reps;
			continue;
		}
		sp->item(sp->ctx, v[i]);
		i++;
	}
}

void print_compressed(const struct seq_printer *sp, const uint32_t *v,
		      size_t n)
{
	size_t stack_next[REPEAT_NEXT_STACK], *next = NULL, nslots = 64;
	struct next_slot stack_slot[2 * REPEAT_NEXT_STACK], *slot = NULL;

	if (n < REPEAT_NEXT_MIN || n > REPEAT_NEXT_MAX) {
		compress_seq(sp, v, n, NULL);
		return;
	}
	while (nslots < 2 * n)
		nslots *= 2;
	if (n <= REPEAT_NEXT_STACK) {
		next = stack_next;
		slot = stack_slot;
	} else {
		next = malloc(n * sizeof(*next));
		slot = malloc(nslots * sizeof(*slot));
	}
	if (next && slot)
		next_same(v, n, next, slot, nslots);
	compress_seq(sp, v, n, next && slot ? next : NULL);
	if (n > REPEAT_NEXT_STACK) {
		free(next);
		free(slot);
	}
}

/*
 * A long path printed from its form: units are pieces and groups; a
 * repeat of distance d and length L becomes the group of the units
 * covering the d pieces before it, taken 1 + L / d times, then the first
 * L % d of those pieces again.  When no unit starts d pieces back, the
 * group holds the d pieces afresh and is taken L / d times.  Memory and
 * time grow with the form's items and the distances of its repeats.
 */
struct unit {
	uint64_t start;		/* first piece position */
	uint64_t sym;		/* a piece */
	uint64_t reps;		/* 0: a piece; else a group taken reps times */
	size_t kid, nkids;	/* a group's units, in kids */
};

struct units {
	struct unit *u;
	size_t n, cap;
	size_t *top;		/* units not in a group, in order */
	size_t ntop, captop;
	size_t *kids;
	size_t nkids, capkids;
};

static int grow_array(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 16;
	void *n;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	n = realloc(*p, c * size);
	if (!n)
		return -1;
	*p = n;
	*cap = c;
	return 0;
}

static int unit_new(struct units *us, struct unit u)
{
	if (grow_array((void **)&us->u, &us->cap, us->n + 1, sizeof(u)) ||
	    grow_array((void **)&us->top, &us->captop, us->ntop + 1,
		       sizeof(*us->top)))
		return -1;
	us->u[us->n] = u;
	us->top[us->ntop++] = us->n++;
	return 0;
}

/* Puts the top units from @from on into a group taken @reps times. */
static int unit_group(struct units *us, size_t from, uint64_t reps)
{
	size_t n = us->ntop - from;
	struct unit g = { us->u[us->top[from]].start, 0, reps, us->nkids, n };

	if (grow_array((void **)&us->kids, &us->capkids, us->nkids + n,
		       sizeof(*us->kids)))
		return -1;
	memcpy(us->kids + us->nkids, us->top + from, n * sizeof(*us->kids));
	us->nkids += n;
	us->ntop = from;
	return unit_new(us, g);
}

/* The top unit starting at piece position @pos, or ntop. */
static size_t unit_at(const struct units *us, uint64_t pos)
{
	size_t lo = 0, hi = us->ntop;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (us->u[us->top[mid]].start < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < us->ntop && us->u[us->top[lo]].start == pos ? lo :
								 us->ntop;
}

struct form_print {
	const struct seq_printer *sp;
	struct dfunc *f;
	piece_printer piece;
	uint32_t *blocks;
	size_t cap;
};

/*
 * What a piece printer made of each piece of a function: the calls it
 * made to its seq_printer, replayed for the piece's next printing rather
 * than computed again (a long path prints a few distinct pieces millions
 * of times).  Valid for one piece printer and one set of pieces (the
 * function's pieces_gen); bounded in size, pieces past the bound are
 * printed afresh each time.
 */
struct piece_memo {
	piece_printer of;
	uint64_t gen;
	size_t *first;		/* per piece: its first call, or SIZE_MAX */
	size_t *end;		/* and one past its last */
	size_t npieces;
	struct piece_ev *ev;
	size_t nev, capev;
};

/* One call of a piece printer to its seq_printer. */
struct piece_ev {
	uint64_t arg;		/* the item, or a group's repeats */
	int kind;		/* 0 item, 1 open, 2 close */
};

/* The most calls a piece memo keeps (16 bytes each). */
#define PIECE_MEMO_MAX_EV ((size_t)1 << 22)

void piece_memo_free(struct piece_memo *m)
{
	if (!m)
		return;
	free(m->first);
	free(m->end);
	free(m->ev);
	free(m);
}

/* A seq_printer passing calls on to @out and keeping them in @m. */
struct piece_tee {
	const struct seq_printer *out;
	struct piece_memo *m;
	int full;		/* out of room: kept no more */
};

static void tee_keep(struct piece_tee *t, uint64_t arg, int kind)
{
	struct piece_memo *m = t->m;

	if (t->full)
		return;
	if (m->nev == m->capev &&
	    (m->capev >= PIECE_MEMO_MAX_EV ||
	     pap_grow(&m->ev, &m->capev, sizeof(*m->ev), 64))) {
		t->full = 1;
		return;
	}
	m->ev[m->nev++] = (struct piece_ev){ arg, kind };
}

static void tee_item(void *ctx, uint32_t v)
{
	struct piece_tee *t = ctx;

	tee_keep(t, v, 0);
	t->out->item(t->out->ctx, v);
}

static void tee_open(void *ctx)
{
	struct piece_tee *t = ctx;

	tee_keep(t, 0, 1);
	t->out->open(t->out->ctx);
}

static void tee_close(void *ctx, size_t reps)
{
	struct piece_tee *t = ctx;

	tee_keep(t, reps, 2);
	t->out->close(t->out->ctx, reps);
}

/*
 * @f's memo for printer @piece, emptied when it was another printer's
 * or the pieces were emptied since, with room for piece @sym; NULL when
 * memory is short.
 */
static struct piece_memo *memo_for(struct dfunc *f, piece_printer piece,
				   uint64_t sym)
{
	struct piece_memo *m = f->pmemo;
	size_t n, k;

	if (!m) {
		m = f->pmemo = calloc(1, sizeof(*m));
		if (!m)
			return NULL;
	}
	if (m->of != piece || m->gen != f->pieces_gen) {
		m->of = piece;
		m->gen = f->pieces_gen;
		m->nev = 0;
		for (k = 0; k < m->npieces; k++)
			m->first[k] = SIZE_MAX;
	}
	if (sym >= m->npieces) {
		size_t *a, *b;

		n = m->npieces ? m->npieces : 64;
		while (n <= sym)
			n *= 2;
		a = realloc(m->first, n * sizeof(*a));
		if (a)
			m->first = a;
		b = realloc(m->end, n * sizeof(*b));
		if (b)
			m->end = b;
		if (!a || !b)
			return NULL;
		for (k = m->npieces; k < n; k++)
			m->first[k] = SIZE_MAX;
		m->npieces = n;
	}
	return m;
}

/*
 * Prints piece @sym by fp->piece from the calls kept from its last
 * printing: 1, or 0 when none were kept.
 */
static int piece_replay(struct form_print *fp, uint64_t sym)
{
	const struct seq_printer *sp = fp->sp;
	struct piece_memo *m = memo_for(fp->f, fp->piece, sym);
	size_t k;

	if (!m || m->first[sym] == SIZE_MAX)
		return 0;
	for (k = m->first[sym]; k < m->end[sym]; k++) {
		const struct piece_ev *e = &m->ev[k];

		if (e->kind == 0)
			sp->item(sp->ctx, (uint32_t)e->arg);
		else if (e->kind == 1)
			sp->open(sp->ctx);
		else
			sp->close(sp->ctx, (size_t)e->arg);
	}
	return 1;
}

/*
 * Prints piece @sym, whose user blocks are @blocks (@n), by fp->piece,
 * keeping its calls for piece_replay().
 */
static void piece_print(struct form_print *fp, uint64_t sym,
			const uint32_t *blocks, size_t n)
{
	const struct seq_printer *sp = fp->sp;
	struct piece_memo *m = memo_for(fp->f, fp->piece, sym);
	struct piece_tee t = { sp, m, 0 };
	struct seq_printer tee = { tee_item, tee_open, tee_close, &t };
	size_t from;

	if (!m) {
		fp->piece(sp, fp->f, blocks, n);
		return;
	}
	from = m->nev;
	fp->piece(&tee, fp->f, blocks, n);
	if (t.full) {
		m->nev = from;
		return;
	}
	m->first[sym] = from;
	m->end[sym] = m->nev;
}

static void unit_print(struct form_print *fp, const struct units *us,
		       size_t i)
{
	const struct unit *u = &us->u[i];
	const struct pap_cfg *cfg = fp->f->fn->graph.cfg;
	const uint32_t *e;
	uint32_t len, k;
	size_t n = 0;

	if (u->reps) {
		fp->sp->open(fp->sp->ctx);
		for (k = 0; k < u->nkids; k++)
			unit_print(fp, us, us->kids[u->kid + k]);
		fp->sp->close(fp->sp->ctx, u->reps);
		return;
	}
	if (piece_replay(fp, u->sym))
		return;
	e = pap_piece_edges(&fp->f->pieces, u->sym, &len);
	if (grow_array((void **)&fp->blocks, &fp->cap, (size_t)len + 1,
		       sizeof(*fp->blocks)))
		return;
	for (k = 0; k < len; k++)
		if (cfg->edges[e[k]].dst < cfg->nblocks)
			fp->blocks[n++] = cfg->edges[e[k]].dst;
	piece_print(fp, u->sym, fp->blocks, n);
}

int print_form(const struct seq_printer *sp, struct dfunc *f,
	       const struct dpath *p, piece_printer piece)
{
	struct pap_rseq form;
	int err;

	pap_rseq_init(&form);
	err = path_form(f, p, &form);
	if (!err)
		err = print_form_of(sp, f, &form, piece);
	pap_rseq_free(&form);
	return err ? -1 : 0;
}

int print_form_of(const struct seq_printer *sp, struct dfunc *f,
		  const struct pap_rseq *fm, piece_printer piece)
{
	struct form_print fp = { sp, f, piece, NULL, 0 };
	const struct pap_rseq form = *fm;
	struct pap_rseq_cursor at;
	struct units us;
	size_t k, j;
	uint64_t t;
	int err = 0;

	memset(&us, 0, sizeof(us));
	pap_rseq_cursor_init(&at, &form);
	for (k = 0; !err && k < form.n; k++) {
		const struct pap_rseq_item *it = &form.it[k];
		uint64_t d = it->dist, L = it->len, from = it->pos - d;

		if (!d) {
			err = unit_new(&us, (struct unit){ it->pos, it->sym,
							   0, 0, 0 });
			continue;
		}
		if (L >= d) {
			j = unit_at(&us, from);
			if (j < us.ntop) {
				err = unit_group(&us, j, 1 + L / d);
			} else {
				j = us.ntop;
				for (t = 0; !err && t < d; t++)
					err = unit_new(&us, (struct unit){
						it->pos + t,
						pap_rseq_cursor_sym(&at, from + t),
						0, 0, 0 });
				if (!err)
					err = unit_group(&us, j, L / d);
			}
		}
		for (t = 0; !err && t < (L >= d ? L % d : L); t++)
			err = unit_new(&us, (struct unit){
				it->pos + L - (L >= d ? L % d : L) + t,
				pap_rseq_cursor_sym(&at, from + t), 0, 0, 0 });
	}
	for (k = 0; !err && k < us.ntop; k++)
		unit_print(&fp, &us, us.top[k]);
	pap_rseq_cursor_free(&at);
	free(fp.blocks);
	free(us.u);
	free(us.top);
	free(us.kids);
	return err ? -1 : 0;
}

void piece_blocks(const struct seq_printer *sp, struct dfunc *f,
		  const uint32_t *blocks, size_t n)
{
	(void)f;
	print_compressed(sp, blocks, n);
}

void piece_lines(const struct seq_printer *sp, struct dfunc *f,
		 const uint32_t *blocks, size_t n)
{
	uint32_t *v = NULL;
	size_t i, nv = 0, cap = 0;
	uint32_t k;

	for (i = 0; i < n; i++) {
		const uint32_t *l = blines(f->fn, blocks[i]);

		for (k = 0; k < l[0]; k++)
			if (lines_add(&v, &nv, &cap, l[k + 1]))
				break;
	}
	print_compressed(sp, v, nv);
	free(v);
}

struct num_ctx {
	FILE *out;
	const struct pap_meta_fn *fn;
};

static void num_item(void *ctx, uint32_t b)
{
	struct num_ctx *c = ctx;

	fprintf(c->out, " %u", block_number(c->fn, b));
}

static void num_open(void *ctx)
{
	fputs(" (", ((struct num_ctx *)ctx)->out);
}

static void num_close(void *ctx, size_t reps)
{
	fprintf(((struct num_ctx *)ctx)->out, " )^%zu", reps);
}

void put_form_numbers(FILE *out, struct dfunc *f, const struct dpath *p)
{
	struct num_ctx c = { out, f->fn };
	struct seq_printer sp = { num_item, num_open, num_close, &c };

	if (print_form(&sp, f, p, piece_blocks))
		fputs(" ...", out);
}

void put_packed_numbers(FILE *out, struct dfunc *f, const struct dpath *p)
{
	struct num_ctx c = { out, f->fn };
	struct seq_printer sp = { num_item, num_open, num_close, &c };

	print_compressed(&sp, p->blocks, p->n);
}

static void num_gap(void *ctx)
{
	fputs(" ...", ((struct num_ctx *)ctx)->out);
}

int put_numbers_bounded(FILE *out, struct dfunc *f, const struct dpath *p,
			uint64_t max_marks)
{
	struct num_ctx c = { out, f->fn };
	struct seq_printer sp = { num_item, num_open, num_close, &c };
	struct path_emit e = { f, p, p->blocks, p->n, piece_blocks, NULL };
	struct pap_rseq form;
	int rc;

	if (!max_marks) {
		if (!path_long(p)) {
			put_packed_numbers(out, f, p);
			return 0;
		}
		if (print_form(&sp, f, p, piece_blocks)) {
			fputs(" ...", out);
			return -1;
		}
		return 0;
	}
	/* a long path's form is built once for both passes */
	pap_rseq_init(&form);
	if (path_long(p)) {
		if (path_form(f, p, &form) != PAP_OK) {
			pap_rseq_free(&form);
			fputs(" ...", out);
			return -1;
		}
		e.form = &form;
	}
	rc = print_bounded_max(&sp, num_gap, emit_seq, &e, max_marks);
	pap_rseq_free(&form);
	return rc ? 1 : 0;
}

