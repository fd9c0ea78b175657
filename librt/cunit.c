/* SPDX-License-Identifier: MIT */
/*
 * cunit.c - the unit registry: __pap_cunit, the address -> key table
 * for indirect calls' callees, and the program's PROGSUM (cunit.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pap/abi.h>
#include <pap/records.h>

#include "calls.h"
#include "cunit.h"
#include "fnkey.h"
#include "util.h"

/* A function's id by the address of its key string. */
struct rt_kid {
	const char *key;
	uint64_t id;
};

/* A published snapshot: the program and the address table (open
 * addressing, a power of two slots, at most half used; addr 0 empty). */
struct rt_creg {
	struct rt_cprog prog;
	uint64_t *ids;			/* prog.units' fnids, ascending */
	const char **units;
	struct pap_breakpoint *bps;
	struct pap_cunit_fn *slot;
	size_t cap, nfns;
	struct rt_kid *kslot;		/* key pointer -> id, likewise */
	size_t kcap, nkeys;
	struct rt_creg *prev;		/* kept: readers may hold it */
};

static pthread_mutex_t rt_creg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t rt_creg_once = PTHREAD_ONCE_INIT;
static struct rt_creg *rt_creg;		/* published, release/acquire */

/* A fork while another thread registers leaves the child a registry
 * it can use: the lock is held across the fork. */
static void rt_creg_prepare(void)
{
	pthread_mutex_lock(&rt_creg_lock);
}

static void rt_creg_release(void)
{
	pthread_mutex_unlock(&rt_creg_lock);
}

static void rt_creg_init(void)
{
	pthread_atfork(rt_creg_prepare, rt_creg_release, rt_creg_release);
}

static size_t rt_addr_hash(uintptr_t a)
{
	uint64_t h = (uint64_t)a * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ h >> 29);
}

/* Puts (@addr, @key) into the table of @cap slots; an address already
 * there takes the newer key (an object loaded where a closed one was). */
static void rt_slot_put(struct pap_cunit_fn *slot, size_t cap,
			uintptr_t addr, const char *key, size_t *n)
{
	size_t i = rt_addr_hash(addr) & (cap - 1);

	for (; slot[i].addr; i = (i + 1) & (cap - 1))
		if (slot[i].addr == addr) {
			slot[i].key = key;
			return;
		}
	slot[i].addr = addr;
	slot[i].key = key;
	++*n;
}

/* Puts (@key, @id) into the key table of @cap slots. */
static void rt_kid_put(struct rt_kid *slot, size_t cap, const char *key,
		       uint64_t id, size_t *n)
{
	size_t i = rt_addr_hash((uintptr_t)key) & (cap - 1);

	for (; slot[i].key; i = (i + 1) & (cap - 1))
		if (slot[i].key == key) {
			slot[i].id = id;
			return;
		}
	slot[i].key = key;
	slot[i].id = id;
	++*n;
}

static int rt_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t rt_cprog_sum(uint64_t *ids, uint32_t n)
{
	unsigned char le[8];
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;
	unsigned b;

	qsort(ids, n, sizeof(*ids), rt_u64_cmp);
	for (i = 0; i < n; i++) {
		for (b = 0; b < 8; b++)
			le[b] = (unsigned char)(ids[i] >> (8 * b));
		for (b = 0; b < 8; b++)
			h = (h ^ le[b]) * 0x100000001b3ull;
	}
	return h;
}

const struct rt_cprog *rt_cprog_now(void)
{
	struct rt_creg *r = __atomic_load_n(&rt_creg, __ATOMIC_ACQUIRE);

	return r ? &r->prog : NULL;
}

const char *rt_cunit_key_of(uintptr_t addr)
{
	struct rt_creg *r = __atomic_load_n(&rt_creg, __ATOMIC_ACQUIRE);
	size_t i;

	if (!r || !addr || !r->cap)
		return NULL;
	for (i = rt_addr_hash(addr) & (r->cap - 1); r->slot[i].addr;
	     i = (i + 1) & (r->cap - 1))
		if (r->slot[i].addr == addr)
			return r->slot[i].key;
	return NULL;
}

uint64_t rt_cunit_id_of(const char *key)
{
	struct rt_creg *r = __atomic_load_n(&rt_creg, __ATOMIC_ACQUIRE);
	size_t i;

	if (r && key && r->kcap)
		for (i = rt_addr_hash((uintptr_t)key) & (r->kcap - 1);
		     r->kslot[i].key; i = (i + 1) & (r->kcap - 1))
			if (r->kslot[i].key == key)
				return r->kslot[i].id;
	return key ? pap_fnid(key) : 0;
}

/* The runtime's copy of "PREFIX%016llx" (a program's key). */
static const char *rt_sum_key(const char *prefix, uint64_t sum)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s%016llx", prefix,
		 (unsigned long long)sum);
	return __pap_intern(buf);
}

