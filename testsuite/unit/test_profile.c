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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_many_breakpoints),
		cmocka_unit_test(test_profile_claimed_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
