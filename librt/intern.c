/* SPDX-License-Identifier: MIT */
/*
 * intern.c - function keys owned by the runtime.
 *
 * Everything the runtime keeps about a function (its records, the
 * threads' caches, the collector's names) is keyed by the address of the
 * function's key string, "ASMNAME:CHECKSUM[:METAFILE]" (pap/abi.h).  A
 * string inside a shared object dies with it at dlclose, and the next
 * object loaded may put another function's key at the same address.  So
 * code compiled for a shared object (-fPIC) keeps its keys in static
 * slots that start out pointing at its own strings, and a constructor of
 * each translation unit hands each slot's string to __pap_intern, which
 * gives back the runtime's own copy: one address per distinct key for
 * the life of the process, the same again when the object is loaded
 * again, never freed and never reused.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <pap/abi.h>

#include "util.h"

static pthread_mutex_t rt_intern_lock = PTHREAD_MUTEX_INITIALIZER;
/* open addressing, a power of two slots, at most half of them used */
static char **rt_interned;
static size_t rt_ninterned, rt_intern_cap;
static pthread_once_t rt_intern_once = PTHREAD_ONCE_INIT;

/* A fork while another thread interns leaves the child a table it can
 * use: the lock is held across the fork and let go on both sides. */
static void rt_intern_prepare(void)
{
	pthread_mutex_lock(&rt_intern_lock);
}

static void rt_intern_release(void)
{
	pthread_mutex_unlock(&rt_intern_lock);
}

static void rt_intern_init(void)
{
	pthread_atfork(rt_intern_prepare, rt_intern_release,
		       rt_intern_release);
}

/* Doubles the table; 0, or -1 with nothing changed. */
static int rt_intern_grow(void)
{
	size_t cap = rt_intern_cap ? rt_intern_cap * 2 : 256, i, j;
	char **t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (i = 0; i < rt_intern_cap; i++) {
		if (!rt_interned[i])
			continue;
		j = pap_fnv1a_str(rt_interned[i]) & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = rt_interned[i];
	}
	free(rt_interned);
	rt_interned = t;
	rt_intern_cap = cap;
	return 0;
}

/*
 * The runtime's copy of @text: equal texts give the same address, which
 * stays valid until the process ends.  Out of memory, @text itself (as
 * if the object were never closed).  Called by constructors, any thread.
 */
const char *__pap_intern(const char *text)
{
	const char *out = text;
	size_t i;
	char *copy;

	if (!text)
		return text;
	pthread_once(&rt_intern_once, rt_intern_init);
	pthread_mutex_lock(&rt_intern_lock);
	if (2 * (rt_ninterned + 1) > rt_intern_cap && rt_intern_grow())
		goto done;
	i = pap_fnv1a_str(text) & (rt_intern_cap - 1);
	for (; rt_interned[i]; i = (i + 1) & (rt_intern_cap - 1))
		if (!strcmp(rt_interned[i], text)) {
			out = rt_interned[i];
			goto done;
		}
	copy = strdup(text);
	if (copy) {
		rt_interned[i] = copy;
		rt_ninterned++;
		out = copy;
	}
done:
	pthread_mutex_unlock(&rt_intern_lock);
	return out;
}
