/* SPDX-License-Identifier: MIT */
/*
 * pap/abi.h - the calls the GCC plugin inserts and libpaprt provides.
 *
 * Version 1.  The plugin emits a function's probe operations (see
 * libcore/plan.h) as inline arithmetic on two 64-bit locals, r and a,
 * plus these calls:
 *
 *   r = __pap_fold(&bps, r, n, d, site, restart)
 *       r*n + d, or, when that overflows 64 bits, appends the breakpoint
 *       (site, r) to the activation's list *bps and returns restart*n + d;
 *   __pap_count(fn, id)
 *       counts the acyclic path id of function fn (mode epp);
 *   __pap_record(fn, &bps, r, complete)
 *       the activation of fn ends with value r and breakpoint list *bps,
 *       which it consumes; complete is 0 when a noreturn call cut it.
 *
 * fn is a string "ASMNAME:CHECKSUM[:METAFILE]" naming the function and
 * the metadata file that describes it.
 */
#ifndef PAP_ABI_H
#define PAP_ABI_H

#include <stdint.h>

#define PAP_ABI_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PAP_API
#define PAP_API __attribute__((visibility("default")))
#endif

PAP_API uint64_t __pap_fold(void **bps, uint64_t r, uint64_t n, uint64_t d,
		    uint32_t site, uint64_t restart);
PAP_API void __pap_count(const char *fn, uint64_t id);
PAP_API void __pap_record(const char *fn, void **bps, uint64_t r, int complete);

#ifdef __cplusplus
}
#endif

#endif /* PAP_ABI_H */
