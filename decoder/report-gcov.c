/* SPDX-License-Identifier: MIT */
/*
 * report-gcov.c - coverage in the formats gcov's tools read, from each
 * source file's coverage (linecov.c): an lcov tracefile (genhtml, lcov)
 * gcov's JSON intermediate format (gcov --json-format, format version
 * 1) and gcov's text format (FILE.gcov, as gcovr --use-gcov-files reads
 * it).  doc/reports.md gives the mappings.
 */
#include <stdlib.h>
#include <string.h>

#include <pap/version.h>

#include "decoder.h"

/* Builds @dp's coverage into *@lcs; -1 after a message. */
static int build(struct dprofile *dp, struct pap_meta *meta,
		 struct linecov **lcs, size_t *n)
{
	if (!linecov_build(dp, meta, lcs, n))
		return 0;
	fprintf(stderr, "%s: error: out of memory\n", pap_prog);
	return -1;
}

/* One lcov record: the file's functions, branches and lines. */
static void lcov_file(FILE *out, const struct linecov *lc)
{
	char path[4096];
	size_t i, hit = 0, brh = 0;
	uint32_t l, lf = 0, lh = 0;

	fprintf(out, "TN:\nSF:%s\n", source_path(lc->src, path,
						 sizeof(path)));
	for (i = 0; i < lc->nfns; i++)
		fprintf(out, "FN:%u,%s\n", lc->fns[i].first,
			lc->fns[i].fn->name);
	for (i = 0; i < lc->nfns; i++) {
		fprintf(out, "FNDA:%llu,%s\n",
			(unsigned long long)lc->fns[i].calls,
			lc->fns[i].fn->name);
		hit += lc->fns[i].calls != 0;
	}
	fprintf(out, "FNF:%zu\nFNH:%zu\n", lc->nfns, hit);
	for (i = 0; i < lc->nbr; i++) {
		const struct linecov_branch *b = &lc->br[i];

		if (b->ran)
			fprintf(out, "BRDA:%u,%u,%u,%llu\n", b->line, b->block,
				b->index, (unsigned long long)b->count);
		else
			fprintf(out, "BRDA:%u,%u,%u,-\n", b->line, b->block,
				b->index);
		brh += b->ran && b->count;
	}
	fprintf(out, "BRF:%zu\nBRH:%zu\n", lc->nbr, brh);
	for (l = 1; l < lc->nlines; l++) {
		if (!lc->known[l])
			continue;
		fprintf(out, "DA:%u,%llu\n", l,
			(unsigned long long)lc->count[l]);
		lf++;
		lh += lc->count[l] != 0;
	}
	fprintf(out, "LF:%u\nLH:%u\nend_of_record\n", lf, lh);
}

void print_lcov(FILE *out, struct dprofile *dp, struct pap_meta *meta)
{
	struct linecov *lcs;
	size_t n, i;

	if (build(dp, meta, &lcs, &n))
		return;
	for (i = 0; i < n; i++)
		lcov_file(out, &lcs[i]);
	linecov_free(lcs, n);
}

/* gcov's JSON for one line: its count and the branches out of it. */
static void json_line(FILE *out, const struct linecov *lc, uint32_t l,
		      size_t *br)
{
	int first = 1;

	fprintf(out, "{\"line_number\": %u, \"function_name\": ", l);
	json_string(out, lc->fn_of[l] ? lc->fn_of[l]->name : "");
	fprintf(out, ", \"count\": %llu, \"unexecuted_block\": %s, "
		"\"branches\": [", (unsigned long long)lc->count[l],
		lc->known[l] & LINE_UNRUN ? "true" : "false");
	for (; *br < lc->nbr && lc->br[*br].line == l; ++*br) {
		fprintf(out, "%s{\"count\": %llu, \"fallthrough\": false, "
			"\"throw\": %s}", first ? "" : ", ",
			(unsigned long long)lc->br[*br].count,
			lc->br[*br].abnormal ? "true" : "false");
		first = 0;
	}
	fprintf(out, "]}");
}

