/* SPDX-License-Identifier: MIT */
/*
 * rtwhere.h - where a process's records go: the collector and the profile
 * the environment names, or else the collector that started it, found
 * through its rendezvous (internal; see rtwhere.c and
 * doc/collector.md, "Processes that clear their environment").
 */
#ifndef PAP_RT_RTWHERE_H
#define PAP_RT_RTWHERE_H

#include <stddef.h>

/*
 * Where this process's records go: the collector's socket (NULL: none)
 * and whether it may drop records, and the profile file.  PAP_COLLECTOR
 * (even empty: no collector) and PAP_PROFILE say; when neither is in the
 * environment, the first call looks, once per process, for a collector
 * that advertised itself for an ancestor of this process, and takes its
 * socket and output file if it is found and trusted.  The environment is
 * never changed.  PAP_PROFILE is read again on every call, as the
 * program may set it; the profile is never NULL ("pap.prof" at last;
 * "" when PAP_PROFILE is set empty: no output).  Its patterns (%p, %h,
 * %Nm: pap_target_expand) are expanded into @buf (@size bytes) when it
 * has any.
 * Any thread.
 */
const char *rt_where_collector(void);
/* Was an object built for another runtime ABI refused (abicheck.c)?
 * Then nothing goes anywhere: no collector, no profile. */
int rt_abi_mismatch(void);
int rt_where_lossy(void);
const char *rt_where_profile(char *buf, size_t size);

#endif
