/* SPDX-License-Identifier: MIT */
/*
 * test_meta.c - the metadata reader: the stamp that pairs profiles with
 * metadata covers the mode and the plan format as well as the graph,
 * version 2 carries the compile directory, and version 1 is still read;
 * a block may span any number of source lines; version 3 carries a
 * function's call sites, stamped into its checksum and its unit's sum.
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
	assert_int_not_equal(parse(&m, "pap-meta 4\n", NULL, "pap",
				   fnv(graph), err, sizeof(err)), 0);
	assert_non_null(strstr(err, "versions 1 to 3"));
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

/* test_long_lines: a block spanning 5,000 source lines (a lines record
 * of some 30 KB) is read whole, each number in its place. */
static void test_long_lines(void **state)
{
	struct pap_meta m;
	char err[256], *text, *at;
	size_t size = 64 * 1024;
	uint64_t sum = pap_meta_checksum(PAP_MODE_PAP, graph, strlen(graph));
	uint32_t i;

	(void)state;
	text = malloc(size);
	assert_non_null(text);
	at = text + snprintf(text, size, "pap-meta 2\nfunction f\nfile f.c\n"
			     "mode pap\n%slines b1", graph);
	for (i = 0; i < 5000; i++)
		at += snprintf(at, size - (size_t)(at - text), " %u",
			       100000 + i);
	snprintf(at, size - (size_t)(at - text),
		 "\nlines b2 4\nchecksum %016llx\nend\n",
		 (unsigned long long)sum);
	pap_meta_init(&m);
	assert_int_equal(pap_meta_parse(&m, text, "t.papm", err,
					sizeof(err)), 0);
	assert_int_equal(m.fns[0]->lines[0][0], 5000);
	for (i = 0; i < 5000; i++)
		assert_int_equal(m.fns[0]->lines[0][1 + i], 100000 + i);
	assert_int_equal(m.fns[0]->lines[1][1], 4);
	pap_meta_free(&m);
	free(text);
}

static const char diamond[] = "blocks b1 b2 b3 b4\nentry b1\n"
	"edge b1 b2\nedge b1 b3\nedge b2 b4\nedge b3 b4\nreturn b4\n";

/*
 * The checksum of @diamond selected by psp2 for the one path of @blocks
 * (GCC numbers, "1 2 4"), from the definition: the mode's stamp, then
 * FNV-1a 64 over the selection's stamp, least significant byte first.
 * The plan's mode into @mode.
 */
static uint64_t sel_sum(const char *blocks, const char **mode)
{
	struct pap_cfgtext g;
	struct pap_sel_plan *sp;
	struct pap_sel_path p;
	uint32_t b[3], e[4];
	char err[256], name[8];
	uint64_t h, st;
	int i;

	assert_int_equal(pap_cfgtext_parse(diamond, "d", &g, err,
					   sizeof(err)), 0);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "b%c", blocks[2 * i]);
		b[i] = pap_cfgtext_block(&g, name);
	}
	assert_int_equal(pap_sel_path_from_blocks(g.cfg, b, 3, e, err,
						  sizeof(err)), 0);
	p.edges = e;
	p.len = 4;
	assert_int_equal(pap_sel_build(g.cfg, PAP_SEL_PSP2, &p, 1, NULL, &sp,
				       err, sizeof(err)), 0);
	*mode = pap_mode_name(sp->plan->mode);
	h = pap_meta_checksum(sp->plan->mode, diamond, strlen(diamond));
	st = pap_sel_stamp(sp);
	for (i = 0; i < 8; i++, st >>= 8)
		h = (h ^ (st & 0xff)) * 1099511628211ull;
	pap_sel_free(sp);
	pap_cfgtext_free(&g);
	return h;
}

