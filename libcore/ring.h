/* SPDX-License-Identifier: MIT */
/*
 * ring.h - reads the records of a pap shared-memory ring (pap/shm.h).
 *
 * One bounds-checked parser for the collector, the runtime (when it
 * takes its ring back from a collector that died) and the fuzz harness.
 * Every word of the ring may be garbage or change while it is read: each
 * record is copied out first, then checked, then handed on, so nothing the
 * writer does can make the reader step outside the ring or its buffer.
 */
#ifndef PAP_CORE_RING_H
#define PAP_CORE_RING_H

#include <stdint.h>

#include <pap/shm.h>

#include "papdefs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a reader does with each well-framed record; nonzero rejects it. */
struct pap_ring_ops {
	int (*fn)(void *ctx, uint32_t id, const char *s, uint32_t len);
	/* a record with breakpoints: @kind PATH, or (2.4) CALLS or PROG */
	int (*path)(void *ctx, uint32_t fn, uint8_t kind, uint8_t complete,
		    uint64_t value, const struct pap_breakpoint *bps,
		    uint32_t nbps);
	/* a record of a value alone: @kind BL, or (2.4) UNIT */
	int (*bl)(void *ctx, uint32_t fn, uint8_t kind, uint64_t id);
	/* a COUNT record: the final @count of slot @slot at @seq, whose
	 * record is (@fn, @kind, @complete, @value) */
	int (*count)(void *ctx, uint32_t slot, uint64_t seq, uint32_t fn,
		     uint8_t kind, uint8_t complete, uint64_t value,
		     uint64_t count);
};

struct pap_ring_stats {
	uint64_t records;	/* records accepted: PATH, BL, COUNT totals */
	uint64_t fns;		/* FN records accepted */
	uint64_t rejected;	/* records refused (a COUNT record's count
				 * when only the reader's @ops refused it) */
};

/*
 * A path arriving in PIECE records (pap/shm.h), joined as it comes: one
 * per ring, since a ring's pieces follow each other.  Zero it to start;
 * pap_ring_joined_free() gives its memory back.
 */
struct pap_ring_joined {
	struct pap_breakpoint *bps;
	size_t n, cap;
	uint32_t fn;
	uint8_t kind;
	uint8_t complete;
	int open;		/* a first piece came, its last not yet */
};

void pap_ring_joined_free(struct pap_ring_joined *j);

/* Scratch a reader needs: one record's words and its breakpoints. */
struct pap_ring_buf {
	uint64_t words[PAP_SHM_MAX_WORDS];
	struct pap_breakpoint bps[PAP_SHM_MAX_WORDS / 2];
};

/*
 * Reads the records in [*pos, head) of the ring @words (@nwords, a power
 * of two), advancing *pos past each one handed to @ops.  A record @ops
 * refuses, or whose body is malformed, is counted in @st->rejected and
 * skipped.  PIECE records are joined in @joined, the ring's own from one
 * call to the next, and the whole path handed to @ops->path when the
 * last one arrives.  A joined path that another record interrupts is
 * dropped without a count (its producer gave up and kept it, or died:
 * the ring's conservation counts tell which); a last piece with no
 * first, or a path longer than PAP_SHM_MAX_PIECED_BPS or whose memory
 * cannot be had, is one rejected record.  Returns PAP_OK with *pos == head, or PAP_ECORRUPT when the
 * framing itself is broken (bad header, or head not in reach): *pos is
 * left at the bad word and the rest cannot be read; the caller counts
 * and discards it.
 */
int pap_ring_read(const volatile uint64_t *words, uint64_t nwords,
		  uint64_t *pos, uint64_t head, const struct pap_ring_ops *ops,
		  void *ctx, struct pap_ring_buf *buf,
		  struct pap_ring_joined *joined, struct pap_ring_stats *st);

/*
 * Does a record begin at @head that was never committed (its writer died
 * after its header word)?  Never reads outside the ring.
 */
int pap_ring_partial(const volatile uint64_t *words, uint64_t nwords,
		     uint64_t head);

/*
 * Copies slot @s into @out if it is steady: its seq even and unchanged
 * across the copy, its key a valid kind and complete bit with a nonzero
 * fn id, and its count from 1 to PAP_SHM_MAX_COUNT.  0 when @out holds a
 * record to count, 1 when the slot is empty, 2 when it is being rewritten
 * (or was, when its writer died, or changed while it was read), -1 when
 * it holds garbage.
 */
int pap_ring_read_slot(const volatile struct pap_shm_slot *s,
		       struct pap_shm_slot *out);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_RING_H */
