/* SPDX-License-Identifier: MIT */
/*
 * coverage.c - how much of a function's acyclic paths its decoded paths
 * took, and counts written so that astronomically many stay readable.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * The stretches of paths between fold edges already split, each known to
 * end a Ball-Larus id noted in f->blset: a path's edges are cut at its
 * fold edges, and a stretch met before (the same edges after the same
 * fold edge, or from the entry, or up to the exit) has its id in the set
 * already, so it costs a hash and a compare instead of a walk through
 * the numbering.  Bounded: stretches of up to BL_SPAN_MAX_LEN edges are
 * kept, up to BL_SPANS_MAX_EDGES edges in all; others are split and
 * noted without being kept.
 */
struct bl_spans {
	struct bl_span {
		uint64_t hash;
		size_t at;		/* its edges in pool */
		uint32_t len, prev;	/* prev: the fold before, or NONE */
		int final;		/* it ends at the exit */
	} *sp;
	size_t n, cap;
	size_t *slot;			/* open addressing: index + 1 */
	size_t nslots;
	uint32_t *pool;
	size_t npool, cappool;
	/* the steps of the numbering over pieces of f->pieces (of
	 * generation gen) taken so far (note_pieces()) */
	struct bl_step *step;
	size_t nsteps, nstepslots;
	uint64_t gen;
	/* the same over PAP+EPP pieces known by end and digit, sym the
	 * end << 32 | digit (note_digits()) */
	struct bl_step *dstep;
	size_t ndsteps, ndstepslots;
};

/* One piece read from one state: where it leaves the numbering; its ids
 * are in f->blset. */
struct bl_step {
	uint64_t sym, id_in, id_out;
	uint32_t x_in, x_out;
	uint8_t first_in, used;
};

/* At most this many steps are kept per function. */
#define BL_STEPS_MAX ((size_t)1 << 18)
/* Forms of more pieces than this are noted from their id stream. */
#define BL_STEP_FORM_MAX ((uint64_t)1 << 16)

#define BL_SPANS_MAX_EDGES ((size_t)1 << 20)
/* Longer stretches are not kept: one met again saves little against its
 * compare, and a path without fold edges is one stretch. */
#define BL_SPAN_MAX_LEN 1024
#define BL_SPAN_START UINT32_MAX	/* prev of a path's first stretch */

void bl_spans_free(struct bl_spans *s)
{
	if (!s)
		return;
	free(s->sp);
	free(s->slot);
	free(s->pool);
	free(s->step);
	free(s->dstep);
	free(s);
}

static uint64_t span_hash(uint32_t prev, int final, const uint32_t *e,
			  size_t n)
{
	uint64_t h = (prev * 0x9e3779b97f4a7c15ull) ^ (uint64_t)final ^
		     ((uint64_t)n << 32);
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ e[i]) * 0xff51afd7ed558ccdull;
	return h ^ (h >> 29);
}

/* The slot of the stretch (@prev, @final, @e, @n) of hash @h, or of
 * where it would go (empty). */
static size_t span_slot(const struct bl_spans *s, uint64_t h, uint32_t prev,
			int final, const uint32_t *e, size_t n)
{
	size_t i = (size_t)h & (s->nslots - 1);

	for (; s->slot[i]; i = (i + 1) & (s->nslots - 1)) {
		const struct bl_span *x = &s->sp[s->slot[i] - 1];

		if (x->hash == h && x->len == n && x->prev == prev &&
		    x->final == final &&
		    !memcmp(s->pool + x->at, e, n * sizeof(*e)))
			break;
	}
	return i;
}

/* Keeps stretch (@prev, @final, @e, @n) of hash @h, its slot @i empty;
 * nothing when out of room. */