/* @diamond's entry with selection line @spath and checksum @sum. */
static int parse_sel(struct pap_meta *m, const char *mode, const char *spath,
		     uint64_t sum, char *err, size_t errlen)
{
	char text[1024];

	snprintf(text, sizeof(text), "pap-meta 2\nfunction f\nfile f.c\n"
		 "mode %s\n%slines b1 3\nselect psp2 0\n%s\n"
		 "checksum %016llx\nend\n", mode, diamond, spath,
		 (unsigned long long)sum);
	return pap_meta_parse(m, text, "t.papm", err, errlen);
}

/* test_selection: a selective function's entry is read back with its
 * paths of interest and their spec FILE:LINE, and its checksum covers
 * the selection: another path, no selection or a bad block is refused. */
static void test_selection(void **state)
{
	const char *mode;
	uint64_t sum = sel_sum("1 2 4", &mode);
	struct pap_meta m;
	char err[256];

	(void)state;
	pap_meta_init(&m);
	assert_int_equal(parse_sel(&m, mode, "spath 3 1 2 4 dir/s.spec:7", sum,
				   err, sizeof(err)), 0);
	assert_int_equal(m.nfns, 1);
	assert_non_null(m.fns[0]->sel);
	assert_int_equal(m.fns[0]->nsel, 1);
	assert_string_equal(m.fns[0]->sel_where[0], "dir/s.spec:7");
	assert_int_equal(m.fns[0]->sel_num[0], 0);
	/* the same checksum for another path of interest */
	assert_int_not_equal(parse_sel(&m, mode, "spath 3 1 3 4 s:1", sum,
				       err, sizeof(err)), 0);
	assert_non_null(strstr(err, "does not match its checksum"));
	/* the stamp of the graph alone */
	assert_int_not_equal(parse_sel(&m, mode, "spath 3 1 2 4 s:1",
		pap_meta_checksum(PAP_MODE_PAP_EPP, diamond, strlen(diamond)),
		err, sizeof(err)), 0);
	/* a block the graph lacks, and blocks that are no path */
	assert_int_not_equal(parse_sel(&m, mode, "spath 3 1 9 4 s:1", sum,
				       err, sizeof(err)), 0);
	assert_non_null(strstr(err, "t.papm:"));
	assert_non_null(strstr(err, "bad spath record"));
	assert_int_not_equal(parse_sel(&m, mode, "spath 2 1 4 s:1", sum,
				       err, sizeof(err)), 0);
	assert_int_equal(m.nfns, 1);
	pap_meta_free(&m);
}

static const char cgraph[] = "blocks b1 b2 b3\nentry b1\nedge b1 b2\n"
			     "edge b1 b3\nedge b2 b3\nreturn b3\n";
/* the calls lines of the sites below, written out from the format */
static const char ctext[] = "calls ic\nsite 1 b1 direct - 10 g\n"
			    "site 2 b2 indirect o 11 - h k\n"
			    "site 3 b3 direct o 12 puts\n";

/* A version 3 file of one function with ctext, its checksum @sum and
 * its unit line @unit, with @from replaced by @to (NULL: none). */
static int parse_calls(struct pap_meta *m, uint64_t sum, uint64_t unit,
		       const char *from, const char *to, char *err,
		       size_t errlen)
{
	char text[2048], out[2048], *at;

	snprintf(text, sizeof(text), "pap-meta 3\nunit %016llx\nfunction f\n"
		 "file f.c\nmode none\n%slines b1 3\nlines b2 4\nlines b3 5\n"
		 "%schecksum %016llx\nend\n", (unsigned long long)unit,
		 cgraph, ctext, (unsigned long long)sum);
	if (from && (at = strstr(text, from))) {
		snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - text), text,
			 to, at + strlen(from));
		strcpy(text, out);
	}
	return pap_meta_parse(m, text, "c.papm", err, errlen);
}

/* test_calls: the writer writes the format, the reader reads it back
 * into sites ready for the call-site graph, the checksum covers the
 * calls lines and the unit line the checksums; damage is refused. */
