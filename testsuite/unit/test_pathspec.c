/* SPDX-License-Identifier: MIT */
/*
 * test_pathspec.c - path spec files: what pap-decode --write-spec writes,
 * the reader takes back; a path pasted from the text report is its
 * blocks with the loops written out; version 1 is still read; every
 * malformed line and every path that is not one of its function's is
 * refused with its place; a path named by its source lines resolves
 * exactly as a brute-force search over the graph's paths says; copies of
 * a path are merged.
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
#include "cfgtext.h"
#include "pathspec.h"
#include "testlib.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void parse_ok(struct pap_spec *s, const char *text, const char *file)
{
	if (pap_spec_parse(s, text, file) != PAP_OK || s->nerrors)
		fail_msg("refused: %s", s->msgs ? s->msgs : "");
}

/* test_pathspec_round_trip: two paths written with the writer's calls
 * read back field for field, comments and blank lines skipped. */
static void test_pathspec_round_trip(void **state)
{
	struct pap_spec s;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(pap_spec_put_header(f), 0);
	assert_int_equal(pap_spec_put_path_head(f, NULL, "work",
						0xfedcba9876543210ull, 42), 0);
	fputs(" 2 ( 3 4 )^2 5\n# hot\n\n", f);
	assert_int_equal(pap_spec_put_path_head(f, "src/m.c", "main", 1, 1),
			 0);
	fputs(" 2 6\n", f);
	fclose(f);
	assert_string_equal(text, "pap-spec 2\npath work "
			    "checksum=fedcba9876543210 count=42 2 ( 3 4 )^2 5"
			    "\n# hot\n\npath src/m.c:main "
			    "checksum=0000000000000001 count=1 2 6\n");
	pap_spec_init(&s);
	parse_ok(&s, text, "t.spec");
	assert_int_equal(s.npaths, 2);
	assert_string_equal(s.paths[0].name, "work");
	assert_null(s.paths[0].qual);
	assert_true(s.paths[0].has_checksum);
	assert_true(s.paths[0].checksum == 0xfedcba9876543210ull);
	assert_int_equal(s.paths[0].count, 42);
	assert_int_equal(s.paths[0].nblocks, 6);
	assert_string_equal(s.paths[0].file, "t.spec");
	assert_int_equal(s.paths[0].line, 2);
	assert_string_equal(s.paths[1].name, "main");
	assert_string_equal(s.paths[1].qual, "src/m.c");
	assert_int_equal(s.paths[1].nblocks, 2);
	assert_int_equal(s.paths[1].line, 5);
	pap_spec_free(&s);
	free(text);
}

/* test_pathspec_pasted: a text report's path, lines in brackets and
 * nested repeats, is read as its blocks written out one by one (the
 * expected sequence written out by hand); the lines may be left out,
 * groups may touch their neighbours, and a comment may end a line. */
static void test_pathspec_pasted(void **state)
{
	static const uint32_t want[] = {
		1, 6,
		5, 2, 3, 2, 3, 4,
		5, 2, 3, 2, 3, 4,
		5, 2, 3, 2, 3, 4,
		7 };
	static const uint32_t lines[] = { 10, 11, 12, 11, 12, 11, 12, 13 };
	struct pap_spec s;

	(void)state;
	pap_spec_init(&s);
	parse_ok(&s, "pap-spec 2\n"
		 "path src/a.c:helper checksum=00000000000000fF count=7 "
		 "1[4,6,8] 6[8] ( 5[8] ( 2[9] 3 )^2 4[12] )^3 7[14]\n"
		 "path helper\t1 6 (5 (2 3)^2 4)^3 7   # the same, no lines\n"
		 "lines helper 10 (11 12)^3 13\n", "p.spec");
	assert_int_equal(s.npaths, 3);
	assert_int_equal(s.paths[0].kind, PAP_SPEC_BLOCKS);
	assert_string_equal(s.paths[0].qual, "src/a.c");
	assert_string_equal(s.paths[0].name, "helper");
	assert_true(s.paths[0].checksum == 0xff);
	assert_int_equal(s.paths[0].count, 7);
	assert_int_equal(s.paths[0].nblocks, N(want));
	assert_memory_equal(s.paths[0].blocks, want, sizeof(want));
	assert_false(s.paths[1].has_checksum);
	assert_int_equal(s.paths[1].count, 0);
	assert_int_equal(s.paths[1].nblocks, N(want));
	assert_memory_equal(s.paths[1].blocks, want, sizeof(want));
	assert_int_equal(s.paths[2].kind, PAP_SPEC_LINES);
	assert_int_equal(s.paths[2].nlines, N(lines));
	assert_memory_equal(s.paths[2].lines, lines, sizeof(lines));
	assert_int_equal(s.paths[2].line, 4);
	pap_spec_free(&s);
}

