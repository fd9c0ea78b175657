/* SPDX-License-Identifier: MIT */
/*
 * bounded.c - a path printed in bounded space: its compressed form (items
 * and "( ... )^N" groups) whole when it is short, else its first parts,
 * its largest repeated group and its last parts, "..." for the rest.
 *
 * The sequence is produced twice by the caller's emitter: once to
 * measure it (how many marks, how many top-level parts, which group
 * covers the most elements), once to print what is kept.  Memory is
 * constant whatever the path's length.
 */
#include <string.h>

#include "decoder.h"

/* Group nesting followed for measuring; deeper groups count as one. */
#define BOUND_DEPTH 64

struct bound {
	const struct seq_printer *in;
	void (*gap)(void *ctx);
	size_t depth;
	uint64_t unit;		/* top-level parts before the current one */
	/* measured */
	uint64_t marks, nunits, core, core_len;
	uint64_t len[BOUND_DEPTH];	/* elements in each open group */
	/* printing */
	int whole, shown, cut, skipping;
	size_t printed_depth;	/* groups opened and printed */
	uint64_t unit_marks;
};

static void sat_add(uint64_t *a, uint64_t b)
{
	*a = *a + b < *a ? UINT64_MAX : *a + b;
}

/* Measuring: the marks, the top-level parts and the largest group. */
static void m_item(void *ctx, uint32_t v)
{
	struct bound *b = ctx;

	(void)v;
	b->marks++;
	if (!b->depth)
		b->nunits++;
	else if (b->depth <= BOUND_DEPTH)
		sat_add(&b->len[b->depth - 1], 1);
}

static void m_open(void *ctx)
{
	struct bound *b = ctx;

	b->marks++;
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

int print_bounded_max(const struct seq_printer *sp, void (*gap)(void *ctx),
		      seq_emitter emit, void *arg, uint64_t max_marks)
{
	struct bound b;
	struct seq_printer m = { m_item, m_open, m_close, &b };
	struct seq_printer p = { p_item, p_open, p_close, &b };

	memset(&b, 0, sizeof(b));
	b.in = sp;
	b.gap = gap;
	if (emit(&m, arg))
		return -1;
	b.whole = b.marks <= max_marks;
	b.depth = 0;
	return emit(&p, arg) || !b.whole;
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
