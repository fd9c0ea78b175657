/* SPDX-License-Identifier: MIT */
/*
 * aggregate.c - the file sink: each thread's aggregate, and the profile
 * file they are written to.
 *
 * Each thread aggregates into its own profile (libcore/profdata.h): no
 * lock and no system call per record, and memory only for a path not seen
 * before.  A record without breakpoints that the thread made before is
 * found through the record cache (libcore/reccache.h, inline in
 * aggregate.h); others wait in a batch that goes into the profile
 * together.  At exit, or on pap_dump(), the threads' profiles are merged
 * into the profile file under a lock file, so the many processes of a
 * test suite that share one file lose nothing.  After fork the child
 * starts from zero, so each activation is counted by the process that
 * ran it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "rtwhere.h"
#include "sink.h"

static pthread_mutex_t rt_agg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_aggregate *rt_aggregates;

/* A thread's aggregate holding more bytes than this is spilled: 0 for
 * never (PAP_SPILL; aggregate.h). */
static size_t rt_spill_at = RT_SPILL_DEFAULT;

RT_TLS struct rt_aggregate *rt_this_aggregate;
RT_TLS volatile uintptr_t rt_in_aggregate;
uint64_t rt_agg_nlost;

/* @t's aggregate, batch and deferred records count nothing (fork,
 * pap_reset). */
static void rt_agg_zero(struct rt_aggregate *t)
{
	pap_profile_zero(&t->prof);
	t->batch.n = 0;
	t->batch.nbps = 0;
	t->ndefer = 0;
}

void rt_agg_after_fork_child(void)
{
	struct rt_aggregate *t;

	/* The child counts only its own activations. */
	pthread_mutex_init(&rt_agg_lock, NULL);
	for (t = rt_aggregates; t; t = t->next)
		rt_agg_zero(t);
}

static void rt_agg_drain(struct rt_aggregate *t);
static void rt_agg_flush(struct rt_aggregate *t);

/*
 * May this thread touch @t's batch and deferred records?  Only its own
 * (@held: no frame of it is in the aggregate) or an ended thread's: a
 * live thread adds its own when the batch fills or it ends.
 */
static int rt_agg_batch_ours(struct rt_aggregate *t, int held)
{
	return t == rt_this_aggregate ? held :
	       __atomic_load_n(&t->ended, __ATOMIC_ACQUIRE);
}

void rt_agg_thread_end(void)
{
	struct rt_aggregate *t = rt_this_aggregate;

	if (t && !rt_in_aggregate) {
		rt_in_aggregate = RT_HERE();
		rt_agg_drain(t);
		rt_agg_flush(t);
		__atomic_store_n(&t->ended, 1, __ATOMIC_RELEASE);
		rt_in_aggregate = 0;
	}
}

/*
 * Reads PAP_SPILL: a number of bytes, with an optional k, M or G
 * (powers of 1024); 0 never spills.  Anything else is said once and the
 * default kept.
 */
static void rt_spill_config(void)
{
	const char *v = getenv("PAP_SPILL");

	if (v && *v && pap_parse_bytes(v, &rt_spill_at))
		fprintf(stderr, "pap: PAP_SPILL=%s is not a number of bytes "
			"(like 8M); spilling at %zu bytes\n", v, rt_spill_at);
}

/* This thread's aggregate, created on its first record. */
static struct rt_aggregate *rt_agg_own(void)
{
	struct rt_aggregate *t = rt_this_aggregate;

	if (t)
		return t;
	rt_start();
	t = rt_map_resize(NULL, 0, sizeof(*t));	/* zeroed */
	if (!t)
		return NULL;
	pap_profile_init(&t->prof);
	/* a signal handler may add to it while the thread is inside
	 * malloc (pages.c) */
	t->prof.mem = &rt_map_mem;
	/* the ABI's strings are stable: a record is found by its
	 * function's address, never by hashing and comparing its text */
	t->prof.by_address = 1;
	pthread_mutex_lock(&rt_agg_lock);
	if (!rt_aggregates)
		rt_spill_config();
	t->next = rt_aggregates;
	rt_aggregates = t;
	pthread_mutex_unlock(&rt_agg_lock);
	rt_this_aggregate = t;
	rt_on_thread_end();
	return t;
}

/* What adding @it to thread @arg's aggregate came to: a loss, or for a
 * record without breakpoints the cache's entry (not reentrant). */
