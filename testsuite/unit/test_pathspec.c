/* SPDX-License-Identifier: MIT */
/*
 * test_pathspec.c - path spec files: what pap-decode --write-spec writes,
 * the reader takes back; every malformed line is refused with its place.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "cfgmodel.h"
#include "pathspec.h"

/* test_pathspec_round_trip: two paths written with the writer's calls
 * read back field for field, comments and blank lines skipped. */
static void test_pathspec_round_trip(void **state)
{
	static const uint32_t a[] = { 2, 3, 4, 3, 4, 5 }, b[] = { 2, 6 };
	struct pap_spec s;
	char *text = NULL, err[256];
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(pap_spec_put_header(f), 0);
	assert_int_equal(pap_spec_put_path_head(f, "work", 0xfedcba9876543210ull,
						42), 0);
	for (i = 0; i < 6; i++)
		fprintf(f, " %u", a[i]);
	fputs("\n# hot\n\n", f);
	assert_int_equal(pap_spec_put_path_head(f, "main", 1, 1), 0);
	fprintf(f, " %u %u\n", b[0], b[1]);
	fclose(f);
	assert_string_equal(text, "pap-spec 1\npath work fedcba9876543210 42 "
			    "2 3 4 3 4 5\n# hot\n\npath main 0000000000000001 "
			    "1 2 6\n");
	pap_spec_init(&s);
	assert_int_equal(pap_spec_parse(&s, text, "t.spec", err, sizeof(err)),
			 PAP_OK);
	assert_int_equal(s.npaths, 2);
	assert_string_equal(s.paths[0].name, "work");
	assert_true(s.paths[0].checksum == 0xfedcba9876543210ull);
	assert_int_equal(s.paths[0].count, 42);
	assert_int_equal(s.paths[0].nblocks, 6);
	assert_memory_equal(s.paths[0].blocks, a, sizeof(a));
	assert_int_equal(s.paths[0].line, 2);
	assert_string_equal(s.paths[1].name, "main");
	assert_int_equal(s.paths[1].nblocks, 2);
	assert_int_equal(s.paths[1].line, 5);
	pap_spec_free(&s);
	free(text);
}

/* test_pathspec_errors: each malformed file is refused with "FILE:LINE:
 * error:" and adds nothing, even after good lines. */
static void test_pathspec_errors(void **state)
{
	static const struct {
		const char *text, *where;
	} bad[] = {
		{ "", "s:1: error: empty file" },
		{ "pap-prof 1\n", "s:1: error: not a pap path spec" },
		{ "pap-spec 2\n", "s:1: error: path spec version 2 not" },
		{ "pap-spec 1x\n", "s:1: error: path spec version" },
		{ "pap-spec 1\npath f 0000000000000001 1 2\npath\n",
		  "s:3: error: missing function name" },
		{ "pap-spec 1\npath f 00001 1 2\n", "s:2: error: checksum" },
		{ "pap-spec 1\npath f 000000000000000G 1 2\n",
		  "s:2: error: checksum '000000000000000G' is not" },
		{ "pap-spec 1\npath f 0000000000000001\n",
		  "s:2: error: missing count" },
		{ "pap-spec 1\npath f 0000000000000001 7\n",
		  "s:2: error: a path of no blocks" },
		{ "pap-spec 1\npath f 0000000000000001 7 2 4294967296\n",
		  "s:2: error: block '4294967296' is too large" },
		{ "pap-spec 1\npath f 0000000000000001 7 2 -3\n",
		  "s:2: error: block '-3' is not" },
		{ "pap-spec 1\nlines f 10 11\n", "s:2: error: unknown line" },
	};
	struct pap_spec s;
	char err[256];
	size_t i;

	(void)state;
	pap_spec_init(&s);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		if (pap_spec_parse(&s, bad[i].text, "s", err, sizeof(err)) !=
		    PAP_ECORRUPT)
			fail_msg("case %zu was not refused", i);
		if (strncmp(err, bad[i].where, strlen(bad[i].where)))
			fail_msg("case %zu: '%s', not '%s...'", i, err,
				 bad[i].where);
		assert_int_equal(s.npaths, 0);
	}
	pap_spec_free(&s);
}

/* test_pathspec_later_minor: a later minor version's unknown lines are
 * skipped, its paths kept. */
static void test_pathspec_later_minor(void **state)
{
	struct pap_spec s;
	char err[256];

	(void)state;
	pap_spec_init(&s);
	assert_int_equal(pap_spec_parse(&s, "pap-spec 1.3\nlines f 10 11\n"
					"path f 0000000000000002 3 2 5\n", "s",
					err, sizeof(err)), PAP_OK);
	assert_int_equal(s.npaths, 1);
	assert_int_equal(s.paths[0].nblocks, 2);
	pap_spec_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pathspec_round_trip),
		cmocka_unit_test(test_pathspec_errors),
		cmocka_unit_test(test_pathspec_later_minor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
