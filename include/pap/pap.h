/* SPDX-License-Identifier: MIT */
/*
 * pap/pap.h - controlling pap's runtime from an instrumented program.
 *
 * Link with -lpaprt (pap-gcc does).  Without these calls the runtime
 * writes the profile when the process exits.
 */
#ifndef PAP_PAP_H
#define PAP_PAP_H

#include <pap/export.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Merges every path recorded so far into the profile file (PAP_PROFILE,
 * default pap.prof) and zeroes the in-memory counts, so nothing is counted
 * twice.  Returns 0, or -1 with a message on stderr.
 */
PAP_API int pap_dump(void);

/* Forgets every path recorded so far in this process. */
PAP_API void pap_reset(void);

#ifdef __cplusplus
}
#endif

#endif /* PAP_PAP_H */