static void rt_agg_added(void *arg, const struct pap_prof_item *it)
{
	struct rt_aggregate *t = arg;

	if (it->err) {
		rt_agg_lost(it->count);
		return;
	}
	pap_reccache_learn(t->cache, RT_CACHE, it);
}

/* Adds @t's batch to its aggregate (not reentrant). */
static void rt_agg_flush(struct rt_aggregate *t)
{
	pap_prof_batch_flush(&t->prof, &t->batch, rt_agg_added, t);
}

/* Adds @count records to this thread's aggregate, by way of its batch
 * (not reentrant). */
static void rt_agg_add(struct rt_aggregate *t, const char *fn, uint8_t kind,
		       uint8_t complete, uint64_t value,
		       const struct pap_breakpoint *bps, uint32_t nbps,
		       uint64_t count)
{
	pap_prof_batch_add(&t->prof, &t->batch, fn, kind, complete, value,
			   bps, nbps, count, rt_agg_added, t);
}

/* Records a signal handler's record for later, without allocating. */
static void rt_agg_defer(const char *fn, uint8_t kind, uint8_t complete,
			 uint64_t value, const struct pap_breakpoint *bps,
			 uint32_t nbps, uint64_t count)
{
	struct rt_aggregate *t = rt_this_aggregate;
	unsigned i = t ? t->ndefer : RT_DEFER;
	struct rt_deferred *d;

	if (i >= RT_DEFER || nbps > RT_DEFER_BPS) {
		rt_agg_lost(count);
		return;
	}
	d = &t->defer[i];
	pap_prof_item_set(&d->rec, fn, kind, complete, value, d->bps, nbps,
			  count);
	if (nbps)
		memcpy(d->bps, bps, nbps * sizeof(*bps));
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->ndefer = i + 1;
}

/*
 * Moves @t's deferred records into its aggregate (aggregate held).  A
 * signal handler may append meanwhile: the count is cleared only if it
 * did not move, else the newcomers are taken too.
 */