/* Orders branches by line, keeping each block's ways in order. */
static int br_cmp(const void *a, const void *b)
{
	const struct linecov_branch *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->fn != y->fn)
		return strcmp(x->fn->name, y->fn->name);
	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* gcov's JSON for one source file. */
static void json_file(FILE *out, struct linecov *lc)
{
	size_t i, br = 0;
	uint32_t l;
	int first = 1;

	fprintf(out, "{\"file\": ");
	json_string(out, lc->file);
	fprintf(out, ", \"functions\": [");
	for (i = 0; i < lc->nfns; i++) {
		const struct linecov_fn *f = &lc->fns[i];

		fprintf(out, "%s{\"name\": ", i ? ", " : "");
		json_string(out, f->fn->name);
		fprintf(out, ", \"demangled_name\": ");
		json_string(out, f->fn->name);
		fprintf(out, ", \"start_line\": %u, \"start_column\": 0, "
			"\"end_line\": %u, \"end_column\": 0, \"blocks\": %u, "
			"\"blocks_executed\": %u, \"execution_count\": %llu}",
			f->first, f->last, f->nblocks, f->blocks_run,
			(unsigned long long)f->calls);
	}
	fprintf(out, "], \"lines\": [");
	qsort(lc->br, lc->nbr, sizeof(*lc->br), br_cmp);
	for (l = 1; l < lc->nlines; l++) {
		if (!lc->known[l])
			continue;
		fprintf(out, "%s", first ? "" : ", ");
		while (br < lc->nbr && lc->br[br].line < l)
			br++;
		json_line(out, lc, l, &br);
		first = 0;
	}
	fprintf(out, "]}");
}

void print_gcov_json(FILE *out, struct dprofile *dp, struct pap_meta *meta,
		     const char *profile)
{
	struct linecov *lcs;
	size_t n, i;

	if (build(dp, meta, &lcs, &n))
		return;
	fprintf(out, "{\"format_version\": \"1\", \"gcc_version\": ");
	json_string(out, "pap " PAP_VERSION_STRING);
	fprintf(out, ", \"current_working_directory\": ");
	json_string(out, n && lcs[0].src->dir ? lcs[0].src->dir : ".");
	fprintf(out, ", \"data_file\": ");
	json_string(out, profile);
	fprintf(out, ", \"files\": [");
	for (i = 0; i < n; i++) {
		fprintf(out, "%s", i ? ", " : "");
		json_file(out, &lcs[i]);
	}
	fprintf(out, "]}\n");
	linecov_free(lcs, n);
}

/* gcov's text for one source file: "COUNT:LINE:TEXT" from line 0. */
static void gcov_text_file(FILE *out, const struct linecov *lc,
			   const char *profile)
{
	uint32_t l, last = lc->nlines ? lc->nlines - 1 : 0;
	const char *src;

	fprintf(out, "%9s:%5u:Source:%s\n", "-", 0, lc->file);
	fprintf(out, "%9s:%5u:Data:%s\n", "-", 0, profile);
	for (l = 1; (src = source_line(lc->src, l)) || l <= last; l++) {
		if (l < lc->nlines && lc->known[l] && lc->count[l])
			fprintf(out, "%9llu", (unsigned long long)lc->count[l]);
		else
			fprintf(out, "%9s", l < lc->nlines && lc->known[l] ?
				"#####" : "-");
		fprintf(out, ":%5u:%s\n", l, src ? src : "");
	}
}

void print_gcov_text(FILE *out, struct dprofile *dp, struct pap_meta *meta,
		     const char *profile)
{
	struct linecov *lcs;
	size_t n, i;

	if (build(dp, meta, &lcs, &n))
		return;
	for (i = 0; i < n; i++)
		gcov_text_file(out, &lcs[i], profile);
	linecov_free(lcs, n);
}
