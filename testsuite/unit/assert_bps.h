/* SPDX-License-Identifier: MIT */
/*
 * assert_bps.h - the unit tests' check that two breakpoint sequences are
 * equal, naming the first place they differ.  Include after cmocka.h.
 */
#ifndef PAP_ASSERT_BPS_H
#define PAP_ASSERT_BPS_H

#include "papdefs.h"

static inline void assert_same_bps(const struct pap_breakpoint *a,
				   const struct pap_breakpoint *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (a[i].site != b[i].site || a[i].r != b[i].r)
			fail_msg("breakpoint %zu: %u %llu against %u %llu", i,
				 a[i].site, (unsigned long long)a[i].r,
				 b[i].site, (unsigned long long)b[i].r);
}

#endif /* PAP_ASSERT_BPS_H */
