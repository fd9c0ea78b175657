/* SPDX-License-Identifier: MIT */
/*
 * util.c - the core library's array and size helpers (util.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "papdefs.h"
#include "util.h"

int pap_grow(void *arrp, size_t *cap, size_t size, size_t first)
{
	return pap_mem_grow(NULL, arrp, cap, size, first);
}

int pap_mem_grow(const struct pap_mem *mem, void *arrp, size_t *cap,
		 size_t size, size_t first)
{
	size_t want = *cap ? *cap * 2 : first;
	void *old, *n;

	if (want < *cap || want > SIZE_MAX / size)
		return PAP_ENOMEM;
	/* the pointer is read and written as bytes: @arrp may point to any
	 * object pointer type */
	memcpy(&old, arrp, sizeof(old));
	n = pap_mem_resize(mem, old, *cap * size, want * size);
	if (!n)
		return PAP_ENOMEM;
	memcpy(arrp, &n, sizeof(n));
	*cap = want;
	return PAP_OK;
}

int pap_parse_bytes(const char *s, size_t *out)
{
	unsigned long long n;
	unsigned shift = 0;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoull(s, &end, 10);
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end)
		return -1;
	if (errno || n > SIZE_MAX >> shift)
		*out = SIZE_MAX;
	else
		*out = (size_t)n << shift;
	return 0;
}
