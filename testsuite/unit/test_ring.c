/* SPDX-License-Identifier: MIT */
/*
 * test_ring.c - the shared-memory ring reader (libcore/ring.c) and the
 * profile's lost-record count: records written by an encoder written
 * here from pap/shm.h come back exactly; garbage never gets past the
 * bounds and is counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cfgmodel.h"
#include "profdata.h"
#include "ring.h"
#include "ringenc.h"

#define NW 256u

struct tr_ring {
	uint64_t words[NW];
	uint64_t head;
};

static void tr_put(struct tr_ring *r, unsigned tag, const uint64_t *body,
		   uint64_t n)
{
	r->head = re_put(r->words, NW, r->head, tag, body, n);
}

static void tr_fn(struct tr_ring *r, uint32_t id, const char *s)
{
	r->head = re_put_fn(r->words, NW, r->head, id, s);
}

/* What the reader handed on, in order, as text. */
struct tr_seen {
	char log[8192];
	size_t len;
	int refuse_fn;
};

static int tr_on_fn(void *ctx, uint32_t id, const char *s, uint32_t n)
{
	struct tr_seen *x = ctx;

	if (x->refuse_fn)
		return -1;
	x->len += (size_t)snprintf(x->log + x->len, sizeof(x->log) - x->len,
				   "F%u=%.*s;", id, (int)n, s);
	return 0;
}

/* A path logs as "P...", a record of another kind with breakpoints as
 * its letter in capitals ("C...", "G..."). */
static int tr_on_path(void *ctx, uint32_t fn, uint8_t kind, uint8_t complete,
		      uint64_t v, const struct pap_breakpoint *bps,
		      uint32_t nbps)
{
	struct tr_seen *x = ctx;
	uint32_t i;

	x->len += (size_t)snprintf(x->log + x->len, sizeof(x->log) - x->len,
				   "%c%u,%u,%llu",
				   pap_rec_letter(kind) - 'a' + 'A', fn,
				   complete,
				   (unsigned long long)v);
	for (i = 0; i < nbps; i++)
		x->len += (size_t)snprintf(x->log + x->len,
					   sizeof(x->log) - x->len, ",%u:%llu",
					   bps[i].site,
					   (unsigned long long)bps[i].r);
	x->len += (size_t)snprintf(x->log + x->len, sizeof(x->log) - x->len,
				   ";");
	return 0;
}

/* "B..." for a BL id, "U..." for a unit. */
static int tr_on_bl(void *ctx, uint32_t fn, uint8_t kind, uint64_t id)
{
	struct tr_seen *x = ctx;

	x->len += (size_t)snprintf(x->log + x->len, sizeof(x->log) - x->len,
				   "%c%u,%llu;",
				   pap_rec_letter(kind) - 'a' + 'A', fn,
				   (unsigned long long)id);
	return 0;
}

static int tr_on_count(void *ctx, uint32_t slot, uint64_t seq, uint32_t fn,
		       uint8_t kind, uint8_t complete, uint64_t v,
		       uint64_t count)
{
	struct tr_seen *x = ctx;

	x->len += (size_t)snprintf(x->log + x->len, sizeof(x->log) - x->len,
				   "C%u@%llu,%u,%u,%u,%llu*%llu;", slot,
				   (unsigned long long)seq, fn, kind, complete,
				   (unsigned long long)v,
				   (unsigned long long)count);
	return 0;
}

static const struct pap_ring_ops tr_ops = { tr_on_fn, tr_on_path, tr_on_bl,
					    tr_on_count };

/* test_ring_round_trip: records across the ring's end come back in order,
 * field for field, and the reader stops exactly at head. */
