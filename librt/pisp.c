/* SPDX-License-Identifier: MIT */
/*
 * pisp.c - a thread's standing against the call sequences of interest
 * (plugin/pisp.cc, -fplugin-arg-pap-calls-spec): the entry of a function
 * on no sequence of interest sets __pap_pisp_dead; the entry of one
 * that some sequence names steps the thread's automaton
 * (libcore/pispauto.h), which sets it when no sequence of interest can
 * go on with the entries seen.  The thread's sequence, when it ends,
 * makes only a CALLS record of value PAP_CSEQ_LEFT (pathspec.h) that
 * counts it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "pap/export.h"
#include "papdefs.h"
#include "pispauto.h"
#include "pisp.h"
#include "rt.h"

/* Set by the probes (one store at such a function's entry) and by the
 * automaton, read and cleared only here. */
RT_TLS PAP_API unsigned __pap_pisp_dead;

/* The thread's node of the automaton; ANY: not followed (a forked
 * child's sequence, or one begun before the automaton was known), the
 * thread is never dropped. */
#define ANY (PAP_PISP_DEAD - 1)
static RT_TLS uint32_t rt_pisp_state;

/* The automaton of the first unit registered, published once decoded;
 * the spec hash of every unit must be its. */
static struct pap_pisp_auto rt_pisp_auto;
static const struct pap_pisp_auto *rt_pisp_a;
static pthread_mutex_t rt_pisp_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned rt_pisp_units;
static uint64_t rt_pisp_hash;
static int rt_pisp_refused;

void __pap_pisp_step(unsigned letter)
{
	const struct pap_pisp_auto *a;
	uint32_t s = rt_pisp_state;

	if (__pap_pisp_dead || s == ANY)
		return;
	a = __atomic_load_n(&rt_pisp_a, __ATOMIC_ACQUIRE);
	if (!a) {
		rt_pisp_state = ANY;
		return;
	}
	s = pap_pisp_next(a, s, letter);
	if (s == PAP_PISP_DEAD)
		__pap_pisp_dead = 1;
	else
		rt_pisp_state = s;
}

/* The object that holds @p, for a message. */
static const char *rt_pisp_object(const void *p)
{
	Dl_info info;

	if (p && dladdr(p, &info) && info.dli_fname && *info.dli_fname)
		return info.dli_fname;
	return "an instrumented object";
}

void __pap_pisp_unit(const void *automaton, unsigned size)
{
	uint64_t h = automaton ? pap_pisp_auto_hash(automaton, size) : 0;

	pthread_mutex_lock(&rt_pisp_lock);
	if (!rt_pisp_units++) {
		rt_pisp_hash = h;
		if (automaton) {
			if (pap_pisp_auto_decode(&rt_pisp_auto, automaton,
						 size) == PAP_OK)
				__atomic_store_n(&rt_pisp_a, &rt_pisp_auto,
						 __ATOMIC_RELEASE);
			else {
				fprintf(stderr, "pap: error: %s: its call "
					"sequences of interest cannot be "
					"read; no call sequences are "
					"recorded\n",
					rt_pisp_object(automaton));
				__atomic_store_n(&rt_pisp_refused, 1,
						 __ATOMIC_RELEASE);
			}
		}
	} else if (h != rt_pisp_hash &&
		   !__atomic_load_n(&rt_pisp_refused, __ATOMIC_ACQUIRE)) {
		fprintf(stderr, "pap: error: %s: built with %s%016llx, "
			"another unit with %s%016llx: build every unit of "
			"the program with the same -fplugin-arg-pap-calls-"
			"spec; no call sequences are recorded\n",
			rt_pisp_object(automaton),
			h ? "call sequences of interest " : "no calls-spec ",
			(unsigned long long)h,
			rt_pisp_hash ? "call sequences of interest " :
			"no calls-spec ", (unsigned long long)rt_pisp_hash);
		__atomic_store_n(&rt_pisp_refused, 1, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&rt_pisp_lock);
}

int rt_pisp_dead(void)
{
	return __pap_pisp_dead != 0;
}

int rt_pisp_take(void)
{
	int left = __pap_pisp_dead != 0;

	__pap_pisp_dead = 0;
	rt_pisp_state = 0;
	if (__atomic_load_n(&rt_pisp_refused, __ATOMIC_ACQUIRE))
		return -1;
	return left;
}

void rt_pisp_reset(void)
{
	/* a dead thread's activations may run their copies already
	 * (plugin/pisp.cc): the child's sequence would miss their calls */
	rt_pisp_state = ANY;
}
