/* SPDX-License-Identifier: MIT */
/*
 * profdata.c - distinct records with counts; the profile file format.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "bpack.h"
#include "diag.h"
#include "fnkey.h"
#include "profbin.h"
#include "profdata.h"
#include "textfile.h"
#include "util.h"

/* The hash of a record whose function's text hashes to @fn_hash. */
static uint64_t prof_hash(uint64_t fn_hash, uint8_t kind, uint8_t complete,
			  uint64_t value, const struct pap_breakpoint *bps,
			  uint32_t nbps)
{
	uint64_t h = fn_hash;
	uint32_t i;

	h = (h ^ kind ^ ((uint64_t)complete << 8)) * 0x100000001b3ull;
	h = (h ^ value) * 0x9e3779b97f4a7c15ull;
	for (i = 0; i < nbps; i++) {
		h = (h ^ bps[i].site) * 0x100000001b3ull;
		h = (h ^ bps[i].r) * 0x9e3779b97f4a7c15ull;
	}
	return h ^ (h >> 29);
}

void pap_profile_init(struct pap_profile *p)
{
	memset(p, 0, sizeof(*p));
}

/*
 * Records' breakpoints, side by side: a chunk holds those of many
 * records, so that a path of a few breakpoints costs what they take and
 * no allocation of its own.  Chunks double from PROF_CHUNK_MIN up to
 * PROF_CHUNK_MAX breakpoints; a record longer than that has one to
 * itself.
 */
struct pap_prof_chunk {
	struct pap_prof_chunk *next;
	size_t used, cap;
	struct pap_breakpoint bps[];
};

#define PROF_CHUNK_MIN 64
#define PROF_CHUNK_MAX 4096

/* Room for @n breakpoints in @p's chunks; NULL when out of memory. */
static struct pap_breakpoint *prof_bps_alloc(struct pap_profile *p,
					     uint32_t n)
{
	struct pap_prof_chunk *c = p->chunks;
	size_t cap;

	if (!c || c->cap - c->used < n) {
		cap = c ? c->cap * 2 : PROF_CHUNK_MIN;
		if (cap > PROF_CHUNK_MAX)
			cap = PROF_CHUNK_MAX;
		if (cap < n)
			cap = n;
		if (p->spare && p->spare->cap >= cap) {
			c = p->spare;
			p->spare = c->next;
			cap = c->cap;
		} else {
			c = pap_mem_resize(p->mem, NULL, 0, sizeof(*c) +
					   cap * sizeof(c->bps[0]));
			if (!c)
				return NULL;
			p->held += sizeof(*c) + cap * sizeof(c->bps[0]);
		}
		c->used = 0;
		c->cap = cap;
		/* a record alone in a chunk does not end the one being
		 * filled */
		if (p->chunks && cap == n) {
			c->next = p->chunks->next;
			p->chunks->next = c;
		} else {
			c->next = p->chunks;
			p->chunks = c;
		}
	}
	c->used += n;
	return c->bps + c->used - n;
}

size_t pap_profile_bytes(const struct pap_profile *p)
{
	/* the table is between a quarter and half full */
	return p->nrecs * (sizeof(*p->recs) + 3 * sizeof(*p->slots)) +
	       p->nbps * sizeof(struct pap_breakpoint);
}

/* Frees the chunks of list @c, from @p's memory. */
static void prof_chunks_free(struct pap_profile *p, struct pap_prof_chunk *c)
{
	struct pap_prof_chunk *next;

	for (; c; c = next) {
		next = c->next;
		pap_mem_release(p->mem, c,
				sizeof(*c) + c->cap * sizeof(c->bps[0]));
	}
}

/*
 * The names' text: blocks of PROF_TEXTS bytes at least, filled one after
 * another, so that a name costs its length and no allocation of its own.
 */
struct pap_prof_texts {
	struct pap_prof_texts *next;
	size_t used, cap;
	char text[];
};

#define PROF_TEXTS 4000

/* A copy of @fn in @p's name text; NULL when out of memory. */
static char *prof_text_copy(struct pap_profile *p, const char *fn)
{
	struct pap_prof_texts *t = p->texts;
	size_t n = strlen(fn) + 1, cap;

	if (!t || t->cap - t->used < n) {
		cap = n > PROF_TEXTS ? n : PROF_TEXTS;
		t = pap_mem_resize(p->mem, NULL, 0, sizeof(*t) + cap);
		if (!t)
			return NULL;
		t->used = 0;
		t->cap = cap;
		t->next = p->texts;
		p->texts = t;
	}
	memcpy(t->text + t->used, fn, n);
	t->used += n;
	return t->text + t->used - n;
}

void pap_profile_clear(struct pap_profile *p)
{
	struct pap_prof_chunk *c, *next, **at;

	/* spare chunks, largest first, so that a long record's finds one */
	for (c = p->chunks; c; c = next) {
		next = c->next;
		for (at = &p->spare; *at && (*at)->cap > c->cap;
		     at = &(*at)->next)
			;
		c->next = *at;
		*at = c;
	}
	p->chunks = NULL;
	p->nrecs = 0;
	p->nbps = 0;
	if (p->nslots)
		memset(p->slots, 0, p->nslots * sizeof(*p->slots));
	p->lost = 0;
}

void pap_profile_free(struct pap_profile *p)
{
	const struct pap_mem *mem = p->mem;
	struct pap_prof_texts *t, *next;

	prof_chunks_free(p, p->chunks);
	prof_chunks_free(p, p->spare);
	for (t = p->texts; t; t = next) {
		next = t->next;
		pap_mem_release(mem, t, sizeof(*t) + t->cap);
	}
	pap_mem_release(mem, p->recs, p->cap_recs * sizeof(*p->recs));
	pap_mem_release(mem, p->slots, p->nslots * sizeof(*p->slots));
	pap_mem_release(mem, p->names, p->cap_names * sizeof(*p->names));
	pap_mem_release(mem, p->name_slots,
			p->nname_slots * sizeof(*p->name_slots));
	pap_profile_init(p);
	p->mem = mem;
}

void pap_profile_zero(struct pap_profile *p)
{
	size_t i;

	for (i = 0; i < p->nrecs; i++)
		p->recs[i].count = 0;
	p->lost = 0;
}

/*
 * A slot of an open-addressing table: the entry's index + 1 below, the
 * top half of its hash above, so that a probe passes most other entries
 * without touching them.  0: empty.
 */
static inline uint64_t prof_slot(uint64_t hash, size_t index)
{
	return (hash & 0xffffffff00000000ull) | ((uint64_t)index + 1);
}

static inline uint32_t prof_slot_index(uint64_t slot)
{
	return (uint32_t)slot - 1;
}

static inline int prof_slot_may_hold(uint64_t slot, uint64_t hash)
{
	return ((slot ^ hash) >> 32) == 0;
}

/* Doubles an open-addressing table of @*n slots (prof_slot()) of
 * the @count entries at @base, @size bytes each, each with its hash at
 * offset @hash_at. */
