/* SPDX-License-Identifier: MIT */
/*
 * pap/shm.h - the shared-memory transport between libpaprt and
 * pap-collector: segment, ring, slot, tally and record layout (version
 * 2.4).
 *
 * One definition for every reader and writer: the runtime (producer), the
 * collector, the ring parser in libcore/ring.c, the tests and the fuzz
 * harness.
 *
 * A segment belongs to one producer thread, the only writer of its
 * ring and slots.  The collector creates it (shm_open, mode 0600,
 * unlinked at once) and hands the descriptor over its Unix socket; the
 * producer maps it.  Layout:
 *
 *   struct pap_shm_ring      header, producer and collector fields on
 *                            separate cache lines
 *   uint64_t words[nwords]   the ring; nwords is a power of two, and a
 *                            position p (in words, never wrapping) lives
 *                            at words[p & (nwords - 1)]
 *   struct pap_shm_slot slots[nslots]   counted records (below)
 *   struct pap_shm_took took[nslots]    written by the collector
 *   struct pap_shm_tally tallies[nslots]     (2.1) counter blocks
 *   uint64_t tally[PAP_SHM_TALLY_PER_SLOT * nslots]       their counters
 *   uint64_t tally_took[PAP_SHM_TALLY_PER_SLOT * nslots]  collector's
 *
 * Tallies (2.1).  Instrumented code counts some records itself, with one
 * instruction, in a counter per value (pap/abi.h, __pap_tally).  With a
 * collector, a thread's counters live in its segment: the producer
 * carves a block of n counters out of tally[] for a function, describes
 * it in tallies[k] (after the FN record naming the function is committed
 * to the ring), then publishes ntallies = k + 1 with a release store.
 * Tallied records are not counted in taken: a counter is in shared
 * memory from the first count on, so a SIGKILL loses none of them.  The
 * collector reads the counters when it reads the slots, and a stopping
 * collector stores what it took of each in tally_took[], as for slots.
 * A 2.0 producer's segment has no tallies (the collector sizes it by the
 * hello's minor version).
 *
 * Repeats (2.2).  A PATH record's breakpoints may be packed: a site of
 * PAP_BP_REPEAT is a repeat (libcore/bpack.h).  The collector answers a
 * hello with the lower of the two minor versions; a producer told an
 * older one keeps a record with repeats in its own profile.
 *
 * Pieces (2.3).  A PATH record too long for one ring record goes as
 * PIECE records, each at most PAP_SHM_PIECE_BPS breakpoints of its
 * packed form, one after the other in the ring; the collector joins them
 * and counts the path when the last one arrives.  The producer counts the
 * path in taken once, before the first piece.  A path whose pieces stop
 * before the last (the producer gave up on a full ring and kept the path
 * itself, or it died) is never counted from its pieces: conservation
 * below tells the two apart.  A producer told 2.2 or older keeps such a
 * path in its own profile.
 *
 * Program kinds (2.4).  CALLS and PROG records (pap/records.h) have a
 * PATH record's body under their own tags, UNIT records a BL record's;
 * their "function" is their key (%calls:PROGSUM, ...), named by an FN
 * record as a function is.  A long one goes as PIECE records whose body
 * word 1 holds its kind in bits 39..35 (0: a PATH, as before 2.4).
 * Slots and COUNT records hold them by their kind as they hold PATH and
 * BL records.  A producer told 2.3 or older keeps them in its own
 * profile.
 *
 * Slots.  A record without breakpoints (a path's final value, an EPP id)
 * is counted in place: the producer hashes (function, kind, complete,
 * value) to a slot and, when the slot holds that record, stores count + 1
 * into it.  Nothing else is written, so a repeated record costs two stores
 * (the count and taken) and no ring traffic.  To give a slot to another
 * record the producer first commits a COUNT record to the ring with the
 * slot's final count, then rewrites the slot under its sequence word:
 * seq odd while it changes, then seq + 2 (even).  The collector reads
 * slots only when the producer is gone (its connection ended) or when it
 * stops or snapshots; a slot whose seq equals that of a COUNT record
 * already taken from the ring is counted already.  nslots is 0 or a power
 * of two; with 0 every record goes through the ring.
 *
 * Conservation.  taken counts every record the producer made while its
 * ring was attached, before the record lands anywhere; settled counts
 * those it kept in its own memory and has written to the profile file
 * itself.  When the producer is gone, taken minus what the collector got
 * (ring records, COUNT totals, slot counts, counted drops) minus settled
 * is what it lost: the record it was killed inside, and what it kept in
 * its memory and never wrote.  A single SIGKILL stops a process between
 * instructions, so each of these one-word stores is all or nothing.
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
 *   COUNT slot index, the slot's seq, key, value, count: the final
 *         count of the record that held the slot (key as in a slot)
 *   PIECE fn id | complete << 32 | FIRST << 33 | LAST << 34 |
 *         kind << 35 (2.4) | nbps << 40 (1 <= nbps <= PAP_SHM_PIECE_BPS),
 *         final r (read from the last piece), then per breakpoint: site, r
 *   CALLS, PROG (2.4)  as PATH
 *   UNIT (2.4)  as BL
 * A function (the ABI's fn string, "ASMNAME:CHECKSUM[:METAFILE]") is
 * defined once per ring by an FN record before a record uses its id.
 *
 * Everything in a segment may be garbage: readers check every field.
 */
