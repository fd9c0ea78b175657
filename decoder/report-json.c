/* SPDX-License-Identifier: MIT */
/*
 * report-json.c - the JSON report (doc/formats.md, "The JSON report";
 * doc/pap-report.schema.json): every path in its compact form, its
 * blocks in full only up to a length, the k-IPF, and what the profile
 * says of itself.
 */
#include <stdlib.h>
#include <string.h>

#include <pap/version.h>

#include "decoder.h"


static void kj_enter(void *ctx, const struct pap_forest *ipf, uint32_t v,
		     uint64_t parent, uint64_t root, int first)
{
	struct kipf_out *t = ctx;
	const struct pap_fnode *nd = &ipf->nodes[v];

	(void)parent;
	(void)root;
	fprintf(t->f, "%s{\"bl_path\": %llu, \"count\": %llu, \"lines\": [",
		first ? "" : ", ", (unsigned long long)nd->label,
		(unsigned long long)nd->count);
	put_bl_lines(t, nd->label, ", ");
	fputs("], \"children\": [", t->f);
}

static void kj_leave(void *ctx, int last)
{
	(void)last;
	fputs("]}", ((struct kipf_out *)ctx)->f);
}

void print_kipf_json(FILE *out, struct dfunc *f, const struct ropts *o)
{
	struct kipf_out t = { out, f };
	struct kipf_visit kv = { kj_enter, kj_leave, NULL, &t };

	fprintf(out, ", \"k\": %u, \"forest\": [", o->k);
	kipf_report(f, o->k, o->min_share, &kv);
	fputs("]", out);
}

/* One path of @df: count, flags, length, compact form, and its blocks
 * with their lines when it is short or o->all_blocks says. */
static void json_path(FILE *out, struct dfunc *df, struct dpath *p,
		      const struct ropts *o, int first)
{
	uint32_t l;
	size_t k;
	int open = !path_long(p);
	int blocks = open && (o->all_blocks || p->n <= JSON_BLOCKS_MAX);
	int cut;

	if (open && path_open(df, p))
		return;
	fprintf(out, "%s\n    {\"count\": %llu, \"complete\": %s, "
		"\"resumed\": %s, \"length\": %zu, \"blocks_packed\": \"",
		first ? "" : ",", (unsigned long long)p->count,
		p->complete ? "true" : "false", p->resumed ? "true" : "false",
		p->n);
	/* bounded as the text report bounds a path, unless forced */
	cut = put_numbers_bounded(out, df, p, o->all_blocks ? 0 :
				  JSON_PACKED_MAX_MARKS);
	fputc('"', out);
	if (cut)
		fputs(", \"packed_cut\": true", out);
	if (blocks) {
		fputs(", \"blocks\": [", out);
		for (k = 0; k < p->n; k++) {
			const uint32_t *lines = blines(df->fn, p->blocks[k]);

			fprintf(out, "%s{\"id\": %u, \"lines\": [",
				k ? ", " : "",
				block_number(df->fn, p->blocks[k]));
			for (l = 0; l < lines[0]; l++)
				fprintf(out, "%s%u", l ? ", " : "",
					lines[l + 1]);
			fputs("]}", out);
		}
		fputc(']', out);
	}
	if (open)
		path_close(p);
	fputc('}', out);
}

/* One function: its summary, the paths shown, the k-IPF. */
static void json_function(FILE *out, struct dfunc *df, const struct ropts *o)
{
	struct bl_coverage c;
	uint64_t left = 0;
	size_t i, nleft = 0;
	int first = 1;

	fputs("{\"name\": ", out);
	json_string(out, df->fn->name);
	fputs(", \"file\": ", out);
	json_string(out, df->fn->file);
	fprintf(out, ", \"mode\": \"%s\", \"activations\": %llu, "
		"\"distinct_paths\": %zu", pap_mode_name(df->fn->mode),
		(unsigned long long)df->total, df->npaths);
	if (!func_coverage(df, &c))
		fprintf(out, ", \"acyclic_taken\": %llu, "
			"\"acyclic_feasible\": %llu",
			(unsigned long long)c.taken,
			(unsigned long long)c.feasible);
	fputs(", \"paths\": [", out);
	for (i = 0; i < df->npaths; i++) {
		if (!path_shown(o, df, i)) {
			left += df->paths[i].count;
			nleft++;
			continue;
		}
		json_path(out, df, &df->paths[i], o, first);
		first = 0;
	}
	fprintf(out, "], \"paths_left_out\": %zu, \"count_left_out\": %llu",
		nleft, (unsigned long long)left);
	if (o->k)
		print_kipf_json(out, df, o);
	fputs("}", out);
}

void print_json(FILE *out, struct dprofile *dp, const struct ropts *o)
{
	size_t *ord = function_order(dp, o->sort), f;

	if (!ord) {
		fprintf(stderr, "%s: error: out of memory\n", pap_prog);
		return;
	}
	fprintf(out, "{\"format_version\": %d, \"pap_version\": \"%s\", "
		"\"profile\": ", JSON_FORMAT_VERSION, PAP_VERSION_STRING);
	json_string(out, dp->file ? dp->file : "");
	fprintf(out, ", \"lost\": %llu, \"top\": %zu, \"functions\": [",
		(unsigned long long)(dp->prof ? dp->prof->lost : 0), o->top);
	for (f = 0; f < dp->nfs; f++) {
		struct dfunc *df = &dp->fs[ord[f]];

		func_decode(dp, df);
		fputs(f ? ",\n  " : "\n  ", out);
		json_function(out, df, o);
		fflush(out);	/* a reader that stops ends it here */
		func_release(df);
		/* --write-spec reads the paths shown again, no others */
		if (o->top)
			func_trim(df, o->top);
	}
	fputs("\n], \"activations\": ", out);
	fprintf(out, "%llu", (unsigned long long)dp->total);
	if (dp->prof) {
		/* the functions built selectively, if any */
		struct sel_report rep;

		if (sel_report_build(dp->d, dp->prof, o, &rep))
			dp->d->errors++;
		if (rep.nfs) {
			fputs(",\n\"selective\": ", out);
			print_selective_json(out, &rep);
		}
		sel_report_free(&rep);
	}
	print_calls_json(out, dp, o);
	print_calls_interest_json(out, dp, o);
	fputs("}\n", out);
	free(ord);
}
