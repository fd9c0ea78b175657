/* SPDX-License-Identifier: MIT */
/*
 * process.c - the runtime through the process's life: pap_dump and
 * pap_reset (pap/pap.h), and what each layer does when the process
 * exits, forks, or one of its threads ends (layers: rt.h).
 *
 * The hooks are registered when a layer first holds something they must
 * see (rt_start), not when the library is loaded.
 */
#include <pthread.h>
#include <stdlib.h>

#include <pap/pap.h>

#include "aggregate.h"
#include "calls.h"
#include "cunit.h"
#include "rt.h"
#include "sink.h"

static pthread_once_t rt_once = PTHREAD_ONCE_INIT;
/* set in a thread that holds an aggregate or breakpoint buffers: what it
 * does at its end (rt_thread_end) */
static pthread_key_t rt_end_key;
/* Set once the process is exiting: its last dump. */
static int rt_exiting;

/* At exit: the exiting thread's call sequence is recorded (the others'
 * are lost), the rings go back to the collector (or, when it is gone,
 * what it did not drain into the aggregates), then the aggregates are
 * written. */
static void rt_atexit(void)
{
	rt_calls_record();
	rt_calls_exit();
	rt_ring_exit();
	rt_exiting = 1;
	pap_dump();
}

static void rt_after_fork_child(void)
{
	rt_agg_after_fork_child();
	rt_ring_after_fork_child();
	rt_tally_after_fork_child();
	rt_entry_after_fork_child();
	rt_calls_record_after_fork_child();
}

/* A thread ends (rt_end_key): its call sequence is recorded and its
 * stack freed, its aggregate takes what waits, and its breakpoint
 * buffers are freed. */
static void rt_thread_end(void *unused)
{
	(void)unused;
	rt_calls_record();
	rt_calls_thread_end();
	rt_agg_thread_end();
	rt_entry_thread_end();
}

static void rt_init(void)
{
	pthread_key_create(&rt_end_key, rt_thread_end);
	atexit(rt_atexit);
	pthread_atfork(NULL, NULL, rt_after_fork_child);
}

void rt_start(void)
{
	pthread_once(&rt_once, rt_init);
}

void rt_on_thread_end(void)
{
	pthread_setspecific(rt_end_key, &rt_end_key);
}

int pap_dump(void)
{
	return rt_agg_dump(rt_exiting, rt_ring_dumped);
}

void pap_reset(void)
{
	rt_agg_reset();
	rt_tally_forget();
	rt_calls_forget_offers();
}
