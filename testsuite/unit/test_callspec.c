/* SPDX-License-Identifier: MIT */
/*
 * test_callspec.c - the "calls" lines of path spec files (pathspec.h):
 * a sequence reads as its names with the repeats written out, ">name"
 * kept; copies merge with their counts added; each malformed line is
 * refused with its place; the hash sees the sequences, not their
 * spelling; a file of version 2.0 or 1 refuses them.
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

#include "pathspec.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void parse_ok(struct pap_spec *s, const char *text)
{
	if (pap_spec_parse(s, text, "s") != PAP_OK || s->nerrors)
		fail_msg("refused: %s", s->msgs ? s->msgs : "");
}

/* The items of @c joined by spaces, into @buf. */
static const char *joined(const struct pap_spec_calls *c, char *buf,
			  size_t len)
{
	size_t i, n = 0;

	buf[0] = 0;
	for (i = 0; i < c->nitems && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "",
				      c->item[i]);
	return buf;
}

/* test_callspec_read: names, repeats (nested, glued to names), ">name",
 * a comment, the count, and the place of each line. */
static void test_callspec_read(void **state)
{
	struct pap_spec s;
	char buf[256];

	(void)state;
	pap_spec_init(&s);
	parse_ok(&s, "pap-spec 2.1\n"
		 "# two sequences\n"
		 "calls count=3 main f >cmp >cmp main   # qsort\n"
		 "\n"
		 "calls main (g (h g)^2)^2 main\n");
	assert_int_equal(s.npaths, 0);
	assert_int_equal(s.ncalls, 2);
	assert_string_equal(joined(&s.calls[0], buf, sizeof(buf)),
			    "main f >cmp >cmp main");
	assert_int_equal(s.calls[0].count, 3);
	assert_int_equal(s.calls[0].line, 3);
	assert_string_equal(s.calls[0].file, "s");
	assert_string_equal(joined(&s.calls[1], buf, sizeof(buf)),
			    "main g h g h g g h g h g main");
	assert_int_equal(s.calls[1].count, 0);
	assert_int_equal(s.calls[1].line, 5);
	assert_true(pap_spec_calls_names(&s, "cmp"));
	assert_true(pap_spec_calls_names(&s, "h"));
	assert_false(pap_spec_calls_names(&s, "qsort"));
	assert_false(pap_spec_calls_names(&s, ">cmp"));
	pap_spec_free(&s);
}

/* test_callspec_merge: the same sequence twice, spelt two ways, is one,
 * its counts added, its first place kept; paths and calls lines live
 * side by side. */
static void test_callspec_merge(void **state)
{
	struct pap_spec s;

	(void)state;
	pap_spec_init(&s);
	parse_ok(&s, "pap-spec 2.1\ncalls count=2 main f f f\n"
		 "path f 1 2\n"
		 "calls count=5 main ( f )^3\n"
		 "calls main f\n");
	assert_int_equal(s.ncalls, 2);
	assert_int_equal(s.npaths, 1);
	assert_int_equal(s.calls[0].count, 7);
	assert_int_equal(s.calls[0].line, 2);
	assert_int_equal(s.calls[0].nitems, 4);
	assert_int_equal(s.calls[1].nitems, 2);
	pap_spec_free(&s);
}

/* test_callspec_hash: equal for the same sequences however written,
 * different when one item or the order of lines differs, 0 for none. */
static void test_callspec_hash(void **state)
{
	struct pap_spec a, b, c, d, e;

	(void)state;
	pap_spec_init(&a);
	pap_spec_init(&b);
	pap_spec_init(&c);
	pap_spec_init(&d);
	pap_spec_init(&e);
	parse_ok(&a, "pap-spec 2.1\ncalls main f f\ncalls main >g\n");
	parse_ok(&b, "pap-spec 2.1\ncalls  main (f)^2 # x\ncalls main >g\n");
	parse_ok(&c, "pap-spec 2.1\ncalls main f f\ncalls main g\n");
	parse_ok(&d, "pap-spec 2.1\ncalls main >g\ncalls main f f\n");
	parse_ok(&e, "pap-spec 2\npath f 1\n");
	assert_true(pap_spec_calls_hash(&a) != 0);
	assert_true(pap_spec_calls_hash(&a) == pap_spec_calls_hash(&b));
	assert_true(pap_spec_calls_hash(&a) != pap_spec_calls_hash(&c));
	assert_true(pap_spec_calls_hash(&a) != pap_spec_calls_hash(&d));
	assert_true(pap_spec_calls_hash(&e) == 0);
	pap_spec_free(&a);
	pap_spec_free(&b);
	pap_spec_free(&c);
	pap_spec_free(&d);
	pap_spec_free(&e);
}