static void span_keep(struct bl_spans *s, size_t i, uint64_t h,
		      uint32_t prev, int final, const uint32_t *e, size_t n)
{
	size_t k;

	if (n > BL_SPAN_MAX_LEN || s->npool + n > BL_SPANS_MAX_EDGES ||
	    s->n + 1 > s->nslots / 2)
		return;
	if (s->n == s->cap && pap_grow(&s->sp, &s->cap, sizeof(*s->sp), 64))
		return;
	while (s->npool + n > s->cappool)
		if (pap_grow(&s->pool, &s->cappool, sizeof(*s->pool),
			     n > 1024 ? n : 1024))
			return;
	memcpy(s->pool + s->npool, e, n * sizeof(*e));
	s->sp[s->n] = (struct bl_span){ h, s->npool, (uint32_t)n, prev,
					final };
	s->npool += n;
	s->slot[i] = ++s->n;
	/* grown at half full, so that a free slot always ends a probe */
	if (s->n + 1 > s->nslots / 2) {
		size_t m = 2 * s->nslots, *t = calloc(m, sizeof(*t));

		if (!t)
			return;
		for (k = 0; k < s->n; k++) {
			size_t j = (size_t)s->sp[k].hash & (m - 1);

			while (t[j])
				j = (j + 1) & (m - 1);
			t[j] = k + 1;
		}
		free(s->slot);
		s->slot = t;
		s->nslots = m;
	}
}

/*
 * Notes the id that stretch @e (@n edges after fold edge @prev, or from
 * the path's start; up to the exit when @final, else up to and with the
 * fold edge that ends it) ends, unless noted before; 0, or an error code
 * as pap_bl_split() would give.
 */
static int note_span(struct dfunc *f, const struct pap_plan *bl,
		     uint32_t prev, int final, const uint32_t *e, size_t n)
{
	struct bl_spans *s = f->spans;
	struct pap_bl_state st;
	uint64_t h = span_hash(prev, final, e, n), id = 0;
	size_t i = 0, k;
	int err;

	if (s) {
		i = span_slot(s, h, prev, final, e, n);
		if (s->slot[i])
			return PAP_OK;	/* its id is in the set */
	}
	err = prev == BL_SPAN_START ? pap_bl_begin(bl, &st) :
				      pap_bl_start_at(bl, &st, prev);
	for (k = 0; k < n && !err; k++) {
		int r = pap_bl_edge(bl, &st, e[k], &id);

		if (r < 0)
			err = r;
	}
	if (!err && final)
		err = pap_bl_end(bl, &st, &id);
	if (!err)
		err = note_id(f, id, 0, 0);
	if (!err && s)
		span_keep(s, i, h, prev, final, e, n);
	return err;
}

/* f->spans, made if need be; NULL when memory is short. */
static struct bl_spans *spans_of(struct dfunc *f)
{
	if (!f->spans && (f->spans = calloc(1, sizeof(*f->spans)))) {
		f->spans->nslots = 64;
		f->spans->slot = calloc(64, sizeof(*f->spans->slot));
		if (!f->spans->slot) {
			free(f->spans);
			f->spans = NULL;
		}
	}
	return f->spans;
}

/*
 * pap_bl_split() of edges @e (@n) noting its ids in f->blset, each
 * stretch between fold edges split once (struct bl_spans): the same
 * ids and errors.
 */
static int note_edges(struct dfunc *f, const struct pap_plan *bl,
		      const uint32_t *e, size_t n)
{
	const struct pap_cfg *cfg = bl->cfg;
	uint32_t prev = BL_SPAN_START;
	size_t i, start = 0;
	int err;

	if (!n || e[0] >= cfg->nedges || cfg->edges[e[0]].src != cfg->entry)
		return PAP_ECORRUPT;
	spans_of(f);
	for (i = 0; i < n; i++) {
		if (e[i] >= cfg->nedges || !bl->is_fold[e[i]])
			continue;
		err = note_span(f, bl, prev, 0, e + start, i + 1 - start);
		if (err)
			return err;
		prev = e[i];
		start = i + 1;
	}
	return note_span(f, bl, prev, 1, e + start, n - start);
}