/*
 * The snapshot after @old with @u added: its functions in the table
 * (their keys the runtime's copies, which outlive a dlclose), and the
 * unit, when new, among the program's.  NULL when out of memory.
 */
static struct rt_creg *rt_creg_add(struct rt_creg *old,
				   const struct pap_cunit *u)
{
	struct rt_creg *r = calloc(1, sizeof(*r));
	const char *ukey = __pap_intern(u->key);
	uint64_t id = pap_fnid(ukey);
	uint32_t n = old ? old->prog.nunits : 0, i;
	size_t want = (old ? old->nfns : 0) + u->nfns, k;
	int known = 0;

	if (!r)
		return NULL;
	for (i = 0; i < n; i++)
		known |= old->ids[i] == id;
	for (r->cap = 16; r->cap < 2 * want + 2; r->cap *= 2)
		;
	for (r->kcap = 16; r->kcap < 4 * want + 2; r->kcap *= 2)
		;
	r->slot = calloc(r->cap, sizeof(*r->slot));
	r->kslot = calloc(r->kcap, sizeof(*r->kslot));
	r->ids = malloc((n + 1) * sizeof(*r->ids));
	r->units = malloc((n + 1) * sizeof(*r->units));
	r->bps = malloc((n + 1) * sizeof(*r->bps));
	if (!r->slot || !r->kslot || !r->ids || !r->units || !r->bps)
		goto oom;
	for (k = 0; old && k < old->cap; k++)
		if (old->slot[k].addr)
			rt_slot_put(r->slot, r->cap, old->slot[k].addr,
				    old->slot[k].key, &r->nfns);
	for (k = 0; old && k < old->kcap; k++)
		if (old->kslot[k].key)
			rt_kid_put(r->kslot, r->kcap, old->kslot[k].key,
				   old->kslot[k].id, &r->nkeys);
	for (k = 0; k < u->nfns; k++)
		if (u->fns[k].addr && u->fns[k].key) {
			const char *own = __pap_intern(u->fns[k].key);
			uint64_t fid = pap_fnid(own);

			rt_slot_put(r->slot, r->cap, u->fns[k].addr, own,
				    &r->nfns);
			/* the probes pass the table's pointer (an
			 * executable's string, a shared object's interned
			 * copy), the CALLEE marks the runtime's copy */
			rt_kid_put(r->kslot, r->kcap, own, fid, &r->nkeys);
			rt_kid_put(r->kslot, r->kcap, u->fns[k].key, fid,
				   &r->nkeys);
		}
	if (n)
		memcpy(r->ids, old->ids, n * sizeof(*r->ids));
	if (!known)
		r->ids[n++] = id;
	r->prog.sum = rt_cprog_sum(r->ids, n);
	/* the units in their ids' order, which the PROG record lists */
	for (i = 0; i < n; i++) {
		uint32_t j;

		r->units[i] = NULL;
		for (j = 0; old && j < old->prog.nunits; j++)
			if (old->ids[j] == r->ids[i])
				r->units[i] = old->units[j];
		if (!r->units[i])
			r->units[i] = ukey;
		r->bps[i].site = i;
		r->bps[i].r = r->ids[i];
	}
	r->prog.nunits = n;
	r->prog.units = r->units;
	r->prog.bps = r->bps;
	r->prog.calls_key = rt_sum_key(PAP_REC_CALLS_PREFIX, r->prog.sum);
	r->prog.prog_key = rt_sum_key(PAP_REC_PROG_PREFIX, r->prog.sum);
	/* the same program: offered as it was */
	if (old && old->prog.sum == r->prog.sum)
		r->prog.offered = __atomic_load_n(&old->prog.offered,
						  __ATOMIC_RELAXED);
	r->prev = old;
	return r;
oom:
	free(r->slot);
	free(r->kslot);
	free(r->ids);
	free(r->units);
	free(r->bps);
	free(r);
	return NULL;
}

void __pap_cunit(const struct pap_cunit *unit)
{
	struct rt_creg *r;

	if (!unit || !unit->key || (unit->nfns && !unit->fns))
		return;
	pthread_once(&rt_creg_once, rt_creg_init);
	pthread_mutex_lock(&rt_creg_lock);
	if (!rt_creg) {
		/* the first unit: the runtime's hooks (callrec.c) */
		rt_calls_set_key_of(rt_cunit_key_of);
		rt_calls_set_id_of(rt_cunit_id_of);
		rt_calls_set_begin(rt_calls_began);
		rt_calls_set_async_end(rt_calls_record_async);
		rt_start();
	}
	r = rt_creg_add(rt_creg, unit);
	if (r)
		__atomic_store_n(&rt_creg, r, __ATOMIC_RELEASE);
	else
		fprintf(stderr, "pap: out of memory registering the unit "
			"%s: its calls cannot be named\n", unit->key);
	pthread_mutex_unlock(&rt_creg_lock);
}
