/* SPDX-License-Identifier: MIT */
/*
 * test_profkinds.c - the program kinds of records (pap/records.h: CALLS,
 * PROG, UNIT) in profile files: version 7 text and binary carry them
 * exactly, next to paths; a profile without them is written as it was
 * (text version 6, binary segments unflagged); version 6 and older are
 * still read, and refuse them; damaged ones are refused with an error
 * naming the file and the place.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bpack.h"
#include "fnkey.h"
#include "profbin.h"
#include "profdata.h"
#include "util.h"

#define FN "work:0123456789abcdef"
#define PROGSUM "00112233445566ff"
#define CALLS PAP_REC_CALLS_PREFIX PROGSUM
#define PROG PAP_REC_PROG_PREFIX PROGSUM
#define UNIT1 PAP_REC_UNIT_PREFIX "a1b2c3d4e5f60718:/tmp/u1.papm"
#define UNIT2 PAP_REC_UNIT_PREFIX "0000000000000002:/tmp/u2.papm"

/* A file's bytes. */
struct bytes {
	unsigned char *d;
	size_t n;
};

/* @p written by @write, as bytes. */
static struct bytes pk_write(const struct pap_profile *p,
			     int (*write)(const struct pap_profile *, FILE *))
{
	FILE *f = tmpfile();
	struct bytes b;
	long n;

	assert_non_null(f);
	assert_int_equal(write(p, f), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	b.n = (size_t)n;
	b.d = malloc(b.n + 1);
	assert_non_null(b.d);
	assert_int_equal(fread(b.d, 1, b.n, f), b.n);
	b.d[b.n] = 0;
	fclose(f);
	return b;
}

/* The profile the runtime makes of one program of two units: two call
 * sequences (one cut short, with marks and a repeat), the program, its
 * units, and a path of an intra mode beside them. */
static void pk_fill(struct pap_profile *p)
{
	const struct pap_breakpoint seq[] = {
		{ 0xf1000000u, 0 }, { 0xf0000000u, 0x123456789abcdefull },
		{ 7, 1ull << 63 }, { 0xffffff, 99 }, { PAP_BP_REPEAT,
						       2ull << 32 | 3 },
		{ 0xf2000000u, 0 }, { 0xf0000000u, 0x123456789abcdefull },
	};
	const struct pap_breakpoint cut[] = { { 0xf7000001u, 1 },
					      { 0xf0000000u, 5 },
					      { 0xf8000003u, 1 } };
	struct pap_breakpoint units[2];

	units[0].site = 0;
	units[0].r = pap_fnid(UNIT1);
	units[1].site = 1;
	units[1].r = pap_fnid(UNIT2);
	assert_int_equal(pap_profile_add(p, CALLS, PAP_REC_CALLS, 1, 1, seq,
					 7, 3), 0);
	assert_int_equal(pap_profile_add(p, CALLS, PAP_REC_CALLS, 0, 17, cut,
					 3, 1), 0);
	assert_int_equal(pap_profile_add(p, CALLS, PAP_REC_CALLS, 1, 1, NULL,
					 0, 2), 0);
	assert_int_equal(pap_profile_add(p, PROG, PAP_REC_PROG, 1, 2, units,
					 2, 1), 0);
	assert_int_equal(pap_profile_add(p, UNIT1, PAP_REC_UNIT, 1, 0, NULL,
					 0, 1), 0);
	assert_int_equal(pap_profile_add(p, UNIT2, PAP_REC_UNIT, 1, 0, NULL,
					 0, 1), 0);
	assert_int_equal(pap_profile_add(p, FN, PAP_REC_PATH, 1, 4, NULL, 0,
					 5), 0);
}

/* Is there in @p a record equal to @r, field for field? */
static int pk_has(const struct pap_profile *p, const struct pap_prof_rec *r)
{
	size_t i;
	uint32_t k;

	for (i = 0; i < p->nrecs; i++) {
		const struct pap_prof_rec *q = &p->recs[i];

		if (strcmp(q->fn, r->fn) || q->kind != r->kind ||
		    q->complete != r->complete || q->count != r->count ||
		    q->value != r->value || q->nbps != r->nbps)
			continue;
		for (k = 0; k < r->nbps; k++)
			if (q->bps[k].site != r->bps[k].site ||
			    q->bps[k].r != r->bps[k].r)
				break;
		if (k == r->nbps)
			return 1;
	}
	return 0;
}

static void pk_assert_same(const struct pap_profile *a,
			   const struct pap_profile *b)
{
	size_t i;

	assert_int_equal(a->nrecs, b->nrecs);
	for (i = 0; i < a->nrecs; i++)
		if (!pk_has(b, &a->recs[i]))
			fail_msg("record %zu (%s, kind %u) did not come back",
				 i, a->recs[i].fn, a->recs[i].kind);
}

/*
 * test_profkinds_round_trip: the three kinds, next to a path, written as
 * text (version 7, the kinds' letters and the key prefixes of
 * records.h) and as binary (version 7, the segment flagged), read back
 * equal, record for record; the text written again is the same bytes,
 * and so is the binary.
 */
static void test_profkinds_round_trip(void **state)
{
	struct pap_profile p, t, b;
	struct bytes text, bin, text2, bin2;
	char err[256] = "";

	(void)state;
	pap_profile_init(&p);
	pap_profile_init(&t);
	pap_profile_init(&b);
	pk_fill(&p);
	text = pk_write(&p, pap_profile_write_text);
	assert_true(!strncmp((char *)text.d, "pap-profile 7\n", 14));
	assert_non_null(strstr((char *)text.d, "\nc " CALLS " 0 1 17 3 "));
	assert_non_null(strstr((char *)text.d, "\ng " PROG " 1 1 2 2 0 "));
	assert_non_null(strstr((char *)text.d, "\nu " UNIT1 " 1 0\n"));
	assert_non_null(strstr((char *)text.d, "\np " FN " 1 5 4 0\n"));
	if (pap_profile_parse(&t, (char *)text.d, "k.prof", err, sizeof(err)))
		fail_msg("%s", err);
	pk_assert_same(&p, &t);
	text2 = pk_write(&t, pap_profile_write_text);
	assert_int_equal(text.n, text2.n);
	assert_memory_equal(text.d, text2.d, text.n);

	bin = pk_write(&p, pap_profile_write);
	assert_int_equal(bin.d[8], 7);
	assert_int_equal(bin.d[PAP_PROFBIN_HEAD + 4], PAP_PROFBIN_SEG_KINDS);
	if (pap_profile_parse_mem(&b, bin.d, bin.n, "k.prof", err,
				  sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(err, "");
	pk_assert_same(&p, &b);
	bin2 = pk_write(&b, pap_profile_write);
	assert_int_equal(bin.n, bin2.n);
	assert_memory_equal(bin.d, bin2.d, bin.n);
	free(text.d);
	free(text2.d);
	free(bin.d);
	free(bin2.d);
	pap_profile_free(&p);
	pap_profile_free(&t);
	pap_profile_free(&b);
}

/*
 * test_profkinds_intra_unchanged: a profile of paths only is written as
 * text version 6 and as a binary segment without the flag (its body
 * three groups a function, as version 6 wrote it), so that it reads
 * with its header patched back to version 6; once a CALLS record joins,
 * the text is version 7.
 */
static void test_profkinds_intra_unchanged(void **state)
{
	const struct pap_breakpoint bp = { 3, 4 };
	struct pap_profile p, q;
	struct bytes text, bin;
	char err[256];

	(void)state;
	pap_profile_init(&p);
	pap_profile_init(&q);
	assert_int_equal(pap_profile_add(&p, FN, PAP_REC_PATH, 0, 9, &bp, 1,
					 2), 0);
	assert_int_equal(pap_profile_add(&p, FN, PAP_REC_BL, 1, 3, NULL, 0,
					 1), 0);
	text = pk_write(&p, pap_profile_write_text);
	assert_string_equal((char *)text.d, "pap-profile 6\np " FN
			    " 0 2 9 1 3 4\nb " FN " 1 3\ne 2\n");
	bin = pk_write(&p, pap_profile_write);
	assert_int_equal(bin.d[PAP_PROFBIN_HEAD + 4], 0);
	bin.d[8] = 6;
	if (pap_profile_parse_mem(&q, bin.d, bin.n, "k.prof", err,
				  sizeof(err)))
		fail_msg("%s", err);
	pk_assert_same(&p, &q);
	free(text.d);
	assert_int_equal(pap_profile_add(&p, CALLS, PAP_REC_CALLS, 1, 1, NULL,
					 0, 1), 0);
	text = pk_write(&p, pap_profile_write_text);
	assert_true(!strncmp((char *)text.d, "pap-profile 7\n", 14));
	free(text.d);
	free(bin.d);
	pap_profile_free(&p);
	pap_profile_free(&q);
}

/*
 * test_profkinds_text_refused: lines a version 7 reader refuses, each
 * with the file, the line and what is wrong: a kind's letter in a
 * version 6 profile, a key of another kind, a function's kind under a
 * program's key, a program or unit not complete, a unit with
 * breakpoints, a version 8.  Version 6 and 1 profiles still read.
 */
static void test_profkinds_text_refused(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "pap-profile 6\nc " CALLS " 1 1 1 0\ne 1\n",
		  "k.prof:2: error: a 'c' record in a version 6 profile (it "
		  "needs version 7)" },
		{ "pap-profile 7\nc " PROG " 1 1 1 0\ne 1\n",
		  "k.prof:2: error: a 'c' record's key must start with "
		  "'%calls:', not '" PROG "'" },
		{ "pap-profile 7\nu " CALLS " 1 0\ne 1\n",
		  "k.prof:2: error: a 'u' record's key must start with "
		  "'%unit:'" },
		{ "pap-profile 7\np " CALLS " 1 1 1 0\ne 1\n",
		  "k.prof:2: error: a 'p' record's key '" CALLS "' is a "
		  "program's, not a function's" },
		{ "pap-profile 7\ng " PROG " 0 1 1 0\ne 1\n",
		  "k.prof:2: error: a 'g' record is always complete" },
		{ "pap-profile 7\nu " UNIT1 " 1 0 0\ne 1\n",
		  "k.prof:2: error: unexpected '0'" },
		{ "pap-profile 7\nc %calls:xyz 1 1 1 0\ne 1\n",
		  "k.prof:2: error: bad function key '%calls:xyz'" },
		{ "pap-profile 8\n", "k.prof:1: error: profile version '8' is "
		  "not supported (this pap reads text versions 1 to 3 and 6 "
		  "to 7" },
		{ "pap-profile 7\nc " CALLS " 1 2 1 1 4 5\ng " PROG
		  " 1 1 1 1 0 6\nu " UNIT1 " 1 0\ne 3\n", NULL },
		{ "pap-profile 6\np " FN " 1 1 4 0\ne 1\n", NULL },
		{ "pap-profile 1\np " FN " 1 1 4 0\n", NULL },
	};
	struct pap_profile p;
	char err[256];
	size_t i;
	int r;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pap_profile_init(&p);
		r = pap_profile_parse(&p, cases[i].text, "k.prof", err,
				      sizeof(err));
		if (!cases[i].want && r)
			fail_msg("case %zu: %s", i, err);
		if (cases[i].want) {
			assert_int_not_equal(r, 0);
			if (strncmp(err, cases[i].want, strlen(cases[i].want)))
				fail_msg("case %zu: '%s'", i, err);
			assert_int_equal(p.nrecs, 0);
		}
		pap_profile_free(&p);
	}
}

