/* SPDX-License-Identifier: MIT */
/*
 * report-text.c - the reports for people and for scripts in plain text:
 * the hot-path report, one line per path, block counts, the Ball-Larus
 * stream and the k-IPF tree.
 */
#include <stdlib.h>
#include <string.h>

#include "decoder.h"

struct text_ctx {
	FILE *out;
	const struct pap_meta_fn *fn;
	int depth;		/* source listing: nesting of repeats */
	int col;
};

static void block_item(void *ctx, uint32_t b)
{
	struct text_ctx *c = ctx;
	const uint32_t *lines = blines(c->fn, b);
	uint32_t k;

	fprintf(c->out, " %u", block_number(c->fn, b));
	if (lines[0]) {
		fputc('[', c->out);
		for (k = 0; k < lines[0]; k++)
			fprintf(c->out, "%s%u", k ? "," : "", lines[k + 1]);
		fputc(']', c->out);
	}
}

static void inline_open(void *ctx)
{
	fputs(" (", ((struct text_ctx *)ctx)->out);
}

static void inline_close(void *ctx, size_t reps)
{
	fprintf(((struct text_ctx *)ctx)->out, " )^%zu", reps);
}

static void line_item(void *ctx, uint32_t line)
{
	struct text_ctx *c = ctx;
	const char *src = source_line(c->fn, line);

	fprintf(c->out, "%*s%6u | %s\n", 8 + 2 * c->depth, "", line,
		src ? src : "");
}

static void line_open(void *ctx)
{
	struct text_ctx *c = ctx;

	fprintf(c->out, "%*s(\n", 8 + 2 * c->depth, "");
	c->depth++;
}

static void line_close(void *ctx, size_t reps)
{
	struct text_ctx *c = ctx;

	c->depth--;
	fprintf(c->out, "%*s)^%zu\n", 8 + 2 * c->depth, "", reps);
}

/* The source lines a path runs through, consecutive repeats merged. */
size_t path_lines(const struct pap_meta_fn *fn, const struct dpath *p,
		  uint32_t **out)
{
	size_t i, n = 0;
	uint32_t k, *v;

	for (i = 0, k = 0; i < p->n; i++)
		k += blines(fn, p->blocks[i])[0];
	v = malloc((k + 1) * sizeof(*v));
	*out = v;
	if (!v)
		return 0;
	for (i = 0; i < p->n; i++) {
		const uint32_t *l = blines(fn, p->blocks[i]);

		for (k = 0; k < l[0]; k++)
			if (!n || v[n - 1] != l[k + 1])
				v[n++] = l[k + 1];
	}
	return n;
}

/* Paths per function shown with their source text. */
#define TEXT_SOURCE_PATHS 3

static void inline_gap(void *ctx)
{
	fputs(" ...", ((struct text_ctx *)ctx)->out);
}

static void line_gap(void *ctx)
{
	struct text_ctx *c = ctx;

	fprintf(c->out, "%*s...\n", 8 + 2 * c->depth, "");
}

/*
 * Prints path @p of @f: its count, share of @total and length, then its
 * blocks with loops as ( ... )^N, and with @source its source lines,
 * both bounded (print_bounded()).
 */
static void print_path(FILE *out, struct dfunc *f, struct dpath *p,
		       uint64_t total, int source)
{
	struct text_ctx c = { out, f->fn, 0, 0 };
	struct seq_printer sp = { block_item, inline_open, inline_close, &c };
	struct path_emit e = { f, p, NULL, 0, piece_blocks, NULL };
	struct pap_rseq form;
	uint32_t *lines = NULL;
	int open = !path_long(p);

	/* a long path's form is built once for its four printings */
	pap_rseq_init(&form);
	if (!open && path_form(f, p, &form) == PAP_OK)
		e.form = &form;
	if (open && path_open(f, p))
		return;
	fprintf(out, "  %10llu %5.1f%% %6zu blocks%s%s:",
		(unsigned long long)p->count,
		total ? 100.0 * p->count / total : 0.0, p->n,
		p->resumed ? " (resumed by a nonlocal jump)" : "",
		p->complete ? "" : " (cut short)");
	if (open) {
		e.v = p->blocks;
		e.n = p->n;
	}
	print_bounded(&sp, inline_gap, emit_seq, &e);
	fputc('\n', out);
	if (source) {
		e.piece = piece_lines;
		if (open) {
			e.n = path_lines(f->fn, p, &lines);
			e.v = lines;
		}
		sp = (struct seq_printer){ line_item, line_open, line_close,
					   &c };
		print_bounded(&sp, line_gap, emit_seq, &e);
		free(lines);
	}
	if (open)
		path_close(p);
	pap_rseq_free(&form);
}

