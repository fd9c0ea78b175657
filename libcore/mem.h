/* SPDX-License-Identifier: MIT */
/*
 * mem.h - where a core structure gets its memory (internal).
 *
 * By default from malloc.  The runtime gives its packers and its
 * threads' aggregates mapped pages instead (librt/pages.c): instrumented
 * code in a signal handler records paths too, and the thread it
 * interrupted may be inside malloc, which is not reentrant.
 */
#ifndef PAP_CORE_MEM_H
#define PAP_CORE_MEM_H

#include <stddef.h>
#include <stdlib.h>

/*
 * resize makes @p (NULL when @old is 0) @size bytes, keeping its first
 * min(@old, @size) bytes, and returns it, or NULL with @p untouched;
 * release gives back @p of @size bytes.
 */
struct pap_mem {
	void *(*resize)(void *p, size_t old, size_t size);
	void (*release)(void *p, size_t size);
};

/* @p, of @old bytes, made @size bytes from @m (NULL: malloc); NULL with
 * @p kept when it cannot. */
static inline void *pap_mem_resize(const struct pap_mem *m, void *p,
				   size_t old, size_t size)
{
	return m ? m->resize(p, old, size) : realloc(p, size);
}

/* Gives @p, of @size bytes, back to @m (NULL: free); NULL is ignored. */
static inline void pap_mem_release(const struct pap_mem *m, void *p,
				   size_t size)
{
	if (!p)
		return;
	if (m)
		m->release(p, size);
	else
		free(p);
}

#endif /* PAP_CORE_MEM_H */