/* @b's segment at PAP_PROFBIN_HEAD checksummed again: a body changed
 * inside its framing. */
static void pk_reframe(struct bytes *b)
{
	unsigned char *seg = b->d + PAP_PROFBIN_HEAD;
	uint64_t len = 0, h;
	unsigned i;

	for (i = 0; i < 8; i++)
		len |= (uint64_t)seg[8 + i] << (8 * i);
	h = pap_fnv1a(seg + PAP_PROFBIN_SEG_HEAD, (size_t)len);
	for (i = 0; i < 8; i++)
		seg[PAP_PROFBIN_SEG_HEAD + len + i] =
			(unsigned char)(h >> (8 * i));
}

/* @b with its first @n-byte occurrence of @from replaced by @to. */
static void pk_patch(struct bytes *b, const char *from, const char *to,
		     size_t n)
{
	size_t i;

	for (i = 0; i + n <= b->n; i++)
		if (!memcmp(b->d + i, from, n)) {
			memcpy(b->d + i, to, n);
			return;
		}
	fail_msg("'%s' is not in the file", from);
}

/*
 * test_profkinds_binary_refused: a flagged segment in a version 6 file,
 * an unknown segment flag, and program records under a key of another
 * kind (the body checksummed again, so that only the reader's check can
 * see it) are refused, each with the file and the byte.
 */