static void test_ring_round_trip(void **state)
{
	static struct pap_ring_buf buf;
	static struct pap_ring_joined joined;
	struct tr_ring r = { { 0 }, 250 };
	struct tr_seen x = { "", 0, 0 };
	struct pap_ring_stats st = { 0, 0, 0 };
	uint64_t path[] = { 7 | 1ull << 32 | 2ull << 40, 99, 3, 1000, 4,
			    UINT64_MAX };
	uint64_t bl[] = { 7, 42 };
	uint64_t pos = 250;

	(void)state;
	tr_fn(&r, 7, "main:0123456789abcdef");
	tr_put(&r, PAP_SHM_PATH, path, 6);
	tr_put(&r, PAP_SHM_BL, bl, 2);
	assert_int_equal(pap_ring_read(r.words, NW, &pos, r.head, &tr_ops, &x,
				       &buf, &joined, &st), PAP_OK);
	assert_int_equal(pos, r.head);
	assert_string_equal(x.log, "F7=main:0123456789abcdef;"
			    "P7,1,99,3:1000,4:18446744073709551615;B7,42;");
	assert_int_equal(st.records, 2);
	assert_int_equal(st.fns, 1);
	assert_int_equal(st.rejected, 0);
}

/* A PIECE record's first body word. */
static uint64_t tr_piece_word(uint32_t fn, unsigned complete, int first,
			      int last, uint32_t nbps)
{
	return fn | (uint64_t)complete << 32 |
	       (first ? PAP_SHM_PIECE_FIRST : 0) |
	       (last ? PAP_SHM_PIECE_LAST : 0) | (uint64_t)nbps << 40;
}

/* test_ring_pieces: a path in three pieces comes back as one PATH, with
 * the value of its last piece; pieces a PATH record interrupts are
 * dropped without a count (the producer kept that path itself); the end
 * of a path whose first piece was never seen is one rejected record, its
 * middle none; a piece with no breakpoints or a bad flag is rejected; the
 * joining goes on from one read to the next. */
static void test_ring_pieces(void **state)
{
	static struct pap_ring_buf buf;
	static struct pap_ring_joined joined;
	struct tr_ring r = { { 0 }, 0 };
	struct tr_seen x = { "", 0, 0 };
	struct pap_ring_stats st = { 0, 0, 0 };
	uint64_t a[] = { tr_piece_word(3, 1, 1, 0, 2), 0, 10, 100, 11, 101 };
	uint64_t b[] = { tr_piece_word(3, 1, 0, 0, 1), 0, 12, 102 };
	uint64_t c[] = { tr_piece_word(3, 1, 0, 1, 1), 77, 13, 103 };
	uint64_t lone[] = { tr_piece_word(3, 0, 1, 1, 1), 5, 20, 200 };
	/* a piece of a kind without breakpoints (BL) */
	uint64_t bad[] = { tr_piece_word(3, 0, 1, 1, 1) |
			   (uint64_t)PAP_REC_BL << PAP_SHM_PIECE_KIND_SHIFT,
			   5, 20, 200 };
	uint64_t empty[] = { tr_piece_word(3, 0, 1, 1, 0), 5 };
	uint64_t path[] = { 3 | 1ull << 32, 8 };
	uint64_t pos = 0, mid;

	(void)state;
	tr_put(&r, PAP_SHM_PIECE, a, 6);
	tr_put(&r, PAP_SHM_PIECE, b, 4);
	mid = r.head;
	tr_put(&r, PAP_SHM_PIECE, c, 4);
	tr_put(&r, PAP_SHM_PIECE, lone, 4);
	tr_put(&r, PAP_SHM_PIECE, a, 6);	/* given up: */
	tr_put(&r, PAP_SHM_PATH, path, 2);
	tr_put(&r, PAP_SHM_PIECE, b, 4);	/* no first: nothing */
	tr_put(&r, PAP_SHM_PIECE, c, 4);	/* no first: rejected */
	tr_put(&r, PAP_SHM_PIECE, bad, 4);
	tr_put(&r, PAP_SHM_PIECE, empty, 2);
	/* the first read stops between two pieces of a path */
	assert_int_equal(pap_ring_read(r.words, NW, &pos, mid, &tr_ops, &x,
				       &buf, &joined, &st), PAP_OK);
	assert_string_equal(x.log, "");
	assert_int_equal(pap_ring_read(r.words, NW, &pos, r.head, &tr_ops, &x,
				       &buf, &joined, &st), PAP_OK);
	assert_string_equal(x.log, "P3,1,77,10:100,11:101,12:102,13:103;"
			    "P3,0,5,20:200;P3,1,8;");
	assert_int_equal(st.records, 3);
	assert_int_equal(st.rejected, 3);
	pap_ring_joined_free(&joined);
}

