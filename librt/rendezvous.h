/* SPDX-License-Identifier: MIT */
/*
 * rendezvous.h - how a process whose environment was cleared finds the
 * pap-collector that started it (internal; see rendezvous.c and
 * doc/collector.md, "Processes that clear their environment").
 */
#ifndef PAP_RT_RENDEZVOUS_H
#define PAP_RT_RENDEZVOUS_H

/*
 * Once per process, and only when neither PAP_COLLECTOR nor PAP_PROFILE
 * is in the environment: looks for a collector that advertised itself
 * for an ancestor of this process and, if one is found and trusted, sets
 * PAP_COLLECTOR, PAP_PROFILE (and PAP_COLLECTOR_LOSSY) as the collector
 * sets them for its command.  Runs from a constructor, before main;
 * later calls do nothing.
 */
void rt_rendezvous(void);

#endif
