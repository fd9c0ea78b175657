/* SPDX-License-Identifier: MIT */
/*
 * bounded.c - a path printed in bounded space: its compressed form (items
 * and "( ... )^N" groups) whole when it is short, else its first parts,
 * its largest repeated group and its last parts, "..." for the rest.
 *
 * The sequence is produced once by the caller's emitter, to measure it
 * (how many marks, how many top-level parts, which group covers the most
 * elements); what printing can use of it is kept as it goes by: the
 * whole sequence while it is short, and of the first, the largest and
 * the last parts what printing them cut shows.  Then only those are
 * printed, without producing the sequence again.  Memory is bounded
 * whatever the path's length (by the marks of a kept part's prefix and
 * its nesting).
 */
#include <stdlib.h>
#include <string.h>

#include "decoder.h"

/* Group nesting followed for measuring; deeper groups count as one. */
#define BOUND_DEPTH 64

/* One call to a seq_printer, as kept for printing it later. */
enum { EV_ITEM, EV_OPEN, EV_CLOSE };
struct ev {
	uint64_t reps;		/* EV_CLOSE */
	uint32_t v;		/* EV_ITEM */
	uint32_t kind;
};

/* The calls of one top-level part that printing it can make. */
struct part {
	struct ev *ev;
	size_t n, cap;
	uint64_t unit;		/* which part */
	int valid;
};

/* Parts kept from the end of the sequence: the last PRINT_TAIL_PARTS. */
#define TAIL_RING PRINT_TAIL_PARTS

struct bound {
	const struct seq_printer *in;
	void (*gap)(void *ctx);
	size_t depth;
	uint64_t unit;		/* top-level parts before the current one */
	/* measured */
	uint64_t marks, nunits, core, core_len;
	uint64_t len[BOUND_DEPTH];	/* elements in each open group */
	/* kept while measuring */
	uint64_t max_marks;
	struct part all;	/* every call, while at most max_marks */
	struct part *cur;	/* the current part's: one of parts[] */
	uint64_t cur_marks;	/* items and opens kept of it */
	size_t cut_depth;	/* past the cut: closes below this are kept */
	int cur_cut;
	struct part head[PRINT_HEAD_PARTS], core_part;
	/* the last parts, by part number modulo TAIL_RING: the ring and
	 * the current part take turns with parts[], swapped by pointer */
	struct part *tail[TAIL_RING];
	struct part parts[TAIL_RING + 1];
	int oom;
	/* printing */
	int whole, shown, cut, skipping;
	size_t printed_depth;	/* groups opened and printed */
	uint64_t unit_marks;
};

static void sat_add(uint64_t *a, uint64_t b)
{
	*a = *a + b < *a ? UINT64_MAX : *a + b;
}

static void ev_push(struct bound *b, struct part *p, struct ev e)
{
	if (p->n == p->cap) {
		size_t c = p->cap ? 2 * p->cap : 32;
		struct ev *n = realloc(p->ev, c * sizeof(*n));

		if (!n) {
			b->oom = 1;
			return;
		}
		p->ev = n;
		p->cap = c;
	}
	p->ev[p->n++] = e;
}

static void part_copy(struct bound *b, struct part *to,
		      const struct part *from)
{
	to->n = 0;
	to->valid = 1;
	to->unit = from->unit;
	if (from->n > to->cap) {
		struct ev *n = realloc(to->ev, from->n * sizeof(*n));

		if (!n) {
			b->oom = 1;
			to->valid = 0;
			return;
		}
		to->ev = n;
		to->cap = from->n;
	}
	if (from->n)
		memcpy(to->ev, from->ev, from->n * sizeof(*to->ev));
	to->n = from->n;
}

/*
 * Keeps call @e, made at nesting @depth (before it): in the whole
 * sequence while that stays within max_marks, and in the current part
 * as far as printing it shows: its first PRINT_PART_MARKS items and
 * opens and the one that cuts it, then only the closes of the groups
 * open at the cut.
 */
