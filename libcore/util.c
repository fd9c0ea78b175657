/* SPDX-License-Identifier: MIT */
/*
 * util.c - the core library's array helper (util.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "papdefs.h"
#include "util.h"

int pap_grow(void *arrp, size_t *cap, size_t size, size_t first)
{
	size_t want = *cap ? *cap * 2 : first;
	void *old, *n;

	if (want < *cap || want > SIZE_MAX / size)
		return PAP_ENOMEM;
	/* the pointer is read and written as bytes: @arrp may point to any
	 * object pointer type */
	memcpy(&old, arrp, sizeof(old));
	n = realloc(old, want * size);
	if (!n)
		return PAP_ENOMEM;
	memcpy(arrp, &n, sizeof(n));
	*cap = want;
	return PAP_OK;
}
