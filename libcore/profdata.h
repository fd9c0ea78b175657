/* SPDX-License-Identifier: MIT */
/*
 * profdata.h - an in-memory profile and its file format.
 *
 * A profile is a set of distinct records, each with a count: whole paths
 * (PAP, PAP+EPP: final value, breakpoints, whether the activation was cut
 * short) and acyclic path ids (EPP), keyed by function.  Adding merges
 * equal records; memory grows with distinct content only.  The runtime
 * aggregates into one per thread, merges them into the profile file at
 * exit, and the decoder reads the file back.
 *
 * File format (doc/formats.md): versions 4 to 6 are binary, a log of
 * segments each holding a whole profile, which the file's profile is the
 * sum of (profbin.h); each function's distinct breakpoints are stored once
 * and its paths refer to them.  Text, for people and scripts
 * (pap_profile_write_text), is version 7, or 6 when it holds no record
 * of a program kind; versions 1 to 3 are still read:
 *   pap-profile 7            (1 to 3: without the end line; "l" from
 *                            2 on, repeats in breakpoints from 3 on;
 *                            "c", "g", "u" from 7 on)
 *   l LOST                   (records reported lost)
 *   p FUNCTION COMPLETE COUNT FINAL NBPS [SITE R]...  (breakpoints packed:
 *                            bpack.h; a repeat's SITE is 4294967294)
 *   b FUNCTION COUNT ID
 *   c %calls:PROGSUM COMPLETE COUNT FINAL NBPS [SITE R]...  (as "p")
 *   g %prog:PROGSUM 1 COUNT NUNITS NBPS [SITE R]...  (as "p")
 *   u %unit:UNITSUM:METAFILE COUNT 0                 (as "b")
 *   e LINES                  (the last line: how many lines come between
 *                            the first and it)
 * FUNCTION is "ASMNAME:CHECKSUM[:METAFILE]" (include/pap/abi.h).  Records
 * are written in a fixed order (doc/formats.md), so equal profiles are
 * equal files.
 */
#ifndef PAP_CORE_PROFDATA_H
#define PAP_CORE_PROFDATA_H

#include <stdio.h>

#include <pap/records.h>

#include "mem.h"
#include "papdefs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the binary format, written by default: version 7's body holds the
 * program kinds' groups (pap/records.h), version 6's header holds the
 * file's committed length, version 5's the pap that wrote it, version 4's
 * neither; all four are read (profbin.h) */
#define PAP_PROFILE_VERSION_BIN 7
#define PAP_PROFILE_VERSION_BIN_OLDEST 4
/* the text format's newest version: version 6's lines and the program
 * kinds' (CALLS, PROG, UNIT).  A text holding none of those is written
 * as version 6, so that an intra-procedural profile's text is what it
 * was and older paps still read it. */
#define PAP_PROFILE_VERSION 7
/* the text version with version 3's lines, then an end line counting
 * them, so that a file cut at a line's end is told from a whole one */
#define PAP_PROFILE_VERSION_END 6
/* text versions 1 to 3, still read: no end line */
#define PAP_PROFILE_VERSION_OLD 3

/* the letter of a profile file's lost-records line */
#define PAP_PROFILE_LOST_LETTER 'l'
/* the letter of a version 6 text profile's end line, its last:
 * "e N", N the number of lines between the header and it */
#define PAP_PROFILE_END_LETTER 'e'

struct pap_prof_rec {
	char *fn;		/* the profile's copy: names[name] */
	uint32_t name;		/* index in the profile's names */
	uint8_t kind;		/* enum pap_rec_kind */
	uint8_t complete;
	uint32_t nbps;
	uint64_t count;
	uint64_t value;		/* final r, or the BL id */
	struct pap_breakpoint *bps;
	/* of the content, the function by its text: equal records of two
	 * profiles have equal hashes */
	uint64_t hash;
};

/* A distinct function string, held once however many records name it. */
struct pap_prof_name {
	char *text;
	const char *key;	/* by_address: the caller's string */
	uint64_t hash;		/* of the text */
	uint64_t slot_hash;	/* what lookups hash: key's address or text */
	uint32_t gen;		/* the latest @gen of a profile it was added
				 * in (pap_profile_drop_stale) */
};

/* Where records' breakpoints live: chunks filled one after another and
 * freed together (profdata.c). */
struct pap_prof_chunk;
/* Where the names' text lives: blocks filled one after another and
 * freed together (profdata.c). */
struct pap_prof_texts;

