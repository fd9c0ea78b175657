/* SPDX-License-Identifier: MIT */
/*
 * bpack_online.c - packing breakpoints as they are made (bpack_online.h).
 *
 * The states follow pap_bpack()'s loop.  At a position where pap_bpack()
 * looks a candidate up, the breakpoint is compared with the candidate's;
 * equal, it opens a run of length 1 (nothing written, the table not yet
 * told); the next breakpoint either extends it into a repeat or makes the
 * held one a literal and is looked up itself.  A repeat grows while the
 * breakpoints match and is written when one does not, or at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "bpack.h"
#include "bpack_online.h"

void pap_bpack_online_init(struct pap_bpack_online *s,
			   const struct pap_bpack_mem *mem)
{
	memset(s, 0, sizeof(*s));
	s->mem = mem;
}

/* @p, of @old bytes, made @size bytes; NULL with @p kept on failure. */
static void *bpon_resize(const struct pap_bpack_online *s, void *p,
			 size_t old, size_t size)
{
	return s->mem ? s->mem->resize(p, old, size) : realloc(p, size);
}

static void bpon_release(const struct pap_bpack_online *s, void *p,
			 size_t size)
{
	if (!p)
		return;
	if (s->mem)
		s->mem->release(p, size);
	else
		free(p);
}

void pap_bpack_online_reset(struct pap_bpack_online *s)
{
	s->n = 0;
	s->pushed = 0;
	s->wfrom = 0;
	s->run_len = 0;
	s->used = 0;
	if (s->nslots)
		memset(s->slot_bucket, 0, s->nslots * sizeof(*s->slot_bucket));
}

void pap_bpack_online_free(struct pap_bpack_online *s)
{
	const struct pap_bpack_mem *mem = s->mem;

	bpon_release(s, s->out, s->cap * sizeof(*s->out));
	bpon_release(s, s->first, s->cap * sizeof(*s->first));
	bpon_release(s, s->slot_bucket, s->nslots * sizeof(*s->slot_bucket));
	bpon_release(s, s->slot_pos, s->nslots * sizeof(*s->slot_pos));
	bpon_release(s, s->window, s->wsize * sizeof(*s->window));
	pap_bpack_online_init(s, mem);
}

size_t pap_bpack_online_memory(const struct pap_bpack_online *s)
{
	return s->cap * (sizeof(*s->out) + sizeof(*s->first)) +
	       s->nslots * (sizeof(*s->slot_bucket) + sizeof(*s->slot_pos)) +
	       s->wsize * sizeof(*s->window);
}

static inline int bpon_same(const struct pap_breakpoint *a,
			    const struct pap_breakpoint *b)
{
	return a->site == b->site && a->r == b->r;
}

/* The slot of @bucket: where it is, or the empty one where it would go. */
static size_t bpon_slot(const struct pap_bpack_online *s, size_t bucket)
{
	size_t mask = s->nslots - 1, i = (bucket * 0x9e3779b1u >> 7) & mask;

	while (s->slot_bucket[i] && s->slot_bucket[i] != bucket + 1)
		i = (i + 1) & mask;
	return i;
}

/* The latest position + 1 in @bucket, 0 for none. */
static uint64_t bpon_latest(const struct pap_bpack_online *s, size_t bucket)
{
	size_t i;

	if (!s->nslots)
		return 0;
	i = bpon_slot(s, bucket);
	return s->slot_bucket[i] ? s->slot_pos[i] : 0;
}

/* Position @pos is the latest in @bucket (room made by bpon_room). */
static void bpon_enter(struct pap_bpack_online *s, size_t bucket, uint64_t pos)
{
	size_t i = bpon_slot(s, bucket);

	if (!s->slot_bucket[i]) {
		s->slot_bucket[i] = (uint16_t)(bucket + 1);
		s->used++;
	}
	s->slot_pos[i] = pos + 1;
}