static void note_bl(struct dfunc *f, struct dpath *p, const uint32_t *edges,
		    size_t nedges, const struct pap_rseq *form, int whole);

int path_bl_segment(struct dfunc *f, uint32_t start, int final,
		    const uint32_t *e, size_t n, struct seg_bl *out)
{
	const struct pap_plan *bl = func_bl_plan(f);
	struct pap_bl_state st;
	uint64_t id;
	size_t k;
	int err = 0, r;

	if (!bl)
		return PAP_EINVAL;
	out->abs_start = start == PAP_NONE ||
			 (start < bl->cfg->nedges && bl->is_fold[start]);
	out->emits = 0;
	out->head = out->out = 0;
	if (start == PAP_NONE) {
		err = pap_bl_begin(bl, &st);
	} else if (start >= bl->cfg->nedges) {
		err = PAP_ECORRUPT;
	} else if (out->abs_start) {
		err = pap_bl_start_at(bl, &st, start);
	} else {
		/* the running id relative to the one the segment is entered
		 * with, which the segments before give */
		st.id = 0;
		st.x = bl->cfg->edges[start].dst;
		st.first = 0;
	}
	for (k = 0; !err && k <= n; k++) {
		if (k < n) {
			r = pap_bl_edge(bl, &st, e[k], &id);
			if (r <= 0) {
				err = r;
				continue;
			}
		} else if (!final) {
			break;
		} else {
			err = pap_bl_end(bl, &st, &id);
			if (err)
				break;
		}
		/* an id ends: the first of a segment entered mid-path is
		 * completed by its caller, the others are whole */
		if (!out->emits && !out->abs_start)
			out->head = id;
		else
			err = note_id(f, id, 0, 0);
		out->emits = 1;
	}
	if (!out->emits)
		out->head = st.id;
	out->out = st.id;
	return err;
}

int path_note_bl_id(struct dfunc *f, uint64_t id)
{
	return note_id(f, id, 0, 0);
}

/*
 * Can @f's ids be noted per digit (path_note_bl_digits())?  Its own plan
 * is PAP+EPP over the graph of its EPP numbering: each acyclic piece of
 * a decoding, and the fold edge it ends at, are edges that the piece's
 * end and digit determine.
 */
int path_bl_by_digits(struct dfunc *f)
{
	const struct pap_plan *own = pap_meta_plan(f->fn), *bl;

	if (f->bl_digits)
		return f->bl_digits > 0;
	f->bl_digits = -1;
	if (!own || own->mode != PAP_MODE_PAP_EPP || !(bl = func_bl_plan(f)) ||
	    bl->cfg != own->cfg || !spans_of(f))
		return 0;
	f->bl_digits = 1;
	return 1;
}

void bl_digit_visit(void *ctx, uint32_t end, uint64_t d, uint32_t start,
		    size_t at, size_t len)
{
	struct bl_digits *v = ctx;

	if (v->n == v->cap &&
	    pap_grow(&v->p, &v->cap, sizeof(*v->p), 64)) {
		v->err = 1;
		return;
	}
	v->p[v->n++] = (struct bl_digit){ end, start, d, at, len };
}

/* The key of piece @x, or 0 when it has none (a digit too large: its
 * edges are run through the numbering every time). */
static uint64_t digit_key(const struct bl_digit *x)
{
	if (x->d >= UINT32_MAX)
		return 0;
	return (uint64_t)x->end << 32 | x->d;
}

/* The slot of step (@key, @st) in s->dstep, or the empty one where it
 * would go. */
static size_t dstep_slot(const struct bl_spans *s, uint64_t key,
			 const struct pap_bl_state *st)
{
	uint64_t h = (key * 0x9e3779b97f4a7c15ull) ^
		     (st->id * 0xff51afd7ed558ccdull) ^
		     ((uint64_t)st->x << 1) ^ (uint64_t)st->first;
	size_t i = (size_t)(h ^ (h >> 31)) & (s->ndstepslots - 1);

	for (; s->dstep[i].used; i = (i + 1) & (s->ndstepslots - 1)) {
		const struct bl_step *x = &s->dstep[i];

		if (x->sym == key && x->id_in == st->id &&
		    x->x_in == st->x && x->first_in == st->first)
			break;
	}
	return i;
}

