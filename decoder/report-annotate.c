/* SPDX-License-Identifier: MIT */
/*
 * report-annotate.c - source annotated in the manner of gcov: each line
 * with its execution count (the executions of the blocks carrying it,
 * summed over the decoded paths) and the number of distinct paths
 * through it.
 */
#include <stdlib.h>
#include <string.h>

#include "decoder.h"

struct file_counts {
	const char *file;
	const struct pap_meta_fn *fn;	/* its first function */
	uint64_t *count;
	uint32_t *paths;
	uint8_t *known;		/* some block carries the line */
	uint32_t nlines;
};

/* Adds @f's line counts into @fc, growing it. */
static void add_function(struct file_counts *fc, struct dfunc *f)
{
	uint64_t *count;
	uint32_t *paths, n, l, b, k;

	line_counts(f, &count, &paths, &n);
	if (n > fc->nlines) {
		uint64_t *c = realloc(fc->count, n * sizeof(*c));
		uint32_t *p = realloc(fc->paths, n * sizeof(*p));
		uint8_t *kn = realloc(fc->known, n);

		if (c)
			fc->count = c;
		if (p)
			fc->paths = p;
		if (kn)
			fc->known = kn;
		if (!c || !p || !kn)
			goto out;
		memset(c + fc->nlines, 0, (n - fc->nlines) * sizeof(*c));
		memset(p + fc->nlines, 0, (n - fc->nlines) * sizeof(*p));
		memset(kn + fc->nlines, 0, n - fc->nlines);
		fc->nlines = n;
	}
	for (l = 0; l < n; l++) {
		fc->count[l] += count[l];
		fc->paths[l] += paths[l];
	}
	for (b = 0; b < f->fn->graph.nblocks; b++)
		for (k = 0; k < blines(f->fn, b)[0]; k++)
			if (blines(f->fn, b)[k + 1] < fc->nlines)
				fc->known[blines(f->fn, b)[k + 1]] = 1;
out:
	free(count);
	free(paths);
}

static void print_file(FILE *out, const struct file_counts *fc)
{
	uint32_t l, last = fc->nlines ? fc->nlines - 1 : 0;
	const char *src;

	fprintf(out, "%9s %6s %5s:Source:%s\n", "count", "paths", "0",
		fc->file);
	for (l = 1; (src = source_line(fc->fn, l)) || l <= last; l++) {
		int known = l < fc->nlines && fc->known[l];

		if (known && fc->count[l])
			fprintf(out, "%9llu %6u",
				(unsigned long long)fc->count[l],
				fc->paths[l]);
		else
			fprintf(out, "%9s %6s", known ? "#####" : "-",
				known ? "0" : "-");
		fprintf(out, " %5u:%s\n", l, src ? src : "");
	}
}

void print_annotated(FILE *out, struct dprofile *dp)
{
	size_t f, g;

	for (f = 0; f < dp->nfs; f++) {
		struct file_counts fc;

		for (g = 0; g < f; g++)
			if (!strcmp(dp->fs[g].fn->file, dp->fs[f].fn->file))
				break;
		if (g < f)
			continue;	/* printed with its first function */
		memset(&fc, 0, sizeof(fc));
		fc.file = dp->fs[f].fn->file;
		fc.fn = dp->fs[f].fn;
		for (g = f; g < dp->nfs; g++)
			if (!strcmp(dp->fs[g].fn->file, fc.file))
				add_function(&fc, &dp->fs[g]);
		print_file(out, &fc);
		free(fc.count);
		free(fc.paths);
		free(fc.known);
	}
}
