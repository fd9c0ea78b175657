/* SPDX-License-Identifier: MIT */
/*
 * tally.c - counters that instrumented code increments itself.
 *
 * A record without breakpoints whose value the plan bounds (an EPP id, or
 * the final value of a path that cannot break) is a counter: the plugin
 * gives each such function a static thread-local pointer and, where it
 * would call the runtime, adds 1 to pointer[value] with one instruction
 * (pap/abi.h, __pap_tally).  The runtime points it, on the thread's first
 * record of the function, at a block of that thread's counters, and the
 * dump reads every block.  A block is only ever written by its thread's
 * instrumented code; the dump reads its counters and remembers what it
 * has taken (done), so it never writes a counter that a live thread may
 * be adding to.
 *
 * With a collector, the block lives in the thread's shared segment
 * (pap/shm.h, tallies), where a killed process loses no count; when the
 * segment has no room the pointer stays NULL and each record takes
 * __pap_count's or __pap_path's way.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include <pap/abi.h>

#include "profdata.h"
#include "rt.h"

struct rt_tally {
	const char *fn;
	uint8_t kind;		/* PAP_REC_BL or PAP_REC_PATH (complete) */
	uint64_t n;		/* counters */
	uint64_t *counts;	/* written by the owning thread only */
	uint64_t *done;		/* what the dump has taken of each */
	struct rt_tally *next;
};

static pthread_mutex_t rt_tally_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_tally *rt_tallies;
/* Inside __pap_tally's allocation: a signal handler's record meanwhile
 * takes the ordinary path. */
static RT_TLS volatile int rt_in_tally;

/* Largest block the runtime hands out, in counters: the plugin's
 * tally=N goes up to this. */
#define RT_TALLY_MAX (1u << 16)

/* A new block of @n zeroed counters for (@fn, @kind), on the list; NULL
 * when out of memory. */
static struct rt_tally *rt_tally_new(const char *fn, uint8_t kind, uint64_t n)
{
	struct rt_tally *t = malloc(sizeof(*t));

	if (!t)
		return NULL;
	t->counts = calloc(2 * n, sizeof(uint64_t));
	if (!t->counts) {
		free(t);
		return NULL;
	}
	t->done = t->counts + n;
	t->fn = fn;
	t->kind = kind;
	t->n = n;
	pthread_mutex_lock(&rt_tally_lock);
	t->next = rt_tallies;
	rt_tallies = t;
	pthread_mutex_unlock(&rt_tally_lock);
	return t;
}

/*
 * The instrumented code found *@counters NULL.  Counts this record as
 * __pap_count and __pap_path count theirs (with a collector: taken
 * first, so that it is reported lost if the process dies anywhere in
 * here), then gives this thread a block of counters for the function,
 * in its collector's segment or in this process's memory, so that the
 * next records are counted in place.
 */
void __pap_tally(uint64_t **counters, const char *fn, uint64_t value,
		 uint64_t nvalues, int bl)
{
	uint8_t kind = bl ? PAP_REC_BL : PAP_REC_PATH;
	uint64_t *block = NULL;
	struct rt_tally *t;

	if (bl)
		__pap_count(fn, value);
	else
		__pap_path(fn, value, 1);
	if (*counters || rt_in_tally || value >= nvalues ||
	    nvalues > RT_TALLY_MAX)
		return;
	rt_in_tally = 1;
	if (rt_ring_attached()) {
		block = rt_ring_tally(counters, fn, kind, nvalues);
	} else {
		int saved_errno = errno;	/* allocating may set it */

		rt_start();
		t = rt_tally_new(fn, kind, nvalues);
		block = t ? t->counts : NULL;
		errno = saved_errno;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (block)
		*counters = block;
	rt_in_tally = 0;
}

/*
 * n calls of __pap_tally, made while *@counters is NULL: the first that
 * gets the thread a block adds the rest there at once.
 */
void __pap_tally_add(uint64_t **counters, const char *fn, uint64_t value,
		     uint64_t nvalues, int bl, uint64_t n)
{
	for (; n; n--) {
		uint64_t *block = *counters;

		if (block) {
			/* one instruction, as the instrumented code adds */
			__atomic_fetch_add(&block[value], n, __ATOMIC_RELAXED);
			return;
		}
		__pap_tally(counters, fn, value, nvalues, bl);
	}
}

uint64_t rt_tally_take(struct pap_profile *into)
{
	struct rt_tally *t;
	uint64_t v, c, lost = 0;

	pthread_mutex_lock(&rt_tally_lock);
	for (t = rt_tallies; t; t = t->next)
		for (v = 0; v < t->n; v++) {
			c = __atomic_load_n(&t->counts[v], __ATOMIC_RELAXED);
			if (c == t->done[v])
				continue;
			if (pap_profile_add(into, t->fn, t->kind, 1, v, NULL, 0,
					    c - t->done[v]))
				lost += c - t->done[v];
			t->done[v] = c;
		}
	pthread_mutex_unlock(&rt_tally_lock);
	return lost;
}

void rt_tally_forget(void)
{
	struct rt_tally *t;
	uint64_t v;

	pthread_mutex_lock(&rt_tally_lock);
	for (t = rt_tallies; t; t = t->next)
		for (v = 0; v < t->n; v++)
			t->done[v] = __atomic_load_n(&t->counts[v],
						     __ATOMIC_RELAXED);
	pthread_mutex_unlock(&rt_tally_lock);
}

void rt_tally_after_fork_child(void)
{
	pthread_mutex_init(&rt_tally_lock, NULL);
	rt_tally_forget();
	rt_in_tally = 0;
}