/*
 * test_ring_program_kinds (2.4): CALLS and PROG records (tags 6 and 7,
 * a PATH's body) and UNIT records (tag 8, a BL's) come back with their
 * kinds; a CALLS path in pieces, its kind in bits 39..35 of each piece,
 * comes back as one CALLS record; a piece of another kind than its
 * path's first ends that path; a program or unit not complete, and a
 * unit's body with breakpoints, are refused; COUNT records of the three
 * kinds are handed on, and slots hold them.
 */
static void test_ring_program_kinds(void **state)
{
	static struct pap_ring_buf buf;
	static struct pap_ring_joined joined;
	struct tr_ring r = { { 0 }, 0 };
	struct tr_seen x = { "", 0, 0 };
	struct pap_ring_stats st = { 0, 0, 0 };
	uint64_t calls[] = { 4 | 0ull << 32 | 1ull << 40, 12, 0xf1000000u, 9 };
	uint64_t prog[] = { 5 | 1ull << 32 | 2ull << 40, 2, 0, 111, 1, 222 };
	uint64_t prog_cut[] = { 5 | 0ull << 32, 2 };
	uint64_t unit[] = { 6, 0 };
	uint64_t unit_bps[] = { 6 | 1ull << 40, 0, 1, 2 };
	uint64_t ck = (uint64_t)PAP_REC_CALLS << PAP_SHM_PIECE_KIND_SHIFT;
	uint64_t pk = (uint64_t)PAP_REC_PROG << PAP_SHM_PIECE_KIND_SHIFT;
	uint64_t a[] = { tr_piece_word(4, 1, 1, 0, 1) | ck, 0, 10, 100 };
	uint64_t b[] = { tr_piece_word(4, 1, 0, 1, 1) | ck, 3, 11, 101 };
	uint64_t b_prog[] = { tr_piece_word(4, 1, 0, 1, 1) | pk, 3, 11, 101 };
	uint64_t cnt_c[] = { 1, 2, pap_shm_key(4, PAP_REC_CALLS, 0), 7, 5 };
	uint64_t cnt_u[] = { 2, 2, pap_shm_key(6, PAP_REC_UNIT, 1), 0, 3 };
	uint64_t cnt_g0[] = { 3, 2, pap_shm_key(5, PAP_REC_PROG, 0), 2, 1 };
	struct pap_shm_slot sl = { 2, pap_shm_key(6, PAP_REC_UNIT, 1), 0, 4 };
	struct pap_shm_slot out;
	uint64_t pos = 0;

	(void)state;
	tr_put(&r, PAP_SHM_CALLS, calls, 4);
	tr_put(&r, PAP_SHM_PROG, prog, 6);
	tr_put(&r, PAP_SHM_UNIT, unit, 2);
	tr_put(&r, PAP_SHM_PROG, prog_cut, 2);		/* refused */
	tr_put(&r, PAP_SHM_UNIT, unit_bps, 4);		/* refused */
	tr_put(&r, PAP_SHM_PIECE, a, 4);
	tr_put(&r, PAP_SHM_PIECE, b, 4);
	tr_put(&r, PAP_SHM_PIECE, a, 4);
	tr_put(&r, PAP_SHM_PIECE, b_prog, 4);		/* refused */
	tr_put(&r, PAP_SHM_COUNT, cnt_c, 5);
	tr_put(&r, PAP_SHM_COUNT, cnt_u, 5);
	tr_put(&r, PAP_SHM_COUNT, cnt_g0, 5);		/* refused */
	assert_int_equal(pap_ring_read(r.words, NW, &pos, r.head, &tr_ops, &x,
				       &buf, &joined, &st), PAP_OK);
	assert_string_equal(x.log, "C4,0,12,4043309056:9;"
			    "G5,1,2,0:111,1:222;U6,0;"
			    "C4,1,3,10:100,11:101;"
			    "C1@2,4,2,0,7*5;C2@2,6,4,1,0*3;");
	assert_int_equal(st.records, 4 + 5 + 3);
	assert_int_equal(st.rejected, 4);
	assert_int_equal(PAP_SHM_CALLS, 6);
	assert_int_equal(PAP_SHM_PROG, 7);
	assert_int_equal(PAP_SHM_UNIT, 8);
	assert_int_equal(pap_ring_read_slot(&sl, &out), 0);
	sl.key = pap_shm_key(6, PAP_REC_UNIT, 0);
	assert_int_equal(pap_ring_read_slot(&sl, &out), -1);
	sl.key = pap_shm_key(6, PAP_REC_NKINDS, 1);
	assert_int_equal(pap_ring_read_slot(&sl, &out), -1);
	pap_ring_joined_free(&joined);
}