/* One line saying what a function did: activations, distinct paths,
 * the hottest path's share, the acyclic paths covered. */
static void print_summary(FILE *out, struct dfunc *df)
{
	struct bl_coverage c;
	char of[32], share[32];

	fprintf(out, "%s (%s): %llu %s, %zu distinct paths", df->fn->name,
		df->fn->file, (unsigned long long)df->total,
		df->fn->mode == PAP_MODE_EPP ? "acyclic paths" : "activations",
		df->npaths);
	if (df->npaths)
		fprintf(out, ", hottest %.1f%%", df->total ?
			100.0 * df->paths[0].count / df->total : 0.0);
	if (!func_coverage(df, &c)) {
		fmt_count(of, sizeof(of), c.feasible);
		fmt_share(share, sizeof(share), (double)c.taken,
			  (double)c.feasible);
		fprintf(out, ", acyclic paths %llu of %s (%s)",
			(unsigned long long)c.taken, of, share);
	}
	fputc('\n', out);
}

static const struct dfunc *order_fs;

/* Functions by the --sort order, ties by name. */
static int fn_cmp_act(const void *a, const void *b)
{
	const struct dfunc *x = &order_fs[*(const size_t *)a];
	const struct dfunc *y = &order_fs[*(const size_t *)b];

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->fn->name, y->fn->name);
}

static int fn_cmp_paths(const void *a, const void *b)
{
	const struct dfunc *x = &order_fs[*(const size_t *)a];
	const struct dfunc *y = &order_fs[*(const size_t *)b];
	size_t nx = x->decoded ? x->npaths : x->nrecs;
	size_t ny = y->decoded ? y->npaths : y->nrecs;

	if (nx != ny)
		return nx > ny ? -1 : 1;
	return fn_cmp_act(a, b);
}

size_t *function_order(const struct dprofile *dp, int sort)
{
	size_t *ord = malloc((dp->nfs + 1) * sizeof(*ord)), i;

	if (!ord)
		return NULL;
	for (i = 0; i < dp->nfs; i++)
		ord[i] = i;
	order_fs = dp->fs;
	if (sort == ORDER_ACTIVATIONS)
		qsort(ord, dp->nfs, sizeof(*ord), fn_cmp_act);
	else if (sort == ORDER_PATHS)
		qsort(ord, dp->nfs, sizeof(*ord), fn_cmp_paths);
	return ord;
}

struct hot {
	struct dfunc *f;
	size_t i;
};

static int hot_cmp(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;
	uint64_t cx = x->f->paths[x->i].count, cy = y->f->paths[y->i].count;

	if (cx != cy)
		return cx > cy ? -1 : 1;
	return strcmp(x->f->fn->name, y->f->fn->name);
}

/* One function of the text report: summary, top paths, what is left. */
static void print_function(FILE *out, struct dfunc *df, const struct ropts *o,
			   struct hot *hot, size_t *nhot, size_t top)
{
	uint64_t left = 0;
	size_t i, nleft = 0, shown = 0;

	print_summary(out, df);
	/* what is printed goes out now: a reader that stops (| head)
	 * ends the report at the next write, not after the next function */
	fflush(out);
	for (i = 0; i < df->npaths; i++) {
		if (!path_shown(o, df, i)) {
			left += df->paths[i].count;
			nleft++;
			continue;
		}
		print_path(out, df, &df->paths[i], df->total,
			   o->source && shown < TEXT_SOURCE_PATHS);
		fflush(out);
		shown++;
		if (hot && i < top)
			hot[(*nhot)++] = (struct hot){ df, i };
	}
	if (nleft)
		fprintf(out, "  ... %zu more paths, %.1f%% of the %s (--top=0 "
			"shows all)\n", nleft,
			df->total ? 100.0 * left / df->total : 0.0,
			df->fn->mode == PAP_MODE_EPP ? "acyclic paths" :
						       "activations");
	if (o->k) {
		fputc('\n', out);
		print_kipf_text(out, df, o);
	}
}

