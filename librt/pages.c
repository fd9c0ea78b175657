/* SPDX-License-Identifier: MIT */
/*
 * pages.c - the runtime's memory: mapped pages, never malloc's.
 *
 * Instrumented code in a signal handler records paths like any other
 * code, and the thread it interrupted may be inside malloc, which is
 * not reentrant: a handler's record that grew the aggregate with malloc
 * corrupted the heap of a program that was otherwise correct.  So the
 * breakpoint stack, the packers, each thread's aggregate and its record
 * buffers, and the blocks of counters take their memory from mmap and
 * mremap, which are system calls and safe there.
 */
#define _GNU_SOURCE	/* mremap */
#include <sys/mman.h>

#include "rt.h"

static size_t rt_pages(size_t bytes)
{
	return (bytes + 4095) & ~(size_t)4095;
}

void *rt_map_resize(void *p, size_t old, size_t size)
{
	size_t o = rt_pages(old), n = rt_pages(size);
	void *q;

	if (!p || !o) {
		q = mmap(NULL, n, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		return q == MAP_FAILED ? NULL : q;
	}
	if (n == o)
		return p;
	q = mremap(p, o, n, MREMAP_MAYMOVE);
	return q == MAP_FAILED ? NULL : q;
}

void rt_map_release(void *p, size_t size)
{
	if (p && size)
		munmap(p, rt_pages(size));
}

const struct pap_mem rt_map_mem = { rt_map_resize, rt_map_release };
