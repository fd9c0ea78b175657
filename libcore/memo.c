/* SPDX-License-Identifier: MIT */
/*
 * memo.c - decoded pieces remembered by what they depend on.
 *
 * A table from a key (two 32-bit words and a 64-bit value) to a run of
 * edge ids, filled by the decoder (decode.c) and never emptied: the run
 * for a key is a pure function of the key and the plan, so a run found
 * here is exactly what decoding again would push (a whole PAP+EPP
 * segment's run also holds what decode.c keeps to tell its pieces).
 * Its size is bounded (max_edges words, max_edges / 16 runs, of which
 * whole segments at most a sixteenth of the words and a 256th of the
 * runs); once full it keeps what it has and takes nothing more.
 */
#include <stdlib.h>
#include <string.h>

#include "decode.h"

#define MEMO_EMPTY UINT32_MAX
/* Keys (a, 0, r) with small a and r are found by indexing, not hashing:
 * the acyclic pieces of PAP+EPP, whose digits are mostly small. */
#define MEMO_DIRECT_R 1024
#define MEMO_DIRECT_A ((uint32_t)1 << 20)

struct memo_slot {
	uint64_t r;
	uint32_t a, b;
	uint32_t start;
	uint32_t len;		/* MEMO_EMPTY: a free slot */
	size_t off;		/* into the edge pool */
};

struct pap_memo {
	struct memo_slot **direct;	/* [a][r], allocated as needed */
	size_t ndirect;
	struct memo_slot *slots;
	size_t nslots, used;
	uint32_t *pool;
	size_t npool, cap_pool, max_pool;
	size_t nseg, nsegs;	/* of npool and used, whole segments' */
	uint64_t hits, misses;
};

struct pap_memo *pap_memo_new(size_t max_edges)
{
	struct pap_memo *m = calloc(1, sizeof(*m));

	if (m)
		m->max_pool = max_edges;
	return m;
}

void pap_memo_free(struct pap_memo *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->ndirect; i++)
		free(m->direct[i]);
	free(m->direct);
	free(m->slots);
	free(m->pool);
	free(m);
}

void pap_memo_stats(const struct pap_memo *m, uint64_t *hits,
		    uint64_t *misses, size_t *edges)
{
	*hits = m->hits;
	*misses = m->misses;
	*edges = m->npool;
}

static size_t memo_hash(uint32_t a, uint32_t b, uint64_t r)
{
	uint64_t h = (r ^ ((uint64_t)a << 32 | b)) * 0x9e3779b97f4a7c15ull;

	h ^= h >> 29;
	h = (h + b) * 0xbf58476d1ce4e5b9ull;
	return (size_t)(h ^ (h >> 32));
}

static struct memo_slot *memo_slot(const struct pap_memo *m, uint32_t a,
				   uint32_t b, uint64_t r)
{
	size_t s = memo_hash(a, b, r) & (m->nslots - 1);

	while (m->slots[s].len != MEMO_EMPTY &&
	       (m->slots[s].r != r || m->slots[s].a != a ||
		m->slots[s].b != b))
		s = (s + 1) & (m->nslots - 1);
	return &m->slots[s];
}

const uint32_t *pap_memo_find(struct pap_memo *m, uint32_t a, uint32_t b,
			      uint64_t r, size_t *len, uint32_t *start)
{
	const struct memo_slot *s;

	if (!b && r < MEMO_DIRECT_R) {
		s = a < m->ndirect && m->direct[a] ? &m->direct[a][r] : NULL;
	} else if (!m->nslots) {
		s = NULL;
	} else {
		s = memo_slot(m, a, b, r);
	}
	if (!s || s->len == MEMO_EMPTY) {
		m->misses++;
		return NULL;
	}
	m->hits++;
	*len = s->len;
	*start = s->start;
	return s->len ? m->pool + s->off : &s->len;	/* none to read */
}

/* The direct slot of key (@a, 0, @r), made if need be; NULL if @a is too
 * large or memory short. */
static struct memo_slot *memo_direct(struct pap_memo *m, uint32_t a,
				     uint64_t r)
{
	if (a >= MEMO_DIRECT_A)
		return NULL;
	if (a >= m->ndirect) {
		size_t n = m->ndirect ? 2 * m->ndirect : 64;
		struct memo_slot **d;

		while (n <= a)
			n *= 2;
		d = realloc(m->direct, n * sizeof(*d));
		if (!d)
			return NULL;
		memset(d + m->ndirect, 0, (n - m->ndirect) * sizeof(*d));
		m->direct = d;
		m->ndirect = n;
	}
	if (!m->direct[a]) {
		m->direct[a] = malloc(MEMO_DIRECT_R * sizeof(struct memo_slot));
		if (!m->direct[a])
			return NULL;
		memset(m->direct[a], 0xff,
		       MEMO_DIRECT_R * sizeof(struct memo_slot));
	}
	return &m->direct[a][r];
}

/* Doubles the slot table; 0 or -1 when memory is short. */
static int memo_grow(struct pap_memo *m)
{
	size_t n = m->nslots ? 2 * m->nslots : 1024, i;
	struct memo_slot *old = m->slots, *s;

	s = malloc(n * sizeof(*s));
	if (!s)
		return -1;
	memset(s, 0xff, n * sizeof(*s));
	m->slots = s;
	m->nslots = n;
	for (i = 0; old && i < n / 2; i++)
		if (old[i].len != MEMO_EMPTY)
			*memo_slot(m, old[i].a, old[i].b, old[i].r) = old[i];
	free(old);
	return 0;
}

int pap_memo_room(const struct pap_memo *m, uint32_t b, size_t len)
{
	if (len >= MEMO_EMPTY || m->npool + len > m->max_pool ||
	    m->used >= m->max_pool / 16 + 16)
		return 0;
	return b != PAP_MEMO_SEGMENT ||
	       (m->nseg + len <= m->max_pool / 16 &&
		m->nsegs < m->max_pool / 256 + 16);
}

void pap_memo_put(struct pap_memo *m, uint32_t a, uint32_t b, uint64_t r,
		  uint32_t start, const uint32_t *edges, size_t len)
{
	struct memo_slot *s;

	if (!pap_memo_room(m, b, len))
		return;
	if (!b && r < MEMO_DIRECT_R) {
		s = memo_direct(m, a, r);
		if (!s)
			return;
	} else if (m->used + 1 > m->nslots / 2 && memo_grow(m)) {
		return;
	} else {
		s = memo_slot(m, a, b, r);
	}
	if (m->npool + len > m->cap_pool) {
		size_t cap = m->cap_pool ? 2 * m->cap_pool : 4096;
		uint32_t *n;

		while (cap < m->npool + len)
			cap *= 2;
		if (cap > m->max_pool)
			cap = m->max_pool;
		n = realloc(m->pool, cap * sizeof(*n));
		if (!n)
			return;
		m->pool = n;
		m->cap_pool = cap;
	}
	if (s->len != MEMO_EMPTY)
		return;
	if (len)
		memcpy(m->pool + m->npool, edges, len * sizeof(*edges));
	s->r = r;
	s->a = a;
	s->b = b;
	s->start = start;
	s->len = (uint32_t)len;
	s->off = m->npool;
	m->npool += len;
	if (b == PAP_MEMO_SEGMENT) {
		m->nseg += len;
		m->nsegs++;
	}
	m->used++;
}
