/* SPDX-License-Identifier: MIT */
/*
 * test_bounded.c - a path printed in bounded space (decoder/bounded.c)
 * against the rule of decoder.h written out here over the whole
 * sequence held as a tree: random sequences of items and nested
 * ( ... )^N groups are printed with print_bounded_max(), and what it
 * prints must be, mark for mark, the whole sequence when it has at most
 * max_marks marks; else its first PRINT_HEAD_PARTS top-level parts, the
 * first group covering the most elements, and its last PRINT_TAIL_PARTS
 * parts, each cut after PRINT_PART_MARKS items and opens, one "..." for
 * each run of parts left out and for each cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "decoder.h"
#include "testlib.h"

/* emit_seq() in bounded.c reads paths through these; not called here */
void print_compressed(const struct seq_printer *sp, const uint32_t *v,
		      size_t n)
{
	(void)sp;
	(void)v;
	(void)n;
	fail_msg("print_compressed is not part of this test");
}

int print_form(const struct seq_printer *sp, struct dfunc *f,
	       const struct dpath *p, piece_printer piece)
{
	(void)sp;
	(void)f;
	(void)p;
	(void)piece;
	fail_msg("print_form is not part of this test");
	return -1;
}

int print_form_of(const struct seq_printer *sp, struct dfunc *f,
		  const struct pap_rseq *form, piece_printer piece)
{
	(void)sp;
	(void)f;
	(void)form;
	(void)piece;
	fail_msg("print_form_of is not part of this test");
	return -1;
}

/* The sequence as calls: EV_ITEM v, EV_OPEN, EV_CLOSE reps. */
enum { T_ITEM, T_OPEN, T_CLOSE };
struct tev {
	int kind;
	uint64_t v;		/* an item's value, a close's reps */
};

struct seq {
	struct tev *e;
	size_t n, cap;
};

static void seq_put(struct seq *s, int kind, uint64_t v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->e = realloc(s->e, s->cap * sizeof(*s->e));
		assert_non_null(s->e);
	}
	s->e[s->n++] = (struct tev){ kind, v };
}

static size_t part_end(const struct seq *s, size_t i);

/* A random part at nesting @depth: an item, or a group of 1 to 12
 * parts taken 2 to 1001 times; the elements it covers. */
static uint64_t gen_part(struct tl_rng *g, struct seq *s, int depth)
{
	uint64_t n = 0, reps;
	size_t k, m;

	if (depth >= 3 || tl_below(g, 3) == 0) {
		seq_put(s, T_ITEM, tl_below(g, 50));
		return 1;
	}
	seq_put(s, T_OPEN, 0);
	m = 1 + tl_below(g, tl_below(g, 2) ? 4 : 12);
	for (k = 0; k < m; k++)
		n += gen_part(g, s, depth + 1);
	reps = 2 + tl_below(g, tl_below(g, 4) ? 10 : 1000);
	seq_put(s, T_CLOSE, reps);
	return n * reps;
}

/*
 * Top-level part @k of @s: a new random one, or (one in three) a copy
 * of an earlier one, so that groups covering the most elements tie.
 */
static void add_part(struct tl_rng *g, struct seq *s, size_t k)
{
	size_t from, i, end;

	if (!k || tl_below(g, 3)) {
		gen_part(g, s, 0);
		return;
	}
	/* the start of a random earlier part */
	for (from = i = 0, k = tl_below(g, k); k--; i = end + 1)
		end = part_end(s, i);
	from = i;
	end = part_end(s, from);
	for (i = from; i <= end; i++)
		seq_put(s, s->e[i].kind, s->e[i].v);
}

/* The emitter: the sequence's calls, in order. */
static int emit_tree(const struct seq_printer *sp, void *arg)
{
	const struct seq *s = arg;
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->e[i].kind == T_ITEM)
			sp->item(sp->ctx, (uint32_t)s->e[i].v);
		else if (s->e[i].kind == T_OPEN)
			sp->open(sp->ctx);
		else
			sp->close(sp->ctx, (size_t)s->e[i].v);
	return 0;
}

/* What is printed, as text: "v", "(", ")^N" and "..." a mark each. */
struct out {
	char *b;
	size_t n, cap;
};

static void out_put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int len;

	for (;;) {
		va_start(ap, fmt);
		len = vsnprintf(o->b ? o->b + o->n : NULL,
				o->b ? o->cap - o->n : 0, fmt, ap);
		va_end(ap);
		assert_true(len >= 0);
		if (o->b && o->n + (size_t)len < o->cap)
			break;
		o->cap = o->cap ? 2 * o->cap + (size_t)len : 4096;
		o->b = realloc(o->b, o->cap);
		assert_non_null(o->b);
		o->b[o->n] = '\0';
	}
	o->n += (size_t)len;
}

static void o_item(void *ctx, uint32_t v)
{
	out_put(ctx, " %u", v);
}

static void o_open(void *ctx)
{
	out_put(ctx, " (");
}

static void o_close(void *ctx, size_t reps)
{
	out_put(ctx, " )^%zu", reps);
}

static void o_gap(void *ctx)
{
	out_put(ctx, " ...");
}