/* test_pathspec_v1: a version 1 file is still read, its positional
 * checksum and count included. */
static void test_pathspec_v1(void **state)
{
	static const uint32_t a[] = { 2, 3, 4, 3, 4, 5 };
	struct pap_spec s;

	(void)state;
	pap_spec_init(&s);
	parse_ok(&s, "pap-spec 1\npath work fedcba9876543210 42 2 3 4 3 4 5\n"
		 "# hot\n\npath main 0000000000000001 1 2 6\n", "v1.spec");
	assert_int_equal(s.npaths, 2);
	assert_string_equal(s.paths[0].name, "work");
	assert_true(s.paths[0].has_checksum);
	assert_true(s.paths[0].checksum == 0xfedcba9876543210ull);
	assert_int_equal(s.paths[0].count, 42);
	assert_int_equal(s.paths[0].nblocks, N(a));
	assert_memory_equal(s.paths[0].blocks, a, sizeof(a));
	assert_int_equal(s.paths[1].line, 5);
	pap_spec_free(&s);
}

/* Parses @text, which must be refused with a first message starting
 * with @where and nothing but @nerr messages. */
static void expect_refused(const char *text, const char *where,
			   unsigned nerr, size_t i)
{
	struct pap_spec s;

	pap_spec_init(&s);
	if (pap_spec_parse(&s, text, "s") != PAP_ECORRUPT)
		fail_msg("case %zu was not refused", i);
	if (!s.msgs || strncmp(s.msgs, where, strlen(where)))
		fail_msg("case %zu: '%s', not '%s...'", i,
			 s.msgs ? s.msgs : "", where);
	if (s.nerrors != nerr)
		fail_msg("case %zu: %u errors, not %u", i, s.nerrors, nerr);
	pap_spec_free(&s);
}

/* test_pathspec_errors: each malformed line is refused with "FILE:LINE:
 * error:" and what is wrong. */