static void rt_agg_drain(struct rt_aggregate *t)
{
	unsigned done = 0, n;

	for (;;) {
		n = t->ndefer;
		for (; done < n; done++) {
			const struct rt_deferred *d = &t->defer[done];

			rt_agg_add(t, d->rec.fn, d->rec.kind, d->rec.complete,
				   d->rec.value, d->bps, d->rec.nbps,
				   d->rec.count);
		}
		if (__atomic_compare_exchange_n((unsigned *)&t->ndefer, &n, 0,
						0, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return;
	}
}

/* Enters the aggregate's non-reentrant part: this thread's aggregate
 * with deferred records folded in; NULL when called from inside it. */
static struct rt_aggregate *rt_agg_enter(void)
{
	struct rt_aggregate *t;

	if (rt_in_aggregate)
		return NULL;
	rt_in_aggregate = RT_HERE();
	t = rt_agg_own();
	if (!t) {
		rt_in_aggregate = 0;
		return NULL;
	}
	rt_agg_drain(t);
	return t;
}

/*
 * Writes @t's aggregate, this thread's, to the profile file and lets it
 * go, so that a thread's memory does not grow with the distinct paths it
 * makes (aggregate held).  Under the aggregates' lock: a dump waits for
 * the spill rather than exit with it half done.  If the file cannot be
 * written, the records stay and spilling stops (the message is the
 * writer's); the dump tries again at exit.  A file only the dump can
 * write (text, or a tail to recover) keeps the records too, and the next
 * spill waits for twice as much.
 */
static void rt_agg_spill(struct rt_aggregate *t)
{
	char name[4096];
	int rc;

	rt_agg_flush(t);
	pthread_mutex_lock(&rt_agg_lock);
	/* no malloc: this may be a signal handler's record (pages.c) */
	rc = pap_profile_spill_file(rt_where_profile(name, sizeof(name)),
				    &t->prof, "pap");
	if (rc < 0) {
		rt_spill_at = 0;
	} else if (rc > 0) {
		/* only the dump can write this file: tried again later */
		rt_spill_at = rt_spill_at > SIZE_MAX / 2 ? 0 : rt_spill_at * 2;
	} else {
		pap_profile_clear(&t->prof);
		memset(t->cache, 0, sizeof(t->cache));
		rt_ring_spilled();
	}
	pthread_mutex_unlock(&rt_agg_lock);
}

void rt_agg_keep(const char *fn, uint8_t kind, uint8_t complete,
		 uint64_t value, const struct pap_breakpoint *bps,
		 uint32_t nbps, uint64_t count)
{
	int saved_errno = errno;	/* allocating may set it */
	struct rt_aggregate *t = rt_agg_enter();

	if (!t) {
		rt_agg_defer(fn, kind, complete, value, bps, nbps, count);
		errno = saved_errno;
		return;
	}
	rt_agg_add(t, fn, kind, complete, value, bps, nbps, count);
	if (rt_spill_at && pap_profile_bytes(&t->prof) > rt_spill_at)
		rt_agg_spill(t);
	rt_in_aggregate = 0;
	errno = saved_errno;
}

/* How many records wait in @t's batch and deferred records, read while
 * its thread may still be adding: for the lost count at exit. */
static uint64_t rt_agg_pending(const struct rt_aggregate *t)
{
	unsigned n = __atomic_load_n(&t->batch.n, __ATOMIC_RELAXED), i;
	unsigned nd = t->ndefer;
	uint64_t sum = 0;

	for (i = 0; i < n && i < PAP_PROF_BATCH; i++)
		sum = pap_sat_add(sum, t->batch.items[i].count);
	for (i = 0; i < nd && i < RT_DEFER; i++)
		sum = pap_sat_add(sum, t->defer[i].rec.count);
	return sum;
}

int rt_agg_dump(int exiting, void (*written)(void))
{
	char name[4096];
	const char *path = rt_where_profile(name, sizeof(name));
	struct pap_profile mine, *out = &mine;
	struct rt_aggregate *t, *only = NULL;
	size_t nwith = 0;
	uint64_t lost = 0;
	/* this thread's handlers defer what they record meanwhile; a dump
	 * from a handler that interrupted the runtime leaves the thread's
	 * batch alone */
	int held = !rt_in_aggregate;
	int rc;

	pap_profile_init(&mine);
	if (held)
		rt_in_aggregate = RT_HERE();
	pthread_mutex_lock(&rt_agg_lock);
	for (t = rt_aggregates; t; t = t->next) {
		if (rt_agg_batch_ours(t, held)) {
			rt_agg_drain(t);
			rt_agg_flush(t);
		} else if (exiting) {
			/* what a thread still running leaves is lost */
			lost += rt_agg_pending(t);
		}
		if (t->prof.nrecs) {
			only = t;
			nwith++;
		}
	}
	if (nwith == 1 && only == rt_this_aggregate && held) {
		/* every record is this thread's: its aggregate is written as
		 * it is, not copied record by record */
		out = &only->prof;
	} else {
		for (t = rt_aggregates; t; t = t->next) {
			if (pap_profile_merge(&mine, &t->prof))
				lost++;
			pap_profile_zero(&t->prof);
		}
	}
	pthread_mutex_unlock(&rt_agg_lock);
	if (held && out == &mine) {
		/* copied: this thread's handlers may record again */
		rt_in_aggregate = 0;
		held = 0;
	}
	lost += rt_tally_take(out);
	lost += __atomic_exchange_n(&rt_agg_nlost, 0, __ATOMIC_RELAXED);
	if (lost)
		fprintf(stderr, "pap: %llu %s not be recorded (out of "
			"memory, cut by a signal handler or by a longjmp "
			"out of one, left in a thread still running at exit, "
			"or lost with a collector that died); the profile "
			"counts %s as lost\n", (unsigned long long)lost,
			pap_plural(lost, "path could", "paths could"),
			pap_plural(lost, "it", "them"));
	out->lost = pap_sat_add(out->lost, lost);
	rc = out->nrecs || out->lost ?
		pap_profile_merge_file(path, out, "pap", NULL,
				       NULL) : 0;
	if (!rc)
		written();
	if (out != &mine)
		pap_profile_zero(out);
	if (held)
		rt_in_aggregate = 0;
	pap_profile_free(&mine);
	return rc;
}

void rt_agg_reset(void)
{
	struct rt_aggregate *t;
	int held = !rt_in_aggregate;

	if (held)
		rt_in_aggregate = RT_HERE();
	pthread_mutex_lock(&rt_agg_lock);
	for (t = rt_aggregates; t; t = t->next) {
		if (rt_agg_batch_ours(t, held))
			rt_agg_zero(t);
		else
			pap_profile_zero(&t->prof);
	}
	pthread_mutex_unlock(&rt_agg_lock);
	if (held)
		rt_in_aggregate = 0;
}
