/* SPDX-License-Identifier: MIT */
/*
 * abicheck.c - every instrumented object tells the runtime, from a
 * constructor of each of its translation units, which version of pap's
 * runtime ABI it was built for (pap/abi.h, __pap_abi); an object built
 * for another is refused: named once on stderr, and the process writes
 * no profile and hands nothing to a collector (rtwhere.c), since what
 * such code records cannot be trusted.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <pap/abi.h>

#include "rtwhere.h"

static pthread_mutex_t rt_abi_lock = PTHREAD_MUTEX_INITIALIZER;
/* set once an object was refused: no output from then on */
static int rt_abi_refused;
/* the object named last: its other units are not named again */
static char rt_abi_named[512];

int rt_abi_mismatch(void)
{
	return __atomic_load_n(&rt_abi_refused, __ATOMIC_ACQUIRE);
}

void __pap_abi(uint32_t version, const char *key)
{
	Dl_info info;
	const char *obj = "an instrumented object";

	if (version == PAP_ABI_VERSION)
		return;
	if (dladdr(key, &info) && info.dli_fname && *info.dli_fname)
		obj = info.dli_fname;
	pthread_mutex_lock(&rt_abi_lock);
	if (strncmp(rt_abi_named, obj, sizeof(rt_abi_named) - 1)) {
		fprintf(stderr, "pap: error: %s: built for pap's runtime ABI "
			"%u, but this libpaprt has ABI %d (another pap "
			"version): rebuild it with this pap; no paths are "
			"recorded\n", obj, (unsigned)version, PAP_ABI_VERSION);
		snprintf(rt_abi_named, sizeof(rt_abi_named), "%s", obj);
	}
	__atomic_store_n(&rt_abi_refused, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rt_abi_lock);
}