#ifndef PAP_SHM_H
#define PAP_SHM_H

#include <stdint.h>

#include <pap/records.h>

/* "PAPSHM" + major 2: reads as PAP_SHM_MAGIC_SWAPPED on the other order */
#define PAP_SHM_MAGIC		0x5041505348524e32ull
#define PAP_SHM_MAGIC_SWAPPED	__builtin_bswap64(PAP_SHM_MAGIC)
#define PAP_SHM_VERSION_MAJOR	2
#define PAP_SHM_VERSION_MINOR	4
/* the oldest major version a reader of this version still reads */
#define PAP_SHM_VERSION_OLDEST	2

#define PAP_SHM_REC_MAGIC	0xa5u
#define PAP_SHM_MAX_WORDS	0xffffu
#define PAP_SHM_MAX_FN		4096u	/* bytes of a function string */
#define PAP_SHM_MAX_SLOTS	65536u
/* a slot's or COUNT record's count: more is garbage (at 1 ns a record, a
 * thread needs three days to count this far in one slot) */
#define PAP_SHM_MAX_COUNT	(1ull << 48)

enum pap_shm_tag {
	PAP_SHM_FN = 1,		/* names a function string by an id */
	/* PAP_SHM_PATH = 2, PAP_SHM_BL = 3, and (2.4) PAP_SHM_CALLS = 6,
	 * PAP_SHM_PROG = 7, PAP_SHM_UNIT = 8: a record of each kind */
#define PAP_SHM_REC_TAG(name, value, letter, tag) PAP_SHM_##name = tag,
	PAP_REC_KINDS(PAP_SHM_REC_TAG)
#undef PAP_SHM_REC_TAG
	PAP_SHM_COUNT = 4,	/* a count taken from a slot */
	PAP_SHM_PIECE = 5,	/* a piece of a long PATH record (2.3) */
};

/* The most breakpoints in one PIECE record */
#define PAP_SHM_PIECE_BPS	((PAP_SHM_MAX_WORDS - 3) / 2)
/* The most breakpoints, packed, of a path sent in pieces: a reader
 * refuses a longer one rather than grow without bound */
#define PAP_SHM_MAX_PIECED_BPS	(1u << 26)
/* A PIECE record's flags (body word 1) */
#define PAP_SHM_PIECE_FIRST	(1ull << 33)
#define PAP_SHM_PIECE_LAST	(1ull << 34)
/* A PIECE record's kind (2.4): bits 39..35 of body word 1 */
#define PAP_SHM_PIECE_KIND_SHIFT 35
#define PAP_SHM_PIECE_KIND_MASK	0x1fu

