/* SPDX-License-Identifier: MIT */
/*
 * collector.h - pap-collector's producers and the profile it builds.
 */
#ifndef PAP_COLLECTOR_H
#define PAP_COLLECTOR_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include <pap/shm.h>

#include "bpack.h"
#include "profdata.h"
#include "reccache.h"
#include "ring.h"

/* Limits that keep a producer writing garbage from growing our memory. */
#define COL_MAX_FNS 65536u		/* FN records per ring */
#define COL_MAX_FN_BYTES (1u << 20)	/* their bytes per ring */

/*
 * Room for the name of a file the collector makes beside one it was
 * given: the output file (an absolute path, shorter than PATH_MAX) or
 * its snapshot (".snap" longer), then ".pending." or ".tmp." and a pid
 * of at most 20 digits.
 */
#define COL_SIDE_PATH_MAX \
	(PATH_MAX + sizeof(".snap") + sizeof(".pending.") + 20)

/* One connected producer thread and its ring. */
struct col_producer {
	int sock;
	pid_t pid, tid;			/* as the kernel says (SO_PEERCRED) */
	struct pap_shm_ring *shm;
	size_t maplen;
	uint64_t nwords;		/* ours, never read back from shm */
	uint32_t nslots;		/* ours too */
	uint32_t ntally;		/* tally words (0 below 2.1) */
	uint32_t minor;			/* the segment's version */
	uint64_t tail;			/* ours, mirrored to shm->tail */
	uint64_t records;		/* records taken into the profile */
	uint64_t lost_seen;		/* shm->lost already counted */
	uint64_t *count_seq;		/* per slot: seq + 1 of its last COUNT
					 * record taken, 0: none */
	uint64_t rejected;		/* records of this ring refused */
	uint64_t born_ns;		/* CLOCK_MONOTONIC at connection */
	const char **fns;		/* fn id - 1 -> interned string */
	uint32_t nfns, cap_fns;
	size_t fn_bytes;
	int broken;			/* framing broke once */
	struct pap_ring_joined joined;	/* a long path arriving in pieces */
};

struct col_stats {
	uint64_t producers, refused;
	uint64_t records, rejected, partial, dropped, unsent;
};

/*
 * Entries of the record cache in front of the profile (libcore/
 * reccache.h): the interned function (by address) and the record's value
 * find its index without hashing the function's string.
 */
#define COL_CACHE 4096u

struct collector {
	struct pap_reccache_entry cache[COL_CACHE];
	struct pap_profile prof;	/* everything drained, deduplicated */
	struct pap_prof_batch batch;	/* a drain's records on their way */
	struct pap_bpack_buf pack;	/* paths of producers before 2.2 */
	char **strs;			/* interned function strings */
	size_t nstrs, cap_strs;
	uint32_t *str_slots;
	size_t nstr_slots;
	struct col_producer **prods;
	size_t nprods, cap_prods;
	uint64_t nwords;		/* ring size for new producers */
	uint32_t nslots;		/* slots for new producers */
	unsigned seq;			/* segment names */
	struct col_stats st;
	struct pap_ring_buf *buf;
	/*
	 * FILE.pending.PID: everything this collector holds and has not
	 * written (records drained, losses found), which a SIGKILL would
	 * lose.  A file mapping, so it survives the kill; whoever merges
	 * into FILE next adds it to the lost count (pap_profile_merge_file).
	 * Producers only take back what was never drained.
	 */
	uint64_t *pending;
	uint64_t pending_local;		/* when the file cannot be made */
	char pending_path[COL_SIDE_PATH_MAX];
	/* the output file, and the bytes of records (pap_profile_bytes)
	 * past which a drain appends the profile to it and empties it, so
	 * that the collector's memory does not grow with the distinct paths
	 * of a whole suite: 0 for never */
	const char *file;
	size_t spill_at;
	int spilled;			/* some records are in file already */
};

/* The collector's default spill bound (--spill). */
#define COL_SPILL_DEFAULT ((size_t)4 << 20)

int col_init(struct collector *c, uint64_t nwords, uint32_t nslots,
	     size_t max_recs);
/* Creates FILE.pending.PID for @file; 0, or -1 (then it is kept in
 * memory only, and a SIGKILL loses it unreported). */
int col_pending_open(struct collector *c, const char *file);
void col_free(struct collector *c);

/*
 * Serves one connection on the listening socket: checks the peer's uid,
 * creates its 0600 segment and hands it over.  0, or -1 if refused.
 */
int col_accept(struct collector *c, int lsock);

/* Takes every committed record of every ring into the profile; the
 * number taken.  Never trusts a word of shared memory. */
uint64_t col_drain(struct collector *c);
/* Appends what @c holds to its output file and empties it (col_drain
 * does, past spill_at); if the file will not take it, it stays and
 * spilling stops. */
void col_spill(struct collector *c);

/* Producer @i's connection ended: last drain, its slots, count what it
 * lost (pap/shm.h, "Conservation"), release its segment. */
void col_reclaim(struct collector *c, size_t i);

/*
 * The final write: every ring drained for the last time, the profile
 * merged into @file, each producer told how much of it is now durable
 * and that the collector is gone.  0, or -1.
 */
int col_finish(struct collector *c, const char *file);

/* Writes what was drained so far, with what the live producers' slots
 * count now, to @file (a snapshot); 0 or -1. */
int col_snapshot(struct collector *c, const char *file);

/*
 * The rendezvous (rendezvous.c): how processes started by the collector
 * whose environment was cleared find it.  col_rv_advertise writes the
 * entry for @anchor (this collector's pid with a command, its parent's
 * with --rendezvous and none) exclusively in the per-user directory,
 * after removing entries of collectors that are gone: 0, or -1 with a
 * message on stderr (the collector goes on without it).
 * col_rv_withdraw removes the entry if it is still this one.
 */
struct col_rv {
	int on, dfd;
	ino_t ino;
	char name[32];
};
int col_rv_advertise(struct col_rv *rv, long anchor, const char *sock,
		     const char *file, int lossy);
void col_rv_withdraw(struct col_rv *rv);

#endif /* PAP_COLLECTOR_H */