static void test_pathspec_errors(void **state)
{
	static const struct {
		const char *text, *where;
	} bad[] = {
		{ "", "s:1: error: empty file" },
		{ "pap-prof 1\n", "s:1: error: not a pap path spec" },
		{ "pap-spec 3\n", "s:1: error: path spec version 3 not" },
		{ "pap-spec 1x\n", "s:1: error: path spec version" },
		/* version 1 */
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
		/* version 2: syntax */
		{ "pap-spec 2\npath\n", "s:2: error: missing function name" },
		{ "pap-spec 2\npath 1 2 3\n",
		  "s:2: error: missing function name" },
		{ "pap-spec 2\npath :f 1\n", "s:2: error: bad function ':f'" },
		{ "pap-spec 2\npath f\n", "s:2: error: a path of no blocks" },
		{ "pap-spec 2\nlines f # none\n",
		  "s:2: error: a path of no lines" },
		{ "pap-spec 2\npath f checksum=12x 1\n",
		  "s:2: error: checksum '12x' is not a number" },
		{ "pap-spec 2\npath f checksum=00000000000000001 1\n",
		  "s:2: error: checksum must be 1 to 16 hex digits" },
		{ "pap-spec 2\npath f count=1 count=2 1\n",
		  "s:2: error: count given twice" },
		{ "pap-spec 2\npath f weight=2 1\n",
		  "s:2: error: unknown field 'weight='" },
		{ "pap-spec 2\npath f 1 x 2\n",
		  "s:2: error: unexpected 'x' among the blocks" },
		{ "pap-spec 2\npath f 1 2x\n",
		  "s:2: error: unexpected 'x' after block 2" },
		{ "pap-spec 2\npath f 1 4294967296\n",
		  "s:2: error: block '4294967296' is too large" },
		{ "pap-spec 2\npath f 1[4,5 2\n",
		  "s:2: error: bad source lines '[4,5 2' after block 1" },
		{ "pap-spec 2\npath f 1[] 2\n",
		  "s:2: error: bad source lines '[] 2' after block 1" },
		{ "pap-spec 2\npath f 1[4,,5] 2\n",
		  "s:2: error: bad source lines '[4,,5] 2' after block 1" },
		{ "pap-spec 2\npath f 1[4x] 2\n",
		  "s:2: error: bad source lines '[4x] 2' after block 1" },
		{ "pap-spec 2\npath f 1[4294967296] 2\n",
		  "s:2: error: source line '4294967296' is too large" },
		{ "pap-spec 2\nlines f 10[3] 11\n",
		  "s:2: error: unexpected '[' after line 10" },
		{ "pap-spec 2\npath f 1 6 ... 7\n",
		  "s:2: error: '...' stands for blocks a report left out" },
		{ "path f 1\n", "s:1: error: not a pap path spec" },
		{ "pap-spec 2\nroute f 1\n",
		  "s:2: error: unknown line 'route'" },
		/* version 2: repeats */
		{ "pap-spec 2\npath f 1 ( 2 3\n",
		  "s:2: error: '(' not closed by ')^N'" },
		{ "pap-spec 2\npath f 1 2 )^2 3\n",
		  "s:2: error: ')^2' closes no '('" },
		{ "pap-spec 2\npath f 1 ( 2 ) 3\n",
		  "s:2: error: bad repeat ')" },
		{ "pap-spec 2\npath f 1 ( 2 )^ 3\n",
		  "s:2: error: bad repeat ')^" },
		{ "pap-spec 2\npath f 1 ( 2 )^x 3\n",
		  "s:2: error: bad repeat ')^x" },
		{ "pap-spec 2\npath f 1 ( 2 )^2x 3\n",
		  "s:2: error: bad repeat ')^2x" },
		{ "pap-spec 2\npath f 1 ( 2 )^0 3\n",
		  "s:2: error: bad repeat ')^0': a group is taken at least" },
		{ "pap-spec 2\npath f 1 ( )^2 3\n",
		  "s:2: error: bad repeat ')^2': nothing to repeat" },
		{ "pap-spec 2\npath f 1 ( 2 )^99999999999999999999 3\n",
		  "s:2: error: repeat count '99999999999999999999' is too" },
		{ "pap-spec 2\npath f 1 ( 2 3 )^5000000 3\n",
		  "s:2: error: a path of more than 10000000 blocks once" },
		{ "pap-spec 2\npath f 1 ( ( 2 3 )^4000 )^4000 3\n",
		  "s:2: error: a path of more than 10000000 blocks once" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(bad); i++)
		expect_refused(bad[i].text, bad[i].where, 1, i);
}

/* test_pathspec_all_errors: every bad line of a file is said, in order,
 * and the file's good paths are kept for checking while the spec counts
 * its errors; a second file adds its own. */
static void test_pathspec_all_errors(void **state)
{
	struct pap_spec s;

	(void)state;
	pap_spec_init(&s);
	assert_int_equal(pap_spec_parse(&s, "pap-spec 2\npath f 1 2\n"
					"path f ( 1\npath g 1 2 3\n"
					"path f 1 )^2\n", "a.spec"),
			 PAP_ECORRUPT);
	assert_int_equal(pap_spec_parse(&s, "pap-spec 2\nlines f x\n",
					"b.spec"), PAP_ECORRUPT);
	assert_int_equal(s.nerrors, 3);
	assert_string_equal(s.msgs,
		"a.spec:3: error: '(' not closed by ')^N'\n"
		"a.spec:5: error: ')^2' closes no '('\n"
		"b.spec:2: error: unexpected 'x' among the lines\n");
	assert_int_equal(s.npaths, 2);
	pap_spec_free(&s);
}

/* test_pathspec_later_minor: a later minor version's unknown lines are
 * skipped, its paths kept. */
static void test_pathspec_later_minor(void **state)
{
	struct pap_spec s;

	(void)state;
	pap_spec_init(&s);
	parse_ok(&s, "pap-spec 1.3\nlines f 10 11\n"
		 "path f 0000000000000002 3 2 5\n", "s");
	parse_ok(&s, "pap-spec 2.1\nweights f 1 2\npath f 2 5\n", "t");
	assert_int_equal(s.npaths, 2);
	assert_int_equal(s.paths[0].nblocks, 2);
	assert_int_equal(s.paths[1].nblocks, 2);
	assert_string_equal(s.paths[1].file, "t");
	pap_spec_free(&s);
}

/* test_pathspec_names: a FILE: qualifier is a suffix of the function's
 * source path at a '/'. */
static void test_pathspec_names(void **state)
{
	struct pap_spec s;

	(void)state;
	pap_spec_init(&s);
	parse_ok(&s, "pap-spec 2\npath a.c:f 1\npath f 1\n"
		 "path src/a.c:f 1\n", "s");
	assert_int_equal(s.npaths, 3);
	assert_true(pap_spec_names(&s.paths[0], "f", "a.c"));
	assert_true(pap_spec_names(&s.paths[0], "f", "/x/src/a.c"));
	assert_false(pap_spec_names(&s.paths[0], "f", "/x/src/ba.c"));
	assert_false(pap_spec_names(&s.paths[0], "g", "a.c"));
	assert_true(pap_spec_names(&s.paths[0], "f", NULL));
	assert_true(pap_spec_names(&s.paths[1], "f", "b.c"));
	assert_true(pap_spec_names(&s.paths[2], "f", "/x/src/a.c"));
	assert_false(pap_spec_names(&s.paths[2], "f", "a.c"));
	pap_spec_free(&s);
}

/*
 * A function for the checks: blocks b1..b7 (numbers 1..7, declared out
 * of order so number and index differ), a branch whose two sides have
 * the same line, a loop b4 -> b5 -> b4, a return from b7.
 *
 *   b1[1] -> b2[2] | b3[2] -> b4[3] -> (b5[4,3] -> b4)* -> b6[5] -> b7[6]
 *   b5 -> b7 too
 */
static const char *const check_graph =
	"blocks b7 b1 b2 b3 b4 b5 b6\n"
	"entry b1\n"
	"edge b1 b2\nedge b1 b3\nedge b2 b4\nedge b3 b4\nedge b4 b5\n"
	"edge b5 b4\nedge b4 b6\nedge b5 b7\nedge b6 b7\n"
	"return b7\n";

struct test_fn {
	struct pap_cfgtext g;
	struct pap_spec_fn fn;
	uint32_t *lines[8];
};

static void test_fn_make(struct test_fn *t, const char *graph,
			 const uint32_t *const *lines_by_number)
{
	char err[256];
	uint32_t b, k;

	memset(t, 0, sizeof(*t));
	if (pap_cfgtext_parse(graph, "g", &t->g, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(pap_spec_fn_init(&t->fn, "f", "src/f.c", 0xabc,
					  &t->g, t->lines), PAP_OK);
	for (b = 0; b < t->g.nblocks; b++) {
		const uint32_t *l = lines_by_number[t->fn.number[b]];

		t->lines[b] = malloc((l[0] + 1) * sizeof(uint32_t));
		for (k = 0; k <= l[0]; k++)
			t->lines[b][k] = l[k];
	}
}

static void test_fn_free(struct test_fn *t)
{
	uint32_t b;

	for (b = 0; b < t->g.nblocks; b++)
		free(t->lines[b]);
	pap_spec_fn_free(&t->fn);
	pap_cfgtext_free(&t->g);
}

static const uint32_t l1[] = { 1, 1 }, l2[] = { 1, 2 }, l3[] = { 1, 3 },
	l43[] = { 2, 4, 3 }, l5[] = { 1, 5 }, l6[] = { 1, 6 };
static const uint32_t *const check_lines[] = {
	NULL, l1, l2, l2, l3, l43, l5, l6 };

/* Checks every path of spec @text against the test function: the
 * messages must be @msgs exactly (NULL: none). */
static void spec_checked(struct test_fn *t, const char *text,
			 const char *msgs, struct pap_spec *s)
{
	size_t i;

	pap_spec_init(s);
	parse_ok(s, text, "c.spec");
	for (i = 0; i < s->npaths; i++)
		if (pap_spec_check(s, i, &t->fn) == PAP_ENOMEM)
			fail_msg("out of memory");
	if (!msgs && s->nerrors)
		fail_msg("refused: %s", s->msgs);
	if (msgs && (!s->msgs || strcmp(s->msgs, msgs)))
		fail_msg("said:\n%swanted:\n%s", s->msgs ? s->msgs : "",
			 msgs);
}

/* test_pathspec_check: a good path gets its blocks' indices; each path
 * that is not one of the function's is refused, saying why. */
static void test_pathspec_check(void **state)
{
	static const uint32_t want[] = { 1, 3, 4, 5, 4, 5, 4, 6, 7 };
	struct test_fn t;
	struct pap_spec s;
	size_t i;

	(void)state;
	test_fn_make(&t, check_graph, check_lines);
	spec_checked(&t, "pap-spec 2\npath f checksum=abc 1 3 ( 4 5 )^2 4 6 7\n"
		     "path f 1 2 4 5 7\n"
		     "path f 1[1] 3[2] ( 4[3] 5[4,3] )^2 4[3] 6[5] 7[6]\n",
		     NULL, &s);
	/* the pasted one, its brackets checked, is the first one */
	assert_int_equal(s.npaths, 3);
	assert_int_equal(pap_spec_merge(&s), PAP_OK);
	assert_int_equal(s.npaths, 2);
	assert_int_equal(s.paths[0].nblocks, N(want));
	for (i = 0; i < N(want); i++)
		assert_int_equal(atoi(t.g.names[s.paths[0].index[i]] + 1),
				 want[i]);
	assert_string_equal(s.paths[0].fn_file, "src/f.c");
	pap_spec_free(&s);
	spec_checked(&t, "pap-spec 2\n"
		     "path f checksum=abd 1 2 4 6 7\n"
		     "path f 1 2 4 9 7\n"
		     "path f 1 2 4 7\n"
		     "path f 2 4 6 7\n"
		     "path f 1 2 4 6\n"
		     "path f 1[1] 2[2] ( 4[3] 5[3,4] )^2 4 6 7\n",
		     "c.spec:2: error: f: the path is for another build of the "
		     "function (checksum 0000000000000abd, the metadata's is "
		     "0000000000000abc)\n"
		     "c.spec:3: error: block 9 is not a block of f\n"
		     "c.spec:4: error: no edge from block 4 to block 7 in f "
		     "(blocks 3 and 4 of the path)\n"
		     "c.spec:5: error: the path starts at block 2, where no "
		     "path of f starts (its entry is block 1)\n"
		     "c.spec:6: error: the path ends at block 6, which does "
		     "not leave f (it must end where the function returns)\n"
		     "c.spec:7: error: block 5 of f has lines [4,3], not [3,4] "
		     "(a report of another build?)\n", &s);
	for (i = 0; i < s.npaths; i++)
		assert_null(s.paths[i].index);
	pap_spec_free(&s);
	/* said as found, reading before checking; sorted by place */
	pap_spec_init(&s);
	assert_int_equal(pap_spec_parse(&s, "pap-spec 2\npath f 1 9 7\n"
					"path f ( 1\n", "a"), PAP_ECORRUPT);
	assert_int_equal(pap_spec_parse(&s, "pap-spec 2\npath f 2 7\n"
					"path f 1 )^2\n", "b"), PAP_ECORRUPT);
	for (i = 0; i < s.npaths; i++)
		pap_spec_check(&s, i, &t.fn);
	assert_string_equal(s.msgs, "a:3: error: '(' not closed by ')^N'\n"
			    "b:3: error: ')^2' closes no '('\n"
			    "a:2: error: block 9 is not a block of f\n"
			    "b:2: error: the path starts at block 2, where no "
			    "path of f starts (its entry is block 1)\n");
	assert_int_equal(pap_spec_sort_msgs(&s), PAP_OK);
	assert_string_equal(s.msgs, "a:2: error: block 9 is not a block of f\n"
			    "a:3: error: '(' not closed by ')^N'\n"
			    "b:2: error: the path starts at block 2, where no "
			    "path of f starts (its entry is block 1)\n"
			    "b:3: error: ')^2' closes no '('\n");
	pap_spec_free(&s);
	test_fn_free(&t);
}

/* test_pathspec_lines: a path by its lines resolves to its one block
 * path (consecutive equal lines once, as the report lists them); none
 * and several are errors, a loop that adds no line included. */
static void test_pathspec_lines(void **state)
{
	static const uint32_t want[] = { 1, 2, 4, 5, 4, 5, 4, 6, 7 };
	static const uint32_t lz[] = { 0 }, l2b[] = { 1, 2 };
	static const uint32_t *const loop_lines[] = {
		NULL, l1, l2, l2b, lz, l6 };
	struct test_fn t;
	struct pap_spec s;

	(void)state;
	test_fn_make(&t, check_graph, check_lines);
	/* b2 and b3 both have line 2: ambiguous without more; the loop's
	 * lines 4 3 are its turns */
	spec_checked(&t, "pap-spec 2\nlines f 1 2 3 ( 4 3 )^2 5 6\n",
		     "c.spec:2: error: ambiguous lines: several block paths of "
		     "f have them: 1 2 4 5 4 5 4 6 7; 1 3 4 5 4 5 4 6 7\n", &s);
	pap_spec_free(&s);
	spec_checked(&t, "pap-spec 2\nlines f 1 2 3 4 3 6\n"
		     "lines f 2 3 4 6\nlines f 1 2 3 4 3 5\n"
		     "lines f 1 2 3 4 3 5 6 6 1\n",
		     "c.spec:2: error: ambiguous lines: several block paths of "
		     "f have them: 1 2 4 5 7; 1 3 4 5 7\n"
		     "c.spec:3: error: impossible lines: no path of f starts "
		     "with line 2\n"
		     "c.spec:4: error: impossible lines: no path of f leaves "
		     "the function after line 5\n"
		     "c.spec:5: error: impossible lines: no path of f runs "
		     "line 1 after line 6\n", &s);
	pap_spec_free(&s);
	test_fn_free(&t);
	/* with b3's line 7, the lines tell the sides apart */
	{
		static const uint32_t l7[] = { 1, 7 };
		static const uint32_t *const lines7[] = {
			NULL, l1, l2, l7, l3, l43, l5, l6 };

		test_fn_make(&t, check_graph, lines7);
		spec_checked(&t, "pap-spec 2\n"
			     "lines f 1 2 2 3 ( 4 3 )^2 3 5 6 # twice 2, 3\n",
			     NULL, &s);
		assert_int_equal(s.paths[0].nblocks, N(want));
		assert_memory_equal(s.paths[0].blocks, want, sizeof(want));
		pap_spec_free(&s);
		test_fn_free(&t);
	}
	/* a loop b2 <-> b3 whose lines are all line 2 (and b4 has none):
	 * any number of turns has the lines 1 2 6 */
	test_fn_make(&t, "blocks b1 b2 b3 b4 b5\nedge b1 b2\nedge b2 b3\n"
		     "edge b3 b2\nedge b3 b4\nedge b4 b5\nreturn b5\n",
		     loop_lines);
	spec_checked(&t, "pap-spec 2\nlines f 1 2 6\n",
		     "c.spec:2: error: ambiguous lines: a loop of f through "
		     "blocks 2 3 adds no line of its own, so any number of "
		     "turns matches\n", &s);
	pap_spec_free(&s);
	test_fn_free(&t);
}

/* ---- lines against brute force ---- */

/* Budget of the brute-force search per sequence: blocks visited. */
#define BRUTE_BUDGET 200000

struct brute {
	const struct pap_cfg *cfg;
	uint32_t *const *lines;
	const uint32_t *want;	/* the sequence, consecutive equal once */
	size_t m, depth_max;
	uint32_t path[512], first[512];
	size_t found;
	uint32_t sol[512];	/* the first path found */
	size_t nsol;
	long budget;
};

/* Extends the block path of @depth nodes (ENTRY first) whose lines so
 * far are the first @k wanted ones (@last the last line seen, 0 none) by
 * every successor, counting the whole paths that match, up to 2. */
static void brute_dfs(struct brute *b, size_t depth, size_t k, uint32_t last)
{
	const struct pap_cfg *cfg = b->cfg;
	uint32_t v = b->path[depth - 1], e;

	if (b->found >= 2 || --b->budget < 0)
		return;
	for (e = cfg->out_off[v]; e < cfg->out_off[v + 1]; e++) {
		uint32_t w = cfg->edges[cfg->out_edge[e]].dst, j;
		size_t kk = k;
		uint32_t ll = last;
		int ok = 1;

		/* parallel edges: one block path */
		for (j = cfg->out_off[v]; j < e; j++)
			if (cfg->edges[cfg->out_edge[j]].dst == w)
				break;
		if (j < e)
			continue;
		if (w == cfg->exit) {
			if (k == b->m && !b->found++) {
				memcpy(b->sol, b->path,
				       depth * sizeof(*b->sol));
				b->nsol = depth;
			}
			continue;
		}
		for (j = 0; ok && b->lines[w] && j < b->lines[w][0]; j++) {
			uint32_t l = b->lines[w][j + 1];

			if (l == ll)
				continue;
			ok = kk < b->m && b->want[kk] == l;
			kk++;
			ll = l;
		}
		if (!ok || depth == b->depth_max)
			continue;
		b->path[depth] = w;
		brute_dfs(b, depth + 1, kk, ll);
	}
}

/* test_pathspec_lines_brute: on random graphs with random small line
 * tables (lines shared, blocks without lines), the lines of random
 * walks and of changed walks resolve to a path exactly when a
 * depth-first search over block paths finds exactly one, to that one;
 * else the error says impossible or ambiguous as the search found none
 * or several.  The depth bound 2 (m + 1) n + 2 holds a path through a
 * loop that adds no line whenever one exists. */
static void test_pathspec_lines_brute(void **state)
{
	struct tl_rng g = { 0x5eed5 };
	unsigned trial, checked = 0, unique = 0, none = 0, several = 0;

	(void)state;
	for (trial = 0; trial < 400; trial++) {
		struct tl_cfg_params pr;
		struct pap_cfg *cfg;
		struct pap_spec_fn fn;
		uint32_t *lines[16], b, *walk = NULL, seq[64];
		size_t len = 0, i, m = 0, variant;

		memset(&pr, 0, sizeof(pr));
		pr.nblocks = 2 + (uint32_t)tl_below(&g, 7);
		pr.extra_edges = (uint32_t)tl_below(&g, 5);
		pr.self_loops = (uint32_t)tl_below(&g, 2);
		pr.parallel = (uint32_t)tl_below(&g, 2);
		pr.forward_only = (int)tl_below(&g, 3) == 0;
		cfg = tl_random_cfg(&g, &pr);
		assert_non_null(cfg);
		memset(&fn, 0, sizeof(fn));
		fn.name = "f";
		fn.cfg = cfg;
		fn.lines = lines;
		fn.number = malloc(cfg->nblocks * sizeof(uint32_t));
		for (b = 0; b < cfg->nblocks; b++) {
			uint32_t n = tl_below(&g, 8) ? 1 + (uint32_t)
				     tl_below(&g, 2) : 0, k;

			fn.number[b] = b + 1;
			lines[b] = malloc((n + 1) * sizeof(uint32_t));
			lines[b][0] = n;
			for (k = 0; k < n; k++)
				lines[b][k + 1] = 1 + (uint32_t)tl_below(&g, 5);
		}
		assert_int_equal(tl_random_walk(&g, cfg, 1 + tl_below(&g, 6),
						&walk, &len), 0);
		/* the walk's lines, as the report lists them */
		for (i = 0; i + 1 < len; i++) {
			uint32_t w = cfg->edges[walk[i]].dst, k;

			for (k = 0; k < lines[w][0] && m < N(seq); k++)
				if (!m || seq[m - 1] != lines[w][k + 1])
					seq[m++] = lines[w][k + 1];
		}
		free(walk);
		for (variant = 0; variant < 3 && m && m < 25; variant++) {
			struct brute br;
			struct pap_spec s;
			char text[512];
			size_t at;
			int r;

			if (variant == 1)	/* one line changed */
				seq[tl_below(&g, m)] = 1 + (uint32_t)
						       tl_below(&g, 5);
			if (variant == 2 && m > 1)	/* one line less */
				m--;
			at = (size_t)snprintf(text, sizeof(text),
					      "pap-spec 2\nlines f");
			for (i = 0; i < m; i++)
				at += (size_t)snprintf(text + at,
						       sizeof(text) - at,
						       " %u", seq[i]);
			snprintf(text + at, sizeof(text) - at, "\n");
			memset(&br, 0, sizeof(br));
			br.cfg = cfg;
			br.lines = lines;
			for (i = 0; i < m; i++)
				if (!br.m || br.first[br.m - 1] != seq[i])
					br.first[br.m++] = seq[i];
			br.want = br.first;
			br.depth_max = 2 * (br.m + 1) * cfg->nblocks + 2;
			br.budget = BRUTE_BUDGET;
			br.path[0] = cfg->entry;	/* not a block */
			brute_dfs(&br, 1, 0, 0);
			if (br.budget < 0)
				continue;	/* too many to try */
			checked++;
			pap_spec_init(&s);
			parse_ok(&s, text, "r");
			r = pap_spec_check(&s, 0, &fn);
			if (br.found == 1) {
				unique++;
				if (r)
					fail_msg("trial %u: %s refused: %s",
						 trial, text, s.msgs);
				assert_int_equal(s.paths[0].nblocks,
						 br.nsol - 1);
				for (i = 1; i < br.nsol; i++)
					assert_int_equal(br.sol[i],
						s.paths[0].index[i - 1]);
			} else {
				const char *want = br.found ? "ambiguous" :
						   "impossible";

				br.found ? several++ : none++;
				if (!r || !strstr(s.msgs, want))
					fail_msg("trial %u: %s: %s, not %s",
						 trial, text, s.msgs ?
						 s.msgs : "accepted", want);
			}
			pap_spec_free(&s);
		}
		for (b = 0; b < cfg->nblocks; b++)
			free(lines[b]);
		free(fn.number);
		pap_cfg_free(cfg);
	}
	print_message("lines vs brute force: %u sequences (%u one path, %u "
		      "none, %u several)\n", checked, unique, none, several);
	assert_true(unique > 50 && none > 50 && several > 20);
}

/* test_pathspec_merge: the same path twice, in one file or in two, is
 * one, at its first place, counts added; other functions, qualifiers
 * and kinds stay apart until checked, and a path by lines that resolves
 * to a path given by blocks is merged into it after the checks. */
static void test_pathspec_merge(void **state)
{
	static const uint32_t l7[] = { 1, 7 };
	static const uint32_t *const lines7[] = {
		NULL, l1, l2, l7, l3, l43, l5, l6 };
	struct test_fn t;
	struct pap_spec s;
	size_t i;

	(void)state;
	pap_spec_init(&s);
	parse_ok(&s, "pap-spec 2\n"
		 "path f count=2 1 2 4 6 7\n"
		 "path f count=3 1[1] 2[2] 4[3] 6[5] 7[6]\n"
		 "path g 1 2 4 6 7\n"
		 "path src/f.c:f 1 2 4 6 7\n"
		 "lines f 1 2 3 5 6\n", "one.spec");
	parse_ok(&s, "pap-spec 1\n"
		 "path f 0000000000000abc 5 1 2 4 6 7\n", "two.spec");
	parse_ok(&s, "pap-spec 2\n# again\n"
		 "path f count=1 1 ( 2 4 )^1 6 7\n"
		 "lines f 1 ( 2 )^2 3 5 6\n"
		 "path f 1 3 4 6 7\n", "three.spec");
	/* parse merges what is written the same: one.spec:2 took
	 * one.spec:3's and three.spec:3's counts; the qualified one, the
	 * one with a checksum and those by lines stay apart */
	assert_int_equal(s.npaths, 7);
	assert_string_equal(s.paths[0].file, "one.spec");
	assert_int_equal(s.paths[0].line, 2);
	assert_int_equal(s.paths[0].count, 2 + 3 + 1);
	assert_string_equal(s.paths[1].name, "g");
	assert_string_equal(s.paths[2].qual, "src/f.c");
	assert_int_equal(s.paths[3].kind, PAP_SPEC_LINES);
	assert_int_equal(s.paths[3].line, 6);
	assert_string_equal(s.paths[4].file, "two.spec");
	assert_int_equal(s.paths[5].kind, PAP_SPEC_LINES);
	assert_int_equal(s.paths[6].line, 5);
	/* the checks resolve f's paths (not g's): all but three.spec:5
	 * are the first one */
	test_fn_make(&t, check_graph, lines7);
	for (i = 0; i < s.npaths; i++)
		if (pap_spec_names(&s.paths[i], t.fn.name, t.fn.file))
			assert_int_equal(pap_spec_check(&s, i, &t.fn), PAP_OK);
	assert_int_equal(s.nerrors, 0);
	assert_int_equal(pap_spec_merge(&s), PAP_OK);
	assert_int_equal(s.npaths, 3);
	assert_int_equal(s.paths[0].line, 2);
	assert_string_equal(s.paths[0].file, "one.spec");
	assert_int_equal(s.paths[0].count, 2 + 3 + 1 + 5);
	assert_string_equal(s.paths[1].name, "g");
	assert_int_equal(s.paths[2].line, 5);
	assert_string_equal(s.paths[2].file, "three.spec");
	pap_spec_free(&s);
	test_fn_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pathspec_round_trip),
		cmocka_unit_test(test_pathspec_pasted),
		cmocka_unit_test(test_pathspec_v1),
		cmocka_unit_test(test_pathspec_errors),
		cmocka_unit_test(test_pathspec_all_errors),
		cmocka_unit_test(test_pathspec_later_minor),
		cmocka_unit_test(test_pathspec_names),
		cmocka_unit_test(test_pathspec_check),
		cmocka_unit_test(test_pathspec_lines),
		cmocka_unit_test(test_pathspec_lines_brute),
		cmocka_unit_test(test_pathspec_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
