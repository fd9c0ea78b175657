/* SPDX-License-Identifier: MIT */
/*
 * callsrt.h - what callsrt.c (a program whose probes are written by
 * hand, as the plugin will emit them) and its checker callsrt-check.c
 * share: its units' and functions' keys, and how far its loops go.
 * Everything else the checker knows from reading callsrt.c.
 */
#ifndef CALLSRT_H
#define CALLSRT_H

#define CR_META_A "/nonexistent/callsrt-a.papm"
#define CR_META_B "/nonexistent/callsrt-b.papm"
#define CR_UNIT_A "%unit:00000000000000a1:" CR_META_A
#define CR_UNIT_B "%unit:00000000000000b2:" CR_META_B

/* the functions, in the checker's order */
#define CR_KEY_MAIN "main:0000000000000c01:" CR_META_A
#define CR_KEY_WORK "work:0000000000000c02:" CR_META_A
#define CR_KEY_WORKER "worker:0000000000000c03:" CR_META_A
#define CR_KEY_LEAF "leaf:0000000000000c04:" CR_META_B
#define CR_KEY_TWICE "twice:0000000000000c05:" CR_META_B
#define CR_KEY_DEEP "deep:0000000000000c06:" CR_META_A

/* main calls work(CR_N1), then starts and joins a thread running
 * worker, which calls work(CR_N3), then calls work(CR_N2); with "exit",
 * main then calls deep, which calls exit(0).  work(n) calls, for
 * i = 0..n-1, twice(i) through a pointer when i % CR_EVERY == 0, else
 * leaf(i). */
#define CR_N1 300
#define CR_N2 7
#define CR_N3 130
#define CR_EVERY 64

#endif /* CALLSRT_H */
