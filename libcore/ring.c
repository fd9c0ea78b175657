/* SPDX-License-Identifier: MIT */
/*
 * ring.c - the bounds-checked reader of pap's shared-memory rings.
 */
#include <stdlib.h>
#include <string.h>

#include "bpack.h"
#include "cfgmodel.h"
#include "profdata.h"
#include "util.h"
#include "ring.h"

/* Is @key a valid record key: a function id, a kind, a complete bit? */
static int ring_key_ok(uint64_t key)
{
	if (pap_shm_key_fn(key) == 0 || key >> 48)
		return 0;
	/* an EPP id, a program and a unit are always complete */
	return pap_rec_complete_ok(pap_shm_key_kind(key),
				   pap_shm_key_complete(key));
}

/* The record kind a ring record's @tag carries. */
static uint8_t ring_tag_kind(unsigned tag)
{
	switch (tag) {
#define RING_TAG_KIND(name, value, letter, tag) \
	case tag: return value;
	PAP_REC_KINDS(RING_TAG_KIND)
#undef RING_TAG_KIND
	}
	return PAP_REC_NKINDS;
}

static uint64_t ring_word(const volatile uint64_t *words, uint64_t nwords,
			  uint64_t pos)
{
	return __atomic_load_n(&words[pos & (nwords - 1)], __ATOMIC_RELAXED);
}

void pap_ring_joined_free(struct pap_ring_joined *j)
{
	free(j->bps);
	memset(j, 0, sizeof(*j));
}

/*
 * Reads the @nbps breakpoints of a PATH or PIECE record @w into @out:
 * 0, or 1 when a site is out of range.
 */
static int ring_bps(const uint64_t *w, uint32_t nbps,
		    struct pap_breakpoint *out)
{
	uint32_t i;

	for (i = 0; i < nbps; i++) {
		if (w[3 + 2 * i] > UINT32_MAX)
			return 1;
		out[i].site = (uint32_t)w[3 + 2 * i];
		out[i].r = w[4 + 2 * i];
	}
	return 0;
}

/* A whole path to @ops: 0 if accepted, 1 if not. */
static uint64_t ring_path(uint32_t fn, uint8_t kind, uint8_t complete,
			  uint64_t value,
			  const struct pap_breakpoint *bps, uint32_t nbps,
			  const struct pap_ring_ops *ops, void *ctx,
			  struct pap_ring_stats *st)
{
	/* repeats that undo to nothing sensible never reach a profile,
	 * whose reader would refuse them */
	if (nbps && !pap_bpack_length(bps, nbps, UINT64_MAX))
		return 1;
	if (!pap_rec_complete_ok(kind, complete))
		return 1;
	if (ops->path(ctx, fn, kind, complete, value, bps, nbps))
		return 1;
	st->records++;
	return 0;
}

/* A PIECE record @w of @len words, joined in @j (see pap_ring_read). */
static uint64_t ring_piece(const uint64_t *w, uint64_t len,
			   const struct pap_ring_ops *ops, void *ctx,
			   struct pap_ring_joined *j, struct pap_ring_stats *st)
{
	uint32_t nbps = (uint32_t)(w[1] >> 40), fn = (uint32_t)w[1];
	uint8_t complete = (w[1] >> 32) & 1;
	uint8_t kind = (uint8_t)(w[1] >> PAP_SHM_PIECE_KIND_SHIFT &
				 PAP_SHM_PIECE_KIND_MASK);
	uint64_t rc;

	if (len < 3 || !pap_rec_has_bps(kind) || nbps == 0 ||
	    nbps > PAP_SHM_PIECE_BPS || len != 3 + 2 * (uint64_t)nbps) {
		j->open = 0;
		return 1;
	}
	if (w[1] & PAP_SHM_PIECE_FIRST) {
		j->open = 1;
		j->n = 0;
		j->fn = fn;
		j->kind = kind;
		j->complete = complete;
	} else if (!j->open || j->fn != fn || j->kind != kind ||
		   j->complete != complete) {
		/* the rest of a path whose start this reader never saw */
		j->open = 0;
		return w[1] & PAP_SHM_PIECE_LAST ? 1 : 0;
	}
	if (j->n + nbps > PAP_SHM_MAX_PIECED_BPS) {
		j->open = 0;
		return 1;
	}
	if (j->n + nbps > j->cap) {
		size_t cap = j->cap ? j->cap : PAP_SHM_PIECE_BPS;
		struct pap_breakpoint *b;

		while (cap < j->n + nbps)
			cap *= 2;
		b = realloc(j->bps, cap * sizeof(*b));
		if (!b) {
			j->open = 0;
			return 1;
		}
		j->bps = b;
		j->cap = cap;
	}
	if (ring_bps(w, nbps, j->bps + j->n)) {
		j->open = 0;
		return 1;
	}
	j->n += nbps;
	if (!(w[1] & PAP_SHM_PIECE_LAST))
		return 0;
	j->open = 0;
	rc = ring_path(fn, kind, complete, w[2], j->bps, (uint32_t)j->n, ops,
		       ctx, st);
	/* a long path's memory is not kept for the next */
	if (j->cap > 4 * (size_t)PAP_SHM_PIECE_BPS)
		pap_ring_joined_free(j);
	return rc;
}