/* Keeps step @x in slot @i of s->dstep (empty), growing the table at
 * half full; nothing when memory is short or the table is full. */
static void dstep_keep(struct bl_spans *s, size_t i, const struct bl_step *x)
{
	struct bl_spans g;
	size_t k;

	if (s->ndsteps >= BL_STEPS_MAX)
		return;
	s->dstep[i] = *x;
	if (++s->ndsteps + 1 <= s->ndstepslots / 2)
		return;
	g = *s;
	g.ndstepslots = 2 * s->ndstepslots;
	g.dstep = calloc(g.ndstepslots, sizeof(*g.dstep));
	if (!g.dstep) {
		s->dstep[i].used = 0;	/* a free slot must end a probe */
		s->ndsteps--;
		return;
	}
	for (k = 0; k < s->ndstepslots; k++)
		if (s->dstep[k].used) {
			struct pap_bl_state t = { s->dstep[k].id_in,
						  s->dstep[k].x_in,
						  s->dstep[k].first_in };

			g.dstep[dstep_slot(&g, s->dstep[k].sym, &t)] =
				s->dstep[k];
		}
	free(s->dstep);
	s->dstep = g.dstep;
	s->ndstepslots = g.ndstepslots;
}

/*
 * note_edges() of a path's edges @e (@n, execution order), decoded with
 * its pieces told into @v (struct bl_digits): the numbering is run over
 * the pieces in order (each piece's edges, then the fold edge it ends
 * at), then pap_bl_end(), which gives pap_bl_split()'s ids and errors as
 * note_edges() does; a piece (end and digit: the same edges) read from a
 * state it was read from before leaves the same state and notes ids in
 * the set already, so it costs a lookup.  Returns what note_edges()
 * would (0 or an error code), or 1 to say it must be called instead.
 */
static int note_digits(struct dfunc *f, const struct pap_plan *bl,
		       const uint32_t *e, size_t n, const struct bl_digits *v)
{
	const struct pap_cfg *cfg = bl->cfg;
	struct bl_spans *s = f->spans;
	struct pap_bl_state st;
	size_t k, pos = 0;
	uint64_t id;
	int err;

	if (v->err || !s)
		return 1;
	if (!n || e[0] >= cfg->nedges || cfg->edges[e[0]].src != cfg->entry)
		return PAP_ECORRUPT;
	if (!s->dstep) {
		s->ndstepslots = 1024;
		s->dstep = calloc(s->ndstepslots, sizeof(*s->dstep));
		s->ndsteps = 0;
		if (!s->dstep)
			return 1;
	}
	err = pap_bl_begin(bl, &st);
	/* the pieces were told from the exit back */
	for (k = v->n; !err && k-- > 0;) {
		const struct bl_digit *x = &v->p[k];
		size_t cnt = x->len + (x->end != PAP_NONE), i = 0, j;
		uint64_t key = digit_key(x);
		struct bl_step t;

		if (x->at + x->len > n || n - x->at - x->len != pos ||
		    cnt > n - pos)
			return 1;	/* not a tiling of @e */
		if (key) {
			i = dstep_slot(s, key, &st);
			if (s->dstep[i].used) {
				st.id = s->dstep[i].id_out;
				st.x = s->dstep[i].x_out;
				st.first = 0;
				pos += cnt;
				continue;
			}
		}
		t.sym = key;
		t.id_in = st.id;
		t.x_in = st.x;
		t.first_in = (uint8_t)st.first;
		for (j = pos; j < pos + cnt && !err; j++) {
			int r = pap_bl_edge(bl, &st, e[j], &id);

			if (r < 0)
				err = r;
			else if (r)
				err = note_id(f, id, 0, 0);
		}
		pos += cnt;
		if (err || !key || st.first || !cnt)
			continue;	/* an empty piece is not kept */
		t.id_out = st.id;
		t.x_out = st.x;
		t.used = 1;
		dstep_keep(s, i, &t);
	}
	if (!err && pos != n)
		return 1;
	if (!err)
		err = pap_bl_end(bl, &st, &id);
	return err ? err : note_id(f, id, 0, 0);
}

