/* SPDX-License-Identifier: MIT */
/*
 * profbin.c - the binary profile (versions 4 to 7): segments, and a
 * segment's body, each function's breakpoints stored once in a dictionary
 * and its paths as sequences of references.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pap/version.h>

#include "bpack.h"
#include "fnkey.h"
#include "mem.h"
#include "profbin.h"
#include "radix.h"
#include "util.h"

/* ---- bytes ---- */

static void pb_put_le(unsigned char *at, uint64_t v, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		at[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t pb_get_le(const unsigned char *at, unsigned n)
{
	uint64_t v = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		v |= (uint64_t)at[i] << (8 * i);
	return v;
}

/* A growing output buffer; @oom set once a growth failed. */
struct pb_out {
	const struct pap_mem *mem;	/* the profile's (mem.h) */
	unsigned char *b;
	size_t n, cap;
	int oom;
};

/* pb_room()'s growth: room for @want more bytes, which @o lacks. */
static __attribute__((noinline)) int pb_grow(struct pb_out *o, size_t want)
{
	size_t c;
	unsigned char *nb;

	if (o->oom)
		return -1;
	for (c = o->cap ? o->cap : 4096; c - o->n < want; c *= 2)
		;
	nb = pap_mem_resize(o->mem, o->b, o->cap, c);
	if (!nb) {
		o->oom = 1;
		return -1;
	}
	o->b = nb;
	o->cap = c;
	return 0;
}

/* Room for @want more bytes; 0, or -1 (and @oom) when out of memory.
 * Inline: the writer asks before every number it writes. */
static inline int pb_room(struct pb_out *o, size_t want)
{
	if (__builtin_expect(o->cap - o->n >= want && !o->oom, 1))
		return 0;
	return pb_grow(o, want);
}

static inline void pb_varint(struct pb_out *o, uint64_t v)
{
	unsigned char *at;

	if (pb_room(o, 10))
		return;
	at = o->b + o->n;
	while (v >= 0x80) {
		*at++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*at++ = (unsigned char)v;
	o->n = (size_t)(at - o->b);
}

static void pb_fixed(struct pb_out *o, uint64_t v, unsigned n)
{
	if (pb_room(o, n))
		return;
	pb_put_le(o->b + o->n, v, n);
	o->n += n;
}

static void pb_bytes(struct pb_out *o, const void *s, size_t n)
{
	if (pb_room(o, n))
		return;
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

/* ---- the file and its segments ---- */

int pap_profbin_is(const void *d, size_t n)
{
	return n >= 4 && !memcmp(d, PAP_PROFBIN_MAGIC, 4);
}

void pap_profbin_header(unsigned char out[PAP_PROFBIN_HEAD],
			uint64_t committed)
{
	memcpy(out, PAP_PROFBIN_MAGIC, PAP_PROFBIN_MAGIC_LEN);
	pb_put_le(out + 8, PAP_PROFILE_VERSION_BIN, 4);
	pb_put_le(out + 12, PAP_PROFBIN_PAP_VERSION(PAP_VERSION_MAJOR,
						    PAP_VERSION_MINOR,
						    PAP_VERSION_PATCH), 4);
	pb_put_le(out + PAP_PROFBIN_COMMIT_AT, committed, 8);
}

int pap_profbin_head_ok(const unsigned char *h, size_t n,
			struct pap_profbin_head *out, size_t *at)
{
	struct pap_profbin_head hd = { 0, 0, PAP_PROFBIN_HEAD_OLD, 0 };
	uint64_t word;

	*at = 0;
	if (n < PAP_PROFBIN_MAGIC_LEN ||
	    memcmp(h, PAP_PROFBIN_MAGIC, PAP_PROFBIN_MAGIC_LEN))
		return -1;
	*at = n;
	if (n < PAP_PROFBIN_HEAD_OLD)
		return -1;
	*at = 8;
	word = pb_get_le(h + 8, 4);
	if (word < PAP_PROFILE_VERSION_BIN_OLDEST ||
	    word > PAP_PROFILE_VERSION_BIN)
		return -1;
	hd.version = (uint32_t)word;
	/* version 4: flags, 0; from version 5: who wrote it */
	*at = 12;
	word = pb_get_le(h + 12, 4);
	if (hd.version == 4 && word)
		return -1;
	hd.pap_version = (uint32_t)word;
	if (hd.version >= 6) {
		hd.len = PAP_PROFBIN_HEAD;
		*at = n;
		if (n < PAP_PROFBIN_HEAD)
			return -1;
		*at = PAP_PROFBIN_COMMIT_AT;
		hd.committed = pb_get_le(h + PAP_PROFBIN_COMMIT_AT, 8);
		if (hd.committed < PAP_PROFBIN_HEAD)
			return -1;
	}
	*at = hd.len;
	if (out)
		*out = hd;
	return 0;
}

int pap_profbin_seg_len(const unsigned char h[PAP_PROFBIN_SEG_HEAD],
			uint64_t *len)
{
	if (memcmp(h, PAP_PROFBIN_SEG_MARK, 4) ||
	    (pb_get_le(h + 4, 4) & ~(uint64_t)PAP_PROFBIN_SEG_KINDS))
		return -1;
	*len = pb_get_le(h + 8, 8);
	return 0;
}

int pap_profbin_seg_tail_ok(const unsigned char t[PAP_PROFBIN_SEG_TAIL],
			    uint64_t len, const unsigned char *body)
{
	if (pb_get_le(t + 8, 8) != len ||
	    memcmp(t + 16, PAP_PROFBIN_END_MARK, 4) || pb_get_le(t + 20, 4))
		return -1;
	if (body && pb_get_le(t, 8) != pap_fnv1a(body, (size_t)len))
		return -1;
	return 0;
}

/* ---- writing a body ---- */

/*
 * Paths share their leading breakpoints with the one before them, so a
 * segment's paths may hold more breakpoints than its body has bytes; the
 * writer shares no more than keeps them under PB_HELD_PER_BYTE per byte
 * of the body read so far (and PB_HELD_FREE), and readers refuse more:
 * what a reader holds stays proportional to what it read.
 */
#define PB_HELD_PER_BYTE 4
#define PB_HELD_FREE 65536

static int pb_held_ok(uint64_t held, uint64_t bytes)
{
	return held <= PB_HELD_PER_BYTE * bytes + PB_HELD_FREE;
}

/* A distinct breakpoint of one function, with the uses that rank it. */
struct pb_dict {
	uint64_t rank;		/* the site; pb_dict_rank() to be sorted */
	uint64_t r;
	uint64_t uses;
};

static uint32_t pb_dict_site(const struct pb_dict *e)
{
	return (uint32_t)e->rank;
}

/* Bit length: the class a breakpoint's uses put it in. */
static unsigned pb_class(uint64_t uses)
{
	return uses ? 64u - (unsigned)__builtin_clzll(uses) : 0;
}

/* The id order is by this rank, then by value: more used first (by the
 * bit length of the uses, so that breakpoints of one class stay in
 * breakpoint order and their values are written as differences), then
 * by site. */
static uint64_t pb_dict_rank(const struct pb_dict *e)
{
	return (uint64_t)(64 - pb_class(e->uses)) << 32 | pb_dict_site(e);
}

/* Where a breakpoint starts its search in a dictionary's table. */
static size_t pb_bp_hash(const struct pap_breakpoint *bp)
{
	uint64_t h = ((uint64_t)bp->site * 0x9e3779b97f4a7c15ull) ^ bp->r;

	h *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(h ^ h >> 31);
}

/*
 * A record's group in a function: complete paths, cut paths, Ball-Larus
 * ids (every version); then, in a segment flagged PAP_PROFBIN_SEG_KINDS
 * (version 7), complete and cut call sequences, programs and units.
 * Other segments have the first PB_GROUPS_OLD; the groups with
 * breakpoints are those pb_group_bps() says.
 */
#define PB_GROUPS 7
#define PB_GROUPS_OLD 3

static const struct {
	uint8_t kind, complete;
} pb_groups[PB_GROUPS] = {
	{ PAP_REC_PATH, 1 }, { PAP_REC_PATH, 0 }, { PAP_REC_BL, 1 },
	{ PAP_REC_CALLS, 1 }, { PAP_REC_CALLS, 0 }, { PAP_REC_PROG, 1 },
	{ PAP_REC_UNIT, 1 },
};

static size_t pb_group(const struct pap_prof_rec *r)
{
	switch (r->kind) {
	case PAP_REC_BL:
		return 2;
	case PAP_REC_CALLS:
		return r->complete ? 3 : 4;
	case PAP_REC_PROG:
		return 5;
	case PAP_REC_UNIT:
		return 6;
	}
	return r->complete ? 0 : 1;
}

/* Do group @g's records have breakpoints? */
static int pb_group_bps(size_t g)
{
	return pap_rec_has_bps(pb_groups[g].kind);
}

/* A kind's name in messages. */
static const char *pb_kind_name(unsigned kind)
{
	static const char *const names[PAP_REC_NKINDS] = {
		"path", "Ball-Larus", "call sequence", "program", "unit",
	};

	return kind < PAP_REC_NKINDS ? names[kind] : "unknown";
}

/* A reference that is a repeat: the record's own breakpoint says which. */
#define PB_REPEAT_REF UINT32_MAX

/* A record being written: its references, each breakpoint's dictionary
 * id (PB_REPEAT_REF for a repeat, read from the record itself), and
 * copies of what sorting reads most, so that a comparison seldom loads
 * the record or its references (sorting many records is loads that
 * miss the cache). */
struct pb_rec {
	const struct pap_prof_rec *r;
	const uint32_t *refs;
	uint64_t value;		/* r->value */
	uint64_t key;		/* pb_rec_key() */
	uint32_t nbps;		/* r->nbps */
	uint32_t group;
};

/* The order of @x's and @y's @i-th references, that of the written
 * form's values: ids before repeats, repeats by distance and length. */
static int pb_ref_cmp(const struct pb_rec *x, const struct pb_rec *y,
		      uint32_t i)
{
	uint32_t a = x->refs[i], b = y->refs[i];
	uint64_t ra, rb;

	if (a != b)
		return a < b ? -1 : 1;
	if (a != PB_REPEAT_REF)
		return 0;
	ra = x->r->bps[i].r;
	rb = y->r->bps[i].r;
	return ra == rb ? 0 : ra < rb ? -1 : 1;
}

/* The written order within a function: by group; then by references,
 * so that a path shares the most with the one before it; then by value
 * (distinct records of a group differ in one of these). */
static inline __attribute__((always_inline)) int
pb_rec_cmp(const void *a, const void *b)
{
	const struct pb_rec *x = a, *y = b;
	uint32_t i, n;
	int c;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	n = x->nbps < y->nbps ? x->nbps : y->nbps;
	for (i = 0; i < n; i++)
		if ((c = pb_ref_cmp(x, y, i)))
			return c;
	if (x->nbps != y->nbps)
		return x->nbps < y->nbps ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return 0;
}

/*
 * A key that orders records of one function as pb_rec_cmp() does, as far
 * as it goes: the group in its top 3 bits, then the first references,
 * each in @bits bits as its id + 1 (a repeat as @nd + 1, and the end of
 * a path as 0), as many as fit above bit 0.  Bit 0 is set when the key
 * does not hold the whole path (a repeat, or more references than fit),
 * and then only pb_rec_cmp() orders records of equal keys.  Otherwise
 * equal keys are equal groups and references, and the value decides.
 * (Equal keys agree on bit 0: a key holds a path's end only if it holds
 * every reference before it, none a repeat; and a path of exactly as
 * many references as fit comes before the longer ones it begins, as
 * bit 0 puts it.)  @bits holds @nd + 1.
 */
static uint64_t pb_rec_key(const struct pb_rec *w, unsigned bits,
			   uint32_t nd)
{
	unsigned slots = 60 / bits, shift = 61, i;
	uint64_t k = (uint64_t)w->group << 61;

	for (i = 0; i < w->nbps && i < slots; i++) {
		shift -= bits;
		if (w->refs[i] == PB_REPEAT_REF)
			return k | ((uint64_t)nd + 1) << shift | 1;
		k |= ((uint64_t)w->refs[i] + 1) << shift;
	}
	return k | (w->nbps > slots);
}

/*
 * Sorts @w[0..@n) into pb_rec_cmp()'s order, stably, through @tmp (room
 * for @n): by key and value, then each run of equal keys that do not
 * hold their whole paths by pb_rec_cmp().  @bits holds @nd + 1.
 */
static void pb_rec_sort(struct pb_rec *w, void *tmp, size_t n,
			unsigned bits, uint32_t nd)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		w[i].key = pb_rec_key(&w[i], bits, nd);
	pap_radix_sort(w, tmp, n, sizeof(*w), offsetof(struct pb_rec, key),
		       offsetof(struct pb_rec, value));
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && w[j].key == w[i].key; j++)
			;
		if (j - i > 1 && (w[i].key & 1))
			pap_sort_stable(w + i, tmp, j - i, sizeof(*w),
					pb_rec_cmp);
	}
}

static unsigned pb_varint_len(uint64_t v)
{
	unsigned n = 1;

	for (; v >= 0x80; v >>= 7)
		n++;
	return n;
}

/* The value written for @w's @i-th reference (then, for a repeat, its
 * length). */
static uint64_t pb_ref_value(const struct pb_rec *w, uint32_t i)
{
	const struct pap_breakpoint *bp = &w->r->bps[i];

	if (w->refs[i] == PB_REPEAT_REF)
		return (bp->r >> 32) * 2 + 1;
	return (uint64_t)w->refs[i] * 2;
}

/* The bytes that @w's references from @from on take. */
static uint64_t pb_refs_len(const struct pb_rec *w, uint32_t from)
{
	uint64_t len = 0;
	uint32_t i;

	for (i = from; i < w->r->nbps; i++) {
		len += pb_varint_len(pb_ref_value(w, i));
		if (w->refs[i] == PB_REPEAT_REF)
			len += pb_varint_len(w->r->bps[i].r & 0xffffffffu);
	}
	return len;
}

/*
 * A buffer of the writer's, kept from one function of a segment to the
 * next: each grows to what the largest function needs, and is mapped
 * and its pages first touched once a segment, not once a function.
 */
struct pb_buf {
	void *p;
	size_t cap;		/* bytes */
};

/* Room for @size bytes in @b, keeping its first @keep bytes; NULL, with
 * @b as it was, when out of memory. */
static void *pb_buf_room(const struct pap_mem *mem, struct pb_buf *b,
			 size_t size, size_t keep)
{
	size_t c = b->cap ? b->cap : 4096;
	void *p;

	if (size <= b->cap)
		return b->p;
	while (c < size) {
		if (c > SIZE_MAX / 2)
			return NULL;
		c *= 2;
	}
	if (keep) {
		p = pap_mem_resize(mem, b->p, b->cap, c);
	} else {
		/* nothing to keep: no copy of what a larger one replaces */
		p = pap_mem_resize(mem, NULL, 0, c);
		if (p)
			pap_mem_release(mem, b->p, b->cap);
	}
	if (!p)
		return NULL;
	b->p = p;
	b->cap = c;
	return p;
}

/* The writer's buffers: breakpoints as references, records being
 * written, the sorts' room, the dictionary, and its table (then the
 * dictionary's ids). */
struct pb_wbufs {
	struct pb_buf refs, w, tmp, d, table;
};

static void pb_wbufs_free(const struct pap_mem *mem, struct pb_wbufs *s)
{
	pap_mem_release(mem, s->refs.p, s->refs.cap);
	pap_mem_release(mem, s->w.p, s->w.cap);
	pap_mem_release(mem, s->tmp.p, s->tmp.cap);
	pap_mem_release(mem, s->d.p, s->d.cap);
	pap_mem_release(mem, s->table.p, s->table.cap);
}

/* A function's distinct breakpoints being gathered: entries, and an
 * open-addressing table of their indexes + 1, at most half full, both in
 * the writer's buffers. */
struct pb_dictset {
	const struct pap_mem *mem;
	struct pb_wbufs *s;
	struct pb_dict *d;
	size_t nd;
	uint32_t *table;
	size_t tn;
};

/* Doubles @ds's table; PAP_ENOMEM with nothing changed. */
static int pb_dictset_regrow(struct pb_dictset *ds)
{
	size_t tn = ds->tn ? ds->tn * 2 : 64, i, h;
	uint32_t *t;

	if (tn > SIZE_MAX / sizeof(*t))
		return PAP_ENOMEM;
	t = pb_buf_room(ds->mem, &ds->s->table, tn * sizeof(*t), 0);
	if (!t)
		return PAP_ENOMEM;
	memset(t, 0, tn * sizeof(*t));
	for (i = 0; i < ds->nd; i++) {
		struct pap_breakpoint bp = { pb_dict_site(&ds->d[i]),
					     ds->d[i].r };

		for (h = pb_bp_hash(&bp) & (tn - 1); t[h]; h = (h + 1) & (tn - 1))
			;
		t[h] = (uint32_t)i + 1;
	}
	ds->table = t;
	ds->tn = tn;
	return PAP_OK;
}

/* The index of @bp among @ds's entries, added with no uses if new;
 * PAP_ENOMEM (negative) when it cannot be. */
static int64_t pb_dictset_find(struct pb_dictset *ds,
			       const struct pap_breakpoint *bp)
{
	size_t h;

	if ((ds->nd + 1) * 2 > ds->tn && pb_dictset_regrow(ds))
		return PAP_ENOMEM;
	for (h = pb_bp_hash(bp) & (ds->tn - 1); ds->table[h];
	     h = (h + 1) & (ds->tn - 1)) {
		const struct pb_dict *e = &ds->d[ds->table[h] - 1];

		if (pb_dict_site(e) == bp->site && e->r == bp->r)
			return ds->table[h] - 1;
	}
	if ((ds->nd + 1) * sizeof(*ds->d) > ds->s->d.cap) {
		ds->d = pb_buf_room(ds->mem, &ds->s->d,
				    (ds->nd + 1) * sizeof(*ds->d),
				    ds->nd * sizeof(*ds->d));
		if (!ds->d)
			return PAP_ENOMEM;
	}
	ds->d[ds->nd].rank = bp->site;
	ds->d[ds->nd].r = bp->r;
	ds->d[ds->nd].uses = 0;
	ds->table[h] = (uint32_t)++ds->nd;
	return ds->table[h] - 1;
}

/*
 * Writes one function: its key, its dictionary, its first @ngroups group
 * counts and its records @recs[0..@n) (in the written order, of one
 * function, none of a group past @ngroups).  Memory, in @s
 * (kept for the next function): a 4-byte reference per breakpoint, the
 * distinct ones, and twice a record's pb_rec.  PAP_ENOMEM.
 */
static int pb_put_function(struct pb_out *o, const struct pap_prof_rec **recs,
			   size_t n, size_t body0, uint64_t *held,
			   struct pb_wbufs *s, size_t ngroups)
{
	const struct pap_mem *mem = o->mem;
	struct pb_dictset ds = { mem, s, s->d.p, 0, NULL, 0 };
	uint32_t *refs, *ids;
	void *tmp;
	struct pb_rec *w;
	size_t nbps = 0, i, k, groups[PB_GROUPS] = { 0 };
	uint32_t j;

	for (i = 0; i < n; i++)
		nbps += recs[i]->nbps;
	if (nbps >= UINT32_MAX / 4 || n > SIZE_MAX / 2 / sizeof(*w))
		return PAP_ENOMEM;
	refs = pb_buf_room(mem, &s->refs, (nbps + 1) * sizeof(*refs), 0);
	w = pb_buf_room(mem, &s->w, (n + 1) * sizeof(*w), 0);
	if (!refs || !w)
		return PAP_ENOMEM;
	/* the distinct breakpoints, with their uses; each breakpoint of a
	 * path as its entry's index for now */
	for (i = 0, k = 0; i < n; i++) {
		const struct pap_prof_rec *r = recs[i];

		w[i].r = r;
		w[i].group = (uint32_t)pb_group(r);
		w[i].refs = refs + k;
		w[i].value = r->value;
		w[i].nbps = r->nbps;
		groups[w[i].group]++;
		for (j = 0; j < r->nbps; j++, k++) {
			int64_t e;

			if (pap_bp_is_repeat(&r->bps[j])) {
				refs[k] = PB_REPEAT_REF;
				continue;
			}
			e = pb_dictset_find(&ds, &r->bps[j]);
			if (e < 0)
				return PAP_ENOMEM;
			ds.d[e].uses++;
			refs[k] = (uint32_t)e;
		}
	}
	/* the table done with, its room holds the ids */
	ids = pb_buf_room(mem, &s->table, (ds.nd + 1) * sizeof(*ids), 0);
	tmp = pb_buf_room(mem, &s->tmp, ds.nd * sizeof(*ds.d) > n * sizeof(*w) ?
			  ds.nd * sizeof(*ds.d) : n * sizeof(*w) + 1, 0);
	if (!ids || !tmp)
		return PAP_ENOMEM;
	/* sorted in place: an entry's uses, once its class is known, hold
	 * its index before the sort, which the references name */
	for (i = 0; i < ds.nd; i++) {
		ds.d[i].rank = pb_dict_rank(&ds.d[i]);
		ds.d[i].uses = i;
	}
	pap_radix_sort(ds.d, tmp, ds.nd, sizeof(*ds.d),
		       offsetof(struct pb_dict, rank),
		       offsetof(struct pb_dict, r));

	pb_varint(o, strlen(recs[0]->fn));
	pb_bytes(o, recs[0]->fn, strlen(recs[0]->fn));
	pb_varint(o, ds.nd);
	for (i = 0; i < ds.nd; i++) {
		const struct pb_dict *e = &ds.d[i];
		const struct pb_dict *prev = i ? &ds.d[i - 1] : NULL;

		ids[e->uses] = (uint32_t)i;
		if (prev && pb_dict_site(prev) == pb_dict_site(e) &&
		    prev->r < e->r) {
			pb_varint(o, 0);
			pb_varint(o, e->r - prev->r - 1);
		} else {
			pb_varint(o, (uint64_t)pb_dict_site(e) + 1);
			pb_fixed(o, e->r, 8);
		}
	}
	/* each breakpoint as its id */
	for (k = 0; k < nbps; k++)
		if (refs[k] != PB_REPEAT_REF)
			refs[k] = ids[refs[k]];
	pb_rec_sort(w, tmp, n, 64u - (unsigned)__builtin_clzll(ds.nd + 1),
		    (uint32_t)ds.nd);
	for (k = 0; k < ngroups; k++)
		pb_varint(o, groups[k]);
	for (i = 0; i < n; i++) {
		const struct pb_rec *cur = &w[i], *prev = i ? &w[i - 1] : NULL;
		const struct pap_prof_rec *r = cur->r;
		uint32_t shared = 0;

		/* the records lie in the profile's order, not this one */
		if (i + 8 < n)
			__builtin_prefetch(w[i + 8].r);

		if (!pb_group_bps(cur->group)) {
			pb_varint(o, r->count);
			pb_varint(o, r->value);
			continue;
		}
		/* most paths were taken once: their count is implied */
		pb_varint(o, (uint64_t)r->nbps << 1 | (r->count != 1));
		if (r->count != 1)
			pb_varint(o, r->count);
		pb_varint(o, r->value);
		if (!r->nbps)
			continue;
		/* the breakpoints it shares with the path before it, unless
		 * that would hold more than PB_HELD_PER_BYTE per byte */
		if (prev && prev->group == cur->group)
			while (shared < r->nbps && shared < prev->r->nbps &&
			       !pb_ref_cmp(cur, prev, shared))
				shared++;
		*held += r->nbps;
		if (shared && !pb_held_ok(*held, o->n - body0 +
					  pb_varint_len(shared) +
					  pb_refs_len(cur, shared)))
			shared = 0;
		pb_varint(o, shared);
		for (j = shared; j < r->nbps; j++) {
			pb_varint(o, pb_ref_value(cur, j));
			if (cur->refs[j] == PB_REPEAT_REF)
				pb_varint(o, r->bps[j].r & 0xffffffffu);
		}
	}
	return o->oom ? PAP_ENOMEM : PAP_OK;
}

int pap_profbin_segment(const struct pap_profile *p, uint64_t extra_lost,
			unsigned char **out, size_t *len)
{
	struct pb_out o = { p->mem, NULL, 0, 0, 0 };
	struct pb_wbufs s;
	const struct pap_prof_rec **recs;
	unsigned char *b;
	size_t n, i, start, nfn = 0, ngroups = PB_GROUPS_OLD;
	uint64_t held = 0;
	int err = PAP_OK;

	recs = pap_profile_order(p, &n);
	if (!recs)
		return PAP_ENOMEM;
	for (i = 0; i < n; i++)
		if (pb_group(recs[i]) >= PB_GROUPS_OLD)
			ngroups = PB_GROUPS;
	memset(&s, 0, sizeof(s));
	pb_bytes(&o, PAP_PROFBIN_SEG_MARK, 4);
	pb_fixed(&o, ngroups > PB_GROUPS_OLD ? PAP_PROFBIN_SEG_KINDS : 0, 4);
	pb_fixed(&o, 0, 8);	/* L, once known */
	pb_varint(&o, pap_sat_add(p->lost, extra_lost));
	for (i = 0; i < n; i++)
		if (!i || (recs[i - 1]->name != recs[i]->name &&
			   strcmp(recs[i - 1]->fn, recs[i]->fn)))
			nfn++;
	pb_varint(&o, nfn);
	for (start = 0, i = 1; i <= n && !err; i++)
		if (i == n || (recs[start]->name != recs[i]->name &&
			       strcmp(recs[start]->fn, recs[i]->fn))) {
			err = pb_put_function(&o, recs + start, i - start,
					      PAP_PROFBIN_SEG_HEAD, &held, &s,
					      ngroups);
			start = i;
		}
	pb_wbufs_free(p->mem, &s);
	pap_mem_release(p->mem, recs, (p->nrecs + 1) * sizeof(*recs));
	if (!err && !o.oom) {
		uint64_t body = o.n - PAP_PROFBIN_SEG_HEAD;

		pb_put_le(o.b + 8, body, 8);
		pb_fixed(&o, pap_fnv1a(o.b + PAP_PROFBIN_SEG_HEAD, body), 8);
		pb_fixed(&o, body, 8);
		pb_bytes(&o, PAP_PROFBIN_END_MARK, 4);
		pb_fixed(&o, 0, 4);
	}
	/* exactly its length, so that the caller knows what to give back */
	b = err || o.oom ? NULL : pap_mem_resize(o.mem, o.b, o.cap, o.n);
	if (!b) {
		pap_mem_release(o.mem, o.b, o.cap);
		return PAP_ENOMEM;
	}
	*out = b;
	*len = o.n;
	return PAP_OK;
}

/* ---- reading ---- */

/* A body being read: where, and what for the messages. */
struct pb_in {
	const unsigned char *d;
	size_t pos, end;
	uint64_t base;		/* the file offset of d[0] */
	const char *file;
	char *err;
	size_t errlen;
};

/* "FILE: error: byte OFFSET: ..." for the byte at @at; PAP_ECORRUPT. */
static int pb_error_at(const char *file, char *err, size_t errlen,
		       uint64_t at, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int pb_error_at(const char *file, char *err, size_t errlen,
		       uint64_t at, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s: error: byte %llu: ", file,
			 (unsigned long long)at);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return PAP_ECORRUPT;
}

#define pb_error(in, at, ...) \
	pb_error_at((in)->file, (in)->err, (in)->errlen, (in)->base + (at), \
		    __VA_ARGS__)

/* The next varint of @in into *@v; PAP_ECORRUPT past the body's end or
 * longer than a 64-bit number takes. */
static int pb_get_varint(struct pb_in *in, uint64_t *v, const char *what)
{
	size_t at = in->pos;
	unsigned shift = 0;
	uint64_t x = 0;

	for (;;) {
		unsigned char c;

		if (in->pos == in->end)
			return pb_error(in, at, "%s runs past the segment's "
					"end", what);
		c = in->d[in->pos++];
		if (shift == 63 && c > 1)
			return pb_error(in, at, "%s is too long for 64 bits",
					what);
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			break;
		shift += 7;
		if (shift > 63)
			return pb_error(in, at, "%s is too long for 64 bits",
					what);
	}
	*v = x;
	return PAP_OK;
}

/* A count of things that take at least @each bytes apiece: refused when
 * what is left of the body cannot hold them. */
static int pb_get_count(struct pb_in *in, uint64_t *v, size_t each,
			const char *what)
{
	size_t at = in->pos;
	int err = pb_get_varint(in, v, what);

	if (!err && *v > (in->end - in->pos) / each)
		return pb_error(in, at, "%s %llu is more than the segment "
				"holds", what, (unsigned long long)*v);
	return err;
}

/* Scratch space of one segment's reading. */
struct pb_scratch {
	struct pap_breakpoint *dict, *bps, *prev;
	size_t cap_dict, cap_bps, cap_prev;
	uint64_t nprev;		/* the group's path before, in prev */
	uint64_t held;		/* breakpoints of the segment's paths */
	/* records on their way into the profile, added a batch at a time
	 * (their lookups' misses side by side), each one's offset in at[];
	 * the first that failed and its offset */
	struct pap_prof_batch *batch;
	uint64_t at[PAP_PROF_BATCH];
	int failed;
	uint64_t failed_at;
};

/* A pap_prof_added_fn keeping the first failure of struct pb_scratch @arg. */
static void pb_added(void *arg, const struct pap_prof_item *it)
{
	struct pb_scratch *s = arg;

	if (it->err && !s->failed) {
		s->failed = it->err;
		s->failed_at = s->at[it - s->batch->items];
	}
}

/* The error of the first record of @s that failed to go into @p, if one
 * did: PAP_ELIMIT said as too many records, at its offset. */
static int pb_failed(struct pb_in *in, const struct pap_profile *p,
		     const struct pb_scratch *s)
{
	if (s->failed == PAP_ELIMIT)
		return pb_error(in, s->failed_at, "more than %zu distinct "
				"records", p->max_recs);
	return s->failed;
}

/* The records waiting in @s's batch added to @p; 0 or the first one's
 * error. */
static int pb_flush(struct pb_in *in, struct pap_profile *p,
		    struct pb_scratch *s)
{
	pap_prof_batch_flush(p, s->batch, pb_added, s);
	return pb_failed(in, p, s);
}

/* Makes *@a hold @n breakpoints. */
static int pb_reserve(struct pap_breakpoint **a, size_t *cap, size_t n)
{
	struct pap_breakpoint *nb;

	if (n <= *cap)
		return PAP_OK;
	nb = realloc(*a, n * sizeof(*nb));
	if (!nb)
		return PAP_ENOMEM;
	*a = nb;
	*cap = n;
	return PAP_OK;
}

/* One function of a body whose functions have @ng groups: key,
 * dictionary, records; adds them to @p. */
static int pb_get_function(struct pb_in *in, struct pap_profile *p,
			   struct pb_scratch *s, uint64_t ng)
{
	char fn[PAP_FNKEY_MAX];
	struct pap_fnkey k;
	uint64_t len, nd, groups[PB_GROUPS], i, g, at, key_at;
	uint32_t name = UINT32_MAX;	/* fn's in p, once it has a record */
	int err;

	at = key_at = in->pos;
	if ((err = pb_get_count(in, &len, 1, "function key length")))
		return err;
	if (len >= sizeof(fn) || pap_fnkey_split((const char *)in->d + in->pos,
						 (size_t)len, &k) ||
	    memchr(in->d + in->pos, 0, (size_t)len))
		return pb_error(in, at, "bad function key '%.*s'",
				(int)(len > 60 ? 60 : len),
				(const char *)in->d + in->pos);
	memcpy(fn, in->d + in->pos, (size_t)len);
	fn[len] = 0;
	in->pos += (size_t)len;
	/* a dictionary entry takes two bytes at least */
	if ((err = pb_get_count(in, &nd, 2, "dictionary size")) ||
	    (err = pb_reserve(&s->dict, &s->cap_dict, (size_t)nd)))
		return err;
	for (i = 0; i < nd; i++) {
		struct pap_breakpoint *e = &s->dict[i];
		uint64_t a, dr;

		at = in->pos;
		if ((err = pb_get_varint(in, &a, "dictionary entry")))
			return err;
		if (!a) {
			if (!i)
				return pb_error(in, at, "the dictionary's "
						"first entry is relative");
			if ((err = pb_get_varint(in, &dr, "breakpoint value")))
				return err;
			if (dr >= UINT64_MAX - e[-1].r)
				return pb_error(in, at, "breakpoint value "
						"does not fit 64 bits");
			e->site = e[-1].site;
			e->r = e[-1].r + dr + 1;
			continue;
		}
		if (a - 1 > UINT32_MAX || a - 1 == PAP_BP_REPEAT)
			return pb_error(in, at, "bad breakpoint site %llu",
					(unsigned long long)(a - 1));
		if (in->end - in->pos < 8)
			return pb_error(in, at, "breakpoint value runs past "
					"the segment's end");
		e->site = (uint32_t)(a - 1);
		e->r = pb_get_le(in->d + in->pos, 8);
		in->pos += 8;
	}
	for (g = 0; g < ng; g++)
		if ((err = pb_get_count(in, &groups[g], 2, "record count")))
			return err;
	for (g = 0; g < ng; g++)
		if (groups[g] && !pap_rec_key_fits(pb_groups[g].kind, fn,
						   (unsigned long)len))
			return pb_error(in, key_at, "%s records under the key "
					"'%.60s', which is not of their kind",
					pb_kind_name(pb_groups[g].kind), fn);
	for (g = 0; g < ng; g++, s->nprev = 0)
		for (i = 0; i < groups[g]; i++) {
			uint64_t count = 1, value, n = 0, v, j, shared = 0;
			struct pap_breakpoint *t;
			uint8_t kind = pb_groups[g].kind;
			int bps = pb_group_bps((size_t)g);

			at = in->pos;
			if (bps && (err = pb_get_varint(in, &n,
							"breakpoint count")))
				return err;
			if ((!bps || n & 1) &&
			    (err = pb_get_varint(in, &count, "count")))
				return err;
			if ((err = pb_get_varint(in, &value, "value")))
				return err;
			n >>= 1;
			if (n > UINT32_MAX)
				return pb_error(in, at, "too many breakpoints");
			if (n && (err = pb_get_varint(in, &shared,
						      "shared breakpoints")))
				return err;
			if (shared > n || shared > s->nprev)
				return pb_error(in, at, "%llu breakpoints "
						"shared with a path of %llu",
						(unsigned long long)shared,
						(unsigned long long)s->nprev);
			if (n - shared > in->end - in->pos)
				return pb_error(in, at, "breakpoint count %llu "
						"is more than the segment "
						"holds", (unsigned long long)n);
			if ((err = pb_reserve(&s->bps, &s->cap_bps,
					      (size_t)n)))
				return err;
			if (shared)
				memcpy(s->bps, s->prev,
				       (size_t)shared * sizeof(*t));
			for (j = shared; j < n; j++) {
				struct pap_breakpoint *bp = &s->bps[j];
				size_t vat = in->pos;

				if ((err = pb_get_varint(in, &v, "breakpoint")))
					return err;
				if (!(v & 1)) {
					if (v / 2 >= nd)
						return pb_error(in, vat,
							"reference %llu past "
							"the dictionary of "
							"%llu", (unsigned long
							long)(v / 2),
							(unsigned long long)nd);
					*bp = s->dict[v / 2];
					continue;
				}
				if ((err = pb_get_varint(in, &len,
							 "repeat length")))
					return err;
				if (v / 2 == 0 || v / 2 > UINT32_MAX ||
				    len == 0 || len > UINT32_MAX)
					return pb_error(in, vat, "a repeat of "
							"distance %llu, length "
							"%llu", (unsigned long
							long)(v / 2),
							(unsigned long long)len);
				bp->site = PAP_BP_REPEAT;
				bp->r = (v / 2) << 32 | len;
			}
			s->held += n;
			if (!pb_held_ok(s->held, in->pos))
				return pb_error(in, at, "paths share more "
						"breakpoints than %d a byte",
						PB_HELD_PER_BYTE);
			if (n && !pap_bpack_length(s->bps, (size_t)n,
						   UINT64_MAX))
				return pb_error(in, at, "a repeat reaching "
						"before the path's start");
			if (name == UINT32_MAX &&
			    (err = pap_profile_name(p, fn, &name)))
				return err;
			if ((s->batch->n == PAP_PROF_BATCH ||
			     n > PAP_PROF_BATCH_BPS - s->batch->nbps) &&
			    (err = pb_flush(in, p, s)))
				return err;
			s->at[s->batch->n] = at;
			pap_prof_batch_add_named(p, s->batch, fn, name, kind,
						 pb_groups[g].complete, value,
						 s->bps, (uint32_t)n, count,
						 pb_added, s);
			err = pb_failed(in, p, s);
			/* this path is the next one's "before" */
			t = s->prev;
			s->prev = s->bps;
			s->bps = t;
			j = s->cap_prev;
			s->cap_prev = s->cap_bps;
			s->cap_bps = (size_t)j;
			s->nprev = n;
			if (err)
				return err;
		}
	/* fn is gone after: its records go in now */
	return pb_flush(in, p, s);
}

/* A segment's body @d[0..@n), whose functions have @ng groups, at file
 * offset @base: adds its records to @p. */
static int pb_get_body(struct pap_profile *p, const unsigned char *d,
		       size_t n, uint64_t base, uint64_t ng,
		       const char *file, char *err, size_t errlen)
{
	struct pb_in in = { d, 0, n, base, file, err, errlen };
	struct pb_scratch s;
	uint64_t lost, nfn, i;
	int r;

	if ((r = pb_get_varint(&in, &lost, "lost count")) ||
	    (r = pb_get_count(&in, &nfn, 4, "function count")))
		return r;
	memset(&s, 0, sizeof(s));
	s.batch = calloc(1, sizeof(*s.batch));
	if (!s.batch)
		return PAP_ENOMEM;
	for (i = 0; i < nfn && !r; i++)
		r = pb_get_function(&in, p, &s, ng);
	if (!r && in.pos != in.end)
		r = pb_error(&in, in.pos, "%zu bytes after the segment's "
			     "last function", in.end - in.pos);
	if (!r)
		p->lost = pap_sat_add(p->lost, lost);
	free(s.dict);
	free(s.bps);
	free(s.prev);
	free(s.batch);
	return r;
}

/* Is there a whole, sound segment anywhere in @d[@from + 1..@n)? */
static int pb_segment_after(const unsigned char *d, size_t n, size_t from)
{
	const unsigned char *q = d + from + 1, *end = d + n;

	while (end - q >= PAP_PROFBIN_SEG_HEAD + PAP_PROFBIN_SEG_TAIL &&
	       (q = memchr(q, PAP_PROFBIN_SEG_MARK[0], (size_t)(end - q)))) {
		uint64_t len;

		if (end - q >= PAP_PROFBIN_SEG_HEAD + PAP_PROFBIN_SEG_TAIL &&
		    !pap_profbin_seg_len(q, &len) &&
		    len <= (size_t)(end - q) - PAP_PROFBIN_SEG_HEAD -
				   PAP_PROFBIN_SEG_TAIL &&
		    !pap_profbin_seg_tail_ok(q + PAP_PROFBIN_SEG_HEAD + len, len,
					     q + PAP_PROFBIN_SEG_HEAD))
			return 1;
		q++;
	}
	return 0;
}

/* The error of a header pap_profbin_head_ok() found wrong at @at. */
static int pb_head_error(const unsigned char *d, size_t n, size_t at,
			 const char *file, char *err, size_t errlen)
{
	if (at == 0)
		return pb_error_at(file, err, errlen, 0, "a binary profile's "
				   "magic number is wrong (the file was "
				   "changed, as by a text-mode copy)");
	if (at == n)
		return pb_error_at(file, err, errlen, n, "the file ends "
				   "inside the profile's header");
	if (at == 8)
		return pb_error_at(file, err, errlen, 8, "profile version "
				   "%llu is not supported (this pap reads "
				   "text versions 1 to %d and %d to %d, "
				   "binary versions %d to %d)",
				   (unsigned long long)pb_get_le(d + 8, 4),
				   PAP_PROFILE_VERSION_OLD,
				   PAP_PROFILE_VERSION_END,
				   PAP_PROFILE_VERSION,
				   PAP_PROFILE_VERSION_BIN_OLDEST,
				   PAP_PROFILE_VERSION_BIN);
	if (at == 12)
		return pb_error_at(file, err, errlen, 12, "unknown profile "
				   "flags %#llx", (unsigned long long)
				   pb_get_le(d + 12, 4));
	return pb_error_at(file, err, errlen, at, "committed length %llu is "
			   "shorter than the header", (unsigned long long)
			   pb_get_le(d + PAP_PROFBIN_COMMIT_AT, 8));
}

int pap_profbin_read(struct pap_profile *p, const unsigned char *d, size_t n,
		     size_t *good, uint64_t *committed, const char *file,
		     char *err, size_t errlen)
{
	struct pap_profbin_head hd;
	size_t off, at;
	int at_c;

	*good = n;
	*committed = 0;
	if (pap_profbin_head_ok(d, n, &hd, &at))
		return pb_head_error(d, n, at, file, err, errlen);
	*committed = hd.committed;
	off = hd.len;
	at_c = !hd.committed || hd.committed == off;
	while (off < n) {
		uint64_t len, kinds;
		const unsigned char *body;
		int r;

		if (n - off < PAP_PROFBIN_SEG_HEAD) {
			*good = off;	/* cut inside the header */
			break;
		}
		if (pap_profbin_seg_len(d + off, &len))
			return pb_error_at(file, err, errlen, off, "not the "
					   "start of a segment");
		if (len > n - off - PAP_PROFBIN_SEG_HEAD ||
		    n - off - PAP_PROFBIN_SEG_HEAD - len <
			    PAP_PROFBIN_SEG_TAIL) {
			/* the file ends inside it: cut short, unless whole
			 * segments follow (then its length is damaged) */
			if (pb_segment_after(d, n, off))
				return pb_error_at(file, err, errlen, off + 8,
						   "segment length %llu runs "
						   "past the end, and whole "
						   "segments follow",
						   (unsigned long long)len);
			*good = off;
			break;
		}
		body = d + off + PAP_PROFBIN_SEG_HEAD;
		if (pap_profbin_seg_tail_ok(body + len, len, NULL))
			return pb_error_at(file, err, errlen,
					   off + PAP_PROFBIN_SEG_HEAD + len,
					   "bad segment trailer");
		if (pap_profbin_seg_tail_ok(body + len, len, body))
			return pb_error_at(file, err, errlen, off,
					   "segment of %llu bytes fails its "
					   "checksum", (unsigned long long)len);
		kinds = pb_get_le(d + off + 4, 4) & PAP_PROFBIN_SEG_KINDS;
		if (kinds && hd.version < 7)
			return pb_error_at(file, err, errlen, off + 4,
					   "a segment with the program kinds' "
					   "records in a version %u profile "
					   "(they need version 7)",
					   (unsigned)hd.version);
		if (p)
			p->gen++;	/* the segments' order: their age */
		if (p && (r = pb_get_body(p, body, (size_t)len,
					  off + PAP_PROFBIN_SEG_HEAD,
					  kinds ? PB_GROUPS : PB_GROUPS_OLD,
					  file, err, errlen)))
			return r;
		off += PAP_PROFBIN_SEG_HEAD + (size_t)len +
		       PAP_PROFBIN_SEG_TAIL;
		at_c |= hd.committed == off;
	}
	/* C within the whole segments is where one of them ends; beyond
	 * them the file was cut, which the caller says */
	if (!at_c && hd.committed <= *good)
		return pb_error_at(file, err, errlen, PAP_PROFBIN_COMMIT_AT,
				   "committed length %llu is not where a "
				   "segment ends", (unsigned long long)
				   hd.committed);
	return PAP_OK;
}