/* The part starting at call @i: its last call's index. */
static size_t part_end(const struct seq *s, size_t i)
{
	size_t depth = 0;

	for (;; i++) {
		if (s->e[i].kind == T_OPEN)
			depth++;
		else if (s->e[i].kind == T_CLOSE)
			depth--;
		if (!depth)
			return i;
	}
}

/* The elements the part at calls [@i, @end] covers. */
static uint64_t part_len(const struct seq *s, size_t i, size_t end)
{
	uint64_t stack[64], n = 0;
	size_t sp = 0;

	for (; i <= end; i++) {
		if (s->e[i].kind == T_ITEM) {
			n++;
		} else if (s->e[i].kind == T_OPEN) {
			stack[sp++] = n;
			n = 0;
		} else {
			n = stack[--sp] + n * s->e[i].v;
		}
	}
	return n;
}

/* Part [@i, @end] cut as the rule says, into @o. */
static void want_part(const struct seq *s, size_t i, size_t end,
		      struct out *o)
{
	size_t marks = 0, depth = 0, printed = 0;
	int cut = 0;

	for (; i <= end; i++) {
		const struct tev *e = &s->e[i];

		if (e->kind == T_CLOSE) {
			/* a group whose "(" was printed is closed */
			if (depth-- <= printed) {
				o_close(o, (size_t)e->v);
				printed = depth;
			}
			continue;
		}
		if (!cut && marks == PRINT_PART_MARKS) {
			cut = 1;
			o_gap(o);
		}
		if (!cut) {
			marks++;
			if (e->kind == T_ITEM)
				o_item(o, (uint32_t)e->v);
			else
				o_open(o);
		}
		if (e->kind == T_OPEN) {
			depth++;
			if (!cut)
				printed = depth;
		}
	}
}

/* The rule, over the sequence held whole; what print_bounded_max()
 * returns. */
static int want_bounded(const struct seq *s, uint64_t max_marks,
			struct out *o)
{
	size_t *start, *end, nparts = 0, i, core = SIZE_MAX, last = 0, u;
	uint64_t best = 0;
	int any = 0;

	if (s->n <= max_marks) {
		emit_tree(&(struct seq_printer){ o_item, o_open, o_close, o },
			  (void *)s);
		return 0;
	}
	start = malloc((s->n + 1) * sizeof(*start));
	end = malloc((s->n + 1) * sizeof(*end));
	assert_true(start && end);
	for (i = 0; i < s->n; i = end[nparts++] + 1) {
		start[nparts] = i;
		end[nparts] = part_end(s, i);
	}
	for (u = 0; u < nparts; u++) {
		uint64_t n;

		if (s->e[start[u]].kind != T_OPEN)
			continue;
		n = part_len(s, start[u], end[u]);
		if (n > best) {
			best = n;
			core = u;
		}
	}
	for (u = 0; u < nparts; u++) {
		int shown = u < PRINT_HEAD_PARTS || u == core ||
			    u + PRINT_TAIL_PARTS >= nparts;

		if (!shown)
			continue;
		if (u > (any ? last + 1 : 0))
			o_gap(o);
		want_part(s, start[u], end[u], o);
		last = u;
		any = 1;
	}
	free(start);
	free(end);
	return 1;
}

/* test_bounded_random: 3000 random sequences of 1 to 40 parts, printed
 * with bounds of 0 to 160 marks and the default: what is printed and
 * returned is the rule's. */
static void test_bounded_random(void **state)
{
	struct tl_rng g = { 0x5eedb0cdull };
	size_t iter, k, cut = 0, cored = 0;

	(void)state;
	for (iter = 0; iter < 3000; iter++) {
		struct seq s = { NULL, 0, 0 };
		struct out got = { NULL, 0, 0 }, want = { NULL, 0, 0 };
		struct seq_printer sp = { o_item, o_open, o_close, &got };
		size_t nparts = 1 + tl_below(&g, tl_below(&g, 2) ? 14 : 40);
		uint64_t max = tl_below(&g, 4) ? tl_below(&g, 161) :
				PRINT_MAX_MARKS;
		int rc, wrc;

		for (k = 0; k < nparts; k++)
			add_part(&g, &s, k);
		out_put(&got, "%s", "");
		out_put(&want, "%s", "");
		rc = max == PRINT_MAX_MARKS ?
		     print_bounded(&sp, o_gap, emit_tree, &s) :
		     print_bounded_max(&sp, o_gap, emit_tree, &s, max);
		wrc = want_bounded(&s, max, &want);
		if (strcmp(got.b, want.b) || rc != wrc)
			fail_msg("sequence %zu (%zu parts, %zu marks, bound "
				 "%llu): printed%s\n  want%s\n  returned %d, "
				 "want %d", iter, nparts, s.n,
				 (unsigned long long)max, got.b, want.b, rc,
				 wrc);
		cut += wrc;
		cored += wrc && nparts > PRINT_HEAD_PARTS + PRINT_TAIL_PARTS;
		free(s.e);
		free(got.b);
		free(want.b);
	}
	print_message("# 3000 sequences, %zu cut, %zu with parts between "
		      "head and tail\n", cut, cored);
	assert_true(cut > 1000 && cored > 300);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounded_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