/* test_callspec_errors: each bad line is named by its place and its
 * problem, and nothing of it is kept. */
static void test_callspec_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "pap-spec 2.1\ncalls\n",
		  "s:2: error: a call sequence of no functions" },
		{ "pap-spec 2.1\ncalls count=2\n",
		  "s:2: error: a call sequence of no functions" },
		{ "pap-spec 2.1\ncalls >main f\n",
		  "s:2: error: a call sequence starts at a thread's first "
		  "entry, written plain: 'main', not '>main'" },
		{ "pap-spec 2.1\ncalls main f-g\n",
		  "s:2: error: bad function name 'f-g'" },
		{ "pap-spec 2.1\ncalls main > f\n",
		  "s:2: error: bad function name '>'" },
		{ "pap-spec 2.1\ncalls main 12\n",
		  NULL },	/* digits are name characters */
		{ "pap-spec 2.1\ncalls main ( f\n",
		  "s:2: error: '(' not closed by ')^N'" },
		{ "pap-spec 2.1\ncalls main f )^2\n",
		  "s:2: error: ')^2' closes no '('" },
		{ "pap-spec 2.1\ncalls main ( f ) g\n",
		  "s:2: error: bad repeat ')" },
		{ "pap-spec 2.1\ncalls main ( f )^x\n",
		  "s:2: error: bad repeat ')^" },
		{ "pap-spec 2.1\ncalls main ( f )^2x\n",
		  "s:2: error: bad repeat ')^2x" },
		{ "pap-spec 2.1\ncalls main ( f )^0\n",
		  "s:2: error: bad repeat ')^0': a group is taken at least" },
		{ "pap-spec 2.1\ncalls main ( )^2\n",
		  "s:2: error: bad repeat ')^2': nothing to repeat" },
		{ "pap-spec 2.1\ncalls main ( f )^99999999999999999999\n",
		  "s:2: error: a sequence of more than 10000000 calls once" },
		{ "pap-spec 2.1\ncalls count=x main\n",
		  "s:2: error: count 'x' is not a number" },
		{ "pap-spec 2.1\ncalls count=1 count=2 main\n",
		  "s:2: error: count given twice" },
		{ "pap-spec 2.1\ncalls checksum=12 main\n",
		  "s:2: error: unknown field 'checksum=12'" },
		{ "pap-spec 1\ncalls main\n",
		  "s:2: error: unknown line 'calls'" },
		{ "pap-spec 2\ncalls main\n",
		  "s:2: error: a 'calls' line needs 'pap-spec 2.1'" },
		{ "pap-spec 2.1\ncalls main\ncalls main f ( g\n",
		  "s:3: error: '(' not closed" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < N(bad); i++) {
		struct pap_spec s;
		int r;

		pap_spec_init(&s);
		r = pap_spec_parse(&s, bad[i].text, "s");
		if (!bad[i].want) {
			assert_int_equal(r, PAP_OK);
			assert_int_equal(s.nerrors, 0);
			pap_spec_free(&s);
			continue;
		}
		if (r != PAP_ECORRUPT || !s.msgs ||
		    strncmp(s.msgs, bad[i].want, strlen(bad[i].want)))
			fail_msg("%zu: want '%s', got %d '%s'", i, bad[i].want,
				 r, s.msgs ? s.msgs : "");
		assert_int_equal(s.nerrors, 1);
		/* a bad line is not kept; a good one before it is */
		assert_int_equal(s.ncalls, strstr(bad[i].text,
						  "calls main\ncalls") ? 1 : 0);
		pap_spec_free(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_callspec_read),
		cmocka_unit_test(test_callspec_merge),
		cmocka_unit_test(test_callspec_hash),
		cmocka_unit_test(test_callspec_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