void print_text(FILE *out, struct dprofile *dp, const struct ropts *o)
{
	size_t f, i, nhot = 0, top = o->top ? o->top : REPORT_TOP;
	size_t *ord = function_order(dp, o->sort);
	struct hot *hot;

	if (!ord) {
		fprintf(stderr, "%s: error: out of memory\n", pap_prog);
		return;
	}
	for (f = 0; f < dp->nfs; f++)
		nhot += dp->fs[f].nrecs + dp->fs[f].npaths < top ?
			dp->fs[f].nrecs + dp->fs[f].npaths : top;
	hot = calloc(nhot + 1, sizeof(*hot));
	nhot = 0;
	for (f = 0; f < dp->nfs; f++) {
		struct dfunc *df = &dp->fs[ord[f]];

		/* decoded only now: the first function prints before the
		 * others are decoded */
		func_decode(dp, df);
		if (f)
			fputc('\n', out);
		print_function(out, df, o, hot, &nhot, top);
		fflush(out);
		func_release(df);
		/* what is read again (the hottest paths overall, the paths
		 * shown for --write-spec) is among the first --top: the
		 * others are let go, so memory holds one function's */
		if (o->top)
			func_trim(df, o->top);
	}
	if (hot && dp->nfs > 1) {
		qsort(hot, nhot, sizeof(*hot), hot_cmp);
		fprintf(out, "\nhottest paths overall (share of all %llu "
			"recorded paths):\n", (unsigned long long)dp->total);
		for (i = 0; i < nhot && i < top; i++) {
			fprintf(out, "  %s\n", hot[i].f->fn->name);
			print_path(out, hot[i].f, &hot[i].f->paths[hot[i].i],
				   dp->total, 0);
		}
	}
	free(hot);
	free(ord);
	fprintf(out, "%scolumns: count, share of the function's activations, "
		"length; blocks as ID[source lines]; (...)^N repeats N times; "
		"... parts left out\n", dp->nfs ? "\n" : "");
	print_calls_text(out, dp, o);
	print_calls_interest_text(out, dp, o);
}

void print_paths(FILE *out, struct dprofile *dp, const struct ropts *o)
{
	size_t f, i;

	for (f = 0; f < dp->nfs; f++) {
		struct dfunc *df = &dp->fs[f];

		for (i = 0; i < df->npaths; i++) {
			struct dpath *p = &df->paths[i];

			if (!path_shown(o, df, i))
				continue;
			progress("writing paths", i, df->npaths);
			if (path_long(p)) {
				/* loops as ( ... )^N: doc/reports.md */
				fprintf(out, "%s %llu %d", df->fn->name,
					(unsigned long long)p->count,
					p->complete);
				put_form_numbers(out, df, p);
				fputc('\n', out);
				continue;
			}
			if (path_open(df, p))
				continue;
			fprintf(out, "%s %llu %d", df->fn->name,
				(unsigned long long)p->count, p->complete);
			put_block_numbers(out, df, p, 0);
			fputc('\n', out);
			path_close(p);
		}
		progress_done();
	}
}

void print_block_counts(FILE *out, struct dprofile *dp)
{
	size_t f;
	uint32_t b;

	for (f = 0; f < dp->nfs; f++) {
		const struct pap_meta_fn *fn = dp->fs[f].fn;
		uint64_t *count, *edge;

		flow_counts(&dp->fs[f], &count, &edge);
		for (b = 0; count && b < fn->graph.nblocks; b++)
			if (count[b])
				fprintf(out, "%s %u %llu\n", fn->name,
					block_number(fn, b),
					(unsigned long long)count[b]);
		free(count);
		free(edge);
	}
}

/* A long path's Ball-Larus ids, loops as ( ... )^N; 0 or a pap_err
 * after a message. */
static int put_bl_form(FILE *out, struct dfunc *df, struct dpath *p)
{
	int err = put_bl_stream_form(out, df, p);

	if (err)
		fprintf(stderr, "%s: error: function %s: no Ball-Larus "
			"numbering: %s\n", pap_prog, df->fn->name,
			pap_strerror(err));
	return err;
}

void print_bl_stream(FILE *out, struct dprofile *dp, const struct ropts *o)
{
	size_t f, i, j;

	for (f = 0; f < dp->nfs; f++) {
		struct dfunc *df = &dp->fs[f];

		for (i = 0; i < df->npaths; i++) {
			uint64_t *ids;
			size_t n;
			int err;

			if (!path_shown(o, df, i))
				continue;
			if (path_long(&df->paths[i])) {
				fprintf(out, "%s %llu", df->fn->name,
					(unsigned long long)
					df->paths[i].count);
				err = put_bl_form(out, df, &df->paths[i]);
				fputc('\n', out);
				if (err)
					break;
				continue;
			}
			err = path_bl_ids(df, &df->paths[i], &ids, &n);

			if (err) {
				fprintf(stderr, "%s: error: function %s: no "
					"Ball-Larus numbering: %s\n", pap_prog,
					df->fn->name, pap_strerror(err));
				break;
			}
			fprintf(out, "%s %llu", df->fn->name,
				(unsigned long long)df->paths[i].count);
			for (j = 0; j < n; j++)
				fprintf(out, " %llu", (unsigned long long)ids[j]);
			fputc('\n', out);
			free(ids);
		}
	}
}