static void keep(struct bound *b, struct ev e, size_t depth)
{
	if (b->all.valid) {
		if (b->marks > b->max_marks) {
			free(b->all.ev);
			memset(&b->all, 0, sizeof(b->all));
		} else {
			ev_push(b, &b->all, e);
		}
	}
	if (!depth && e.kind != EV_CLOSE) {
		b->cur->n = 0;
		b->cur->unit = b->nunits;
		b->cur_marks = 0;
		b->cur_cut = 0;
	}
	if (!b->cur_cut) {
		ev_push(b, b->cur, e);
		if (e.kind != EV_CLOSE && ++b->cur_marks > PRINT_PART_MARKS) {
			b->cur_cut = 1;
			b->cut_depth = depth + (e.kind == EV_OPEN);
		}
	} else if (e.kind == EV_CLOSE && depth && depth - 1 < b->cut_depth) {
		ev_push(b, b->cur, e);
		b->cut_depth = depth - 1;
	}
}

/* The current part has ended; @is_core: it is the largest group yet. */
static void part_end(struct bound *b, int is_core)
{
	struct part *t;
	uint64_t u = b->cur->unit;

	b->cur->valid = 1;
	if (u < PRINT_HEAD_PARTS)
		part_copy(b, &b->head[u], b->cur);
	if (is_core)
		part_copy(b, &b->core_part, b->cur);
	/* the ring takes the current part, the current the ring's oldest */
	t = b->tail[u % TAIL_RING];
	b->tail[u % TAIL_RING] = b->cur;
	b->cur = t;
	b->cur->n = 0;
}

/* Measuring: the marks, the top-level parts and the largest group. */
static void m_item(void *ctx, uint32_t v)
{
	struct bound *b = ctx;

	b->marks++;
	keep(b, (struct ev){ 0, v, EV_ITEM }, b->depth);
	if (!b->depth) {
		part_end(b, 0);
		b->nunits++;
	} else if (b->depth <= BOUND_DEPTH)
		sat_add(&b->len[b->depth - 1], 1);
}

static void m_open(void *ctx)
{
	struct bound *b = ctx;

	b->marks++;
	keep(b, (struct ev){ 0, 0, EV_OPEN }, b->depth);
	if (++b->depth <= BOUND_DEPTH)
		b->len[b->depth - 1] = 0;
}

static void m_close(void *ctx, size_t reps)
{
	struct bound *b = ctx;
	uint64_t n;

	b->marks++;
	if (!b->depth)
		return;
	keep(b, (struct ev){ reps, 0, EV_CLOSE }, b->depth);
	if (b->depth-- > BOUND_DEPTH)
		return;
	n = b->len[b->depth];
	n = reps && n > UINT64_MAX / reps ? UINT64_MAX : n * reps;
	if (b->depth) {
		if (b->depth <= BOUND_DEPTH)
			sat_add(&b->len[b->depth - 1], n);
		return;
	}
	if (n > b->core_len) {
		b->core_len = n;
		b->core = b->nunits;
		part_end(b, 1);
	} else {
		part_end(b, 0);
	}
	b->nunits++;
}

/* Printing: is top-level part @u kept? */
static int kept(const struct bound *b, uint64_t u)
{
	return b->whole || u < PRINT_HEAD_PARTS ||
	       (b->core_len && u == b->core) ||
	       u + PRINT_TAIL_PARTS >= b->nunits;
}

/* A top-level part begins: print it, or one "..." for a run left out. */
static void part_begin(struct bound *b)
{
	b->shown = kept(b, b->unit);
	b->cut = 0;
	b->unit_marks = 0;
	b->printed_depth = 0;
	if (b->shown)
		b->skipping = 0;
	else if (!b->skipping) {
		b->skipping = 1;
		b->gap(b->in->ctx);
	}
}

/* May one more mark of the current part be printed? */
static int room(struct bound *b)
{
	if (b->cut)
		return 0;
	if (b->whole || b->unit_marks < PRINT_PART_MARKS) {
		b->unit_marks++;
		return 1;
	}
	b->cut = 1;
	b->gap(b->in->ctx);
	return 0;
}

static void p_item(void *ctx, uint32_t v)
{
	struct bound *b = ctx;

	if (!b->depth)
		part_begin(b);
	if (b->shown && room(b))
		b->in->item(b->in->ctx, v);
	if (!b->depth)
		b->unit++;
}

static void p_open(void *ctx)
{
	struct bound *b = ctx;

	if (!b->depth)
		part_begin(b);
	if (b->shown && room(b)) {
		b->in->open(b->in->ctx);
		b->printed_depth = b->depth + 1;
	}
	b->depth++;
}

static void p_close(void *ctx, size_t reps)
{
	struct bound *b = ctx;

	if (!b->depth)
		return;
	b->depth--;
	if (b->shown && b->depth < b->printed_depth) {
		b->in->close(b->in->ctx, reps);
		b->printed_depth = b->depth;
	}
	if (!b->depth)
		b->unit++;
}