static void test_profkinds_binary_refused(void **state)
{
	struct pap_profile p, q;
	struct bytes bin;
	char err[256];

	(void)state;
	pap_profile_init(&p);
	pk_fill(&p);
	bin = pk_write(&p, pap_profile_write);

	bin.d[8] = 6;
	pap_profile_init(&q);
	assert_int_not_equal(pap_profile_parse_mem(&q, bin.d, bin.n, "k.prof",
						   err, sizeof(err)), 0);
	assert_non_null(strstr(err, "k.prof: error: byte 28: a segment with "
			       "the program kinds' records in a version 6 "
			       "profile"));
	pap_profile_free(&q);
	bin.d[8] = 7;

	bin.d[PAP_PROFBIN_HEAD + 4] = 2;
	pap_profile_init(&q);
	assert_int_not_equal(pap_profile_parse_mem(&q, bin.d, bin.n, "k.prof",
						   err, sizeof(err)), 0);
	assert_non_null(strstr(err, "k.prof: error: byte 24: not the start "
			       "of a segment"));
	pap_profile_free(&q);
	bin.d[PAP_PROFBIN_HEAD + 4] = PAP_PROFBIN_SEG_KINDS;

	/* the units' key made a function's: its records are units' */
	pk_patch(&bin, "%unit:a1b2", "xunit:a1b2", 10);
	pk_reframe(&bin);
	pap_profile_init(&q);
	assert_int_not_equal(pap_profile_parse_mem(&q, bin.d, bin.n, "k.prof",
						   err, sizeof(err)), 0);
	assert_non_null(strstr(err, "k.prof: error: byte "));
	assert_non_null(strstr(err, "unit records under the key 'xunit:a1b2"));
	pap_profile_free(&q);
	free(bin.d);
	pap_profile_free(&p);
}

