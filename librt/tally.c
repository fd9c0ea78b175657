/* SPDX-License-Identifier: MIT */
/*
 * tally.c - counters that instrumented code increments itself, in the
 * process's memory (the file sink's; layers: rt.h).
 *
 * A record without breakpoints whose value the plan bounds (an EPP id, or
 * the final value of a path that cannot break) is a counter: the plugin
 * gives each such function a static thread-local pointer and, where it
 * would call the runtime, adds 1 to pointer[value] with one instruction
 * (pap/abi.h, __pap_tally).  The runtime points it, on the thread's first
 * record of the function (entry.c), at a block of that thread's counters
 * (rt_sink_tally), and the dump reads every block.  A block is only ever
 * written by its thread's instrumented code; the dump reads its counters
 * and remembers what it has taken (done), so it never writes a counter
 * that a live thread may be adding to.
 *
 * With a collector, the block lives in the thread's shared segment
 * (pap/shm.h, tallies), where a killed process loses no count; when the
 * segment has no room the pointer stays NULL and each record takes
 * __pap_count's or __pap_path's way.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "profdata.h"
#include "rt.h"
#include "sink.h"

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

/* Blocks are carved from mappings of this many bytes at least, and never
 * given back: a function's counters live as long as the process. */
#define RT_TALLY_REGION ((size_t)64 << 10)

static char *rt_tally_free_at;
static size_t rt_tally_room;

/* @size zeroed bytes, 8-aligned, from mapped pages (rt_tally_lock held);
 * NULL when out of memory. */
static void *rt_tally_carve(size_t size)
{
	void *p;

	size = (size + 7) & ~(size_t)7;
	/* a large one has its own mapping, and the region its room */
	if (size > rt_tally_room && size >= RT_TALLY_REGION / 4)
		return rt_map_resize(NULL, 0, size);
	if (size > rt_tally_room) {
		char *m = rt_map_resize(NULL, 0, RT_TALLY_REGION);

		if (!m)
			return NULL;
		rt_tally_free_at = m;
		rt_tally_room = RT_TALLY_REGION;
	}
	p = rt_tally_free_at;
	rt_tally_free_at += size;
	rt_tally_room -= size;
	return p;
}

/* A new block of @n zeroed counters for (@fn, @kind), on the list; NULL
 * when out of memory. */
static struct rt_tally *rt_tally_new(const char *fn, uint8_t kind, uint64_t n)
{
	struct rt_tally *t;

	uint64_t *counts;

	pthread_mutex_lock(&rt_tally_lock);
	/* the counters first, then their header apart from them: a large
	 * block's pages are touched only where its counters are */
	counts = rt_tally_carve(2 * n * sizeof(uint64_t));
	t = counts ? rt_tally_carve(sizeof(*t)) : NULL;
	if (t) {
		t->counts = counts;
		t->done = t->counts + n;
		t->fn = fn;
		t->kind = kind;
		t->n = n;
		t->next = rt_tallies;
		rt_tallies = t;
	}
	pthread_mutex_unlock(&rt_tally_lock);
	return t;
}

uint64_t *rt_tally_block(const char *fn, uint8_t kind, uint64_t n)
{
	int saved_errno = errno;	/* allocating may set it */
	struct rt_tally *t;

	rt_start();
	t = rt_tally_new(fn, kind, n);
	errno = saved_errno;
	return t ? t->counts : NULL;
}

/*
 * Pages of a block that were never written read as zeros, and reading
 * each costs a fault: a large block is mostly such pages (a function's
 * counters are every value its plan bounds, few of them taken), and a
 * short process spent more on these faults than on its records.  The
 * kernel's page map tells them apart: a page neither present nor
 * swapped out was never written (pagemap bits 63 and 62).
 */
#define RT_PAGE_PRESENT (1ull << 63)
#define RT_PAGE_SWAPPED (1ull << 62)
#define RT_PAGEMAP_RUN 64

/* The first counter at or after @v of @t that may be nonzero: @v, or the
 * first of the next page that was ever written, as far as @map (the page
 * map, -1 when it cannot be read: every page then) tells; @t->n when
 * none.  @page is the page size, @cached and @at its caller's record of
 * the page map entries last read (RT_PAGEMAP_RUN from page @at). */
static uint64_t rt_tally_next(const struct rt_tally *t, uint64_t v, int map,
			      uintptr_t page, uint64_t *cached,
			      uintptr_t *at)
{
	while (map >= 0 && v < t->n) {
		uintptr_t pg = (uintptr_t)&t->counts[v] / page;
		ssize_t got;

		if (pg < *at || pg >= *at + RT_PAGEMAP_RUN) {
			got = pread(map, cached, RT_PAGEMAP_RUN *
				    sizeof(*cached), (off_t)(pg * 8));
			if (got < (ssize_t)sizeof(*cached))
				return v;
			/* entries not read: as written pages */
			for (; got < (ssize_t)(RT_PAGEMAP_RUN *
					       sizeof(*cached));
			     got += sizeof(*cached))
				cached[got / sizeof(*cached)] =
					RT_PAGE_PRESENT;
			*at = pg;
		}
		if (cached[pg - *at] & (RT_PAGE_PRESENT | RT_PAGE_SWAPPED))
			return v;
		v = ((pg + 1) * page - (uintptr_t)t->counts) /
		    sizeof(*t->counts);
	}
	return v;
}

uint64_t rt_tally_take(struct pap_profile *into)
{
	struct rt_tally *t;
	uint64_t v, c, lost = 0, cached[RT_PAGEMAP_RUN];
	/* no entry read yet: every page is before @at */
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE),
		  at = UINTPTR_MAX - RT_PAGEMAP_RUN;
	int map = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	if (!page || page % sizeof(uint64_t)) {
		if (map >= 0)
			close(map);
		map = -1;
	}
	pthread_mutex_lock(&rt_tally_lock);
	for (t = rt_tallies; t; t = t->next)
		for (v = 0; v < t->n; v++) {
			if ((uintptr_t)&t->counts[v] % page == 0 ||
			    v == 0) {
				v = rt_tally_next(t, v, map, page, cached,
						  &at);
				if (v >= t->n)
					break;
			}
			c = __atomic_load_n(&t->counts[v], __ATOMIC_RELAXED);
			/* counts only grow and done holds earlier counts: a
			 * zero count was never taken, and its done page is
			 * not touched (most of a large block is never used,
			 * and each page read is a fault) */
			if (!c || c == t->done[v])
				continue;
			if (pap_profile_add(into, t->fn, t->kind, 1, v, NULL, 0,
					    c - t->done[v]))
				lost += c - t->done[v];
			t->done[v] = c;
		}
	pthread_mutex_unlock(&rt_tally_lock);
	if (map >= 0)
		close(map);
	return lost;
}

void rt_tally_forget(void)
{
	struct rt_tally *t;
	uint64_t v;

	pthread_mutex_lock(&rt_tally_lock);
	for (t = rt_tallies; t; t = t->next)
		for (v = 0; v < t->n; v++) {
			uint64_t c = __atomic_load_n(&t->counts[v],
						     __ATOMIC_RELAXED);

			/* as in rt_tally_take(): a zero's done is zero */
			if (c)
				t->done[v] = c;
		}
	pthread_mutex_unlock(&rt_tally_lock);
}

void rt_tally_after_fork_child(void)
{
	pthread_mutex_init(&rt_tally_lock, NULL);
	rt_tally_forget();
}