/* test_ring_count: a COUNT record hands on its slot, seq, key and count,
 * and adds its count to the records; a bad one is refused and counted. */
static void test_ring_count(void **state)
{
	static struct pap_ring_buf buf;
	static struct pap_ring_joined joined;
	struct tr_ring r = { { 0 }, 0 };
	struct tr_seen x = { "", 0, 0 };
	struct pap_ring_stats st = { 0, 0, 0 };
	uint64_t good[] = { 5, 8, pap_shm_key(3, PAP_REC_PATH, 1), 77, 1000 };
	uint64_t bl[] = { 2, 4, pap_shm_key(1, PAP_REC_BL, 1), 9, 3 };
	uint64_t odd[] = { 5, 9, pap_shm_key(3, PAP_REC_PATH, 1), 77, 1 };
	uint64_t zero[] = { 5, 8, pap_shm_key(3, PAP_REC_PATH, 1), 77, 0 };
	uint64_t nofn[] = { 5, 8, pap_shm_key(0, PAP_REC_PATH, 1), 77, 1 };
	uint64_t kind[] = { 5, 8, pap_shm_key(3, 7, 1), 77, 1 };
	uint64_t bigslot[] = { PAP_SHM_MAX_SLOTS, 8,
			       pap_shm_key(3, PAP_REC_PATH, 1), 77, 1 };
	uint64_t pos = 0;

	(void)state;
	tr_put(&r, PAP_SHM_COUNT, good, 5);
	tr_put(&r, PAP_SHM_COUNT, bl, 5);
	tr_put(&r, PAP_SHM_COUNT, odd, 5);	/* seq of a slot mid-rewrite */
	tr_put(&r, PAP_SHM_COUNT, zero, 5);
	tr_put(&r, PAP_SHM_COUNT, nofn, 5);
	tr_put(&r, PAP_SHM_COUNT, kind, 5);
	tr_put(&r, PAP_SHM_COUNT, bigslot, 5);
	tr_put(&r, PAP_SHM_COUNT, good, 4);	/* too short */
	assert_int_equal(pap_ring_read(r.words, NW, &pos, r.head, &tr_ops, &x,
				       &buf, &joined, &st), PAP_OK);
	assert_string_equal(x.log, "C5@8,3,0,1,77*1000;C2@4,1,1,1,9*3;");
	assert_int_equal(st.records, 1003);
	assert_int_equal(st.rejected, 6);
}

/* test_ring_read_slot: a steady slot is read, an empty one says so, one
 * mid-rewrite (odd seq) says so, one holding garbage is refused. */
static void test_ring_read_slot(void **state)
{
	struct pap_shm_slot s = { 4, pap_shm_key(2, PAP_REC_PATH, 0), 9, 6 };
	struct pap_shm_slot out;

	(void)state;
	assert_int_equal(pap_ring_read_slot(&s, &out), 0);
	assert_true(out.seq == 4 && out.value == 9 && out.count == 6);
	s.seq = 5;
	assert_int_equal(pap_ring_read_slot(&s, &out), 2);
	s.seq = 6;
	s.count = 0;
	assert_int_equal(pap_ring_read_slot(&s, &out), -1);
	s.count = 1;
	s.key = pap_shm_key(2, PAP_REC_BL, 0);	/* an EPP id is complete */
	assert_int_equal(pap_ring_read_slot(&s, &out), -1);
	s.key = pap_shm_key(2, PAP_REC_PATH, 0) | 1ull << 50;
	assert_int_equal(pap_ring_read_slot(&s, &out), -1);
	s.key = pap_shm_key(2, PAP_REC_PATH, 0);
	s.count = PAP_SHM_MAX_COUNT + 1;
	assert_int_equal(pap_ring_read_slot(&s, &out), -1);
	memset(&s, 0, sizeof(s));
	assert_int_equal(pap_ring_read_slot(&s, &out), 1);
}