/*
 * test_profkinds_merge_and_stale: records of the three kinds merge by
 * key and content (counts add); two programs' CALLS and PROG records
 * (two PROGSUMs) and two builds of a unit (two UNITSUMs of one METAFILE)
 * are all kept when a later segment would drop a function's older build.
 */
static void test_profkinds_merge_and_stale(void **state)
{
	struct pap_profile a, b;
	uint64_t nstale = 0;
	size_t nfns = 0, i;

	(void)state;
	pap_profile_init(&a);
	pap_profile_init(&b);
	pk_fill(&a);
	pk_fill(&b);
	assert_int_equal(pap_profile_merge(&a, &b), 0);
	assert_int_equal(a.nrecs, 7);
	for (i = 0; i < a.nrecs; i++)
		if (a.recs[i].kind == PAP_REC_CALLS && a.recs[i].value == 17)
			assert_int_equal(a.recs[i].count, 2);
	a.gen = 1;
	pap_profile_free(&b);
	pap_profile_init(&b);
	b.gen = 2;
	assert_int_equal(pap_profile_add(&b, PAP_REC_CALLS_PREFIX
					 "00000000000000aa", PAP_REC_CALLS, 1,
					 1, NULL, 0, 1), 0);
	assert_int_equal(pap_profile_add(&b, PAP_REC_UNIT_PREFIX
					 "00000000000000bb:/tmp/u1.papm",
					 PAP_REC_UNIT, 1, 0, NULL, 0, 1), 0);
	assert_int_equal(pap_profile_add(&b, "work:00000000000000cc",
					 PAP_REC_PATH, 1, 4, NULL, 0, 1), 0);
	a.gen = 2;
	assert_int_equal(pap_profile_merge(&a, &b), 0);
	/* the names' ages: a's from gen 1, b's from 2 */
	for (i = 0; i < a.nnames; i++)
		a.names[i].gen = strstr(a.names[i].text, "00000000000000") ?
				 2 : 1;
	assert_int_equal(pap_profile_drop_stale(&a, &nstale, &nfns), 0);
	/* only the function's older build went */
	assert_int_equal(nstale, 1);
	assert_int_equal(nfns, 1);
	assert_int_equal(a.nrecs, 6 + 3);
	pap_profile_free(&a);
	pap_profile_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profkinds_round_trip),
		cmocka_unit_test(test_profkinds_intra_unchanged),
		cmocka_unit_test(test_profkinds_text_refused),
		cmocka_unit_test(test_profkinds_binary_refused),
		cmocka_unit_test(test_profkinds_merge_and_stale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
