/* SPDX-License-Identifier: MIT */
/*
 * analysis.c - what reports derive from decoded paths: Ball-Larus id
 * streams and k-IPFs, per-line and per-edge flow, source text, and loop
 * compression of sequences.
 */
#include <stdlib.h>
#include <string.h>

#include "blstream.h"
#include "decode.h"
#include "decoder.h"
#include "textfile.h"

/* The function's EPP numbering, built once. */
static const struct pap_plan *func_bl(struct dfunc *f)
{
	const struct pap_plan *own;

	if (f->bl || f->bl_err)
		return f->bl;
	own = pap_meta_plan(f->fn);
	if (!own) {
		f->bl_err = PAP_EINVAL;
		return NULL;
	}
	f->bl_err = pap_plan_build(own->cfg, PAP_MODE_EPP, NULL, &f->bl);
	if (f->bl_err)
		f->bl = NULL;
	return f->bl;
}

struct id_sink {
	uint64_t *ids;
	size_t n, cap;
};

static int id_push(void *ctx, uint64_t id, size_t first, size_t n)
{
	struct id_sink *s = ctx;

	(void)first;
	(void)n;
	if (s->n == s->cap) {
		size_t c = s->cap ? 2 * s->cap : 16;
		uint64_t *m = realloc(s->ids, c * sizeof(*m));

		if (!m)
			return PAP_ENOMEM;
		s->ids = m;
		s->cap = c;
	}
	s->ids[s->n++] = id;
	return 0;
}

int path_bl_ids(struct dfunc *f, struct dpath *p, uint64_t **ids,
		size_t *nids)
{
	const struct pap_plan *bl = func_bl(f);
	struct id_sink s = { NULL, 0, 0 };
	int err;

	*ids = NULL;
	*nids = 0;
	if (!bl)
		return f->bl_err ? f->bl_err : PAP_EINVAL;
	if (p->bl_only) {
		/* an EPP record is one piece, numbered by the same plan */
		err = id_push(&s, p->bl_id, 0, 0);
		*ids = s.ids;
		*nids = s.n;
		return err;
	}
	if (path_open(f, p))
		return PAP_ENOMEM;
	err = pap_bl_split(bl, p->edges, p->nedges, id_push, &s);
	path_close(p);
	if (err) {
		free(s.ids);
		return err;
	}
	*ids = s.ids;
	*nids = s.n;
	return 0;
}

int func_kipf(struct dfunc *f, uint32_t k, struct pap_forest *ipf)
{
	struct pap_kslab ks;
	size_t i, j;
	int err = 0;

	pap_kslab_init(&ks, k);
	for (i = 0; i < f->npaths && !err; i++) {
		uint64_t *ids;
		size_t n;

		progress("building the k-IPF", i, f->npaths);
		err = path_bl_ids(f, &f->paths[i], &ids, &n);
		for (j = 0; j < n && !err; j++)
			err = pap_kslab_item(&ks, ids[j], f->paths[i].count);
		pap_kslab_marker(&ks);
		free(ids);
	}
	progress_done();
	if (!err)
		err = pap_kslab_to_kipf(&ks, ipf);
	pap_kslab_free(&ks);
	return err;
}

static int lines_add(uint32_t **v, size_t *n, size_t *cap, uint32_t line)
{
	if (*n && (*v)[*n - 1] == line)
		return 0;
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		uint32_t *m = realloc(*v, c * sizeof(*m));

		if (!m)
			return -1;
		*v = m;
		*cap = c;
	}
	(*v)[(*n)++] = line;
	return 0;
}

size_t bl_lines(struct dfunc *f, uint64_t id, uint32_t **lines)
{
	const struct pap_plan *bl = func_bl(f);
	const struct pap_cfg *cfg;
	struct pap_path p;
	size_t i, n = 0, cap = 0;
	uint32_t k, b;

	*lines = NULL;
	if (!bl)
		return 0;
	cfg = bl->cfg;
	pap_path_init(&p);
	if (pap_decode_bl(bl, id, &p)) {
		pap_path_free(&p);
		return 0;
	}
	b = p.start_fold != PAP_NONE ? cfg->edges[p.start_fold].dst :
				       PAP_NONE;
	for (i = 0; i <= p.len; i++) {
		if (i > 0)
			b = cfg->edges[p.edges[i - 1]].dst;
		if (b >= cfg->nblocks)
			continue;
		for (k = 0; k < blines(f->fn, b)[0]; k++)
			if (lines_add(lines, &n, &cap, blines(f->fn, b)[k + 1]))
				break;
	}
	pap_path_free(&p);
	return n;
}

void flow_counts(struct dfunc *f, uint64_t **block, uint64_t **edge)
{
	const struct pap_cfg *cfg = f->fn->graph.cfg;
	size_t i, j;

	*block = calloc(cfg->nnodes, sizeof(uint64_t));
	*edge = calloc(cfg->nedges + 1, sizeof(uint64_t));
	if (!*block || !*edge)
		return;
	for (i = 0; i < f->npaths; i++) {
		struct dpath *p = &f->paths[i];

		progress("counting flow", i, f->npaths);
		if (path_open(f, p))
			continue;
		for (j = 0; j < p->n; j++)
			(*block)[p->blocks[j]] += p->count;
		for (j = 0; j < p->nedges; j++)
			if (p->edges[j] < cfg->nedges)
				(*edge)[p->edges[j]] += p->count;
		path_close(p);
	}
	progress_done();
}