static int prof_regrow(const struct pap_mem *mem, uint64_t **slots,
		       size_t *n, size_t count, const void *base, size_t size,
		       size_t hash_at)
{
	size_t want = *n ? *n * 2 : 64, i;
	uint64_t *t = pap_mem_resize(mem, NULL, 0, want * sizeof(uint64_t));

	if (!t)
		return PAP_ENOMEM;
	memset(t, 0, want * sizeof(uint64_t));
	for (i = 0; i < count; i++) {
		uint64_t h;
		size_t s;

		memcpy(&h, (const char *)base + i * size + hash_at, sizeof(h));
		for (s = h & (want - 1); t[s]; s = (s + 1) & (want - 1))
			;
		t[s] = prof_slot(h, i);
	}
	pap_mem_release(mem, *slots, *n * sizeof(uint64_t));
	*slots = t;
	*n = want;
	return PAP_OK;
}

/*
 * Doubles the array *@arr of *@cap entries of @size bytes (to @first
 * entries when empty).  Indexes are 32-bit (open addressing stores index
 * + 1): PAP_ELIMIT past UINT32_MAX - 1 entries, PAP_ENOMEM, and then
 * nothing changed.
 */
static int prof_grow(const struct pap_mem *mem, void **arr, size_t *cap,
		     size_t size, size_t first)
{
	size_t want = *cap ? *cap * 2 : first;
	void *n;

	if (want > UINT32_MAX - 1)
		return PAP_ELIMIT;
	n = pap_mem_resize(mem, *arr, *cap * size, want * size);
	if (!n)
		return PAP_ENOMEM;
	*arr = n;
	*cap = want;
	return PAP_OK;
}

/* The slot of a pointer key in the name table. */
static uint64_t prof_key_hash(const char *fn)
{
	uint64_t h = (uint64_t)(uintptr_t)fn * 0x9e3779b97f4a7c15ull;

	return h ^ (h >> 29);
}

/*
 * *@at: the index of function @fn in @p's names, added if new (found by
 * its address when @p->by_address, else by its text).
 */
static int prof_name(struct pap_profile *p, const char *fn, uint32_t *at)
{
	uint64_t h = p->by_address ? prof_key_hash(fn) : pap_fnv1a_str(fn);
	struct pap_prof_name *nm;
	size_t s;

	if (p->nnames + 1 > p->nname_slots / 2 &&
	    prof_regrow(p->mem, &p->name_slots, &p->nname_slots, p->nnames,
			p->names, sizeof(*p->names),
			offsetof(struct pap_prof_name, slot_hash)))
		return PAP_ENOMEM;
	for (s = h & (p->nname_slots - 1); p->name_slots[s];
	     s = (s + 1) & (p->nname_slots - 1)) {
		if (!prof_slot_may_hold(p->name_slots[s], h))
			continue;
		nm = &p->names[prof_slot_index(p->name_slots[s])];
		if (p->by_address ? nm->key == fn :
		    nm->hash == h && !strcmp(nm->text, fn)) {
			*at = prof_slot_index(p->name_slots[s]);
			if (nm->gen < p->gen)
				nm->gen = p->gen;
			return PAP_OK;
		}
	}
	if (p->nnames == p->cap_names) {
		void *a = p->names;
		int err = prof_grow(p->mem, &a, &p->cap_names,
				    sizeof(*p->names), 16);

		if (err)
			return err;
		p->names = a;
	}
	nm = &p->names[p->nnames];
	nm->text = prof_text_copy(p, fn);
	if (!nm->text)
		return PAP_ENOMEM;
	p->held += strlen(fn) + 1;
	nm->key = p->by_address ? fn : NULL;
	nm->gen = p->gen;
	nm->slot_hash = h;
	nm->hash = p->by_address ? pap_fnv1a_str(fn) : h;
	*at = (uint32_t)p->nnames;
	p->name_slots[s] = prof_slot(h, p->nnames++);
	return PAP_OK;
}

static int prof_equal(const struct pap_prof_rec *r, uint64_t hash,
		      uint32_t name, uint8_t kind, uint8_t complete,
		      uint64_t value, const struct pap_breakpoint *bps,
		      uint32_t nbps)
{
	uint32_t i;

	if (r->hash != hash || r->name != name || r->kind != kind ||
	    r->complete != complete || r->value != value || r->nbps != nbps)
		return 0;
	for (i = 0; i < nbps; i++)
		if (r->bps[i].site != bps[i].site || r->bps[i].r != bps[i].r)
			return 0;
	return 1;
}

/* pap_profile_add_at() for a function already in @p's names whose
 * record hashes to @h. */
static int prof_add(struct pap_profile *p, uint32_t name, uint64_t h,
		    uint8_t kind, uint8_t complete, uint64_t value,
		    const struct pap_breakpoint *bps, uint32_t nbps,
		    uint64_t count, size_t *at)
{
	struct pap_prof_rec *r;
	size_t s;

	if (p->nrecs + 1 > p->nslots / 2 &&
	    prof_regrow(p->mem, &p->slots, &p->nslots, p->nrecs, p->recs,
			sizeof(*p->recs), offsetof(struct pap_prof_rec, hash)))
		return PAP_ENOMEM;
	for (s = h & (p->nslots - 1); p->slots[s];
	     s = (s + 1) & (p->nslots - 1)) {
		if (!prof_slot_may_hold(p->slots[s], h))
			continue;
		r = &p->recs[prof_slot_index(p->slots[s])];
		if (prof_equal(r, h, name, kind, complete, value, bps, nbps)) {
			r->count = pap_sat_add(r->count, count);
			*at = prof_slot_index(p->slots[s]);
			return PAP_OK;
		}
	}
	if (p->max_recs && p->nrecs >= p->max_recs)
		return PAP_ELIMIT;
	if (p->nrecs == p->cap_recs) {
		void *a = p->recs;
		int err = prof_grow(p->mem, &a, &p->cap_recs,
				    sizeof(*p->recs), 64);

		if (err)
			return err;
		p->recs = a;
	}
	r = &p->recs[p->nrecs];
	r->bps = nbps ? prof_bps_alloc(p, nbps) : NULL;
	p->nbps += nbps;
	if (nbps && !r->bps)
		return PAP_ENOMEM;
	if (nbps)
		memcpy(r->bps, bps, nbps * sizeof(*bps));
	r->fn = p->names[name].text;
	r->name = name;
	r->kind = kind;
	r->complete = complete;
	r->nbps = nbps;
	r->count = count;
	r->value = value;
	r->hash = h;
	*at = p->nrecs;
	p->slots[s] = prof_slot(h, p->nrecs++);
	return PAP_OK;
}

int pap_profile_add(struct pap_profile *p, const char *fn, uint8_t kind,
		    uint8_t complete, uint64_t value,
		    const struct pap_breakpoint *bps, uint32_t nbps,
		    uint64_t count)
{
	size_t at;

	return pap_profile_add_at(p, fn, kind, complete, value, bps, nbps,
				  count, &at);
}