/* Doubles the bucket table (rehashing); 0, or -1 with nothing changed. */
static int bpon_grow_slots(struct pap_bpack_online *s)
{
	size_t n = s->nslots ? s->nslots * 2 : 16, i, j, mask = n - 1;
	uint16_t *b = bpon_resize(s, NULL, 0, n * sizeof(*b));
	uint64_t *p = bpon_resize(s, NULL, 0, n * sizeof(*p));

	if (!b || !p) {
		bpon_release(s, b, n * sizeof(*b));
		bpon_release(s, p, n * sizeof(*p));
		return -1;
	}
	memset(b, 0, n * sizeof(*b));
	for (i = 0; i < s->nslots; i++) {
		if (!s->slot_bucket[i])
			continue;
		j = ((size_t)(s->slot_bucket[i] - 1) * 0x9e3779b1u >> 7) &
		    mask;
		while (b[j])
			j = (j + 1) & mask;
		b[j] = s->slot_bucket[i];
		p[j] = s->slot_pos[i];
	}
	bpon_release(s, s->slot_bucket, s->nslots * sizeof(*s->slot_bucket));
	bpon_release(s, s->slot_pos, s->nslots * sizeof(*s->slot_pos));
	s->slot_bucket = b;
	s->slot_pos = p;
	s->nslots = n;
	return 0;
}

/*
 * Room for what one push may add: two items (a run ended and a literal)
 * and two buckets, leaving room for the item pap_bpack_online_finish()
 * may add, and for PAP_BPACK_SHORT literals.  0, or -1 with @s unchanged.
 */
static int bpon_room(struct pap_bpack_online *s)
{
	if (!s->window) {
		s->window = bpon_resize(s, NULL, 0,
					PAP_BPACK_WINDOW * sizeof(*s->window));
		if (!s->window)
			return -1;
		s->wsize = PAP_BPACK_WINDOW;
	}
	if (s->n + 3 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 2 * PAP_BPACK_SHORT;
		struct pap_breakpoint *out;
		uint64_t *first;

		out = bpon_resize(s, s->out, s->cap * sizeof(*out),
				  cap * sizeof(*out));
		if (!out)
			return -1;
		s->out = out;
		first = bpon_resize(s, s->first, s->cap * sizeof(*first),
				    cap * sizeof(*first));
		if (!first) {
			/* give back the part of out no one uses, so that
			 * its recorded size stays cap */
			out = bpon_resize(s, s->out, cap * sizeof(*out),
					  s->cap * sizeof(*out));
			if (out)
				s->out = out;
			return -1;
		}
		s->first = first;
		s->cap = cap;
	}
	/* at most 3/4 full after two more */
	if ((s->used + 2) * 4 > s->nslots * 3 && s->used < PAP_BPACK_BUCKETS &&
	    bpon_grow_slots(s))
		return -1;
	return 0;
}

/*
 * Grows the window towards @want breakpoints (at most
 * PAP_BPACK_WINDOW_MAX), keeping the ones it holds.  Optional: on failure
 * it stays as it is, and reading back takes the slower way.
 */
static void bpon_grow_window(struct pap_bpack_online *s, uint64_t want)
{
	size_t size = s->wsize, i;
	struct pap_breakpoint *w;
	uint64_t q;

	while (size < want && size < PAP_BPACK_WINDOW_MAX)
		size *= 2;
	if (size == s->wsize)
		return;
	w = bpon_resize(s, NULL, 0, size * sizeof(*w));
	if (!w)
		return;
	/* the last wsize positions, or all of them */
	q = s->pushed > s->wsize ? s->pushed - s->wsize : 0;
	for (i = 0; q + i < s->pushed; i++)
		w[(q + i) & (size - 1)] = s->window[(q + i) & (s->wsize - 1)];
	bpon_release(s, s->window, s->wsize * sizeof(*s->window));
	s->window = w;
	s->wsize = size;
	if (q > s->wfrom)
		s->wfrom = q;
}

