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

#include "profile.h"

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
	for (i = 0; i < n; i++) {
		bps[i].site = i % 7;
		bps[i].r = i % 3;
	}
	pap_profile_init(&in);
	pap_profile_init(&out);
	assert_int_equal(pap_profile_add(&in, FN, PAP_REC_PATH, 1, 5, bps, n,
					 2), 0);
	assert_int_equal(pap_profile_write(&in, f), 0);
	text = slurp(f);
	if (pap_profile_parse(&out, text, "big.prof", err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(out.nrecs, 1);
	assert_int_equal(out.recs[0].nbps, n);
	assert_int_equal(out.recs[0].count, 2);
	assert_int_equal(out.recs[0].value, 5);
	assert_memory_equal(out.recs[0].bps, bps, n * sizeof(*bps));
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
	assert_int_equal(pap_profile_write(&in, f), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_many_breakpoints),
		cmocka_unit_test(test_profile_claimed_count),
		cmocka_unit_test(test_profile_read_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