int pap_profile_add_at(struct pap_profile *p, const char *fn, uint8_t kind,
		       uint8_t complete, uint64_t value,
		       const struct pap_breakpoint *bps, uint32_t nbps,
		       uint64_t count, size_t *at)
{
	uint32_t name;
	int err = prof_name(p, fn, &name);

	if (err)
		return err;
	return prof_add(p, name, prof_hash(p->names[name].hash, kind, complete,
					   value, bps, nbps),
			kind, complete, value, bps, nbps, count, at);
}

int pap_profile_add_named(struct pap_profile *p, const char *fn,
			  uint32_t *name, uint8_t kind, uint8_t complete,
			  uint64_t value, const struct pap_breakpoint *bps,
			  uint32_t nbps, uint64_t count)
{
	size_t at;

	if (*name == UINT32_MAX) {
		int err = prof_name(p, fn, name);

		if (err) {
			*name = UINT32_MAX;
			return err;
		}
	}
	return prof_add(p, *name, prof_hash(p->names[*name].hash, kind,
					    complete, value, bps, nbps),
			kind, complete, value, bps, nbps, count, &at);
}

void pap_profile_add_many(struct pap_profile *p, struct pap_prof_item *items,
			  size_t n)
{
	struct pap_prof_item *it, *end = items + n;

	/* names first, in order, as the calls one by one would add them;
	 * then each record's first slot, then the record it names: each
	 * step's loads all start before any is waited for */
	for (it = items; it < end; it++) {
		it->err = it->named ? PAP_OK : prof_name(p, it->fn, &it->name);
		if (it->err)
			continue;
		it->hash = prof_hash(p->names[it->name].hash, it->kind,
				     it->complete, it->value, it->bps, it->nbps);
		if (p->nslots)
			__builtin_prefetch(&p->slots[it->hash &
						     (p->nslots - 1)]);
	}
	for (it = items; it < end && p->nslots; it++) {
		uint64_t slot = p->slots[it->hash & (p->nslots - 1)];
		const char *r;

		if (it->err || !slot || !prof_slot_may_hold(slot, it->hash))
			continue;
		r = (const char *)&p->recs[prof_slot_index(slot)];
		__builtin_prefetch(r);
		__builtin_prefetch(r + sizeof(struct pap_prof_rec) - 1);
	}
	for (it = items; it < end; it++)
		if (!it->err)
			it->err = prof_add(p, it->name, it->hash, it->kind,
					   it->complete, it->value, it->bps,
					   it->nbps, it->count, &it->at);
}

void pap_prof_batch_flush(struct pap_profile *p, struct pap_prof_batch *b,
			  pap_prof_added_fn *added, void *arg)
{
	unsigned i;

	pap_profile_add_many(p, b->items, b->n);
	for (i = 0; i < b->n; i++)
		added(arg, &b->items[i]);
	b->n = 0;
	b->nbps = 0;
}

int pap_profile_name(struct pap_profile *p, const char *fn, uint32_t *name)
{
	return prof_name(p, fn, name);
}

void pap_prof_batch_add(struct pap_profile *p, struct pap_prof_batch *b,
			const char *fn, uint8_t kind, uint8_t complete,
			uint64_t value, const struct pap_breakpoint *bps,
			uint32_t nbps, uint64_t count,
			pap_prof_added_fn *added, void *arg)
{
	pap_prof_batch_add_named(p, b, fn, UINT32_MAX, kind, complete, value,
				 bps, nbps, count, added, arg);
}

/* Names item @it by fn's index @name in the profile (UINT32_MAX: to be
 * found when it is added). */
static void batch_name(struct pap_prof_item *it, uint32_t name)
{
	it->name = name;
	it->named = name != UINT32_MAX;
}

void pap_prof_batch_add_named(struct pap_profile *p, struct pap_prof_batch *b,
			      const char *fn, uint32_t name, uint8_t kind,
			      uint8_t complete, uint64_t value,
			      const struct pap_breakpoint *bps, uint32_t nbps,
			      uint64_t count, pap_prof_added_fn *added,
			      void *arg)
{
	struct pap_prof_item *it;

	if (b->n == PAP_PROF_BATCH || nbps > PAP_PROF_BATCH_BPS - b->nbps)
		pap_prof_batch_flush(p, b, added, arg);
	it = &b->items[b->n];
	pap_prof_item_set(it, fn, kind, complete, value, bps, nbps, count);
	batch_name(it, name);
	if (nbps > PAP_PROF_BATCH_BPS) {
		/* a long path, on its own */
		pap_profile_add_many(p, it, 1);
		added(arg, it);
		return;
	}
	if (nbps) {
		it->bps = b->bps + b->nbps;
		memcpy(b->bps + b->nbps, bps, nbps * sizeof(*bps));
		b->nbps += nbps;
	}
	b->n++;
}

int pap_profile_merge(struct pap_profile *to, const struct pap_profile *from)
{
	uint32_t *map;
	size_t i, at;
	int err = PAP_OK;

	/* each function looked up once, each record by the hash it has */
	map = malloc((from->nnames + 1) * sizeof(*map));
	if (!map)
		return PAP_ENOMEM;
	for (i = 0; i < from->nnames && !err; i++)
		err = prof_name(to, from->names[i].text, &map[i]);
	for (i = 0; i < from->nrecs && !err; i++) {
		const struct pap_prof_rec *r = &from->recs[i];

		err = prof_add(to, map[r->name], r->hash, r->kind, r->complete,
			       r->value, r->bps, r->nbps, r->count, &at);
	}
	free(map);
	if (!err)
		to->lost = pap_sat_add(to->lost, from->lost);
	return err;
}

/* ---- text format ---- */

struct prof_lexer {
	const char *p, *file;
	unsigned line;
	char *err;
	size_t errlen;
};

#define prof_error(lx, ...) \
	pap_diag(PAP_ECORRUPT, (lx)->err, (lx)->errlen, (lx)->file, \
		 (lx)->line, __VA_ARGS__)

/* Next space-separated word on this line into [*s, *s + *n). */
static int prof_word(struct prof_lexer *lx, const char **s, size_t *n)
{
	while (*lx->p == ' ')
		lx->p++;
	*s = lx->p;
	while (*lx->p && *lx->p != ' ' && *lx->p != '\n')
		lx->p++;
	*n = (size_t)(lx->p - *s);
	return *n > 0;
}