/* Hands one copied record @w of @len words to @ops; 0 if accepted, else
 * how many records it stood for (a COUNT record refused by @ops stands
 * for its count, any other refused record for one). */
static uint64_t ring_record(const uint64_t *w, uint64_t len,
		       const struct pap_ring_ops *ops, void *ctx,
		       struct pap_ring_buf *buf, struct pap_ring_joined *j,
		       struct pap_ring_stats *st)
{
	uint64_t i, n;
	uint32_t nbps;

	if (pap_shm_header_tag(w[0]) == PAP_SHM_PIECE)
		return ring_piece(w, len, ops, ctx, j, st);
	/* any other record ends a path being joined: its producer gave up
	 * on it */
	j->open = 0;
	switch (pap_shm_header_tag(w[0])) {
	case PAP_SHM_FN:
		if (len < 2)
			return 1;
		n = w[1] >> 32;
		if (n == 0 || n > PAP_SHM_MAX_FN || len != 2 + (n + 7) / 8)
			return 1;
		{
			const char *s = (const char *)&w[2];

			if (memchr(s, 0, n))
				return 1;
			for (i = n; i < (len - 2) * 8; i++)
				if (s[i])
					return 1;
			if (ops->fn(ctx, (uint32_t)w[1], s, (uint32_t)n))
				return 1;
		}
		st->fns++;
		return 0;
	case PAP_SHM_PATH:
	case PAP_SHM_CALLS:
	case PAP_SHM_PROG:
		if (len < 3)
			return 1;
		nbps = (uint32_t)(w[1] >> 40);
		if (((w[1] >> 32) & 0xff) > 1 || len != 3 + 2 * (uint64_t)nbps ||
		    ring_bps(w, nbps, buf->bps))
			return 1;
		return ring_path((uint32_t)w[1],
				 ring_tag_kind(pap_shm_header_tag(w[0])),
				 (uint8_t)(w[1] >> 32), w[2], buf->bps, nbps,
				 ops, ctx, st);
	case PAP_SHM_BL:
	case PAP_SHM_UNIT:
		if (len != 3 || w[1] > UINT32_MAX)
			return 1;
		if (ops->bl(ctx, (uint32_t)w[1],
			    ring_tag_kind(pap_shm_header_tag(w[0])), w[2]))
			return 1;
		st->records++;
		return 0;
	case PAP_SHM_COUNT:
		if (len != PAP_SHM_COUNT_WORDS || w[1] >= PAP_SHM_MAX_SLOTS ||
		    !ring_key_ok(w[3]) || w[5] == 0 ||
		    w[5] > PAP_SHM_MAX_COUNT || (w[2] & 1))
			return 1;
		if (ops->count(ctx, (uint32_t)w[1], w[2], pap_shm_key_fn(w[3]),
			       pap_shm_key_kind(w[3]),
			       pap_shm_key_complete(w[3]), w[4], w[5]))
			return w[5];
		st->records = pap_sat_add(st->records, w[5]);
		return 0;
	}
	return 1;
}

int pap_ring_read(const volatile uint64_t *words, uint64_t nwords,
		  uint64_t *pos, uint64_t head, const struct pap_ring_ops *ops,
		  void *ctx, struct pap_ring_buf *buf,
		  struct pap_ring_joined *joined, struct pap_ring_stats *st)
{
	uint64_t p = *pos, h, len, i;

	if (head < p || head - p > nwords)
		return PAP_ECORRUPT;
	while (p != head) {
		h = ring_word(words, nwords, p);
		len = pap_shm_header_len(h);
		if (pap_shm_header_magic(h) != PAP_SHM_REC_MAGIC ||
		    pap_shm_header_pos(h) != (uint32_t)p || len == 0 ||
		    len > head - p)
			return PAP_ECORRUPT;
		buf->words[0] = h;
		for (i = 1; i < len; i++)
			buf->words[i] = ring_word(words, nwords, p + i);
		st->rejected = pap_sat_add(st->rejected,
					   ring_record(buf->words, len, ops,
						       ctx, buf, joined, st));
		p += len;
		*pos = p;
	}
	return PAP_OK;
}

int pap_ring_partial(const volatile uint64_t *words, uint64_t nwords,
		     uint64_t head)
{
	uint64_t h = ring_word(words, nwords, head);

	return pap_shm_header_magic(h) == PAP_SHM_REC_MAGIC &&
	       pap_shm_header_pos(h) == (uint32_t)head &&
	       pap_shm_header_len(h) != 0;
}

int pap_ring_read_slot(const volatile struct pap_shm_slot *s,
		       struct pap_shm_slot *out)
{
	out->seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
	out->key = __atomic_load_n(&s->key, __ATOMIC_RELAXED);
	out->value = __atomic_load_n(&s->value, __ATOMIC_RELAXED);
	out->count = __atomic_load_n(&s->count, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if ((out->seq & 1) ||
	    __atomic_load_n(&s->seq, __ATOMIC_RELAXED) != out->seq)
		return 2;
	if (out->key == 0 && out->count == 0)
		return 1;
	return ring_key_ok(out->key) && out->count &&
	       out->count <= PAP_SHM_MAX_COUNT ? 0 : -1;
}
