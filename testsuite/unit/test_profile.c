/* SPDX-License-Identifier: MIT */
/*
 * test_profile.c - the profile file format: what the runtime writes, the
 * reader reads back, however long the path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bpack.h"
#include "profdata.h"

#define FN "work:0123456789abcdef"

/* Reads all of @f from its start into a NUL-terminated buffer. */
static char *slurp(FILE *f)
{
	long n;
	char *text;

	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	text = malloc((size_t)n + 1);
	assert_non_null(text);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = 0;
	return text;
}

/* test_profile_many_breakpoints: one activation with 2^24 + 1 breakpoints
 * (an -O0 csmith loop made about that many) is written and read back
 * equal; the reader once refused any record over 2^24. */
static void test_profile_many_breakpoints(void **state)
{
	const uint32_t n = (1u << 24) + 1;
	struct pap_breakpoint *bps = malloc(n * sizeof(*bps));
	struct pap_profile in, out;
	char err[256] = "", *text;
	FILE *f = tmpfile();
	uint32_t i;

	(void)state;
	assert_non_null(bps);
	assert_non_null(f);
	/* all different: a record holds its breakpoints packed, and these
	 * have nothing to pack (bpack.h) */
	for (i = 0; i < n; i++) {
		bps[i].site = i % 7;
		bps[i].r = (uint64_t)i * 0x9e3779b97f4a7c15ull;
	}
	pap_profile_init(&in);
	pap_profile_init(&out);
	assert_int_equal(pap_profile_add(&in, FN, PAP_REC_PATH, 1, 5, bps, n,
					 2), 0);
	assert_int_equal(pap_profile_write_text(&in, f), 0);
	text = slurp(f);
	if (pap_profile_parse(&out, text, "big.prof", err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(out.nrecs, 1);
	assert_int_equal(out.recs[0].nbps, n);
	assert_int_equal(out.recs[0].count, 2);
	assert_int_equal(out.recs[0].value, 5);
	/* field by field: the structure's padding is nobody's content */
	for (i = 0; i < n; i++)
		if (out.recs[0].bps[i].site != bps[i].site ||
		    out.recs[0].bps[i].r != bps[i].r)
			fail_msg("breakpoint %u differs", i);
	free(text);
	fclose(f);
	free(bps);
	pap_profile_free(&in);
	pap_profile_free(&out);
}

/* test_profile_claimed_count: a record that claims four billion
 * breakpoints but holds one is refused as malformed, naming its line,
 * without first allocating for the claim. */
static void test_profile_claimed_count(void **state)
{
	static const char text[] = "pap-profile 1\n"
				   "p " FN " 1 1 0 4000000000 3 1\n";
	struct pap_profile p;
	char err[256] = "";

	(void)state;
	pap_profile_init(&p);
	assert_int_not_equal(pap_profile_parse(&p, text, "claim.prof", err,
					       sizeof(err)), 0);
	assert_non_null(strstr(err, "claim.prof:2: error: missing breakpoint site"));
	assert_int_equal(p.nrecs, 0);
	pap_profile_free(&p);
}

/* Writes @len bytes of @text to a new temporary file, named in @path. */
static void write_temp(char *path, const char *text, size_t len)
{
	int fd;

	strcpy(path, "/tmp/pap-test-profile-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}

/*
 * Reads @len bytes of @text both ways, whole (pap_profile_parse) and as a
 * file a piece at a time (pap_profile_read_file), and checks that they
 * agree: the same records, or the same error after the file's name.
 * Returns the error of the file reader, which is in @err.
 */
static int read_both_ways(const char *text, size_t len, size_t max,
			  char *err, size_t errlen)
{
	struct pap_profile a, b;
	char path[64], err1[256] = "";
	size_t i;
	int r1, r2;

	write_temp(path, text, len);
	pap_profile_init(&a);
	pap_profile_init(&b);
	r1 = strlen(text) != len ? -1 :
		pap_profile_parse(&a, text, path, err1, sizeof(err1));
	if (r1 == -1)
		snprintf(err1, sizeof(err1), "%s: error: not a text file",
			 path);
	else if (len > max)
		snprintf(err1, sizeof(err1), "%s: error: file too large", path);
	r2 = pap_profile_read_file(&b, path, max, err, errlen, NULL);
	unlink(path);
	assert_int_equal(!r1 && len <= max, !r2);
	if (r2) {
		assert_string_equal(err1, err);
	} else {
		assert_int_equal(a.nrecs, b.nrecs);
		assert_int_equal(a.lost, b.lost);
		for (i = 0; i < a.nrecs; i++) {
			uint32_t k;

			assert_int_equal(a.recs[i].hash, b.recs[i].hash);
			assert_int_equal(a.recs[i].count, b.recs[i].count);
			assert_int_equal(a.recs[i].nbps, b.recs[i].nbps);
			for (k = 0; k < a.recs[i].nbps; k++)
				if (a.recs[i].bps[k].site !=
				    b.recs[i].bps[k].site ||
				    a.recs[i].bps[k].r != b.recs[i].bps[k].r)
					fail_msg("record %zu breakpoint %u", i,
						 k);
		}
	}
	pap_profile_free(&a);
	pap_profile_free(&b);
	return r2;
}

/* Writes @p to a string. */
static char *write_text(const struct pap_profile *p)
{
	FILE *f = tmpfile();
	char *text;

	assert_non_null(f);
	assert_int_equal(pap_profile_write_text(p, f), 0);
	text = slurp(f);
	fclose(f);
	return text;
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * test_profile_order: 300 distinct records of 4 functions, each added 1 to
 * 3 times in a shuffled order, to a profile keyed by text and to one keyed
 * by address where every function has two addresses.  The file holds
 * exactly the expected lines (built here with snprintf, counts summed),
 * its functions in strcmp order; the by-address profile merged into an
 * empty one, or written and read back, writes the same file.
 */
static void test_profile_order(void **state)
{
	static char names[2][4][32];
	enum { NREC = 300, MAXBPS = 6 };
	struct {
		int fn, kind, complete, nbps, count;
		uint64_t value;
		struct pap_breakpoint bps[MAXBPS];
	} rec[NREC];
	int order[NREC * 3], n = 0, i, k, j;
	struct pap_profile a, b, c, d;
	char *want[NREC], *got[NREC + 1], *ta, *tb, *tc, *td, *line, err[256];
	uint64_t seed = 12345;
	size_t ngot = 0;

	(void)state;
	/* the names' order is not the order they are first seen in */
	for (i = 0; i < 4; i++)
		for (k = 0; k < 2; k++)
			snprintf(names[k][i], sizeof(names[k][i]),
				 "%c_fn:%016x", "dbca"[i], i);
#define RND() (seed = seed * 6364136223846793005ull + 1442695040888963407ull, \
	       (unsigned)(seed >> 33))
	for (i = 0; i < NREC; i++) {
		/* distinct by construction: the value is the index */
		rec[i].fn = (int)(RND() % 4);
		rec[i].kind = RND() % 3 == 0 ? PAP_REC_BL : PAP_REC_PATH;
		rec[i].complete = rec[i].kind == PAP_REC_BL ? 1 : (int)(RND() % 2);
		rec[i].value = (uint64_t)i * 0x100000001ull % 977;
		rec[i].value = rec[i].value * 1000 + (uint64_t)i;
		rec[i].nbps = rec[i].kind == PAP_REC_BL ? 0 :
			      (int)(RND() % (MAXBPS + 1));
		for (k = 0; k < rec[i].nbps; k++) {
			rec[i].bps[k].site = RND() % 5;
			rec[i].bps[k].r = (uint64_t)RND() << 31 | RND();
		}
		rec[i].count = 1 + (int)(RND() % 3);
		for (k = 0; k < rec[i].count; k++)
			order[n++] = i;
	}
	for (i = n - 1; i > 0; i--) {
		j = (int)(RND() % (unsigned)(i + 1));
		k = order[i];
		order[i] = order[j];
		order[j] = k;
	}
	pap_profile_init(&a);
	pap_profile_init(&b);
	pap_profile_init(&c);
	pap_profile_init(&d);
	b.by_address = 1;
	for (i = 0; i < n; i++) {
		int r = order[i];

		assert_int_equal(pap_profile_add(&a, names[0][rec[r].fn],
						 (uint8_t)rec[r].kind,
						 (uint8_t)rec[r].complete,
						 rec[r].value, rec[r].bps,
						 (uint32_t)rec[r].nbps, 1), 0);
		assert_int_equal(pap_profile_add(&b, names[RND() % 2][rec[r].fn],
						 (uint8_t)rec[r].kind,
						 (uint8_t)rec[r].complete,
						 rec[r].value, rec[r].bps,
						 (uint32_t)rec[r].nbps, 1), 0);
	}
#undef RND
	for (i = 0; i < NREC; i++) {
		char buf[1024];
		int at;

		if (rec[i].kind == PAP_REC_BL) {
			at = snprintf(buf, sizeof(buf), "b %s %d %llu",
				      names[0][rec[i].fn], rec[i].count,
				      (unsigned long long)rec[i].value);
		} else {
			at = snprintf(buf, sizeof(buf), "p %s %d %d %llu %d",
				      names[0][rec[i].fn], rec[i].complete,
				      rec[i].count,
				      (unsigned long long)rec[i].value,
				      rec[i].nbps);
			for (k = 0; k < rec[i].nbps; k++)
				at += snprintf(buf + at, sizeof(buf) - (size_t)at,
					       " %u %llu", rec[i].bps[k].site,
					       (unsigned long long)rec[i].bps[k].r);
		}
		want[i] = strdup(buf);
		assert_non_null(want[i]);
	}
	qsort(want, NREC, sizeof(*want), line_cmp);
	ta = write_text(&a);
	assert_true(strncmp(ta, "pap-profile 6\n", 14) == 0);
	for (line = strtok(ta + 14, "\n"); line; line = strtok(NULL, "\n")) {
		assert_true(ngot <= NREC);
		got[ngot++] = line;
	}
	/* the records, then the end line counting them */
	assert_int_equal(ngot, NREC + 1);
	{
		char end[32];

		snprintf(end, sizeof(end), "e %d", NREC);
		assert_string_equal(got[NREC], end);
	}
	/* functions in order: the second word never goes down */
	for (i = 1; i < NREC; i++)
		assert_true(strcmp(strchr(got[i - 1], ' ') + 1,
				   strchr(got[i], ' ') + 1) < 0 ||
			    strncmp(strchr(got[i - 1], ' ') + 1,
				    strchr(got[i], ' ') + 1, 21) == 0);
	/* within a function, kind and completeness, records without
	 * breakpoints come by value, and before those with breakpoints */
	for (i = 1; i < NREC; i++) {
		char fa[64], fb[64];
		int ca = 1, cb = 1, na = 0, nb = 0;
		unsigned long long va, vb, x;

		if (got[i - 1][0] == 'b')
			assert_int_equal(sscanf(got[i - 1], "b %63s %llu %llu",
						fa, &x, &va), 3);
		else
			assert_int_equal(sscanf(got[i - 1], "p %63s %d %llu %llu %d",
						fa, &ca, &x, &va, &na), 5);
		if (got[i][0] == 'b')
			assert_int_equal(sscanf(got[i], "b %63s %llu %llu",
						fb, &x, &vb), 3);
		else
			assert_int_equal(sscanf(got[i], "p %63s %d %llu %llu %d",
						fb, &cb, &x, &vb, &nb), 5);
		if (strcmp(fa, fb) || got[i - 1][0] != got[i][0] || ca != cb)
			continue;
		assert_true(na == 0 || nb != 0);
		if (!na && !nb)
			assert_true(va < vb);
	}
	qsort(got, NREC, sizeof(*got), line_cmp);
	for (i = 0; i < NREC; i++)
		assert_string_equal(got[i], want[i]);
	free(ta);
	ta = write_text(&a);
	assert_int_equal(pap_profile_merge(&c, &b), 0);
	tc = write_text(&c);
	assert_string_equal(tc, ta);
	tb = write_text(&b);
	if (pap_profile_parse(&d, tb, "b.prof", err, sizeof(err)))
		fail_msg("%s", err);
	td = write_text(&d);
	assert_string_equal(td, ta);
	for (i = 0; i < NREC; i++)
		free(want[i]);
	free(ta);
	free(tb);
	free(tc);
	free(td);
	pap_profile_free(&a);
	pap_profile_free(&b);
	pap_profile_free(&c);
	pap_profile_free(&d);
}

/* test_profile_numbers: every number of digits from 1 to 20, at both
 * ends of its range and around 2^32, is written as printf writes it. */
static void test_profile_numbers(void **state)
{
	struct pap_breakpoint bps[64];
	struct pap_profile p;
	uint64_t ten = 1;
	uint32_t n = 0, i;
	char want[4096], *text;
	int at;

	(void)state;
	bps[n++].r = 0;
	bps[n++].r = UINT32_MAX;
	bps[n++].r = (uint64_t)UINT32_MAX + 1;
	for (i = 1; i <= 19; i++) {
		ten *= 10;
		bps[n++].r = ten - 1;
		bps[n++].r = ten;
	}
	bps[n++].r = UINT64_MAX;
	for (i = 0; i < n; i++)
		bps[i].site = i * 1000003u;
	pap_profile_init(&p);
	assert_int_equal(pap_profile_add(&p, FN, PAP_REC_PATH, 1, UINT64_MAX,
					 bps, n, 1), 0);
	at = snprintf(want, sizeof(want), "pap-profile 6\np %s 1 1 %llu %u",
		      FN, (unsigned long long)UINT64_MAX, n);
	for (i = 0; i < n; i++)
		at += snprintf(want + at, sizeof(want) - (size_t)at,
			       " %u %llu", bps[i].site,
			       (unsigned long long)bps[i].r);
	snprintf(want + at, sizeof(want) - (size_t)at, "\ne 1\n");
	text = write_text(&p);
	assert_string_equal(text, want);
	free(text);
	pap_profile_free(&p);
}

/* test_profile_repeats: a record holding a repeat (bpack.h) is written
 * and reads back equal; a repeat in an older version, or
 * one that reaches before the path's start, is refused, naming the line;
 * an older version's long path is packed as it is read. */
static void test_profile_repeats(void **state)
{
	struct pap_breakpoint bps[3] = {
		{ 1, 7 }, { 2, 8 },
		{ PAP_BP_REPEAT, (uint64_t)2 << 32 | 5 },
	};
	struct pap_profile p, q;
	char err[256], *text;

	(void)state;
	pap_profile_init(&p);
	pap_profile_init(&q);
	assert_int_equal(pap_profile_add(&p, FN, PAP_REC_PATH, 1, 9, bps, 3,
					 4), 0);
	p.lost = 2;
	text = write_text(&p);
	assert_string_equal(text, "pap-profile 6\nl 2\np " FN " 1 4 9 3 1 7 2 "
			    "8 4294967294 8589934597\ne 2\n");
	if (pap_profile_parse(&q, text, "r.prof", err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(q.nrecs, 1);
	assert_int_equal(q.recs[0].hash, p.recs[0].hash);
	free(text);
	assert_int_not_equal(pap_profile_parse(&q, "pap-profile 2\np " FN
					       " 1 1 9 3 1 7 2 8 4294967294 "
					       "8589934597\n", "r.prof", err,
					       sizeof(err)), 0);
	assert_string_equal(err, "r.prof:2: error: a repeat in a version 2 "
			    "profile");
	assert_int_not_equal(pap_profile_parse(&q, "pap-profile 3\np " FN
					       " 1 1 9 2 1 7 4294967294 "
					       "8589934597\n", "r.prof", err,
					       sizeof(err)), 0);
	assert_non_null(strstr(err, "r.prof:2: error: a repeat of length or "
			       "distance 0, or reaching before"));
	assert_int_equal(q.nrecs, 1);
	{
		/* a version 2 file's long path is packed as it would be
		 * now, and merges with the packed one */
		char v2[1024] = "pap-profile 2\np " FN " 1 2 5 40";
		size_t at = strlen(v2);
		int k;

		for (k = 0; k < 40; k++)
			at += (size_t)snprintf(v2 + at, sizeof(v2) - at, " %d %d",
					       k % 2, 100 + k % 2);
		snprintf(v2 + at, sizeof(v2) - at, "\n");
		if (pap_profile_parse(&q, v2, "v2.prof", err, sizeof(err)) ||
		    pap_profile_parse(&q, "pap-profile 3\np " FN " 1 3 5 3 0 "
				      "100 1 101 4294967294 8589934630\n",
				      "v3.prof", err, sizeof(err)))
			fail_msg("%s", err);
		assert_int_equal(q.nrecs, 2);
		assert_int_equal(q.recs[1].nbps, 3);
		assert_int_equal(q.recs[1].count, 5);
	}
	pap_profile_free(&p);
	pap_profile_free(&q);
}

/* test_profile_cut_short: a text profile cut short by its last newline
 * is refused, naming the line, whether read from memory or from a file:
 * the digits after the cut may be gone ("10" read as "1"). */
static void test_profile_cut_short(void **state)
{
	static const char *const cut[] = {
		"pap-profile 1",
		"pap-profile 1\np " FN " 1 1 4 0",
		"pap-profile 1\np " FN " 1 10 4 0\np " FN " 1 1 5 0",
	};
	static const unsigned line[] = { 1, 2, 3 };
	char err[256], want[128], path[] = "/tmp/test_profile_cut.XXXXXX";
	struct pap_profile p;
	size_t i;
	int fd;

	(void)state;
	for (i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		snprintf(want, sizeof(want), "c.prof:%u: error: the last line "
			 "has no newline: the file is cut short", line[i]);
		pap_profile_init(&p);
		assert_int_not_equal(pap_profile_parse(&p, cut[i], "c.prof",
						       err, sizeof(err)), 0);
		assert_string_equal(err, want);
		assert_int_equal(p.nrecs, 0);
		pap_profile_free(&p);

		fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_true(write(fd, cut[i], strlen(cut[i])) ==
			    (ssize_t)strlen(cut[i]));
		close(fd);
		pap_profile_init(&p);
		assert_int_not_equal(pap_profile_read_file(&p, path, 1 << 20,
							   err, sizeof(err),
							   NULL), 0);
		assert_non_null(strstr(err, want + 6));
		pap_profile_free(&p);
		unlink(path);
		strcpy(path + strlen(path) - 6, "XXXXXX");
	}
}

/* test_profile_end_line: a version 6 text profile cut at a line's end,
 * which no newline check can see, is refused for its missing end line,
 * from memory and from a file; an end line counting other than the lines
 * before it, or a line after it, is refused; versions 1 to 3 have none. */
static void test_profile_end_line(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "pap-profile 6\n", "c.prof:2: error: the profile ends "
		  "without its end line ('e LINES'): the file is cut short" },
		{ "pap-profile 6\nl 3\np " FN " 1 1 4 0\n", "c.prof:4: error: "
		  "the profile ends without its end line" },
		{ "pap-profile 6\np " FN " 1 1 4 0\ne 1\n", NULL },
		{ "pap-profile 6\ne 0\n", NULL },
		{ "pap-profile 6\np " FN " 1 1 4 0\ne 2\n", "c.prof:3: error: "
		  "the end line counts 2 lines, but 1 came before it" },
		{ "pap-profile 6\ne 0\np " FN " 1 1 4 0\ne 1\n", "c.prof:3: "
		  "error: a line after the end line" },
		{ "pap-profile 3\np " FN " 1 1 4 0\n", NULL },
		{ "pap-profile 3\np " FN " 1 1 4 0\ne 1\n", "c.prof:3: error: "
		  "unknown record" },
		{ "pap-profile 5\n", "c.prof:1: error: profile version '5' is "
		  "not supported" },
	};
	char err[256], path[] = "/tmp/test_profile_end.XXXXXX";
	struct pap_profile p;
	size_t i;
	int fd, r;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pap_profile_init(&p);
		r = pap_profile_parse(&p, cases[i].text, "c.prof", err,
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

		fd = mkstemp(path);
		assert_true(fd >= 0);
		assert_true(write(fd, cases[i].text, strlen(cases[i].text)) ==
			    (ssize_t)strlen(cases[i].text));
		close(fd);
		pap_profile_init(&p);
		r = pap_profile_read_file(&p, path, 1 << 20, err, sizeof(err),
					  NULL);
		assert_int_equal(r != 0, cases[i].want != NULL);
		if (cases[i].want)
			assert_non_null(strstr(err, cases[i].want + 6));
		pap_profile_free(&p);
		unlink(path);
		strcpy(path + strlen(path) - 6, "XXXXXX");
	}
}

/* test_profile_read_file: a file of some 10 MB, lines crossing the
 * reader's 4 MB pieces and one longer than a piece, reads as its whole
 * text parses; damaged anywhere, it gives the same error, naming the
 * same line; a NUL byte or too many bytes are refused as such. */
static void test_profile_read_file(void **state)
{
	struct pap_profile in;
	struct pap_breakpoint *bps = malloc(250000 * sizeof(*bps));
	char err[256], *text;
	FILE *f = tmpfile();
	size_t len, i, at;
	uint32_t k;

	(void)state;
	assert_non_null(bps);
	assert_non_null(f);
	pap_profile_init(&in);
	for (i = 0; i < 1000; i++) {
		uint32_t n = i == 500 ? 250000 : (uint32_t)(i % 300);

		for (k = 0; k < n; k++) {
			bps[k].site = (k * 7 + (uint32_t)i) % 1000;
			bps[k].r = ((uint64_t)k * 0x9e3779b97f4a7c15ull) ^ i;
		}
		assert_int_equal(pap_profile_add(&in, FN, PAP_REC_PATH, 1, i,
						 bps, n, i + 1), 0);
	}
	in.lost = 3;
	assert_int_equal(pap_profile_write_text(&in, f), 0);
	text = slurp(f);
	len = strlen(text);
	assert_true(len > (8u << 20));
	assert_int_equal(read_both_ways(text, len, len, err, sizeof(err)), 0);
	/* damage: a letter in a number, a cut, at places around the file */
	for (i = 1; i < 12; i++) {
		at = len / 12 * i + i * 977 % 4096;
		if (text[at] == '\n')
			at++;
		{
			char c = text[at];

			text[at] = 'x';
			assert_int_not_equal(read_both_ways(text, len, len, err,
							    sizeof(err)), 0);
			assert_non_null(strstr(err, ": error: "));
			text[at] = 0;	/* cut there */
			read_both_ways(text, at, len, err, sizeof(err));
			text[at] = c;
		}
	}
	/* a NUL byte near the end, after a bad line near the start */
	text[100] = 'x';
	text[len - 10] = 0;
	assert_int_not_equal(read_both_ways(text, len, len, err, sizeof(err)),
			     0);
	assert_non_null(strstr(err, "not a text file"));
	text[len - 10] = '1';
	assert_int_not_equal(read_both_ways(text, len, len - 1, err,
					    sizeof(err)), 0);
	assert_non_null(strstr(err, "file too large"));
	assert_int_not_equal(pap_profile_read_file(&in, "/nonexistent/p.prof",
						   len, err, sizeof(err), NULL),
			     0);
	assert_string_equal(err, "/nonexistent/p.prof: error: No such file "
			    "or directory");
	free(text);
	fclose(f);
	free(bps);
	pap_profile_free(&in);
}

/* A small deterministic generator for test_profile_add_many. */
static uint64_t many_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Records @a and @b are the same in every field, breakpoints included. */
static void assert_same_record(const struct pap_prof_rec *a,
			       const struct pap_prof_rec *b)
{
	uint32_t i;

	assert_string_equal(a->fn, b->fn);
	assert_int_equal(a->name, b->name);
	assert_int_equal(a->kind, b->kind);
	assert_int_equal(a->complete, b->complete);
	assert_int_equal(a->count, b->count);
	assert_int_equal(a->value, b->value);
	assert_int_equal(a->hash, b->hash);
	assert_int_equal(a->nbps, b->nbps);
	for (i = 0; i < a->nbps; i++) {
		assert_int_equal(a->bps[i].site, b->bps[i].site);
		assert_int_equal(a->bps[i].r, b->bps[i].r);
	}
}

/*
 * test_profile_add_many: records added in batches of every size from 1
 * to 40 give what pap_profile_add_at() gives one record at a time (the
 * oracle): the same results per record, the same names and records in
 * the same order, by text and by address, and past a record limit the
 * same refusals.
 */
static void test_profile_add_many(void **state)
{
	static const char *const fns[] = { "f:1:m", "g:2:m", "h:3:m",
					   "i:4:m", "j:5:m" };
	static const struct pap_breakpoint pool[] = {
		{ 1, 5 }, { 2, 7 }, { 1, UINT64_MAX }, { 3, 0 }, { 2, 5 },
	};
	enum { N = 6000 };
	struct pap_prof_item *items = calloc(N, sizeof(*items));
	struct pap_breakpoint (*bps)[3] = calloc(N, sizeof(*bps));
	int *errs = calloc(N, sizeof(*errs));
	size_t *ats = calloc(N, sizeof(*ats));
	int mode;

	(void)state;
	assert_non_null(items);
	assert_non_null(bps);
	assert_non_null(errs);
	assert_non_null(ats);
	for (mode = 0; mode < 4; mode++) {
		struct pap_profile one, many;
		uint64_t s = 0x243f6a8885a308d3ull + (uint64_t)mode;
		size_t i, k, done, limited = 0;

		pap_profile_init(&one);
		pap_profile_init(&many);
		one.by_address = many.by_address = mode & 1;
		one.max_recs = many.max_recs = mode & 2 ? 700 : 0;
		for (i = 0; i < N; i++) {
			struct pap_prof_item *it = &items[i];

			it->fn = fns[many_next(&s) % 5];
			it->kind = many_next(&s) % 2;
			it->complete = many_next(&s) % 2;
			it->value = many_next(&s) % 300;
			if (i % 7 == 0)
				it->value <<= 50;	/* alike in low bits */
			it->count = 1 + many_next(&s) % 3;
			it->nbps = many_next(&s) % 4;
			for (k = 0; k < it->nbps; k++)
				bps[i][k] = pool[many_next(&s) % 5];
			it->bps = it->nbps ? bps[i] : NULL;
			errs[i] = pap_profile_add_at(&one, it->fn, it->kind,
						     it->complete, it->value,
						     it->bps, it->nbps,
						     it->count, &ats[i]);
			limited += errs[i] != 0;
		}
		/* the limit case must refuse some, the others none */
		assert_true(mode & 2 ? limited > 0 : limited == 0);
		for (done = 0, k = 1; done < N; done += k, k = k % 40 + 1) {
			if (k > N - done)
				k = N - done;
			pap_profile_add_many(&many, items + done, k);
		}
		for (i = 0; i < N; i++) {
			assert_int_equal(items[i].err, errs[i]);
			if (!errs[i])
				assert_int_equal(items[i].at, ats[i]);
		}
		assert_int_equal(many.nnames, one.nnames);
		for (i = 0; i < one.nnames; i++)
			assert_string_equal(many.names[i].text,
					    one.names[i].text);
		assert_int_equal(many.nrecs, one.nrecs);
		for (i = 0; i < one.nrecs; i++)
			assert_same_record(&many.recs[i], &one.recs[i]);
		pap_profile_free(&one);
		pap_profile_free(&many);
	}
	free(items);
	free(bps);
	free(errs);
	free(ats);
}

/* The multipliers of prof_hash() in libcore/profdata.c. */
#define TIE_P 0x100000001b3ull
#define TIE_G 0x9e3779b97f4a7c15ull

/* The mixing a record's hash ends with, undone: h ^ h >> 29. */
static uint64_t tie_unmix(uint64_t h)
{
	return h ^ h >> 29 ^ h >> 58;
}

static uint64_t tie_mix(uint64_t h)
{
	return h ^ h >> 29;
}

/*
 * test_profile_hash_tie: two records of one function with one breakpoint
 * each and equal hashes (made so from the hash's published steps, see
 * profdata.c's prof_hash) are written by value whichever was added first;
 * 300 other records make the writer sort as it does large profiles.  The
 * hashes' equality is checked first, so a changed hash fails loudly
 * rather than testing nothing.
 */
static void test_profile_hash_tie(void **state)
{
	uint64_t ginv = TIE_G, base, b1, b2;
	struct pap_breakpoint one = { 2, 3 }, two = { 2, 0 };
	int round, i;

	(void)state;
	for (i = 0; i < 6; i++)
		ginv *= 2 - TIE_G * ginv;
	assert_true(TIE_G * ginv == 1);
	for (round = 0; round < 2; round++) {
		struct pap_profile p;
		char *text, *l5, *l9;

		pap_profile_init(&p);
		/* the function's part of the hash, from a record's */
		assert_int_equal(pap_profile_add(&p, FN, PAP_REC_PATH, 1, 77,
						 NULL, 0, 1), 0);
		base = (tie_unmix(p.recs[0].hash) * ginv) ^ 77;
		b1 = (((base ^ 5) * TIE_G) ^ one.site) * TIE_P;
		b2 = (((base ^ 9) * TIE_G) ^ two.site) * TIE_P;
		two.r = b1 ^ one.r ^ b2;
		assert_int_equal(tie_mix((b1 ^ one.r) * TIE_G),
				 tie_mix((b2 ^ two.r) * TIE_G));
		if (round == 0) {
			pap_profile_add(&p, FN, PAP_REC_PATH, 1, 9, &two, 1, 1);
			pap_profile_add(&p, FN, PAP_REC_PATH, 1, 5, &one, 1, 1);
		} else {
			pap_profile_add(&p, FN, PAP_REC_PATH, 1, 5, &one, 1, 1);
			pap_profile_add(&p, FN, PAP_REC_PATH, 1, 9, &two, 1, 1);
		}
		assert_int_equal(p.nrecs, 3);
		assert_true(p.recs[1].hash == p.recs[2].hash);
		for (i = 0; i < 300; i++)
			assert_int_equal(pap_profile_add(&p, "other:0", PAP_REC_BL,
							 1, (uint64_t)i * 7919,
							 NULL, 0, 1), 0);
		text = write_text(&p);
		l5 = strstr(text, " 1 1 5 1 2 3\n");
		l9 = strstr(text, " 1 1 9 1 2 ");
		assert_non_null(l5);
		assert_non_null(l9);
		assert_true(l5 < l9);
		free(text);
		pap_profile_free(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_many_breakpoints),
		cmocka_unit_test(test_profile_claimed_count),
		cmocka_unit_test(test_profile_cut_short),
		cmocka_unit_test(test_profile_end_line),
		cmocka_unit_test(test_profile_order),
		cmocka_unit_test(test_profile_numbers),
		cmocka_unit_test(test_profile_repeats),
		cmocka_unit_test(test_profile_read_file),
		cmocka_unit_test(test_profile_add_many),
		cmocka_unit_test(test_profile_hash_tie),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