static int prof_u64(struct prof_lexer *lx, uint64_t *v, const char *what)
{
	const char *s;
	size_t n, i;

	if (!prof_word(lx, &s, &n))
		return prof_error(lx, "missing %s", what);
	*v = 0;
	if (n > 20)
		return prof_error(lx, "%s is not a number", what);
	for (i = 0; i < n; i++) {
		uint64_t d = (uint64_t)(unsigned char)s[i] - '0';

		if (d > 9)
			return prof_error(lx, "%s is not a number", what);
		/* fewer than 20 digits always fit */
		if (n == 20 && *v > (UINT64_MAX - d) / 10)
			return prof_error(lx, "%s does not fit 64 bits", what);
		*v = *v * 10 + d;
	}
	return PAP_OK;
}

/* Is [s, s+n) a function key (fnkey.h)? */
static int prof_key_ok(const char *s, size_t n)
{
	struct pap_fnkey k;

	return !pap_fnkey_split(s, n, &k);
}

/* One record line of @kind after its letter; adds it to @p. */
static int prof_line(struct prof_lexer *lx, struct pap_profile *p, int kind,
		     int version, struct pap_breakpoint **bps, size_t *cap,
		     struct pap_bpack_buf *pack)
{
	const struct pap_breakpoint *rec;
	size_t nrec;
	const char *s;
	size_t n;
	char fn[PAP_FNKEY_MAX];
	uint64_t complete = 1, count, value, nbps = 0, i, site;
	int err;

	if (!prof_word(lx, &s, &n))
		return prof_error(lx, "missing function");
	if (n >= sizeof(fn) || !prof_key_ok(s, n))
		return prof_error(lx, "bad function key '%.*s'",
				  (int)(n > 60 ? 60 : n), s);
	if (!pap_rec_key_fits((unsigned)kind, s, n))
		return pap_rec_key_prefix((unsigned)kind) ?
		       prof_error(lx, "a '%c' record's key must start with "
				  "'%s', not '%.*s'", pap_rec_letter(kind),
				  pap_rec_key_prefix((unsigned)kind),
				  (int)(n > 60 ? 60 : n), s) :
		       prof_error(lx, "a '%c' record's key '%.*s' is a "
				  "program's, not a function's",
				  pap_rec_letter(kind),
				  (int)(n > 60 ? 60 : n), s);
	memcpy(fn, s, n);
	fn[n] = 0;
	if (pap_rec_has_bps((unsigned)kind) &&
	    (err = prof_u64(lx, &complete, "completeness")))
		return err;
	if (complete > 1)
		return prof_error(lx, "completeness must be 0 or 1");
	if (!pap_rec_complete_ok((unsigned)kind, (unsigned)complete))
		return prof_error(lx, "a '%c' record is always complete",
				  pap_rec_letter(kind));
	if ((err = prof_u64(lx, &count, "count")) ||
	    (err = prof_u64(lx, &value, pap_rec_has_bps((unsigned)kind) ?
				   "final value" : "id")))
		return err;
	if (pap_rec_has_bps((unsigned)kind)) {
		if ((err = prof_u64(lx, &nbps, "breakpoint count")))
			return err;
		if (nbps > UINT32_MAX)
			return prof_error(lx, "too many breakpoints");
		for (i = 0; i < nbps; i++) {
			/* grow with what the line really holds, never with
			 * the count it claims */
			if (i == *cap) {
				size_t want = *cap ? *cap * 2 : 256;
				struct pap_breakpoint *nb;

				if (want > nbps)
					want = (size_t)nbps;
				nb = realloc(*bps, want * sizeof(**bps));
				if (!nb)
					return PAP_ENOMEM;
				*bps = nb;
				*cap = want;
			}
			if ((err = prof_u64(lx, &site, "breakpoint site")) ||
			    (err = prof_u64(lx, &(*bps)[i].r,
					    "breakpoint value")))
				return err;
			if (site > UINT32_MAX)
				return prof_error(lx, "bad breakpoint site");
			(*bps)[i].site = (uint32_t)site;
			if (pap_bp_is_repeat(&(*bps)[i]) && version < 3)
				return prof_error(lx, "a repeat in a version %d "
						  "profile", version);
		}
		if (nbps && !pap_bpack_length(*bps, (size_t)nbps, UINT64_MAX))
			return prof_error(lx, "a repeat of length or distance "
					  "0, or reaching before the path's "
					  "start");
	}
	if (prof_word(lx, &s, &n))
		return prof_error(lx, "unexpected '%.*s'", (int)(n > 40 ? 40 : n),
				  s);
	/* a path written before packing is packed as it would be now, so
	 * that it merges with the same path recorded since */
	nrec = (size_t)nbps;
	rec = *bps;
	if (version < 3 && nrec > PAP_BPACK_SHORT &&
	    !(rec = pap_bpack_old(pack, *bps, &nrec)))
		return PAP_ENOMEM;
	return pap_profile_add(p, fn, (uint8_t)kind, (uint8_t)complete, value,
			       rec, (uint32_t)nrec, count);
}

/* The rest of a line that holds one number, @what, into *@v. */
static int prof_only_u64(struct prof_lexer *lx, uint64_t *v, const char *what)
{
	const char *s;
	size_t n;
	int err = prof_u64(lx, v, what);

	if (err)
		return err;
	if (prof_word(lx, &s, &n))
		return prof_error(lx, "unexpected '%.*s'", (int)(n > 40 ? 40 : n),
				  s);
	return PAP_OK;
}

/* A lost-record line "l COUNT" after its letter; adds to @p's count. */
static int prof_lost(struct prof_lexer *lx, struct pap_profile *p)
{
	uint64_t lost;
	int err = prof_only_u64(lx, &lost, "lost-record count");

	if (err)
		return err;
	p->lost = pap_sat_add(p->lost, lost);
	return PAP_OK;
}

/* A parse in progress: where it is, and what it has read so far. */
struct prof_parse {
	struct prof_lexer lx;
	struct pap_profile tmp;
	struct pap_breakpoint *bps;
	size_t cap;
	struct pap_bpack_buf pack;	/* older versions' long paths packed */
	int version;
	int ended;		/* version 6: its end line was read */
};

/* The end line "e LINES" after its letter: LINES must be how many lines
 * came between the header and it. */
static int prof_end_line(struct prof_parse *ps)
{
	struct prof_lexer *lx = &ps->lx;
	uint64_t lines;
	int err = prof_only_u64(lx, &lines, "line count");

	if (err)
		return err;
	if (lines != lx->line - 2)
		return prof_error(lx, "the end line counts %llu %s, but %u "
				  "came before it: lines were lost or added",
				  (unsigned long long)lines,
				  pap_plural(lines, "line", "lines"),
				  lx->line - 2);
	ps->ended = 1;
	return PAP_OK;
}

/* A version 6 text that ended without its end line was cut at a line's
 * end; PAP_ECORRUPT then, else PAP_OK. */
static int prof_check_end(struct prof_parse *ps)
{
	if (ps->version < PAP_PROFILE_VERSION_END || ps->ended)
		return PAP_OK;
	return prof_error(&ps->lx, "the profile ends without its end line "
			  "('%c LINES'): the file is cut short",
			  PAP_PROFILE_END_LETTER);
}

