/* SPDX-License-Identifier: MIT */
/*
 * report-annotate.c - source annotated in the manner of gcov: each line
 * with its execution count as gcov counts it (linecov.c) and the number
 * of distinct paths through it.
 */
#include <stdlib.h>
#include <string.h>

#include "decoder.h"

static void print_file(FILE *out, const struct linecov *lc)
{
	uint32_t l, last = lc->nlines ? lc->nlines - 1 : 0;
	const char *src;

	fprintf(out, "%9s %6s %5s:Source:%s\n", "count", "paths", "0",
		lc->file);
	for (l = 1; (src = source_line(lc->src, l)) || l <= last; l++) {
		int known = l < lc->nlines && lc->known[l];

		if (known && lc->count[l])
			fprintf(out, "%9llu %6u",
				(unsigned long long)lc->count[l],
				lc->paths[l]);
		else
			fprintf(out, "%9s %6s", known ? "#####" : "-",
				known ? "0" : "-");
		fprintf(out, " %5u:%s\n", l, src ? src : "");
	}
}

void print_annotated(FILE *out, struct dprofile *dp, struct pap_meta *meta)
{
	struct linecov *lcs;
	size_t n, i;

	if (linecov_build(dp, meta, &lcs, &n)) {
		fprintf(stderr, "%s: error: out of memory\n", pap_prog);
		return;
	}
	for (i = 0; i < n; i++)
		print_file(out, &lcs[i]);
	linecov_free(lcs, n);
}