#define PAP_SHM_COUNT_WORDS 6	/* a COUNT record, header included */

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
	uint32_t nslots;	/* 0, or a power of two up to MAX_SLOTS */
	uint32_t ntally;	/* words of tally[] (2.1; 0 in 2.0) */

	/* written by the producer */
	uint64_t head __attribute__((aligned(PAP_SHM_CACHELINE)));
	uint64_t lost;		/* records dropped (lossy mode), counted */
	uint64_t taken;		/* records made while attached */
	uint64_t settled;	/* of those, kept and written by the producer */
	uint32_t pid, tid;	/* who writes this ring */
	uint64_t ntallies;	/* tallies[] entries published (2.1) */

	/* written by the collector */
	uint64_t tail __attribute__((aligned(PAP_SHM_CACHELINE)));
	uint64_t state;		/* enum pap_shm_state */
	uint64_t durable;	/* records of this ring in the profile file */
	uint64_t durable_lost;	/* drops the collector has counted */

	uint64_t words[] __attribute__((aligned(PAP_SHM_CACHELINE)));
};

/*
 * A counted record.  key: fn id (bits 31..0) | kind (enum
 * pap_rec_kind, pap/records.h, bits 39..32) | complete (bits 47..40);
 * 0: empty.
 */
struct pap_shm_slot {
	uint64_t seq;
	uint64_t key;
	uint64_t value;
	uint64_t count;
};

/* What a stopping collector took from a live producer's slot: count of
 * the record the slot held at seq.  The producer keeps only the rest. */
struct pap_shm_took {
	uint64_t seq;
	uint64_t count;
};

/* Counters per slot in a 2.1 segment's tally[]. */
#define PAP_SHM_TALLY_PER_SLOT 16

/* A block of counters: key as in a slot (complete 1); tally[base + v]
 * counts value v < n. */
struct pap_shm_tally {
	uint64_t key;
	uint32_t base, n;
};

static inline uint64_t pap_shm_key(uint32_t fn, unsigned kind,
				   unsigned complete)
{
	return fn | (uint64_t)(kind & 0xff) << 32 |
	       (uint64_t)(complete & 0xff) << 40;
}

/* The parts of a key. */
static inline uint32_t pap_shm_key_fn(uint64_t key)
{
	return (uint32_t)key;
}

static inline uint8_t pap_shm_key_kind(uint64_t key)
{
	return (uint8_t)(key >> 32);
}

static inline uint8_t pap_shm_key_complete(uint64_t key)
{
	return (uint8_t)(key >> 40);
}

static inline struct pap_shm_slot *pap_shm_slots(struct pap_shm_ring *r,
						 uint64_t nwords)
{
	return (struct pap_shm_slot *)(r->words + nwords);
}

static inline struct pap_shm_took *pap_shm_took(struct pap_shm_ring *r,
						uint64_t nwords,
						uint32_t nslots)
{
	return (struct pap_shm_took *)(pap_shm_slots(r, nwords) + nslots);
}

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

static inline struct pap_shm_tally *pap_shm_tallies(struct pap_shm_ring *r,
						    uint64_t nwords,
						    uint32_t nslots)
{
	return (struct pap_shm_tally *)(pap_shm_took(r, nwords, nslots) +
					nslots);
}

/* The counters of a segment with tallies; tally_took follows them. */
static inline uint64_t *pap_shm_tally_words(struct pap_shm_ring *r,
					    uint64_t nwords, uint32_t nslots)
{
	return (uint64_t *)(pap_shm_tallies(r, nwords, nslots) + nslots);
}

/* Words of tally[] for @nslots slots in version @minor. */
static inline uint32_t pap_shm_ntally(uint32_t nslots, uint32_t minor)
{
	return minor >= 1 ? nslots * PAP_SHM_TALLY_PER_SLOT : 0;
}

/* Bytes of a segment whose ring holds @nwords words, with @nslots slots
 * and @ntally tally words. */
static inline uint64_t pap_shm_segment_size(uint64_t nwords, uint32_t nslots,
					    uint32_t ntally)
{
	return sizeof(struct pap_shm_ring) + nwords * sizeof(uint64_t) +
	       (uint64_t)nslots * (sizeof(struct pap_shm_slot) +
				   sizeof(struct pap_shm_took)) +
	       (ntally ? (uint64_t)nslots * sizeof(struct pap_shm_tally) +
			 2 * (uint64_t)ntally * sizeof(uint64_t) : 0);
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
	uint32_t nslots;
	uint64_t nwords;
};

#endif /* PAP_SHM_H */