/* test_ring_partial: a header at head is a record begun, not committed;
 * a stale header from the previous lap is not. */
static void test_ring_partial(void **state)
{
	struct tr_ring r = { { 0 }, 10 };
	uint64_t bl[] = { 1, 5 };

	(void)state;
	assert_false(pap_ring_partial(r.words, NW, 10));
	r.words[10] = pap_shm_header(PAP_SHM_BL, 3, 10);
	assert_true(pap_ring_partial(r.words, NW, 10));
	r.words[10] = pap_shm_header(PAP_SHM_BL, 3, 10 + NW);
	assert_false(pap_ring_partial(r.words, NW, 10));
	r.head = 10 + NW;
	tr_put(&r, PAP_SHM_BL, bl, 2);
	assert_false(pap_ring_partial(r.words, NW, 10 + NW + 3));
}

/* test_ring_bad_bodies: well-framed records with bad bodies are counted
 * and skipped; the records around them still arrive. */
static void test_ring_bad_bodies(void **state)
{
	static struct pap_ring_buf buf;
	static struct pap_ring_joined joined;
	struct tr_ring r = { { 0 }, 0 };
	struct tr_seen x = { "", 0, 0 };
	struct pap_ring_stats st = { 0, 0, 0 };
	uint64_t bl[] = { 1, 5 }, bad_site[] = { 1 | 1ull << 40, 0,
						 1ull << 33, 0 };
	uint64_t bad_complete[] = { 1 | 2ull << 32, 0 };
	uint64_t fn_nul[] = { 2 | 4ull << 32, 0x00616161 };
	uint64_t fn_pad[] = { 2 | 1ull << 32, 0x6161 };
	uint64_t pos = 0;

	(void)state;
	tr_put(&r, PAP_SHM_BL, bl, 2);
	tr_put(&r, PAP_SHM_PATH, bad_site, 4);		/* site > 32 bits */
	tr_put(&r, PAP_SHM_PATH, bad_complete, 2);	/* complete 2 */
	tr_put(&r, PAP_SHM_BL, bl, 1);			/* too short */
	tr_put(&r, 9, bl, 2);				/* unknown tag */
	tr_put(&r, PAP_SHM_FN, fn_nul, 2);		/* NUL inside */
	tr_put(&r, PAP_SHM_FN, fn_pad, 2);		/* padding not 0 */
	tr_put(&r, PAP_SHM_BL, bl, 2);
	assert_int_equal(pap_ring_read(r.words, NW, &pos, r.head, &tr_ops, &x,
				       &buf, &joined, &st), PAP_OK);
	assert_string_equal(x.log, "B1,5;B1,5;");
	assert_int_equal(st.rejected, 6);
	assert_int_equal(st.records, 2);
}

/* test_ring_bad_framing: a bad header, a length past head, or a head out
 * of reach stop the reader at the bad word. */
static void test_ring_bad_framing(void **state)
{
	static struct pap_ring_buf buf;
	static struct pap_ring_joined joined;
	struct tr_ring r = { { 0 }, 0 };
	struct tr_seen x = { "", 0, 0 };
	struct pap_ring_stats st = { 0, 0, 0 };
	uint64_t bl[] = { 1, 5 };
	uint64_t pos = 0;

	(void)state;
	tr_put(&r, PAP_SHM_BL, bl, 2);
	tr_put(&r, PAP_SHM_BL, bl, 2);
	r.words[3] ^= 1;	/* position field of the second header */
	assert_int_equal(pap_ring_read(r.words, NW, &pos, r.head, &tr_ops, &x,
				       &buf, &joined, &st), PAP_ECORRUPT);
	assert_int_equal(pos, 3);
	assert_string_equal(x.log, "B1,5;");
	pos = 0;
	assert_int_equal(pap_ring_read(r.words, NW, &pos, 2, &tr_ops, &x,
				       &buf, &joined, &st), PAP_ECORRUPT);
	assert_int_equal(pos, 0);
	assert_int_equal(pap_ring_read(r.words, NW, &pos, NW + 1, &tr_ops, &x,
				       &buf, &joined, &st), PAP_ECORRUPT);
	pos = 5;
	assert_int_equal(pap_ring_read(r.words, NW, &pos, 4, &tr_ops, &x,
				       &buf, &joined, &st), PAP_ECORRUPT);
}