struct pap_profile {
	struct pap_prof_rec *recs;
	size_t nrecs, cap_recs;
	uint64_t *slots;	/* open addressing: hash top | index + 1 */
	size_t nslots;
	struct pap_prof_name *names;
	size_t nnames, cap_names;
	uint64_t *name_slots;	/* the same for names */
	size_t nname_slots;
	/* records emitted but not in @recs (dropped, cut, garbled), counted:
	 * emitted = sum of counts + lost */
	uint64_t lost;
	/* when nonzero, a new distinct record beyond this many is refused
	 * with PAP_ELIMIT (a reader of untrusted input bounds its memory) */
	size_t max_recs;
	/* when nonzero, a function is hashed and compared by its string's
	 * address, not its text: the caller passes one address per function
	 * for the profile's life (the runtime's ABI strings).  Set it on an
	 * empty profile only. */
	int by_address;
	/* where its memory comes from (NULL: malloc).  Set it on an empty
	 * profile only: the runtime's never calls malloc, so that a signal
	 * handler may add to it while its thread is inside malloc. */
	const struct pap_mem *mem;
	struct pap_prof_chunk *chunks;	/* the newest first */
	struct pap_prof_chunk *spare;	/* emptied by pap_profile_clear */
	struct pap_prof_texts *texts;	/* the names' text, the newest first */
	size_t held;		/* bytes in chunks and function strings */
	size_t nbps;		/* breakpoints of the records, in all */
	/* the age of what is added now, remembered by each function's name:
	 * a reader numbers a file's segments 1, 2, ... in the order they
	 * were written (pap_profile_drop_stale) */
	uint32_t gen;
};

void pap_profile_init(struct pap_profile *p);
void pap_profile_free(struct pap_profile *p);
/* Sets every count to zero, keeping the records (fork, pap_reset). */
void pap_profile_zero(struct pap_profile *p);
/*
 * Drops every record, keeping the memory they took for the records that
 * come next: a writer that spills and starts again (the runtime) reuses
 * it rather than give it back and ask again.
 */
void pap_profile_clear(struct pap_profile *p);
/*
 * The bytes @p's records take (each record, its breakpoints, its share
 * of the lookup table), not counting room kept for more: what a writer
 * bounds before it spills.
 */
size_t pap_profile_bytes(const struct pap_profile *p);

/*
 * Adds @count occurrences of a record, merging with an equal one.  Only a
 * record not seen before allocates.  PAP_ENOMEM, or PAP_ELIMIT past
 * @p->max_recs, leaves @p unchanged.
 */
int pap_profile_add(struct pap_profile *p, const char *fn, uint8_t kind,
		    uint8_t complete, uint64_t value,
		    const struct pap_breakpoint *bps, uint32_t nbps,
		    uint64_t count);
/* The same, and *@at is the record's index in @p->recs. */
int pap_profile_add_at(struct pap_profile *p, const char *fn, uint8_t kind,
		       uint8_t complete, uint64_t value,
		       const struct pap_breakpoint *bps, uint32_t nbps,
		       uint64_t count, size_t *at);

/*
 * pap_profile_add() of the records of one function @fn in a row: *@name
 * is UINT32_MAX before the first, and then the index of @fn in @p's
 * names, found once.
 */
int pap_profile_add_named(struct pap_profile *p, const char *fn,
			  uint32_t *name, uint8_t kind, uint8_t complete,
			  uint64_t value, const struct pap_breakpoint *bps,
			  uint32_t nbps, uint64_t count);

/* One record for pap_profile_add_many(): pap_profile_add_at()'s
 * arguments, and its results. */
struct pap_prof_item {
	const char *fn;
	const struct pap_breakpoint *bps;
	uint64_t value, count;
	uint32_t nbps;
	uint8_t kind, complete;
	int err;		/* out: what pap_profile_add_at() returns */
	size_t at;		/* out: its *at, when err is 0 */
	uint32_t name;		/* the call's own, unless named */
	uint64_t hash;
	/* name is already fn's index in the profile's names, as
	 * pap_profile_name() gave it */
	uint8_t named;
};

/* Sets @it to a record's arguments (its results cleared). */
static inline void pap_prof_item_set(struct pap_prof_item *it, const char *fn,
				     uint8_t kind, uint8_t complete,
				     uint64_t value,
				     const struct pap_breakpoint *bps,
				     uint32_t nbps, uint64_t count)
{
	it->fn = fn;
	it->kind = kind;
	it->complete = complete;
	it->value = value;
	it->bps = bps;
	it->nbps = nbps;
	it->count = count;
	it->err = 0;
	it->at = 0;
	it->named = 0;
}