void line_counts(struct dfunc *f, uint64_t **count, uint32_t **paths,
		 uint32_t *nlines)
{
	const struct pap_meta_fn *fn = f->fn;
	uint32_t max = 0, b, k, *last;
	size_t i, j;

	for (b = 0; b < fn->graph.nblocks; b++)
		for (k = 0; k < blines(fn, b)[0]; k++)
			if (blines(fn, b)[k + 1] > max &&
			    blines(fn, b)[k + 1] < PAP_MAX_LINE)
				max = blines(fn, b)[k + 1];
	*nlines = max + 1;
	*count = calloc(max + 1, sizeof(uint64_t));
	*paths = calloc(max + 1, sizeof(uint32_t));
	last = calloc(max + 1, sizeof(uint32_t));
	if (!*count || !*paths || !last) {
		free(last);
		*nlines = 0;
		return;
	}
	/* a line's count is the executions of the blocks that carry it */
	for (i = 0; i < f->npaths; i++) {
		struct dpath *p = &f->paths[i];

		progress("counting lines", i, f->npaths);
		if (path_open(f, p))
			continue;
		for (j = 0; j < p->n; j++) {
			const uint32_t *ln = blines(fn, p->blocks[j]);

			for (k = 0; k < ln[0]; k++) {
				uint32_t l = ln[k + 1];

				if (l > max)
					continue;
				if (last[l] != i + 1) {
					last[l] = (uint32_t)i + 1;
					(*paths)[l]++;
				}
				(*count)[l] += p->count;
			}
		}
		path_close(p);
	}
	progress_done();
	free(last);
}

/* ---- source text, cached per file ---- */

struct source {
	char *file;
	char *text;		/* NULL: not found */
	char **lines;
	uint32_t nlines;
};

static struct source *sources;
static size_t nsources;

static void source_load(struct source *s)
{
	char err[256], *c;
	uint32_t n = 1, cap = 0;

	s->text = pap_read_text_file(s->file, 64u << 20, err, sizeof(err));
	if (!s->text)
		return;
	for (c = s->text; c; n++) {
		char *nl = strchr(c, '\n');

		if (n >= cap) {
			uint32_t cp = cap ? 2 * cap : 256;
			char **m = realloc(s->lines, cp * sizeof(*m));

			if (!m)
				return;
			s->lines = m;
			cap = cp;
		}
		s->lines[n] = c;
		s->nlines = n;
		if (nl)
			*nl = 0;
		c = nl ? nl + 1 : NULL;
	}
}

const char *source_line(const char *file, uint32_t line)
{
	struct source *s = NULL, *m;
	size_t i;

	for (i = 0; i < nsources; i++)
		if (!strcmp(sources[i].file, file))
			s = &sources[i];
	if (!s) {
		m = realloc(sources, (nsources + 1) * sizeof(*m));
		if (!m)
			return NULL;
		sources = m;
		s = &sources[nsources];
		memset(s, 0, sizeof(*s));
		s->file = strdup(file);
		if (!s->file)
			return NULL;
		nsources++;
		source_load(s);
	}
	if (!s->text || !line || line > s->nlines)
		return NULL;
	return s->lines[line];
}

void source_cache_free(void)
{
	size_t i;

	for (i = 0; i < nsources; i++) {
		free(sources[i].file);
		free(sources[i].text);
		free(sources[i].lines);
	}
	free(sources);
	sources = NULL;
	nsources = 0;
}

/* ---- loop compression ---- */

/* Longest run at @i of a subsequence repeated at least twice: returns
 * the period (0 if none) and its repetitions in *reps. */
static size_t find_repeat(const uint32_t *b, size_t n, size_t i, size_t *reps)
{
	size_t best = 0, best_cover = 0, p;

	*reps = 0;
	for (p = 1; p <= 64 && i + 2 * p <= n; p++) {
		size_t r = 1;

		while (i + (r + 1) * p <= n &&
		       !memcmp(b + i, b + i + r * p, p * sizeof(*b)))
			r++;
		if (r >= 2 && r * p > best_cover) {
			best = p;
			best_cover = r * p;
			*reps = r;
		}
	}
	return best;
}

void print_compressed(const struct seq_printer *sp, const uint32_t *v,
		      size_t n)
{
	size_t i = 0, reps;

	while (i < n) {
		size_t p = find_repeat(v, n, i, &reps);

		if (p) {
			sp->open(sp->ctx);
			print_compressed(sp, v + i, p);
			sp->close(sp->ctx, reps);
			i += p * reps;
			continue;
		}
		sp->item(sp->ctx, v[i]);
		i++;
	}
}

void json_string(FILE *out, const char *s)
{
	putc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			putc(c, out);
	}
	putc('"', out);
}
