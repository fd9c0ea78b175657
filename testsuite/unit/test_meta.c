/* SPDX-License-Identifier: MIT */
/*
 * test_meta.c - the metadata reader: the stamp that pairs profiles with
 * metadata covers the mode and the plan format as well as the graph,
 * version 2 carries the compile directory, and version 1 is still read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "meta.h"

static const char graph[] = "blocks b1 b2\nentry b1\nedge b1 b2\nreturn b2\n";

/* FNV-1a 64 written out from its definition: the oracle for the stamp. */
static uint64_t fnv(const char *s)
{
	uint64_t h = 14695981039346656037ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* A metadata file of @header (and @dir line, if any) with one function
 * whose checksum is @sum, parsed into @m; the parser's result. */
static int parse(struct pap_meta *m, const char *header, const char *dir,
		 const char *mode, uint64_t sum, char *err, size_t errlen)
{
	char text[1024];

	snprintf(text, sizeof(text), "%s%s%s%sfunction f\nfile src/f.c\n"
		 "mode %s\n%slines b1 3\nlines b2 4\nchecksum %016llx\nend\n",
		 header, dir ? "directory " : "", dir ? dir : "",
		 dir ? "\n" : "", mode, graph, (unsigned long long)sum);
	return pap_meta_parse(m, text, "t.papm", err, errlen);
}

/* test_stamp_definition: the stamp is FNV-1a of "plan N mode M\n" and
 * the graph, so it differs between modes for one graph. */
static void test_stamp_definition(void **state)
{
	char text[512];

	(void)state;
	snprintf(text, sizeof(text), "plan %d mode pap\n%s", PAP_PLAN_FORMAT,
		 graph);
	assert_true(pap_meta_checksum(PAP_MODE_PAP, graph, strlen(graph)) ==
		    fnv(text));
	assert_true(pap_meta_checksum(PAP_MODE_PAP, graph, strlen(graph)) !=
		    pap_meta_checksum(PAP_MODE_PAP_EPP, graph, strlen(graph)));
	assert_true(pap_meta_checksum(PAP_MODE_EPP, graph, strlen(graph)) !=
		    pap_meta_checksum(PAP_MODE_PAP_EPP, graph, strlen(graph)));
}

/* test_v2_read: a version 2 file with its stamp and directory reads; a
 * graph checksum alone (version 1's) or another mode's stamp does not. */
static void test_v2_read(void **state)
{
	struct pap_meta m;
	char err[256];
	uint64_t pap = pap_meta_checksum(PAP_MODE_PAP, graph, strlen(graph));

	(void)state;
	pap_meta_init(&m);
	assert_int_equal(parse(&m, "pap-meta 2\n", "/build/dir", "pap", pap,
			       err, sizeof(err)), 0);
	assert_int_equal(m.nfns, 1);
	assert_string_equal(m.fns[0]->dir, "/build/dir");
	assert_string_equal(m.fns[0]->file, "src/f.c");
	assert_true(m.fns[0]->checksum == pap);
	assert_non_null(pap_meta_find(&m, "f", pap, NULL));
	assert_int_not_equal(parse(&m, "pap-meta 2\n", NULL, "pap-epp", pap,
				   err, sizeof(err)), 0);
	assert_non_null(strstr(err, "does not match its checksum"));
	assert_int_not_equal(parse(&m, "pap-meta 2\n", NULL, "pap",
				   fnv(graph), err, sizeof(err)), 0);
	assert_int_equal(m.nfns, 1);
	pap_meta_free(&m);
}

/* test_v1_read: version 1 (graph checksum, no directory) is still read;
 * a version this pap does not know is refused by name. */
static void test_v1_read(void **state)
{
	struct pap_meta m;
	char err[256];

	(void)state;
	pap_meta_init(&m);
	assert_int_equal(parse(&m, "pap-meta 1\n", NULL, "pap-epp",
			       fnv(graph), err, sizeof(err)), 0);
	assert_int_equal(m.nfns, 1);
	assert_null(m.fns[0]->dir);
	assert_int_not_equal(parse(&m, "pap-meta 3\n", NULL, "pap",
				   fnv(graph), err, sizeof(err)), 0);
	assert_non_null(strstr(err, "versions 1 and 2"));
	pap_meta_free(&m);
}

/* test_elines: version 2's lines on an edge read into the edge's slot;
 * one naming no edge of the graph is refused. */
static void test_elines(void **state)
{
	struct pap_meta m;
	char text[1024], err[256];
	uint64_t sum = pap_meta_checksum(PAP_MODE_PAP, graph, strlen(graph));

	(void)state;
	pap_meta_init(&m);
	snprintf(text, sizeof(text), "pap-meta 2\nfunction f\nfile f.c\n"
		 "mode pap\n%slines b1 3\nlines b2 4\nelines 0 9 8\n"
		 "checksum %016llx\nend\n", graph, (unsigned long long)sum);
	assert_int_equal(pap_meta_parse(&m, text, "t.papm", err,
					sizeof(err)), 0);
	assert_non_null(m.fns[0]->elines[0]);
	assert_int_equal(m.fns[0]->elines[0][0], 2);
	assert_int_equal(m.fns[0]->elines[0][1], 9);
	assert_int_equal(m.fns[0]->elines[0][2], 8);
	snprintf(text, sizeof(text), "pap-meta 2\nfunction f\nfile f.c\n"
		 "mode pap\n%slines b1 3\nelines 7 9\n"
		 "checksum %016llx\nend\n", graph, (unsigned long long)sum);
	assert_int_not_equal(pap_meta_parse(&m, text, "t.papm", err,
					    sizeof(err)), 0);
	assert_non_null(strstr(err, "bad elines record"));
	pap_meta_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stamp_definition),
		cmocka_unit_test(test_v2_read),
		cmocka_unit_test(test_v1_read),
		cmocka_unit_test(test_elines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
