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

void pap_bpack_online_init(struct pap_bpack_online *s)
{
	memset(s, 0, offsetof(struct pap_bpack_online, window));
}

void pap_bpack_online_reset(struct pap_bpack_online *s)
{
	s->n = 0;
	s->pushed = 0;
	s->run_len = 0;
	s->used = 0;
	if (s->nslots)
		memset(s->slot_bucket, 0, s->nslots * sizeof(*s->slot_bucket));
}

void pap_bpack_online_free(struct pap_bpack_online *s)
{
	free(s->out);
	free(s->first);
	free(s->slot_bucket);
	free(s->slot_pos);
	pap_bpack_online_init(s);
}

size_t pap_bpack_online_memory(const struct pap_bpack_online *s)
{
	return s->cap * (sizeof(*s->out) + sizeof(*s->first)) +
	       s->nslots * (sizeof(*s->slot_bucket) + sizeof(*s->slot_pos));
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
	uint16_t *b = calloc(n, sizeof(*b));
	uint64_t *p = malloc(n * sizeof(*p));

	if (!b || !p) {
		free(b);
		free(p);
		return -1;
	}
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
	free(s->slot_bucket);
	free(s->slot_pos);
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
	if (s->n + 3 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 2 * PAP_BPACK_SHORT;
		struct pap_breakpoint *out;
		uint64_t *first;

		out = realloc(s->out, cap * sizeof(*out));
		if (!out)
			return -1;
		s->out = out;
		first = realloc(s->first, cap * sizeof(*first));
		if (!first)
			return -1;
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

		if (s->pushed - q <= PAP_BPACK_WINDOW)
			return &s->window[q & (PAP_BPACK_WINDOW - 1)];
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
	s->window[p & (PAP_BPACK_WINDOW - 1)] = *bp;
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