int print_bounded(const struct seq_printer *sp, void (*gap)(void *ctx),
		  seq_emitter emit, void *arg)
{
	return print_bounded_max(sp, gap, emit, arg, PRINT_MAX_MARKS);
}

static void bound_free(struct bound *b)
{
	size_t i;

	free(b->all.ev);
	free(b->core_part.ev);
	for (i = 0; i < PRINT_HEAD_PARTS; i++)
		free(b->head[i].ev);
	for (i = 0; i < TAIL_RING + 1; i++)
		free(b->parts[i].ev);
}

/* The kept part @u, or NULL when it was not kept. */
static const struct part *kept_part(const struct bound *b, uint64_t u)
{
	const struct part *t = b->tail[u % TAIL_RING];

	if (u < PRINT_HEAD_PARTS && b->head[u].valid && b->head[u].unit == u)
		return &b->head[u];
	if (t->valid && t->unit == u)
		return t;
	if (b->core_part.valid && b->core_part.unit == u)
		return &b->core_part;
	return NULL;
}

static void ev_send(const struct seq_printer *p, const struct part *pt)
{
	size_t i;

	for (i = 0; i < pt->n; i++) {
		const struct ev *e = &pt->ev[i];

		if (e->kind == EV_ITEM)
			p->item(p->ctx, e->v);
		else if (e->kind == EV_OPEN)
			p->open(p->ctx);
		else
			p->close(p->ctx, (size_t)e->reps);
	}
}

/*
 * Prints through @p (the printing calls) what was kept: the whole
 * sequence, or the parts kept() keeps, "..." for each run between them.
 * 0, or -1 (nothing printed) when a part to print was not kept.
 */
static int replay(struct bound *b, const struct seq_printer *p)
{
	uint64_t u[PRINT_HEAD_PARTS + 1 + PRINT_TAIL_PARTS], t;
	size_t n = 0, i;

	if (b->whole) {
		if (!b->all.valid)
			return -1;
		ev_send(p, &b->all);
		return 0;
	}
	for (t = 0; t < PRINT_HEAD_PARTS && t < b->nunits; t++)
		u[n++] = t;
	if (b->core_len && b->core >= t &&
	    b->core + PRINT_TAIL_PARTS < b->nunits)
		u[n++] = b->core;
	for (t = b->nunits > PRINT_TAIL_PARTS ? b->nunits - PRINT_TAIL_PARTS :
						 0; t < b->nunits; t++)
		if (!n || t > u[n - 1])
			u[n++] = t;
	for (i = 0; i < n; i++)
		if (!kept_part(b, u[i]))
			return -1;
	for (i = 0; i < n; i++) {
		if (u[i] > (i ? u[i - 1] + 1 : 0)) {
			b->skipping = 1;
			b->gap(b->in->ctx);
		}
		b->unit = u[i];
		ev_send(p, kept_part(b, u[i]));
	}
	return 0;
}

int print_bounded_max(const struct seq_printer *sp, void (*gap)(void *ctx),
		      seq_emitter emit, void *arg, uint64_t max_marks)
{
	struct bound b;
	struct seq_printer m = { m_item, m_open, m_close, &b };
	struct seq_printer p = { p_item, p_open, p_close, &b };
	size_t i;
	int rc;

	memset(&b, 0, sizeof(b));
	b.in = sp;
	b.gap = gap;
	b.max_marks = max_marks;
	b.all.valid = 1;
	for (i = 0; i < TAIL_RING; i++)
		b.tail[i] = &b.parts[i];
	b.cur = &b.parts[TAIL_RING];
	if (emit(&m, arg)) {
		bound_free(&b);
		return -1;
	}
	b.whole = b.marks <= max_marks;
	b.depth = 0;
	if (b.oom || replay(&b, &p))
		rc = emit(&p, arg) || !b.whole;	/* what was kept is not all */
	else
		rc = !b.whole;
	bound_free(&b);
	return rc;
}

int emit_seq(const struct seq_printer *sp, void *arg)
{
	struct path_emit *e = arg;

	if (path_long(e->p))
		return e->form ? print_form_of(sp, e->f, e->form, e->piece) :
				 print_form(sp, e->f, e->p, e->piece);
	print_compressed(sp, e->v, e->n);
	return 0;
}