void path_note_bl_digits(struct dfunc *f, struct dpath *p,
			 const uint32_t *edges, size_t nedges,
			 const struct bl_digits *v)
{
	const struct pap_plan *bl;
	int rc;

	if (f->bl_noted < 0)
		return;
	bl = func_bl_plan(f);
	if (!bl || p->bl_only || path_repeats(p) || !path_bl_by_digits(f)) {
		note_bl(f, p, edges, nedges, NULL, 0);
		return;
	}
	f->bl_noted = 1;
	rc = note_digits(f, bl, edges, nedges, v);
	if (rc == 1) {
		/* this path's pieces, and any later one's, by its edges */
		f->bl_digits = -1;
		rc = note_edges(f, bl, edges, nedges);
	}
	if (rc)
		f->bl_noted = -1;
}

int path_bl_by_pieces(struct dfunc *f)
{
	const struct pap_plan *own = pap_meta_plan(f->fn);

	return own && (own->mode == PAP_MODE_PAP ||
		       own->mode == PAP_MODE_PAP_EPP) &&
	       func_bl_plan(f) && spans_of(f);
}

/* The slot of step (@sym, @st) in s->step, or the empty one where it
 * would go. */
static size_t step_slot(const struct bl_spans *s, uint64_t sym,
			const struct pap_bl_state *st)
{
	uint64_t h = (sym * 0x9e3779b97f4a7c15ull) ^
		     (st->id * 0xff51afd7ed558ccdull) ^
		     ((uint64_t)st->x << 1) ^ (uint64_t)st->first;
	size_t i = (size_t)(h ^ (h >> 31)) & (s->nstepslots - 1);

	for (; s->step[i].used; i = (i + 1) & (s->nstepslots - 1)) {
		const struct bl_step *x = &s->step[i];

		if (x->sym == sym && x->id_in == st->id &&
		    x->x_in == st->x && x->first_in == st->first)
			break;
	}
	return i;
}

/*
 * One piece @sym of f->pieces read from state @st by the numbering
 * (pap_bl_edge()), its ids noted; a piece read from a state it was read
 * from before (struct bl_step) leaves the same state and notes the same
 * ids, already in the set, so it costs a lookup.  0 or an error code.
 */
static int note_step(struct dfunc *f, const struct pap_plan *bl,
		     uint64_t sym, struct pap_bl_state *st)
{
	struct bl_spans *s = f->spans;
	size_t i = step_slot(s, sym, st), k;
	struct bl_step x;
	const uint32_t *e;
	uint64_t id;
	uint32_t len, j;
	int err = 0;

	if (s->step[i].used) {
		st->id = s->step[i].id_out;
		st->x = s->step[i].x_out;
		st->first = 0;
		return 0;
	}
	x.sym = sym;
	x.id_in = st->id;
	x.x_in = st->x;
	x.first_in = (uint8_t)st->first;
	e = pap_piece_edges(&f->pieces, sym, &len);
	for (j = 0; j < len && !err; j++) {
		int r = pap_bl_edge(bl, st, e[j], &id);

		if (r < 0)
			err = r;
		else if (r)
			err = note_id(f, id, 0, 0);
	}
	if (err || st->first || s->nsteps >= BL_STEPS_MAX)
		return err;	/* an empty piece is not kept */
	x.id_out = st->id;
	x.x_out = st->x;
	x.used = 1;
	s->step[i] = x;
	/* grown at half full, so that a free slot ends a probe */
	if (++s->nsteps + 1 > s->nstepslots / 2) {
		struct bl_spans g = *s;

		g.nstepslots = 2 * s->nstepslots;
		g.step = calloc(g.nstepslots, sizeof(*g.step));
		if (!g.step)
			return PAP_ENOMEM;
		for (k = 0; k < s->nstepslots; k++)
			if (s->step[k].used) {
				struct pap_bl_state t = {
					s->step[k].id_in,
					s->step[k].x_in,
					s->step[k].first_in };

				g.step[step_slot(&g, s->step[k].sym,
						 &t)] = s->step[k];
			}
		free(s->step);
		s->step = g.step;
		s->nstepslots = g.nstepslots;
	}
	return 0;
}

