/* SPDX-License-Identifier: MIT */
/*
 * callrec.c - a thread's call sequence becomes records (cunit.h): when
 * it ends, its CALLS record goes to the sinks (sink.h) like a path,
 * after the PROG and UNIT records of the program it ran in, which are
 * offered once per process and PROGSUM.
 *
 * A sequence ends at its thread's end (process.c), and at exit for the
 * thread that calls exit; a thread whose sequence never began (it ran
 * no code compiled with calls) makes no record.  pap_dump writes what
 * was recorded and cuts no sequence short: a running one is recorded
 * whole at its end.  pap_reset forgets what was recorded; sequences
 * running go on, and their records, at their end, hold their events
 * from before the reset too.  Each forgets nothing of the programs: the
 * next record offers its program's records again after pap_reset (the
 * aggregates lost them), not after pap_dump (the file holds them).
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include <pap/records.h>

#include "calls.h"
#include "cunit.h"
#include "pathspec.h"
#include "pisp.h"
#include "rt.h"
#include "sink.h"

/* sequences begun and not yet recorded, all threads */
static uint64_t rt_crunning;
/* the offer generation: what rt_cprog.offered compares with */
static unsigned rt_coffer_gen;

/* One running sequence less; never below 0 (a thread that ends after
 * exit counted it lost). */
static void rt_crunning_done(void)
{
	uint64_t n = __atomic_load_n(&rt_crunning, __ATOMIC_RELAXED);

	while (n && !__atomic_compare_exchange_n(&rt_crunning, &n, n - 1, 0,
						 __ATOMIC_RELAXED,
						 __ATOMIC_RELAXED))
		;
}

void rt_calls_began(void)
{
	rt_start();
	rt_on_thread_end();
	__atomic_add_fetch(&rt_crunning, 1, __ATOMIC_RELAXED);
}

/* @p's PROG record, then its UNIT records, unless this generation of
 * the process offered them already (one thread wins the race). */
static void rt_cprog_offer(const struct rt_cprog *p)
{
	unsigned want = __atomic_load_n(&rt_coffer_gen, __ATOMIC_RELAXED) + 1;
	unsigned had = __atomic_load_n(&p->offered, __ATOMIC_RELAXED);
	uint32_t i;

	if (had == want ||
	    !__atomic_compare_exchange_n((unsigned *)&p->offered, &had, want,
					 0, __ATOMIC_RELAXED,
					 __ATOMIC_RELAXED))
		return;
	if (p->nunits)
		rt_sink_path(p->prog_key, PAP_REC_PROG, 1, p->nunits, p->bps,
			     p->nunits);
	else
		rt_sink_value(p->prog_key, PAP_REC_PROG, 1, 0);
	for (i = 0; i < p->nunits; i++)
		rt_sink_value(p->units[i], PAP_REC_UNIT, 1, 0);
}

void rt_calls_record(void)
{
	const struct pap_breakpoint *bps;
	const struct rt_cprog *p;
	uint64_t value;
	size_t nbps;
	int open, lost, left;

	if (!rt_calls_begun()) {
		rt_pisp_take();
		return;
	}
	open = rt_calls_open();
	lost = rt_calls_take(&value, &bps, &nbps);
	/* after the take: a handler's sequence it abandons (one that left
	 * for its copy, pisp.h) is dropped while the thread is still dead */
	left = rt_pisp_take();
	rt_crunning_done();
	p = rt_cprog_now();
	/* units of different specs (pisp.h): nothing recorded */
	if (left < 0)
		return;
	/* off every call sequence of interest (pisp.h): counted only */
	if (left && p) {
		rt_cprog_offer(p);
		rt_sink_value(p->calls_key, PAP_REC_CALLS, 1, PAP_CSEQ_LEFT);
		return;
	}
	/* no unit registered: the program cannot be named */
	if (lost || !p || nbps > UINT32_MAX) {
		rt_agg_lost(1);
		return;
	}
	rt_cprog_offer(p);
	if (nbps)
		rt_sink_path(p->calls_key, PAP_REC_CALLS, !open, value, bps,
			     (uint32_t)nbps);
	else
		rt_sink_value(p->calls_key, PAP_REC_CALLS, !open, value);
}

/*
 * A signal handler's own sequence, recorded in the handler.  Every
 * signal is blocked meanwhile: a handler nested in this one would find
 * the aggregate busy, and a record deferred there holds few breakpoints.
 */
void rt_calls_record_async(uint64_t value, const struct pap_breakpoint *bps,
			   size_t nbps, int lost)
{
	const struct rt_cprog *p = rt_cprog_now();
	sigset_t all, old;

	/* a thread off the call sequences of interest runs copies without
	 * probes (pisp.h): an instrumented entry under one that expected
	 * another callee looks like a handler's; nothing of it is kept */
	if (rt_pisp_dead())
		return;
	if (lost || !p || nbps > UINT32_MAX) {
		rt_agg_lost(1);
		return;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rt_cprog_offer(p);
	if (nbps)
		rt_sink_path(p->calls_key, PAP_REC_CALLS, 1, value, bps,
			     (uint32_t)nbps);
	else
		rt_sink_value(p->calls_key, PAP_REC_CALLS, 1, value);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void rt_calls_exit(void)
{
	uint64_t n = __atomic_exchange_n(&rt_crunning, 0, __ATOMIC_RELAXED);

	/* their state cannot be read safely from here */
	if (n)
		rt_agg_lost(n);
}

void rt_calls_forget_offers(void)
{
	__atomic_add_fetch(&rt_coffer_gen, 1, __ATOMIC_RELAXED);
}

void rt_calls_record_after_fork_child(void)
{
	rt_calls_after_fork_child();
	rt_pisp_reset();
	__atomic_store_n(&rt_crunning, (uint64_t)rt_calls_begun(),
			 __ATOMIC_RELAXED);
	rt_calls_forget_offers();
}