/* Checks the header line at the start of @text; 0 or PAP_ECORRUPT. */
static int prof_header(struct prof_parse *ps, const char *text)
{
	size_t vlen;

	ps->lx.p = text;
	if (strncmp(text, "pap-profile ", 12))
		return prof_error(&ps->lx, "not a pap profile");
	vlen = strcspn(text + 12, "\n");
	if (vlen != 1 || ((text[12] < '1' ||
			   text[12] > '0' + PAP_PROFILE_VERSION_OLD) &&
			  (text[12] < '0' + PAP_PROFILE_VERSION_END ||
			   text[12] > '0' + PAP_PROFILE_VERSION)))
		return prof_error(&ps->lx, "profile version '%.*s' is not "
				  "supported (this pap reads text versions 1 "
				  "to %d and %d to %d, binary versions %d to "
				  "%d)", vlen > 20 ? 20 : (int)vlen, text + 12,
				  PAP_PROFILE_VERSION_OLD,
				  PAP_PROFILE_VERSION_END, PAP_PROFILE_VERSION,
				  PAP_PROFILE_VERSION_BIN_OLDEST,
				  PAP_PROFILE_VERSION_BIN);
	if (text[13] != '\n')
		return prof_error(&ps->lx, "the last line has no newline: "
				  "the file is cut short");
	ps->version = text[12] - '0';
	ps->lx.line = 2;
	return PAP_OK;
}

/* The first profile version with lines of the kind @letter opens. */
static int prof_kind_version(char letter)
{
	return pap_rec_version((unsigned)pap_rec_of_letter(letter));
}

/* Parses the record lines of @text, up to its NUL, into ps->tmp. */
static int prof_body(struct prof_parse *ps, const char *text)
{
	struct prof_lexer *lx = &ps->lx;
	int r = PAP_OK;

	lx->p = text;
	while (*lx->p && !r) {
		char kind = *lx->p++;

		if (kind == '\n') {
			lx->line++;
			continue;
		}
		if (ps->ended)
			r = prof_error(lx, "a line after the end line");
		else if (kind == PAP_PROFILE_END_LETTER &&
			 ps->version >= PAP_PROFILE_VERSION_END &&
			 *lx->p == ' ')
			r = prof_end_line(ps);
		else if (kind == PAP_PROFILE_LOST_LETTER && ps->version >= 2 &&
			 *lx->p == ' ')
			r = prof_lost(lx, &ps->tmp);
		else if (pap_rec_of_letter(kind) < 0 || *lx->p != ' ')
			r = prof_error(lx, "unknown record");
		else if (prof_kind_version(kind) > ps->version)
			r = prof_error(lx, "a '%c' record in a version %d "
				       "profile (it needs version %d)", kind,
				       ps->version, prof_kind_version(kind));
		else
			r = prof_line(lx, &ps->tmp, pap_rec_of_letter(kind),
				      ps->version, &ps->bps, &ps->cap,
				      &ps->pack);
		if (!r && *lx->p == '\n') {
			lx->p++;
			lx->line++;
		} else if (!r && *lx->p) {
			r = prof_error(lx, "malformed line");
		} else if (!r) {
			/* pap ends every line: a last line without its
			 * newline may have lost digits */
			r = prof_error(lx, "the last line has no newline: "
				       "the file is cut short");
		}
	}
	return r;
}

/*
 * Ends a parse that returned @r: on success adds what it read to @p (or,
 * @p being empty, makes it @p), and frees the rest.
 */
static int prof_finish(struct prof_parse *ps, struct pap_profile *p, int r)
{
	free(ps->bps);
	pap_bpack_buf_free(&ps->pack);
	if (!r && !p->nrecs && !p->lost && p->mem == ps->tmp.mem &&
	    (!p->max_recs || ps->tmp.nrecs <= p->max_recs)) {
		/* into an empty profile: the parsed one is the result */
		ps->tmp.max_recs = p->max_recs;
		pap_profile_free(p);
		*p = ps->tmp;
		return PAP_OK;
	}
	if (!r)
		r = pap_profile_merge(p, &ps->tmp);
	if (r == PAP_ENOMEM)
		snprintf(ps->lx.err, ps->lx.errlen, "%s: error: out of memory",
			 ps->lx.file);
	else if (r == PAP_ELIMIT)
		snprintf(ps->lx.err, ps->lx.errlen, "%s: error: more than %zu "
			 "distinct records", ps->lx.file, p->max_recs);
	pap_profile_free(&ps->tmp);
	return r;
}

static void prof_parse_init(struct prof_parse *ps, const char *file,
			    char *err, size_t errlen)
{
	memset(ps, 0, sizeof(*ps));
	ps->lx.file = file;
	ps->lx.line = 1;
	ps->lx.err = err;
	ps->lx.errlen = errlen;
	pap_profile_init(&ps->tmp);
}

/*
 * Reads the binary file @d[0..@n) into @p as pap_profile_parse_mem()
 * says: all of it or nothing, a warning in @err when its last segment was
 * cut short or the file is shorter than its committed length.
 */
static int prof_parse_bin(struct pap_profile *p, const unsigned char *d,
			  size_t n, const char *file, char *err, size_t errlen)
{
	struct prof_parse ps;
	char note[256] = "";
	uint64_t nstale = 0, committed;
	size_t good, nfns = 0;
	int r;

	prof_parse_init(&ps, file, err, errlen);
	ps.tmp.max_recs = p->max_recs;
	r = pap_profbin_read(&ps.tmp, d, n, &good, &committed, file, err,
			     errlen);
	if (r == PAP_ECORRUPT || r == PAP_ELIMIT) {
		/* the message is pap_profbin_read()'s */
		pap_profile_free(&ps.tmp);
		return r;
	}
	/* a later segment of a rebuilt function replaces the earlier */
	if (!r && ps.tmp.gen > 1)
		r = pap_profile_drop_stale(&ps.tmp, &nstale, &nfns);
	if (nstale)
		snprintf(note, sizeof(note), "note: %llu %s of %zu %s from an "
			 "older build left out: the newer build's replace "
			 "them", (unsigned long long)nstale,
			 pap_plural(nstale, "record", "records"), nfns,
			 pap_plural(nfns, "function", "functions"));
	r = prof_finish(&ps, p, r);
	if (!r && good < n)
		snprintf(err, errlen, "%s: warning: the last %zu %s, from "
			 "byte %zu, are a segment cut short (its writer was "
			 "killed or the disk was full); left out%s%s", file,
			 n - good, pap_plural(n - good, "byte", "bytes"), good,
			 *note ? "; " : "", note);
	else if (!r && committed > n)
		snprintf(err, errlen, "%s: warning: the file was cut: its "
			 "writer left it %llu bytes long, %llu more than it "
			 "has; the records of what is missing are not in this "
			 "profile%s%s", file, (unsigned long long)committed,
			 (unsigned long long)(committed - n),
			 *note ? "; " : "", note);
	else if (!r && *note)
		snprintf(err, errlen, "%s: %s", file, note);
	return r;
}

