/* SPDX-License-Identifier: MIT */
/*
 * papdefs.h - the few types every part of the core shares: its error
 * codes and the breakpoint, the unit of a record longer than 64 bits.
 *
 * The formats (profile, packed breakpoints, rings) need these and nothing
 * of the algorithms, so they live apart from cfgmodel.h and decode.h.
 */
#ifndef PAP_CORE_PAPDEFS_H
#define PAP_CORE_PAPDEFS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes shared by the core API (negative errno-like values). */
enum pap_err {
	PAP_OK = 0,
	PAP_ENOMEM = -1,
	PAP_EINVAL = -2,	/* bad argument or malformed graph */
	PAP_ECORRUPT = -3,	/* record stream inconsistent with the plan */
	PAP_ELIMIT = -4,	/* a size limit was exceeded */
};

/* A short English phrase for @err; never NULL. */
const char *pap_strerror(int err);

/*
 * A breakpoint as the runtime emits it: the fold site (a fold edge id)
 * and the register r as it stood before the fold.
 */
struct pap_breakpoint {
	uint32_t site;
	uint64_t r;
};

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_PAPDEFS_H */
