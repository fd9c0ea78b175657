/* SPDX-License-Identifier: MIT */
/*
 * pisp.c - a thread's standing against the call sequences of interest
 * (plugin/pisp.cc, -fplugin-arg-pap-calls-spec): the entry of a function
 * on no sequence of interest sets __pap_pisp_dead, and the thread's
 * sequence, when it ends, makes only a CALLS record of value
 * PAP_CSEQ_LEFT (pathspec.h) that counts it.
 */
#include <stdint.h>

#include "pap/export.h"
#include "pisp.h"
#include "rt.h"

/* Set by the probes (one store at such a function's entry), read and
 * cleared only here. */
RT_TLS PAP_API unsigned __pap_pisp_dead;

int rt_pisp_take(void)
{
	if (!__pap_pisp_dead)
		return 0;
	__pap_pisp_dead = 0;
	return 1;
}

void rt_pisp_reset(void)
{
	__pap_pisp_dead = 0;
}