int pap_profile_parse_mem(struct pap_profile *p, const void *data,
			  size_t len, const char *file, char *err,
			  size_t errlen)
{
	struct prof_parse ps;
	char *text;
	int r;

	if (errlen)
		*err = 0;
	if (pap_profbin_is(data, len))
		return prof_parse_bin(p, data, len, file, err, errlen);
	prof_parse_init(&ps, file, err, errlen);
	if (memchr(data, 0, len)) {
		snprintf(err, errlen, "%s: error: not a text file", file);
		return PAP_ECORRUPT;
	}
	text = malloc(len + 1);
	if (!text)
		return prof_finish(&ps, p, PAP_ENOMEM);
	memcpy(text, data, len);
	text[len] = 0;
	r = prof_header(&ps, text);
	if (r) {
		free(text);
		prof_finish(&ps, p, r);
		return r;
	}
	r = prof_body(&ps, text + 14);
	r = prof_finish(&ps, p, r ? r : prof_check_end(&ps));
	free(text);
	return r;
}

int pap_profile_parse(struct pap_profile *p, const char *text,
		      const char *file, char *err, size_t errlen)
{
	return pap_profile_parse_mem(p, text, strlen(text), file, err, errlen);
}

/* Text read per step by pap_profile_read_file(). */
#define PROF_CHUNK ((size_t)1 << 22)

/*
 * Reads up to @want more bytes of @fd onto @buf (of @len bytes, room for
 * @cap), growing it; the bytes read, 0 at the end, -1 on an error (errno).
 */
static ssize_t prof_fill(int fd, char **buf, size_t *len, size_t *cap,
			 size_t want)
{
	ssize_t n;

	if (*len + want + 1 > *cap) {
		size_t c = *cap ? *cap : PROF_CHUNK;
		char *nb;

		while (c < *len + want + 1)
			c *= 2;
		nb = realloc(*buf, c);
		if (!nb) {
			errno = ENOMEM;
			return -1;
		}
		*buf = nb;
		*cap = c;
	}
	do
		n = read(fd, *buf + *len, want);
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		if (memchr(*buf + *len, 0, (size_t)n)) {
			errno = EILSEQ;
			return -1;
		}
		*len += (size_t)n;
	}
	return n;
}

int pap_profile_read_file(struct pap_profile *p, const char *path,
			  size_t max, char *err, size_t errlen,
			  void (*tick)(size_t done, size_t size))
{
	struct stat st;
	struct prof_parse ps;
	char *buf = NULL;
	size_t len = 0, cap = 0, total = 0, done = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = PAP_OK, eof = 0;
	int header = 0;
	unsigned char magic[4];
	ssize_t n;

	if (errlen)
		*err = 0;
	if (fd < 0) {
		snprintf(err, errlen, "%s: error: %s", path, strerror(errno));
		return PAP_EINVAL;
	}
	prof_parse_init(&ps, path, err, errlen);
	if (fstat(fd, &st))
		st.st_size = 0;
	if (pread(fd, magic, sizeof(magic), 0) == (ssize_t)sizeof(magic) &&
	    pap_profbin_is(magic, sizeof(magic))) {
		/* compact: read whole, a segment at a time */
		buf = pap_read_fd(fd, max, &len);
		if (!buf)
			goto read_error;
		close(fd);
		if (tick)
			tick(len, len);
		r = prof_parse_bin(p, (unsigned char *)buf, len, path, err,
				   errlen);
		free(buf);
		return r;
	}
	/*
	 * Whole lines are parsed as they arrive; a bad line stops the
	 * parsing but not the reading, so that a file holding a NUL byte or
	 * too long is refused as such, as when it is read whole first.
	 */
	while (!eof) {
		n = prof_fill(fd, &buf, &len, &cap, PROF_CHUNK);
		if (n < 0)
			goto read_error;
		eof = n == 0;
		total += (size_t)n;
		if (tick)
			tick(total, (size_t)st.st_size);
		if (total > max) {
			errno = EFBIG;
			goto read_error;
		}
		if (r) {
			len = 0;	/* only reading on */
			continue;
		}
		if (!eof && !header && len < 64)
			continue;
		buf[len] = 0;
		if (!header) {
			header = 1;
			r = prof_header(&ps, buf);
			done = 14;
			if (r)
				continue;
		}
		if (!eof) {
			/* up to the last whole line; keep the rest */
			char *nl = buf + len, c;

			while (nl > buf + done && nl[-1] != '\n')
				nl--;
			if (nl == buf + done)
				continue;
			nl--;
			c = nl[1];
			nl[1] = 0;
			r = prof_body(&ps, buf + done);
			nl[1] = c;
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
			done = 0;
		} else {
			r = prof_body(&ps, buf + done);
		}
	}
	close(fd);
	free(buf);
	if (!r)
		r = prof_check_end(&ps);
	if (r) {
		prof_finish(&ps, p, r);
		return r;
	}
	return prof_finish(&ps, p, PAP_OK);
read_error:
	snprintf(err, errlen, "%s: error: %s", path,
		 errno == EFBIG ? "file too large" :
		 errno == EILSEQ ? "not a text file" : strerror(errno));
	close(fd);
	free(buf);
	prof_finish(&ps, p, PAP_EINVAL);
	return PAP_EINVAL;
}

/*
 * A record in the written order: its function's rank, kind, completeness
 * (complete first); then a record without breakpoints by its value, one
 * with breakpoints by its hash (their content in no order a reader would
 * use, and cheap to compare: the records lie scattered in memory); then,
 * for a total order, value and breakpoints.  The leading keys are copied
 * here, so that most comparisons never reach the record.
 */
struct prof_order {
	uint64_t key;	/* rank << 32 | kind << 2 | !complete << 1 | has bps */
	uint64_t sub;	/* value, or hash with breakpoints */
	const struct pap_prof_rec *r;
};

static int prof_cmp(const void *a, const void *b)
{
	const struct prof_order *ox = a, *oy = b;
	const struct pap_prof_rec *x, *y;
	uint32_t i;

	if (ox->key != oy->key)
		return ox->key < oy->key ? -1 : 1;
	if (ox->sub != oy->sub)
		return ox->sub < oy->sub ? -1 : 1;
	x = ox->r;
	y = oy->r;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->nbps != y->nbps)
		return x->nbps < y->nbps ? -1 : 1;
	for (i = 0; i < x->nbps; i++) {
		if (x->bps[i].site != y->bps[i].site)
			return x->bps[i].site < y->bps[i].site ? -1 : 1;
		if (x->bps[i].r != y->bps[i].r)
			return x->bps[i].r < y->bps[i].r ? -1 : 1;
	}
	return 0;
}

static int prof_name_cmp(const void *a, const void *b)
{
	const struct pap_prof_name *x = *(const struct pap_prof_name *const *)a;
	const struct pap_prof_name *y = *(const struct pap_prof_name *const *)b;

	return strcmp(x->text, y->text);
}