/* Children of @v sorted by count, hottest first, into a new array. */
static uint32_t *sorted_children(const struct pap_forest *ipf, uint32_t v,
				 size_t *n);

static const struct pap_forest *sort_forest;

static int node_cmp(const void *a, const void *b)
{
	const struct pap_fnode *x = &sort_forest->nodes[*(const uint32_t *)a];
	const struct pap_fnode *y = &sort_forest->nodes[*(const uint32_t *)b];

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->label < y->label ? -1 : x->label > y->label;
}

static uint32_t *sorted_children(const struct pap_forest *ipf, uint32_t v,
				 size_t *n)
{
	uint32_t c, *a;

	*n = 0;
	if (!v) {
		a = pap_forest_roots(ipf);
		*n = a ? ipf->nroots : 0;
	} else {
		for (c = ipf->nodes[v].child; c; c = ipf->nodes[c].sibling)
			++*n;
		a = malloc((*n + 1) * sizeof(*a));
		*n = 0;
		for (c = ipf->nodes[v].child; a && c;
		     c = ipf->nodes[c].sibling)
			a[(*n)++] = c;
	}
	sort_forest = ipf;
	if (a && *n)
		qsort(a, *n, sizeof(*a), node_cmp);
	return a;
}

void kipf_walk(const struct pap_forest *ipf, uint32_t v,
		      uint64_t parent, uint64_t root, double min_share,
		      const struct kipf_visit *kv)
{
	size_t n, i;
	uint32_t *c = sorted_children(ipf, v, &n);
	int shown = 0;

	for (i = 0; c && i < n; i++) {
		const struct pap_fnode *nd = &ipf->nodes[c[i]];
		uint64_t r = v ? root : nd->count;

		if (v && (double)nd->count < min_share * (double)root)
			continue;
		kv->enter(kv->ctx, ipf, c[i], v ? parent : nd->count, r,
			  !shown);
		shown = 1;
		kipf_walk(ipf, c[i], nd->count, r, min_share, kv);
		kv->leave(kv->ctx, 0);
	}
	if (shown && kv->end)
		kv->end(kv->ctx);
	free(c);
}

void put_bl_lines(const struct kipf_out *ko, uint64_t id, const char *sep)
{
	uint32_t *lines;
	size_t n = bl_lines(ko->df, id, &lines), i;

	for (i = 0; i < n; i++)
		fprintf(ko->f, "%s%u", i ? sep : "", lines[i]);
	free(lines);
}

int kipf_report(struct dfunc *df, uint32_t k, double min_share,
		const struct kipf_visit *kv)
{
	struct pap_forest ipf;
	int err;

	pap_forest_init(&ipf);
	err = func_kipf(df, k, &ipf);
	if (err)
		fprintf(stderr, "%s: error: function %s: no %u-IPF: %s\n",
			pap_prog, df->fn->name, k, pap_strerror(err));
	else
		kipf_walk(&ipf, 0, 0, 0, min_share, kv);
	pap_forest_free(&ipf);
	return err;
}

static void kt_enter(void *ctx, const struct pap_forest *ipf, uint32_t v,
		     uint64_t parent, uint64_t root, int first)
{
	struct kipf_out *t = ctx;
	const struct pap_fnode *nd = &ipf->nodes[v];

	(void)first;
	fprintf(t->f, "%*sBL %llu: %llu", 2 * nd->depth, "",
		(unsigned long long)nd->label, (unsigned long long)nd->count);
	if (nd->depth > 1)
		fprintf(t->f, ", %.1f%% of parent (%.1f%% of root)",
			parent ? 100.0 * nd->count / parent : 0.0,
			root ? 100.0 * nd->count / root : 0.0);
	fputs(", lines ", t->f);
	put_bl_lines(t, nd->label, " ");
	fputc('\n', t->f);
}

static void kt_leave(void *ctx, int last)
{
	(void)ctx;
	(void)last;
}

void print_kipf_text(FILE *out, struct dfunc *f, const struct ropts *o)
{
	struct kipf_out t = { out, f };
	struct kipf_visit kv = { kt_enter, kt_leave, NULL, &t };

	fprintf(out, "  %u-iteration path forest of %s (nodes under %.0f%% "
		"of their root pruned):\n", o->k, f->fn->name,
		100.0 * o->min_share);
	kipf_report(f, o->k, o->min_share, &kv);
}