/*
 * The breakpoint at position @q (< pushed): from the window when recent,
 * else followed back through the open repeat and the packed items to the
 * literal it equals.  Each step goes to an earlier item.
 */
static const struct pap_breakpoint *bpon_at(const struct pap_bpack_online *s,
					    uint64_t q)
{
	for (;;) {
		size_t lo = 0, hi = s->n, mid;
		uint64_t d, start;

		if (s->pushed - q <= s->wsize && q >= s->wfrom)
			return &s->window[q & (s->wsize - 1)];
		if (s->run_len >= 2 && q >= s->run_start) {
			start = s->run_start;
			d = s->run_dist;
		} else {
			/* the last item starting at or before q */
			while (hi - lo > 1) {
				mid = lo + (hi - lo) / 2;
				if (s->first[mid] <= q)
					lo = mid;
				else
					hi = mid;
			}
			if (!pap_bp_is_repeat(&s->out[lo]))
				return &s->out[lo];
			start = s->first[lo];
			d = s->out[lo].r >> 32;
		}
		q = start - d + (q - start) % d;
	}
}

static void bpon_write(struct pap_bpack_online *s,
		       const struct pap_breakpoint *bp, uint64_t pos)
{
	s->out[s->n] = *bp;
	s->first[s->n++] = pos;
}

/* Writes the open run: a repeat, or its one breakpoint as a literal. */
static void bpon_close_run(struct pap_bpack_online *s)
{
	if (s->run_len >= 2) {
		struct pap_breakpoint rep;

		rep.site = PAP_BP_REPEAT;
		rep.r = s->run_dist << 32 | s->run_len;
		bpon_write(s, &rep, s->run_start);
	} else if (s->run_len == 1) {
		const struct pap_breakpoint *bp = bpon_at(s, s->run_start);

		bpon_write(s, bp, s->run_start);
		bpon_enter(s, pap_bpack_bucket(bp), s->run_start);
	}
	s->run_len = 0;
}

int pap_bpack_online_push(struct pap_bpack_online *s,
			  const struct pap_breakpoint *bp)
{
	uint64_t p = s->pushed, latest;
	size_t bucket = pap_bpack_bucket(bp);

	if (bpon_room(s))
		return PAP_ENOMEM;
	s->window[p & (s->wsize - 1)] = *bp;
	s->pushed = p + 1;
	if (s->run_len) {
		if (s->run_len < UINT32_MAX &&
		    bpon_same(bp, bpon_at(s, p - s->run_dist))) {
			if (s->run_len == 1)
				bpon_enter(s, pap_bpack_bucket(bpon_at(s,
						s->run_start)), s->run_start);
			s->run_len++;
			bpon_enter(s, bucket, p);
			return PAP_OK;
		}
		bpon_close_run(s);
	}
	latest = bpon_latest(s, bucket);
	if (latest && p - (latest - 1) <= UINT32_MAX &&
	    bpon_same(bp, bpon_at(s, latest - 1))) {
		s->run_start = p;
		s->run_dist = p - (latest - 1);
		s->run_len = 1;
		/* a window beyond the distance would not help */
		if (s->run_dist > s->wsize &&
		    s->run_dist <= PAP_BPACK_WINDOW_MAX)
			bpon_grow_window(s, s->run_dist);
		return PAP_OK;
	}
	bpon_write(s, bp, p);
	bpon_enter(s, bucket, p);
	return PAP_OK;
}

const struct pap_breakpoint *pap_bpack_online_finish(struct pap_bpack_online *s,
						     size_t *n)
{
	uint64_t i;

	bpon_close_run(s);
	if (s->pushed <= PAP_BPACK_SHORT) {
		/* left as it is; all of it still in the window */
		s->n = 0;
		for (i = 0; i < s->pushed; i++)
			bpon_write(s, &s->window[i], i);
	}
	*n = s->n;
	return s->out;
}