/*
 * The rank of each of @p's names in the order of their texts, equal texts
 * (one function under two addresses) ranked equal; NULL when out of memory.
 */
static uint32_t *prof_name_ranks(const struct pap_profile *p)
{
	const struct pap_prof_name **by_text;
	uint32_t *rank, r = 0;
	size_t i;

	/* room for the sort's merges after the names */
	by_text = pap_mem_resize(p->mem, NULL, 0,
				 (2 * p->nnames + 1) * sizeof(*by_text));
	rank = pap_mem_resize(p->mem, NULL, 0,
			      (p->nnames + 1) * sizeof(*rank));
	if (!by_text || !rank) {
		pap_mem_release(p->mem, by_text,
				(2 * p->nnames + 1) * sizeof(*by_text));
		pap_mem_release(p->mem, rank, (p->nnames + 1) * sizeof(*rank));
		return NULL;
	}
	for (i = 0; i < p->nnames; i++)
		by_text[i] = &p->names[i];
	pap_sort_stable(by_text, by_text + p->nnames, p->nnames,
			sizeof(*by_text), prof_name_cmp);
	for (i = 0; i < p->nnames; i++) {
		if (i && strcmp(by_text[i - 1]->text, by_text[i]->text))
			r = (uint32_t)i;
		rank[by_text[i] - p->names] = r;
	}
	pap_mem_release(p->mem, by_text,
			(2 * p->nnames + 1) * sizeof(*by_text));
	return rank;
}

/*
 * Sorts @order's @n entries as qsort() with prof_cmp() would, ranks below
 * @nnames: a least-significant-digit radix sort on sub, a byte at a time
 * (a byte the same in every entry is skipped), then a counting sort on
 * key, both stable, and prof_cmp() only inside a run of equal key and
 * sub (two texts under one rank, or equal hashes).  Falls back to qsort()
 * when out of memory or for a few entries.
 */
static void prof_sort_order(struct prof_order *order, size_t n, size_t nnames)
{
	size_t (*hist)[256] = NULL, *at = NULL, nkeys = nnames * 8, i, j, sum;
	struct prof_order *tmp = NULL, *from = order, *to, *x;
	unsigned b;

	if (n >= 256) {
		hist = calloc(8, sizeof(*hist));
		at = calloc(nkeys + 1, sizeof(*at));
		tmp = malloc(n * sizeof(*tmp));
	}
	if (!hist || !at || !tmp) {
		free(hist);
		free(at);
		free(tmp);
		qsort(order, n, sizeof(*order), prof_cmp);
		return;
	}
	to = tmp;
	for (i = 0; i < n; i++)
		for (b = 0; b < 8; b++)
			hist[b][order[i].sub >> (8 * b) & 0xff]++;
	for (b = 0; b < 8; b++) {
		if (hist[b][order[0].sub >> (8 * b) & 0xff] == n)
			continue;
		for (j = 0, sum = 0; j < 256; j++) {
			size_t c = hist[b][j];

			hist[b][j] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			to[hist[b][from[i].sub >> (8 * b) & 0xff]++] = from[i];
		x = from;
		from = to;
		to = x;
	}
	/* key: rank << 32 | three bits, dense as rank * 8 + bits */
	for (i = 0; i < n; i++)
		at[(from[i].key >> 32) * 8 + (from[i].key & 7)]++;
	for (j = 0, sum = 0; j < nkeys; j++) {
		size_t c = at[j];

		at[j] = sum;
		sum += c;
	}
	for (i = 0; i < n; i++)
		to[at[(from[i].key >> 32) * 8 + (from[i].key & 7)]++] = from[i];
	if (to != order)
		memcpy(order, to, n * sizeof(*order));
	/* runs of equal key and sub: in order by the rest, by insertion */
	for (i = 1; i < n; i++) {
		struct prof_order e = order[i];

		for (j = i; j > 0 && order[j - 1].key == e.key &&
			    order[j - 1].sub == e.sub &&
			    prof_cmp(&order[j - 1], &e) > 0; j--)
			order[j] = order[j - 1];
		order[j] = e;
	}
	free(hist);
	free(at);
	free(tmp);
}

#define PROF_U64_DIGITS 20

static const char prof_pairs[] =
	"00010203040506070809101112131415161718192021222324"
	"25262728293031323334353637383940414243444546474849"
	"50515253545556575859606162636465666768697071727374"
	"75767778798081828384858687888990919293949596979899";

/* Writes the two decimal digits of @v < 100 at @at. */
static inline void prof_put_pair(char *at, uint32_t v)
{
	memcpy(at, prof_pairs + v * 2, 2);
}

/* Writes the @n lowest decimal digits of @v, @n even, ending at @end. */
static void prof_put_pairs(char *end, uint32_t v, unsigned n)
{
	if (n == 8) {
		/* two independent halves: shorter chains of divisions */
		uint32_t hi = v / 10000, lo = v % 10000;

		prof_put_pair(end - 8, hi / 100);
		prof_put_pair(end - 6, hi % 100);
		prof_put_pair(end - 4, lo / 100);
		prof_put_pair(end - 2, lo % 100);
		return;
	}
	for (; n; n -= 2, end -= 2, v /= 100)
		prof_put_pair(end - 2, v % 100);
}

/* Writes @v in decimal at @out (no NUL); the number of digits. */
static size_t prof_put_u64(char *out, uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
		10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
		100000000000ull, 1000000000000ull, 10000000000000ull,
		100000000000000ull, 1000000000000000ull,
		10000000000000000ull, 100000000000000000ull,
		1000000000000000000ull, 10000000000000000000ull,
	};
	/* digits: floor(log10) from the bit length, then one compare */
	unsigned t = ((64u - (unsigned)__builtin_clzll(v | 1)) * 1233u) >> 12;
	unsigned n = t + (v >= pow10[t]), left;
	char *end = out + n;

	if (!n) {
		*out = '0';
		return 1;
	}
	/* eight digits at a time in 32-bit arithmetic: the writer's hot
	 * loop on long paths, whose values are mostly 19 or 20 digits */
	for (left = n; left > 8; left -= 8) {
		uint64_t q = v / 100000000u;

		prof_put_pairs(end, (uint32_t)(v - q * 100000000u), 8);
		end -= 8;
		v = q;
	}
	if (left & 1) {
		prof_put_pairs(end, (uint32_t)v, left - 1);
		*out = (char)('0' + (uint32_t)v / (uint32_t)pow10[left - 1]);
	} else {
		prof_put_pairs(end, (uint32_t)v, left);
	}
	return n;
}

/* How many records ahead the writer fetches. */
#define PROF_AHEAD 4

/* The writer's buffer: whole lines are formatted here, then written. */
struct prof_out {
	FILE *f;
	size_t n;
	char buf[16384];
};

