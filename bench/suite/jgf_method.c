/* SPDX-License-Identifier: MIT */
/* jgf_method - JGF section 1 Method: calls to static functions, to
 * "instance methods" through an object, and to "virtual" ones through a
 * table of function pointers; short bodies, so the call itself is timed. */
#include "bench.h"

struct shape;
struct shape_ops {
	int64_t (*area)(const struct shape *);
	int64_t (*grow)(struct shape *, int64_t);
};
struct shape {
	const struct shape_ops *ops;
	int64_t w, h;
};

static __attribute__((noinline)) int64_t add_static(int64_t a, int64_t b)
{
	return a + b;
}

static __attribute__((noinline)) int64_t clamp_static(int64_t v)
{
	if (v > 1000000)
		return v - 1000000;
	return v;
}

static __attribute__((noinline)) int64_t rect_area(const struct shape *s)
{
	return s->w * s->h;
}

static __attribute__((noinline)) int64_t rect_grow(struct shape *s, int64_t d)
{
	s->w = clamp_static(s->w + d);
	return s->w;
}

static __attribute__((noinline)) int64_t tri_area(const struct shape *s)
{
	return s->w * s->h / 2;
}

static __attribute__((noinline)) int64_t tri_grow(struct shape *s, int64_t d)
{
	s->h = clamp_static(s->h + d);
	return s->h;
}

static const struct shape_ops rect_ops = { rect_area, rect_grow };
static const struct shape_ops tri_ops = { tri_area, tri_grow };

int main(int argc, char **argv)
{
	long n = bench_iters(argc, argv, 90000000), i;
	struct shape s[2] = { { &rect_ops, 3, 4 }, { &tri_ops, 5, 6 } };
	int64_t acc = 0;

	for (i = 0; i < n; i++) {
		struct shape *p = &s[i & 1];

		acc = add_static(acc, p->ops->area(p));
		acc = clamp_static(acc);
		p->ops->grow(p, i & 7);
	}
	bench_print("jgf_method", (uint64_t)acc);
	return 0;
}