/* test_ring_random: 20000 rings of random words (some with valid-looking
 * headers) never take the reader outside the ring, and every record it
 * hands on is well formed. */
static void test_ring_random(void **state)
{
	static struct pap_ring_buf buf;
	static struct pap_ring_joined joined;
	static struct tr_ring r;
	uint64_t g = 12345, k, i;

	(void)state;
	for (k = 0; k < 20000; k++) {
		struct tr_seen x = { "", 0, (int)(k & 1) };
		struct pap_ring_stats st = { 0, 0, 0 };
		uint64_t pos = g % (4 * NW), head;

		for (i = 0; i < NW; i++) {
			g = g * 6364136223846793005ull + 1442695040888963407ull;
			r.words[i] = (g >> 61) ? g >> (g & 31) :
				pap_shm_header((unsigned)(g >> 8) % 5,
					       (g >> 16) % 9, pos + i);
		}
		head = pos + (g >> 40) % (NW + 2);
		pap_ring_read(r.words, NW, &pos, head, &tr_ops, &x, &buf,
			      &joined, &st);
		assert_true(pos <= head);
		x.len = 0;
	}
}

/* test_profile_lost_round_trip: a lost count makes a version 2 file that
 * reads back with the same count; merging adds counts; without losses
 * the file stays version 1, and version 1 files still read. */
static void test_profile_lost_round_trip(void **state)
{
	struct pap_profile a, b;
	char text[4096], err[256];
	FILE *f;
	size_t n;

	(void)state;
	pap_profile_init(&a);
	pap_profile_init(&b);
	assert_int_equal(pap_profile_add(&a, "f:0123456789abcdef", PAP_REC_BL,
					 1, 3, NULL, 0, 2), 0);
	f = fmemopen(text, sizeof(text), "w");
	assert_int_equal(pap_profile_write_text(&a, f), 0);
	n = (size_t)ftell(f);
	fclose(f);
	text[n] = 0;
	assert_string_equal(text,
			    "pap-profile 6\nb f:0123456789abcdef 2 3\ne 1\n");
	a.lost = 5;
	f = fmemopen(text, sizeof(text), "w");
	assert_int_equal(pap_profile_write_text(&a, f), 0);
	n = (size_t)ftell(f);
	fclose(f);
	text[n] = 0;
	assert_string_equal(text,
			    "pap-profile 6\nl 5\nb f:0123456789abcdef 2 3\n"
			    "e 2\n");
	assert_int_equal(pap_profile_parse(&b, text, "t", err, sizeof(err)), 0);
	assert_int_equal(pap_profile_parse(&b, text, "t", err, sizeof(err)), 0);
	assert_int_equal(b.lost, 10);
	assert_int_equal(b.recs[0].count, 4);
	assert_int_not_equal(pap_profile_parse(&b, "pap-profile 1\nl 5\n", "t",
					       err, sizeof(err)), 0);
	assert_string_equal(err, "t:2: error: unknown record");
	assert_int_not_equal(pap_profile_parse(&b, "pap-profile 4\n", "t",
					       err, sizeof(err)), 0);
	b.max_recs = 1;
	assert_int_equal(pap_profile_add(&b, "g:0123456789abcdef", PAP_REC_BL,
					 1, 3, NULL, 0, 1), PAP_ELIMIT);
	assert_int_equal(pap_profile_add(&b, "f:0123456789abcdef", PAP_REC_BL,
					 1, 3, NULL, 0, 1), 0);
	pap_profile_free(&a);
	pap_profile_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_round_trip),
		cmocka_unit_test(test_ring_pieces),
		cmocka_unit_test(test_ring_count),
		cmocka_unit_test(test_ring_program_kinds),
		cmocka_unit_test(test_ring_read_slot),
		cmocka_unit_test(test_ring_partial),
		cmocka_unit_test(test_ring_bad_bodies),
		cmocka_unit_test(test_ring_bad_framing),
		cmocka_unit_test(test_ring_random),
		cmocka_unit_test(test_profile_lost_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
