/* SPDX-License-Identifier: MIT */
/*
 * reccache.h - where a record without breakpoints already is in a
 * profile, found again without the profile's lookup.
 *
 * The runtime (each thread's aggregate) and the collector count the same
 * few records without breakpoints over and over: an EPP id, or the final
 * value of a path that never folded.  The profile finds a record by
 * hashing its function and comparing it; this cache finds it by the
 * function string's address, which the caller keeps stable for the
 * profile's life (the ABI's strings in the runtime, interned strings in
 * the collector), so a hit is a few loads and an increment.
 *
 * The cache is a direct-mapped table of a power of two entries, each
 * naming a record by its index in the profile's records, which never
 * moves a record to another index (pap_profile_zero keeps them too).  It
 * only remembers where a record is; deduplication stays the profile's.
 * Inline, so that the runtime's hot path stays one function.
 */
#ifndef PAP_CORE_RECCACHE_H
#define PAP_CORE_RECCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "profdata.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A record's kind and whether it is complete, in one number: @kind in
 * the low byte, @complete above it (the bits of a shared-memory slot
 * key's top half, pap/shm.h).
 */
static inline unsigned pap_kind_complete(uint8_t kind, uint8_t complete)
{
	return kind | (unsigned)complete << 8;
}

/*
 * Where a record without breakpoints (@fn, @kind_complete, @value) is
 * looked for in a direct-mapped table of a power of two entries: the low
 * bits of this hash.  The key is the function string's address, never
 * its text.  The runtime places its shared-memory slots by it too.
 */
static inline uint32_t pap_record_hash(const char *fn, unsigned kind_complete,
				       uint64_t value)
{
	return (uint32_t)((((uintptr_t)fn ^ value * 0x9e3779b97f4a7c15ull ^
			    kind_complete) * 0xff51afd7ed558ccdull) >> 32);
}

struct pap_reccache_entry {
	const char *fn;
	uint64_t value;
	uint32_t rec;		/* index + 1 in the profile's recs; 0: empty */
	uint32_t kind_complete;	/* pap_kind_complete() */
};

/* The entry of a cache of @size (a power of two) entries that may hold
 * the record (@fn, @kind_complete, @value). */
static inline struct pap_reccache_entry *
pap_reccache_slot(struct pap_reccache_entry *cache, uint32_t size,
		  const char *fn, unsigned kind_complete, uint64_t value)
{
	return &cache[pap_record_hash(fn, kind_complete, value) & (size - 1)];
}

/*
 * The count of the record without breakpoints (@fn, @kind, @complete,
 * @value) in @prof, when the cache of @size entries knows where it is;
 * NULL when it does not (the caller takes the profile's way).
 */
static inline uint64_t *pap_reccache_count(struct pap_reccache_entry *cache,
					   uint32_t size,
					   const struct pap_profile *prof,
					   const char *fn, uint8_t kind,
					   uint8_t complete, uint64_t value)
{
	unsigned kind_complete = pap_kind_complete(kind, complete);
	const struct pap_reccache_entry *e =
		pap_reccache_slot(cache, size, fn, kind_complete, value);

	if (e->fn == fn && e->value == value && e->rec &&
	    e->kind_complete == kind_complete)
		return &prof->recs[e->rec - 1].count;
	return NULL;
}

/*
 * The profile added @it (pap_profile_add_many, pap_prof_batch_*): if it
 * is a record without breakpoints and was added, the cache of @size
 * entries learns its index, in place of whatever its entry held.
 */
static inline void pap_reccache_learn(struct pap_reccache_entry *cache,
				      uint32_t size,
				      const struct pap_prof_item *it)
{
	struct pap_reccache_entry *e;
	unsigned kind_complete;

	if (it->err || it->nbps)
		return;
	kind_complete = pap_kind_complete(it->kind, it->complete);
	e = pap_reccache_slot(cache, size, it->fn, kind_complete, it->value);
	e->fn = it->fn;
	e->value = it->value;
	e->kind_complete = kind_complete;
	e->rec = (uint32_t)(it->at + 1);
}

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_RECCACHE_H */
