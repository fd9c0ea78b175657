/* SPDX-License-Identifier: MIT */
/*
 * bpack.c - a path's breakpoints with their repeats folded (bpack.h).
 */
#include <stdlib.h>
#include <string.h>

#include "bpack.h"
#include "cfgmodel.h"

static inline int bpack_same(const struct pap_breakpoint *a,
			     const struct pap_breakpoint *b)
{
	return a->site == b->site && a->r == b->r;
}

size_t pap_bpack(const struct pap_breakpoint *in, size_t n,
		 struct pap_breakpoint *out, struct pap_bpack_table *t)
{
	uint64_t base = t->base;
	size_t i = 0, o = 0, k;

	if (n <= PAP_BPACK_SHORT) {
		memcpy(out, in, n * sizeof(*in));
		return n;
	}
	/* every position this call stores is at most the new base, so stale
	 * for the next call: one abandoned halfway (a longjmp out of a
	 * signal handler) leaves nothing the next would take as its own */
	t->base = base + n;
	while (i < n) {
		size_t b = pap_bpack_bucket(&in[i]), len = 0, d = 0;
		uint64_t at = t->last[b];

		if (at > base) {
			d = i - (size_t)(at - base - 1);
			while (i + len < n && len < UINT32_MAX &&
			       bpack_same(&in[i + len], &in[i + len - d]))
				len++;
		}
		if (len >= PAP_BPACK_MIN) {
			out[o].site = PAP_BP_REPEAT;
			out[o++].r = (uint64_t)d << 32 | len;
			for (k = 0; k < len; k++)
				t->last[pap_bpack_bucket(&in[i + k])] =
					base + i + k + 1;
			i += len;
		} else {
			out[o++] = in[i];
			t->last[b] = base + i + 1;
			i++;
		}
	}
	return o;
}

uint64_t pap_bpack_length(const struct pap_breakpoint *in, size_t n,
			  uint64_t max)
{
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (pap_bp_is_repeat(&in[i])) {
			uint64_t d = in[i].r >> 32, len = in[i].r & UINT32_MAX;

			if (!d || !len || d > total)
				return 0;
			total += len;
		} else {
			total++;
		}
		if (total > max)
			return 0;
	}
	return total;
}

void pap_bunpack(const struct pap_breakpoint *in, size_t n,
		 struct pap_breakpoint *out)
{
	size_t i, o = 0, k;

	for (i = 0; i < n; i++) {
		if (!pap_bp_is_repeat(&in[i])) {
			out[o++] = in[i];
			continue;
		}
		{
			size_t d = (size_t)(in[i].r >> 32);
			size_t len = (size_t)(in[i].r & UINT32_MAX);

			/* forward, one at a time: a repeat may overlap
			 * itself */
			for (k = 0; k < len; k++, o++)
				out[o] = out[o - d];
		}
	}
}

int pap_bpack_has_repeat(const struct pap_breakpoint *bps, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (pap_bp_is_repeat(&bps[i]))
			return 1;
	return 0;
}

/* Room for @n breakpoints in @b's buffer, its content not kept: a
 * buffer written only as far as it is used costs address space, not
 * memory.  0, or -1 when out of memory. */
static int bpack_room(struct pap_bpack_buf *b, size_t n)
{
	if (n <= b->cap)
		return 0;
	pap_mem_release(b->mem, b->out, b->cap * sizeof(*b->out));
	b->cap = 0;
	b->out = n > SIZE_MAX / sizeof(*b->out) ? NULL :
		 pap_mem_resize(b->mem, NULL, 0, n * sizeof(*b->out));
	if (!b->out)
		return -1;
	b->cap = n;
	return 0;
}

const struct pap_breakpoint *pap_bpack_into(struct pap_bpack_buf *b,
					    const struct pap_breakpoint *in,
					    size_t *n)
{
	if (!b->table) {
		b->table = pap_mem_resize(b->mem, NULL, 0, sizeof(*b->table));
		if (!b->table)
			return NULL;
		memset(b->table, 0, sizeof(*b->table));
	}
	if (bpack_room(b, *n))
		return NULL;
	*n = pap_bpack(in, *n, b->out, b->table);
	return b->out;
}

const struct pap_breakpoint *pap_bpack_old(struct pap_bpack_buf *b,
					   const struct pap_breakpoint *in,
					   size_t *n)
{
	if (*n <= PAP_BPACK_SHORT || pap_bpack_has_repeat(in, *n))
		return in;
	return pap_bpack_into(b, in, n);
}

int pap_bunpack_into(struct pap_bpack_buf *b, const struct pap_breakpoint *in,
		     size_t n, uint64_t max,
		     const struct pap_breakpoint **out, size_t *nout)
{
	uint64_t len;

	*out = in;
	*nout = n;
	if (!pap_bpack_has_repeat(in, n))
		return PAP_OK;
	len = pap_bpack_length(in, n, max);
	if (!len)
		return pap_bpack_length(in, n, UINT64_MAX) ? PAP_ELIMIT :
							     PAP_ECORRUPT;
	if (len > SIZE_MAX || bpack_room(b, (size_t)len))
		return PAP_ENOMEM;
	pap_bunpack(in, n, b->out);
	*out = b->out;
	*nout = (size_t)len;
	return PAP_OK;
}

void pap_bpack_buf_free(struct pap_bpack_buf *b)
{
	const struct pap_mem *mem = b->mem;

	pap_mem_release(mem, b->out, b->cap * sizeof(*b->out));
	pap_mem_release(mem, b->table, sizeof(*b->table));
	memset(b, 0, sizeof(*b));
	b->mem = mem;
}
