/* SPDX-License-Identifier: MIT */
/*
 * pap/shm.h - the shared-memory transport between libpaprt and
 * pap-collector: segment, ring and record layout (version 1.0).
 *
 * One definition for every reader and writer: the runtime (producer), the
 * collector, the ring parser in libcore/ring.c, the tests and the fuzz
 * harness.
 *
 * A segment holds one ring, written by one producer thread only.  The
 * collector creates it (shm_open, mode 0600, unlinked at once) and hands
 * the descriptor over its Unix socket; the producer maps it.  Layout:
 *
 *   struct pap_shm_ring      header, producer and collector fields on
 *                            separate cache lines
 *   uint64_t words[nwords]   the ring; nwords is a power of two, and a
 *                            position p (in words, never wrapping) lives
 *                            at words[p & (nwords - 1)]
 *
 * A record is a run of 64-bit words starting with a header word:
 *
 *   bits 63..56  PAP_SHM_REC_MAGIC
 *   bits 55..48  tag (enum pap_shm_tag)
 *   bits 47..32  length in words, header included (1..PAP_SHM_MAX_WORDS)
 *   bits 31..0   the record's position, low 32 bits
 *
 * The producer writes the header word, then the body, then publishes
 * head = position + length with a release store: head is the commit
 * marker.  Every word below head is a committed record; a header at head
 * whose position field matches is a record begun but never committed (its
 * producer died mid-record).  The position field also tells a record from
 * a stale one left by the previous lap of the ring.
 *
 * Bodies (each line one word):
 *   FN    id | (string length << 32), then the string's bytes, NUL padded
 *   PATH  fn id | complete << 32 | nbps << 40 (nbps < 2^24), final r,
 *         then per breakpoint: site, r
 *   BL    fn id, path id
 * A function (the ABI's fn string, "ASMNAME:CHECKSUM[:METAFILE]") is
 * defined once per ring by an FN record before a record uses its id.
 *
 * Everything in a segment may be garbage: readers check every field.
 */
#ifndef PAP_SHM_H
#define PAP_SHM_H

#include <stdint.h>

/* "PAPSHM" + major 1: reads as PAP_SHM_MAGIC_SWAPPED on the other order */
#define PAP_SHM_MAGIC		0x5041505348524e31ull
#define PAP_SHM_MAGIC_SWAPPED	__builtin_bswap64(PAP_SHM_MAGIC)
#define PAP_SHM_VERSION_MAJOR	1
#define PAP_SHM_VERSION_MINOR	0
/* the oldest major version a reader of this version still reads */
#define PAP_SHM_VERSION_OLDEST	1

#define PAP_SHM_REC_MAGIC	0xa5u
#define PAP_SHM_MAX_WORDS	0xffffu
#define PAP_SHM_MAX_FN		4096u	/* bytes of a function string */

enum pap_shm_tag {
	PAP_SHM_FN = 1,
	PAP_SHM_PATH = 2,
	PAP_SHM_BL = 3,
};

/* The collector's view of a ring, as the producer sees it. */
enum pap_shm_state {
	PAP_SHM_ATTACHED = 0,	/* the collector drains this ring */
	PAP_SHM_DETACHING = 1,	/* it is draining for the last time */
	PAP_SHM_GONE = 2,	/* it has stopped: durable is final */
};

#define PAP_SHM_CACHELINE 64

struct pap_shm_ring {
	/* set by the collector at creation, never changed */
	uint64_t magic;
	uint16_t major, minor;
	uint32_t header_size;	/* sizeof(struct pap_shm_ring) */
	uint64_t nwords;	/* words in the ring, a power of two */
	uint32_t collector_pid;
	uint32_t pad0;

	/* written by the producer */
	uint64_t head __attribute__((aligned(PAP_SHM_CACHELINE)));
	uint64_t lost;		/* records dropped (lossy mode), counted */
	uint64_t held;		/* records kept in the producer's memory */
	uint32_t pid, tid;	/* who writes this ring */

	/* written by the collector */
	uint64_t tail __attribute__((aligned(PAP_SHM_CACHELINE)));
	uint64_t state;		/* enum pap_shm_state */
	uint64_t durable;	/* records of this ring in the profile file */
	uint64_t durable_lost;	/* drops the collector has counted */

	uint64_t words[] __attribute__((aligned(PAP_SHM_CACHELINE)));
};

static inline uint64_t pap_shm_header(unsigned tag, uint64_t nwords,
				      uint64_t pos)
{
	return (uint64_t)PAP_SHM_REC_MAGIC << 56 | (uint64_t)(tag & 0xff) << 48 |
	       (nwords & 0xffff) << 32 | (pos & 0xffffffffu);
}

static inline unsigned pap_shm_header_magic(uint64_t h)
{
	return (unsigned)(h >> 56);
}

static inline unsigned pap_shm_header_tag(uint64_t h)
{
	return (unsigned)(h >> 48) & 0xff;
}

static inline uint64_t pap_shm_header_len(uint64_t h)
{
	return (h >> 32) & 0xffff;
}

static inline uint32_t pap_shm_header_pos(uint64_t h)
{
	return (uint32_t)h;
}

/* Bytes of a segment whose ring holds @nwords words. */
static inline uint64_t pap_shm_segment_size(uint64_t nwords)
{
	return sizeof(struct pap_shm_ring) + nwords * sizeof(uint64_t);
}

/*
 * The socket protocol: the producer connects to the path in PAP_COLLECTOR
 * and sends one struct pap_shm_hello; the collector answers with one
 * struct pap_shm_welcome, carrying the segment's descriptor (SCM_RIGHTS)
 * when status is 0.  The connection then stays open: its end tells the
 * collector the producer is gone, and the producer the collector is.
 */
struct pap_shm_hello {
	uint64_t magic;
	uint32_t major, minor;
	uint32_t pid, tid;
};

struct pap_shm_welcome {
	uint64_t magic;
	uint32_t major, minor;
	int32_t status;		/* 0, or an errno value */
	uint32_t pad;
	uint64_t nwords;
};

#endif /* PAP_SHM_H */