/*
 * Adds @n records as pap_profile_add_at() would, one after another in
 * their order, with the same results in @items[i].err and .at and the
 * same profile; but the table slots and records they need are fetched
 * from memory together rather than one miss after another.
 */
void pap_profile_add_many(struct pap_profile *p, struct pap_prof_item *items,
			  size_t n);

/*
 * Records waiting to go into a profile together: up to PAP_PROF_BATCH,
 * with up to PAP_PROF_BATCH_BPS breakpoints copied beside them.  With
 * hundreds of thousands of distinct paths each lookup is a cache miss or
 * two; a batch waits for its misses side by side.  Zero it to start.
 */
#define PAP_PROF_BATCH 32
#define PAP_PROF_BATCH_BPS 1024

struct pap_prof_batch {
	unsigned n;
	size_t nbps;
	struct pap_prof_item items[PAP_PROF_BATCH];
	struct pap_breakpoint bps[PAP_PROF_BATCH_BPS];
};

/* Called for each record once it is added, with its results. */
typedef void pap_prof_added_fn(void *arg, const struct pap_prof_item *it);

/* Adds @b's records to @p in their order, calls @added(@arg, item) for
 * each, and empties @b. */
void pap_prof_batch_flush(struct pap_profile *p, struct pap_prof_batch *b,
			  pap_prof_added_fn *added, void *arg);
/*
 * Queues @count occurrences of a record in @b (its breakpoints copied),
 * flushing @b into @p first when there is no room.  A record with more
 * breakpoints than a batch holds is added to @p at once.  Every record
 * reaches @added, when it is added.
 */
void pap_prof_batch_add(struct pap_profile *p, struct pap_prof_batch *b,
			const char *fn, uint8_t kind, uint8_t complete,
			uint64_t value, const struct pap_breakpoint *bps,
			uint32_t nbps, uint64_t count,
			pap_prof_added_fn *added, void *arg);
/* pap_prof_batch_add() of a record of @fn, whose index in @p's names
 * pap_profile_name() gave as @name (UINT32_MAX: not known). */
void pap_prof_batch_add_named(struct pap_profile *p, struct pap_prof_batch *b,
			      const char *fn, uint32_t name, uint8_t kind,
			      uint8_t complete, uint64_t value,
			      const struct pap_breakpoint *bps, uint32_t nbps,
			      uint64_t count, pap_prof_added_fn *added,
			      void *arg);
/* *@name: the index of function @fn in @p's names, added if new; 0 or
 * PAP_ENOMEM. */
int pap_profile_name(struct pap_profile *p, const char *fn, uint32_t *name);
/* Adds every record of @from to @to, and its lost count. */
int pap_profile_merge(struct pap_profile *to, const struct pap_profile *from);

/*
 * Stale builds, as gcov treats them: where @p holds one function (same
 * ASMNAME and METAFILE) under several checksums, the records of every
 * checksum but the one added last (the highest gen of its name) are
 * dropped; a function whose newest checksums tie is left as it is.
 * *@nrecs and *@nfns (either may be NULL) count the records dropped and
 * the functions they belonged to.  A by_address profile is left alone.
 * PAP_OK, or PAP_ENOMEM with @p unchanged.
 */
int pap_profile_drop_stale(struct pap_profile *p, uint64_t *nrecs,
			   size_t *nfns);

/*
 * Reads a profile file's @len bytes at @data (named @file in messages),
 * of any version, and adds its records to @p.  On malformed input
 * nothing is added, and @err gets "FILE:LINE: error: ..." (text) or
 * "FILE: error: byte OFFSET: ..." (binary).  A binary file whose last
 * segment is cut short (its writer was killed, or the disk filled) is
 * read without it, and one shorter than its committed length (cut after
 * a segment) is read as it is: 0, and @err gets "FILE: warning: ..."
 * saying how many bytes were left out or are missing; else @err is ""
 * on success.  A version 6 text file without its end line is cut short:
 * an error.
 */
int pap_profile_parse_mem(struct pap_profile *p, const void *data,
			  size_t len, const char *file, char *err,
			  size_t errlen);
/* pap_profile_parse_mem() of the NUL-terminated @text. */
int pap_profile_parse(struct pap_profile *p, const char *text,
		      const char *file, char *err, size_t errlen);
/*
 * pap_profile_parse_mem() on the contents of file @path, a text one read
 * a piece at a time so that the whole text is never held: the same
 * result, errors and warning, and "PATH: error: ..." when the file
 * cannot be read, is larger than @max bytes or is text holding a NUL
 * byte.  @tick, if not NULL, is told the bytes read so far and the
 * file's size after each piece.
 */