/* Makes room for @want more bytes (at most the buffer's size). */
static void prof_room(struct prof_out *o, size_t want)
{
	if (o->n + want > sizeof(o->buf)) {
		fwrite(o->buf, 1, o->n, o->f);
		o->n = 0;
	}
}

static void prof_put_str(struct prof_out *o, const char *s, size_t n)
{
	if (n > sizeof(o->buf) / 2) {
		prof_room(o, sizeof(o->buf));
		fwrite(s, 1, n, o->f);
		return;
	}
	prof_room(o, n);
	memcpy(o->buf + o->n, s, n);
	o->n += n;
}

/* " V" */
static void prof_put_num(struct prof_out *o, uint64_t v)
{
	prof_room(o, PROF_U64_DIGITS + 1);
	o->buf[o->n++] = ' ';
	o->n += prof_put_u64(o->buf + o->n, v);
}

/* @p's records in their written order, counts of zero too, into a new
 * array *@order; ranks of names into *@rank. */
static int prof_sorted(const struct pap_profile *p,
		       struct prof_order **order, uint32_t **rank)
{
	size_t i;

	*order = malloc((p->nrecs + 1) * sizeof(**order));
	*rank = prof_name_ranks(p);
	if (!*order || !*rank) {
		free(*order);
		pap_mem_release(p->mem, *rank,
				(p->nnames + 1) * sizeof(**rank));
		return PAP_ENOMEM;
	}
	for (i = 0; i < p->nrecs; i++) {
		const struct pap_prof_rec *r = &p->recs[i];

		(*order)[i].key = (uint64_t)(*rank)[r->name] << 32 |
				  (uint64_t)r->kind << 2 | !r->complete << 1 |
				  (r->nbps != 0);
		(*order)[i].sub = r->nbps ? r->hash : r->value;
		(*order)[i].r = r;
	}
	prof_sort_order(*order, p->nrecs, p->nnames);
	return PAP_OK;
}

const struct pap_prof_rec **pap_profile_order(const struct pap_profile *p,
					      size_t *n)
{
	const struct pap_prof_rec **out;
	uint32_t *rank;
	size_t *at, i, sum;

	rank = prof_name_ranks(p);
	at = pap_mem_resize(p->mem, NULL, 0, (p->nnames + 1) * sizeof(*at));
	out = pap_mem_resize(p->mem, NULL, 0, (p->nrecs + 1) * sizeof(*out));
	if (!rank || !at || !out) {
		pap_mem_release(p->mem, rank, (p->nnames + 1) * sizeof(*rank));
		pap_mem_release(p->mem, at, (p->nnames + 1) * sizeof(*at));
		pap_mem_release(p->mem, out, (p->nrecs + 1) * sizeof(*out));
		return NULL;
	}
	memset(at, 0, (p->nnames + 1) * sizeof(*at));
	/* a counting sort on the function's rank, stable */
	for (i = 0; i < p->nrecs; i++)
		if (p->recs[i].count)
			at[rank[p->recs[i].name]]++;
	for (i = 0, sum = 0; i < p->nnames; i++) {
		size_t c = at[i];

		at[i] = sum;
		sum += c;
	}
	for (i = 0; i < p->nrecs; i++)
		if (p->recs[i].count)
			out[at[rank[p->recs[i].name]]++] = &p->recs[i];
	*n = sum;
	pap_mem_release(p->mem, rank, (p->nnames + 1) * sizeof(*rank));
	pap_mem_release(p->mem, at, (p->nnames + 1) * sizeof(*at));
	return out;
}

int pap_profile_write(const struct pap_profile *p, FILE *f)
{
	unsigned char head[PAP_PROFBIN_HEAD], *seg;
	size_t len;

	if (pap_profbin_segment(p, 0, &seg, &len)) {
		errno = ENOMEM;
		return -1;
	}
	pap_profbin_header(head, sizeof(head) + len);
	fwrite(head, 1, sizeof(head), f);
	fwrite(seg, 1, len, f);
	pap_mem_release(p->mem, seg, len);
	return ferror(f) ? -1 : 0;
}

/* The text version @p is written in: the oldest with an end line that
 * holds every kind of its records (counted ones: the others are not
 * written). */
static int prof_text_version(const struct pap_profile *p)
{
	int v = PAP_PROFILE_VERSION_END;
	size_t i;

	for (i = 0; i < p->nrecs; i++)
		if (p->recs[i].count && pap_rec_version(p->recs[i].kind) > v)
			v = pap_rec_version(p->recs[i].kind);
	return v;
}

int pap_profile_write_text(const struct pap_profile *p, FILE *f)
{
	struct prof_order *order;
	struct prof_out *o;
	uint32_t *rank, k;
	char letter[2] = { 0, ' ' };
	size_t i;
	uint64_t lines = 0;

	o = malloc(sizeof(*o));
	if (!o || prof_sorted(p, &order, &rank)) {
		free(o);
		errno = ENOMEM;
		return -1;
	}
	o->f = f;
	o->n = 0;
	prof_put_str(o, "pap-profile", 11);
	prof_put_num(o, prof_text_version(p));
	if (p->lost) {
		letter[0] = PAP_PROFILE_LOST_LETTER;
		prof_put_str(o, "\n", 1);
		prof_put_str(o, letter, 1);
		prof_put_num(o, p->lost);
		lines++;
	}
	prof_put_str(o, "\n", 1);
	for (i = 0; i < p->nrecs; i++) {
		const struct pap_prof_rec *r = order[i].r;

		/* in written order the records are scattered in memory:
		 * fetch a few ahead, and their breakpoints */
		if (i + 2 * PROF_AHEAD < p->nrecs)
			__builtin_prefetch(order[i + 2 * PROF_AHEAD].r);
		if (i + PROF_AHEAD < p->nrecs)
			__builtin_prefetch(order[i + PROF_AHEAD].r->bps);
		if (!r->count)
			continue;
		letter[0] = pap_rec_letter(r->kind);
		prof_put_str(o, letter, 2);
		prof_put_str(o, r->fn, strlen(r->fn));
		if (pap_rec_has_bps(r->kind))
			prof_put_num(o, r->complete);
		prof_put_num(o, r->count);
		prof_put_num(o, r->value);
		if (pap_rec_has_bps(r->kind))
			prof_put_num(o, r->nbps);
		for (k = 0; k < r->nbps; k++) {
			prof_put_num(o, r->bps[k].site);
			prof_put_num(o, r->bps[k].r);
		}
		prof_put_str(o, "\n", 1);
		lines++;
	}
	letter[0] = PAP_PROFILE_END_LETTER;
	prof_put_str(o, letter, 1);
	prof_put_num(o, lines);
	prof_put_str(o, "\n", 1);
	prof_room(o, sizeof(o->buf));
	free(o);
	pap_mem_release(p->mem, rank,
			(p->nnames + 1) * sizeof(*rank));
	free(order);
	return ferror(f) ? -1 : 0;
}