/*
 * The ids of the path of form @form (of at most BL_STEP_FORM_MAX pieces)
 * noted by running the numbering (pap_bl_edge()) over its pieces in
 * order, then pap_bl_end(): exactly pap_bl_split()'s ids and errors,
 * each piece costing a lookup when read from a state seen before
 * (note_step()).  A repeat of distance d is read d pieces at a time, the
 * same d pieces each time: once a period leaves the state as it found
 * it, every later whole period would too, noting the same ids, so they
 * are skipped; a path costs about its form's items, not its pieces.
 */
static int note_pieces(struct dfunc *f, const struct pap_plan *bl,
		       const struct pap_rseq *form)
{
	struct bl_spans *s = f->spans;
	struct pap_bl_state st;
	uint64_t id, done, j, chunk;
	size_t k;
	int err;

	if (s->gen != f->pieces_gen || !s->step) {
		free(s->step);
		s->nstepslots = 1024;
		s->step = calloc(s->nstepslots, sizeof(*s->step));
		s->nsteps = 0;
		s->gen = f->pieces_gen;
		if (!s->step)
			return PAP_ENOMEM;
	}
	err = pap_bl_begin(bl, &st);
	for (k = 0; !err && k < form->n; k++) {
		const struct pap_rseq_item *it = &form->it[k];

		if (!it->dist) {
			err = note_step(f, bl, it->sym, &st);
			continue;
		}
		for (done = 0; !err && done < it->len;) {
			struct pap_bl_state was = st;

			chunk = it->len - done < it->dist ? it->len - done :
							     it->dist;
			for (j = 0; !err && j < chunk; j++)
				err = note_step(f, bl,
						pap_rseq_get(form, it->pos +
							     done + j),
						&st);
			done += chunk;
			if (!err && chunk == it->dist && st.id == was.id &&
			    st.x == was.x && st.first == was.first)
				done += (it->len - done) -
					(it->len - done) % it->dist;
		}
	}
	if (!err)
		err = pap_bl_end(bl, &st, &id);
	return err ? err : note_id(f, id, 0, 0);
}

/* path_note_bl() of @p, from its form @form when not NULL. */
static void note_bl(struct dfunc *f, struct dpath *p, const uint32_t *edges,
		    size_t nedges, const struct pap_rseq *form, int whole)
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
	if (form && form->len <= BL_STEP_FORM_MAX && path_bl_by_pieces(f)) {
		if (note_pieces(f, bl, form))
			goto failed;
		return;
	}
	if (whole || !path_repeats(p)) {
		/* what path_bl_ids() splits, without decoding it again */
		if (note_edges(f, bl, edges, nedges))
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
	note_bl(f, p, edges, nedges, NULL, 0);
}

void path_note_bl_form(struct dfunc *f, struct dpath *p,
		       const struct pap_rseq *form)
{
	note_bl(f, p, NULL, 0, form, 0);
}

/*
 * The ids of a whole path's split are those of its id stream with
 * repeats (pap_pathform_bl_ids() gives the same ids and errors), each of
 * which a repeat copies from before: the same set either way.
 */
void path_note_bl_edges(struct dfunc *f, struct dpath *p,
			const uint32_t *edges, size_t nedges)
{
	note_bl(f, p, edges, nedges, NULL, 1);
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