static void test_calls(void **state)
{
	static const char *const hk[] = { "h", "k" };
	const struct pap_meta_site_out out[3] = {
		{ "b1", PAP_SITE_DIRECT, 0, 10, "g", 0, NULL },
		{ "b2", PAP_SITE_INDIRECT, PAP_SITE_MAYBE_OUT, 11, NULL, 2, hk },
		{ "b3", PAP_SITE_DIRECT, PAP_SITE_MAYBE_OUT, 12, "puts", 0,
		  NULL },
	};
	static const char *const bad[][2] = {
		{ "site 2 b2", "site 3 b2" },		/* numbering */
		{ "site 2 b2", "site 2 b9" },		/* no such block */
		{ "indirect", "sideways" },		/* kind */
		{ "direct - 10 g", "direct - 10 g x" },	/* cluster, direct */
		{ "indirect o 11 -", "indirect o 11 q" },	/* callee, indirect */
		{ "direct o 12", "direct ox 12" },	/* flags */
		{ "10 g", "13 g" },			/* not its checksum */
		{ "calls ic\n", "calls zz\n" },		/* strategy */
		{ "lines b3 5\ncalls ic\n", "calls ic\nlines b3 5\n" },
							/* lines apart */
	};
	char buf[512], text[1024], hex[32], err[256];
	struct pap_meta m;
	struct pap_meta_fn *f;
	uint64_t sum, unit;
	size_t i;

	(void)state;
	assert_int_equal(pap_meta_format_calls(buf, sizeof(buf), "ic", out, 3),
			 strlen(ctext));
	assert_string_equal(buf, ctext);
	snprintf(text, sizeof(text), "plan %d mode none\n%s%s",
		 PAP_PLAN_FORMAT, cgraph, ctext);
	sum = fnv(text);
	snprintf(hex, sizeof(hex), "%016llx\n", (unsigned long long)sum);
	unit = fnv(hex);
	assert_true(pap_meta_unit_sum(&sum, 1) == unit);

	pap_meta_init(&m);
	assert_int_equal(parse_calls(&m, sum, unit, NULL, NULL, err,
				     sizeof(err)), 0);
	f = m.fns[0];
	assert_int_equal(f->mode, PAP_MODE_NONE);
	assert_true(f->unit == unit);
	assert_non_null(f->calls);
	assert_string_equal(f->calls->strategy, "ic");
	assert_int_equal(f->calls->nsites, 3);
	assert_int_equal(f->calls->sites[1].block,
			 pap_cfgtext_block(&f->graph, "b2"));
	assert_int_equal(f->calls->sites[1].kind, PAP_SITE_INDIRECT);
	assert_int_equal(f->calls->sites[1].flags, PAP_SITE_MAYBE_OUT);
	assert_int_equal(f->calls->line[2], 12);
	assert_string_equal(f->calls->callee[0], "g");
	assert_null(f->calls->callee[1]);
	assert_int_equal(f->calls->ncluster[1], 2);
	assert_string_equal(f->calls->cluster[1][1], "k");
	assert_non_null(pap_meta_callgraph(f));
	assert_int_equal(pap_meta_callgraph(f)->nsites, 3);
	assert_null(pap_meta_plan(f));		/* calls alone */
	pap_meta_free(&m);

	assert_int_not_equal(parse_calls(&m, sum, unit + 1, NULL, NULL, err,
					 sizeof(err)), 0);
	assert_non_null(strstr(err, "unit line"));
	assert_int_equal(m.nfns, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_not_equal(parse_calls(&m, sum, unit, bad[i][0],
						 bad[i][1], err, sizeof(err)),
				     0);
		assert_non_null(strstr(err, "c.papm:"));
		assert_int_equal(m.nfns, 0);
	}
	/* version 2 has no calls lines */
	assert_int_not_equal(parse_calls(&m, sum, unit, "pap-meta 3\nunit",
					 "pap-meta 2\ndirectory", err, sizeof(err)),
			     0);
	pap_meta_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stamp_definition),
		cmocka_unit_test(test_v2_read),
		cmocka_unit_test(test_v1_read),
		cmocka_unit_test(test_elines),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_selection),
		cmocka_unit_test(test_calls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