int pap_profile_read_file(struct pap_profile *p, const char *path,
			  size_t max, char *err, size_t errlen,
			  void (*tick)(size_t done, size_t size));
/* Writes @p as a binary file (header and one segment), records in
 * their fixed order; 0 or -1 (see errno). */
int pap_profile_write(const struct pap_profile *p, FILE *f);
/* Writes @p as text (version 7, or 6 when it holds no record of a
 * program kind; its end line last), records in their fixed order; 0 or
 * -1 (see errno). */
int pap_profile_write_text(const struct pap_profile *p, FILE *f);
/*
 * @p's records with a nonzero count, *@n of them, grouped by function in
 * the order of the functions' texts (the functions of equal texts
 * together), each function's records in the order @p holds them: what the
 * binary writer takes, which orders each function's records itself.  In
 * an array of @p->nrecs + 1 entries from @p->mem, which the caller gives
 * back with pap_mem_release(); NULL when out of memory.
 */
const struct pap_prof_rec **pap_profile_order(const struct pap_profile *p,
					      size_t *n);

/*
 * Merges @mine into the profile file @path, which other processes may be
 * merging into at the same time, under an exclusive lock on PATH.lock,
 * and calls @written(@arg) (if not NULL) once @mine is in the file,
 * before letting go of the lock.  A version 6 PATH gets @mine appended
 * as one segment, after a last segment cut short is cut off, and its
 * committed length set to the new end once the segment is there; when the
 * segments after the first come to outweigh it (and
 * PAP_PROFILE_LOG_FLOOR), PATH is compacted instead: read, added to,
 * written to PATH.tmp.PID as one segment and renamed over PATH, unless
 * that would read back more than PAP_PROFILE_COMPACT_MAX bytes.  So is a
 * missing or empty PATH, a text one, one of binary versions 4 and 5, or
 * one shorter than its committed length (cut: what is left is kept, the
 * cut said).  An existing
 * regular file of ours that is not a profile is kept as PATH.bad.PID;
 * anything else at PATH (directory, device, FIFO, symbolic link, another
 * user's file) is refused and left alone, and a null device or an empty
 * @path writes nothing (target.h).  Losses a collector that died left in
 * PATH.pending.PID are added to the lost count and the file removed.
 * When another process holds the lock longer than PAP_LOCK_TIMEOUT
 * seconds (default PAP_PROFILE_LOCK_TIMEOUT), @mine goes to PATH.PID
 * instead, said on stderr.  0, or -1 with a message on stderr prefixed
 * by @who.
 */
int pap_profile_merge_file(const char *path, const struct pap_profile *mine,
			   const char *who, void (*written)(void *), void *arg);
/*
 * pap_profile_merge_file for the runtime's spills, which may run in a
 * signal handler that interrupted malloc: it takes no memory but
 * @mine->mem's (mem.h) and reads nothing back.  @mine goes in as a
 * segment appended to a version 6 @path, or as a new file when @path is
 * absent or empty, even when the log is due for compaction; the search
 * for a dead collector's losses is left to the next ordinary writer.
 * 0 when written; 1 when only an ordinary writer could (@path is text,
 * of an older version, not this pap's, cut, or ends in a segment cut
 * short): nothing written, the
 * caller keeps @mine; -1 with a message prefixed by @who.
 */
int pap_profile_spill_file(const char *path, const struct pap_profile *mine,
			   const char *who);

/* Bytes of segments after the first below which a file is never
 * compacted on its way. */
#define PAP_PROFILE_LOG_FLOOR ((uint64_t)1 << 20)
/* A file that would grow past this many bytes is appended to, never
 * compacted on its way: reading it back would cost the writer memory
 * and time that grow with the file. */
#define PAP_PROFILE_COMPACT_MAX ((uint64_t)2 << 20)

/* Seconds a writer waits for a profile's lock unless PAP_LOCK_TIMEOUT
 * says otherwise. */
#define PAP_PROFILE_LOCK_TIMEOUT 30

/*
 * Can the profile file @path be merged into later: absent or a regular
 * file of ours, in a directory where its lock can be created (which this
 * leaves), or the output switched off (target.h)?  0, or -1 with a
 * message prefixed by @who.  For a writer that must know before it runs
 * anything.
 */
int pap_profile_can_merge(const char *path, const char *who);

/*
 * Rewrites the profile file @path as one segment (binary), under its
 * lock, as merging does when it compacts: equal profiles give equal
 * files.  0, or -1 with "WHO: PATH: ..." on stderr.
 */
int pap_profile_compact_file(const char *path, const char *who);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_PROFDATA_H */
