/* SPDX-License-Identifier: MIT */
/*
 * meta.c - the metadata reader.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "meta.h"
#include "metacalls.h"
#include "util.h"

void pap_meta_init(struct pap_meta *m)
{
	memset(m, 0, sizeof(*m));
}

static void meta_fn_free(struct pap_meta_fn *f)
{
	uint32_t b;

	if (f->lines)
		for (b = 0; b < f->graph.nblocks; b++)
			free(f->lines[b]);
	free(f->lines);
	if (f->elines)
		for (b = 0; b < f->nelines; b++)
			free(f->elines[b]);
	free(f->elines);
	pap_plan_free(f->plan);
	pap_sel_free(f->sel);
	for (b = 0; b < f->nsel; b++)
		free(f->sel_where[b]);
	free(f->sel_where);
	free(f->sel_num);
	meta_calls_free(f->calls);
	if (f->graph.cfg)
		pap_cfgtext_free(&f->graph);
	free(f->name);
	free(f->file);
	free(f->meta);
	free(f->dir);
	free(f);
}

void pap_meta_free(struct pap_meta *m)
{
	size_t i;

	for (i = 0; i < m->nfns; i++)
		meta_fn_free(m->fns[i]);
	free(m->fns);
	pap_meta_init(m);
}

#define meta_error(err, errlen, file, line, ...) \
	pap_diag(PAP_ECORRUPT, err, errlen, file, line, __VA_ARGS__)

/* The rest of the line after @key and a space, copied; NULL if absent. */
static char *meta_value(const char *line, size_t len, const char *key)
{
	size_t k = strlen(key);
	char *v;

	if (len <= k + 1 || strncmp(line, key, k) || line[k] != ' ')
		return NULL;
	v = malloc(len - k);
	if (!v)
		return NULL;
	memcpy(v, line + k + 1, len - k - 1);
	v[len - k - 1] = 0;
	return v;
}

/* "lines BLOCK N..." into f->lines, "elines EDGE N..." into f->elines:
 * as many numbers as the line holds (a block may span thousands of
 * source lines). */
static int meta_lines(struct pap_meta_fn *f, const char *line, size_t len)
{
	char *buf, *tok, *save = NULL, *stop;
	int edge = line[0] == 'e', err = PAP_ECORRUPT;
	uint32_t b, *v = NULL, n = 0, cap = 8, **slot;

	buf = malloc(len + 1);
	if (!buf)
		return PAP_ENOMEM;
	memcpy(buf, line, len);
	buf[len] = 0;
	tok = strtok_r(buf + (edge ? 7 : 6), " ", &save);
	if (!tok)
		goto out;
	if (edge) {
		unsigned long e = strtoul(tok, &stop, 10);

		if (*stop || *tok < '0' || *tok > '9' || e >= f->nelines)
			goto out;
		slot = &f->elines[e];
	} else {
		b = pap_cfgtext_block(&f->graph, tok);
		if (b == PAP_NONE)
			goto out;
		slot = &f->lines[b];
	}
	if (*slot)
		goto out;
	err = PAP_ENOMEM;
	v = malloc((cap + 1) * sizeof(uint32_t));
	while (v && (tok = strtok_r(NULL, " ", &save))) {
		char *end;
		unsigned long x = strtoul(tok, &end, 10);

		if (*end || x > UINT32_MAX) {
			err = PAP_ECORRUPT;
			goto out;
		}
		if (n == cap) {
			uint32_t *nv = realloc(v, (2 * cap + 1) *
						  sizeof(uint32_t));

			if (!nv)
				goto out;
			v = nv;
			cap *= 2;
		}
		v[++n] = (uint32_t)x;
	}
	if (v) {
		v[0] = n;
		*slot = v;
		v = NULL;
		err = PAP_OK;
	}
out:
	free(v);
	free(buf);
	return err;
}

uint64_t pap_meta_checksum(enum pap_mode mode, const char *graph,
			   size_t len)
{
	char stamp[64];
	int n = snprintf(stamp, sizeof(stamp), "plan %d mode %s\n",
			 PAP_PLAN_FORMAT, pap_mode_name(mode));
	uint64_t h = 0xcbf29ce484222325ull;
	int i;
	size_t k;

	for (i = 0; i < n; i++)
		h = (h ^ (unsigned char)stamp[i]) * 0x100000001b3ull;
	for (k = 0; k < len; k++)
		h = (h ^ (unsigned char)graph[k]) * 0x100000001b3ull;
	return h;
}

uint64_t pap_meta_sel_checksum(uint64_t base, uint64_t stamp)
{
	int i;

	for (i = 0; i < 8; i++, stamp >>= 8)
		base = (base ^ (stamp & 0xff)) * 0x100000001b3ull;
	return base;
}

/* A selection read from a function's metadata: its select line and
 * its paths of interest, as the CFG's edges. */
struct meta_sel {
	char *strategy;
	unsigned long long max_paths;
	struct pap_sel_path *paths;
	uint32_t npaths;
	size_t cap;
};

static void meta_sel_free(struct meta_sel *s)
{
	uint32_t k;

	for (k = 0; k < s->npaths; k++)
		free((void *)s->paths[k].edges);
	free(s->paths);
	free(s->strategy);
}

/*
 * Adds the path of interest of spath line @p (@len bytes) of @f, whose
 * graph is parsed, to @s and its FILE:LINE to @f; 0, or -1 when the line
 * is malformed or its blocks are no path of the graph.
 */
static int meta_spath(struct pap_meta_fn *f, struct meta_sel *s,
		      const char *p, size_t len)
{
	const char *end = p + len;
	char *q, err[128];
	unsigned long n, i, b;
	uint32_t *blocks = NULL, *edges = NULL;
	char *where = NULL, **w;
	int r = -1;

	p += 6;
	n = strtoul(p, &q, 10);
	if (q == p || n == 0 || n > (1ul << 24) || q >= end)
		return -1;
	blocks = malloc(n * sizeof(*blocks));
	edges = malloc((n + 1) * sizeof(*edges));
	if (!blocks || !edges)
		goto out;
	for (i = 0; i < n; i++) {
		p = q;
		b = strtoul(p, &q, 10);
		if (q == p || q >= end || *q != ' ' || b > UINT32_MAX)
			goto out;
		blocks[i] = (uint32_t)b;
	}
	if (pap_sel_path_from_numbers(&f->graph, blocks, n, edges, err,
				      sizeof(err)))
		goto out;
	where = strndup(q + 1, (size_t)(end - q - 1));
	w = realloc(f->sel_where, (f->nsel + 1) * sizeof(*w));
	if (!where || !w || (s->npaths == s->cap &&
			     pap_grow(&s->paths, &s->cap, sizeof(*s->paths),
				      8))) {
		if (w)
			f->sel_where = w;
		goto out;
	}
	f->sel_where = w;
	f->sel_where[f->nsel++] = where;
	where = NULL;
	s->paths[s->npaths].edges = edges;
	s->paths[s->npaths++].len = n + 1;
	edges = NULL;
	r = 0;
out:
	free(where);
	free(blocks);
	free(edges);
	return r;
}

/*
 * The selection of @f, when it has one: its plan, built as the plugin
 * built it, in f->sel, and the checksum it stamps @base with into
 * *@sum.  PAP_OK (also without a selection), or an error after a
 * message.
 */
static int meta_sel_build(struct pap_meta_fn *f, struct meta_sel *s,
			  uint64_t *sum, const char *file, unsigned line0,
			  char *err, size_t errlen)
{
	enum pap_sel_strategy st;
	struct pap_sel_opts o;
	char e[256];
	uint32_t k;

	if (!s->strategy)
		return s->npaths ? meta_error(err, errlen, file, line0,
					      "function %s: spath without "
					      "select", f->name) : PAP_OK;
	if (pap_sel_strategy_parse(s->strategy, &st))
		return meta_error(err, errlen, file, line0, "function %s: "
				  "unknown strategy '%s'", f->name,
				  s->strategy);
	memset(&o, 0, sizeof(o));
	o.max_paths = s->max_paths;
	if (pap_sel_build(f->graph.cfg, st, s->paths, s->npaths, &o, &f->sel,
			  e, sizeof(e)))
		return meta_error(err, errlen, file, line0, "function %s: "
				  "bad selection: %s", f->name, e);
	*sum = pap_meta_sel_checksum(*sum, pap_sel_stamp(f->sel));
	f->sel_num = calloc(s->npaths + 1, sizeof(*f->sel_num));
	if (!f->sel_num)
		return PAP_ENOMEM;
	for (k = 0; k < s->npaths; k++)
		f->sel_num[k] = pap_sel_lookup(f->sel, s->paths[k].edges,
					       s->paths[k].len);
	return PAP_OK;
}

/*
 * A "calls" or "site" line [@p, @p + @len) of @f, whose text up to @next
 * joins the span [*@from, *@to) the checksum covers: the lines must be
 * together, "calls" first, after the graph's "lines".
 */
static int meta_calls_line(struct pap_meta_fn *f, const char *p, size_t len,
			   const char *next, const char **from,
			   const char **to)
{
	int r;

	if (!f->graph.cfg || (*p == 'c') != !*from ||
	    (*to && *to != p))
		return PAP_ECORRUPT;
	if (*p == 'c') {
		char *v = meta_value(p, len, "calls");

		if (!v)
			return PAP_ECORRUPT;
		r = meta_calls_begin(f, v);
		free(v);
		*from = p;
	} else {
		r = meta_calls_site(f, p, len);
	}
	*to = next;
	return r;
}

/*
 * Parses one function section [start, stop) beginning at @line0, of a
 * file of metadata @version compiled in @dir (NULL: unknown).
 */
static int meta_function(struct pap_meta_fn *f, const char *start,
			 const char *stop, const char *file, unsigned line0,
			 int version, const char *dir, char *err,
			 size_t errlen)
{
	const char *p = start, *graph_start = NULL, *graph_end = NULL;
	const char *calls_start = NULL, *calls_end = NULL;
	unsigned line = line0;
	char *mode = NULL, *sum = NULL, *gtext = NULL;
	char gerr[256];
	struct meta_sel sel;
	uint64_t want;
	int r = PAP_OK;

	memset(&sel, 0, sizeof(sel));

	f->meta = strdup(file);
	f->dir = dir ? strdup(dir) : NULL;
	if (!f->meta || (dir && !f->dir))
		return PAP_ENOMEM;
	while (p < stop && !r) {
		const char *eol = memchr(p, '\n', (size_t)(stop - p));
		size_t len = eol ? (size_t)(eol - p) : (size_t)(stop - p);

		if (!f->name && (f->name = meta_value(p, len, "function"))) {
		} else if (!f->file && (f->file = meta_value(p, len, "file"))) {
		} else if (!mode && (mode = meta_value(p, len, "mode"))) {
		} else if (pap_cfgtext_is_graph_line(p, len)) {
			if (graph_end && graph_end != p)
				r = meta_error(err, errlen, file, line,
					       "graph lines must be together");
			if (!graph_start)
				graph_start = p;
			graph_end = eol ? eol + 1 : stop;
		} else if (!strncmp(p, "elines ", 7) && version > 1) {
			if (!f->graph.cfg || meta_lines(f, p, len))
				r = meta_error(err, errlen, file, line,
					       "bad elines record");
		} else if (!strncmp(p, "lines ", 6)) {
			if (!f->graph.cfg) {
				size_t glen = graph_start ?
					(size_t)(graph_end - graph_start) : 0;

				gtext = malloc(glen + 1);
				if (!gtext)
					return PAP_ENOMEM;
				memcpy(gtext, graph_start ? graph_start : "",
				       glen);
				gtext[glen] = 0;
				f->lines = NULL;
				if (pap_cfgtext_parse(gtext, file, &f->graph,
						      gerr, sizeof(gerr))) {
					r = meta_error(err, errlen, file, line,
						       "function %s: bad graph",
						       f->name ? f->name : "?");
					break;
				}
				f->lines = calloc(f->graph.nblocks,
						  sizeof(*f->lines));
				f->nelines = f->graph.cfg->nedges;
				f->elines = calloc(f->nelines + 1,
						   sizeof(*f->elines));
				if (!f->lines || !f->elines)
					r = PAP_ENOMEM;
			}
			if (!r && meta_lines(f, p, len))
				r = meta_error(err, errlen, file, line,
					       "bad lines record");
		} else if (!sum && (sum = meta_value(p, len, "checksum"))) {
		} else if (!strncmp(p, "select ", 7) && !sel.strategy) {
			char *sp;

			sel.strategy = meta_value(p, len, "select");
			if (!sel.strategy) {
				r = PAP_ENOMEM;
				break;
			}
			sp = strchr(sel.strategy, ' ');
			if (sp) {
				*sp = 0;
				sel.max_paths = strtoull(sp + 1, NULL, 10);
			}
		} else if (!strncmp(p, "spath ", 6)) {
			if (!f->graph.cfg || meta_spath(f, &sel, p, len))
				r = meta_error(err, errlen, file, line,
					       "bad spath record");
		} else if (version > 2 && (!strncmp(p, "calls ", 6) ||
					   !strncmp(p, "site ", 5))) {
			r = meta_calls_line(f, p, len, eol ? eol + 1 : stop,
					    &calls_start, &calls_end);
			if (r == PAP_ECORRUPT)
				r = meta_error(err, errlen, file, line,
					       "bad %s record", *p == 'c' ?
					       "calls" : "site");
		} else {
			r = meta_error(err, errlen, file, line,
				       "unexpected line '%.*s'",
				       (int)(len < 40 ? len : 40), p);
		}
		p = eol ? eol + 1 : stop;
		line++;
	}
	if (r)
		goto out;
	if (!f->name || !f->file || !mode || !sum || !f->graph.cfg) {
		r = meta_error(err, errlen, file, line0,
			       "incomplete function record");
		goto out;
	}
	if (pap_mode_parse(mode, &f->mode)) {
		r = meta_error(err, errlen, file, line0, "function %s: unknown "
			       "mode '%s'", f->name, mode);
		goto out;
	}
	f->checksum = strtoull(sum, NULL, 16);
	want = version == 1 ? pap_fnv1a(graph_start,
					(size_t)(graph_end - graph_start)) :
	       pap_meta_checksum(f->mode, graph_start,
				 (size_t)(graph_end - graph_start));
	r = meta_sel_build(f, &sel, &want, file, line0, err, errlen);
	if (!r && f->calls)
		want = pap_meta_calls_checksum(want, calls_start,
					       (size_t)(calls_end - calls_start));
	if (!r && f->checksum != want)
		r = meta_error(err, errlen, file, line0, "function %s: graph "
			       "does not match its checksum", f->name);
out:
	meta_sel_free(&sel);
	free(mode);
	free(sum);
	free(gtext);
	return r;
}

int pap_meta_format_fn(char *buf, size_t size, const char *name,
		       const char *file, enum pap_mode mode,
		       const char *graph, const char *lines,
		       uint64_t checksum)
{
	return snprintf(buf, size, "function %s\nfile %s\nmode %s\n%s%s"
			"checksum %016llx\nend\n", name, file,
			pap_mode_name(mode), graph, lines,
			(unsigned long long)checksum);
}

/* The unit sum of the functions from @first on equals @unit, the file's
 * "unit" line; each gets it. */
static int meta_check_unit(struct pap_meta *m, size_t first, uint64_t unit,
			   const char *file, char *err, size_t errlen)
{
	uint64_t *sums = malloc((m->nfns - first + 1) * sizeof(*sums));
	size_t i, n = 0;
	int r = PAP_OK;

	if (!sums)
		return PAP_ENOMEM;
	for (i = first; i < m->nfns; i++) {
		if (m->fns[i]->calls)
			sums[n++] = m->fns[i]->checksum;
		m->fns[i]->unit = unit;
	}
	if (pap_meta_unit_sum(sums, n) != unit)
		r = meta_error(err, errlen, file, 2, "the unit line does not "
			       "match the functions' checksums");
	free(sums);
	return r;
}

int pap_meta_parse(struct pap_meta *m, const char *text, const char *file,
		   char *err, size_t errlen)
{
	const char *p = text;
	unsigned line = 2;
	size_t first = m->nfns;
	char *dir = NULL;
	uint64_t unit = 0;
	int r = PAP_OK, version = 2;

	if (!strncmp(text, PAP_META_HEADER_V1, strlen(PAP_META_HEADER_V1)))
		version = 1;
	else if (!strncmp(text, PAP_META_HEADER_V3,
			  strlen(PAP_META_HEADER_V3)))
		version = 3;
	else if (strncmp(text, PAP_META_HEADER, strlen(PAP_META_HEADER)))
		return meta_error(err, errlen, file, 1, strncmp(text,
				  PAP_META_MAGIC, strlen(PAP_META_MAGIC)) ?
				  "not pap metadata" :
				  "metadata version not supported (this pap "
				  "reads versions 1 to 3)");
	p += strlen(PAP_META_HEADER);
	if (version > 1 && !strncmp(p, "directory ", 10)) {
		const char *eol = strchr(p, '\n');

		if (!eol)
			return meta_error(err, errlen, file, line,
					  "directory line without an end");
		dir = meta_value(p, (size_t)(eol - p), "directory");
		if (!dir)
			return PAP_ENOMEM;
		p = eol + 1;
		line++;
	}
	if (version == 3) {
		const char *eol = strchr(p, '\n');
		char *v = eol ? meta_value(p, (size_t)(eol - p), "unit") :
				NULL;
		char *e = NULL;

		if (v)
			unit = strtoull(v, &e, 16);
		if (!v || strlen(v) != 16 || *e) {
			free(v);
			free(dir);
			return meta_error(err, errlen, file, line,
					  "version 3 metadata without its "
					  "unit line");
		}
		free(v);
		p = eol + 1;
		line++;
	}
	while (*p && !r) {
		const char *end = strstr(p, "\nend\n");
		const char *q;
		unsigned nl = 0;

		if (!end) {
			r = meta_error(err, errlen, file, line,
				       "function record without 'end'");
			break;
		}
		if (m->nfns == m->cap) {
			size_t cap = m->cap ? m->cap * 2 : 16;
			struct pap_meta_fn **n = realloc(m->fns, cap *
							 sizeof(*n));

			if (!n) {
				r = PAP_ENOMEM;
				break;
			}
			m->fns = n;
			m->cap = cap;
		}
		m->fns[m->nfns] = calloc(1, sizeof(struct pap_meta_fn));
		if (!m->fns[m->nfns]) {
			r = PAP_ENOMEM;
			break;
		}
		r = meta_function(m->fns[m->nfns], p, end + 1, file, line,
				  version, dir, err, errlen);
		m->nfns++;
		for (q = p; q < end + 5; q++)
			nl += *q == '\n';
		line += nl;
		p = end + 5;
	}
	if (!r && version == 3)
		r = meta_check_unit(m, first, unit, file, err, errlen);
	if (r) {
		while (m->nfns > first)
			meta_fn_free(m->fns[--m->nfns]);
	}
	free(dir);
	return r;
}

struct pap_meta_fn *pap_meta_find(struct pap_meta *m, const char *name,
				  uint64_t checksum, const char *meta)
{
	struct pap_meta_fn *any = NULL;
	size_t i;

	for (i = 0; i < m->nfns; i++) {
		struct pap_meta_fn *f = m->fns[i];

		if (f->checksum != checksum || strcmp(f->name, name))
			continue;
		if (!meta || (f->meta && !strcmp(f->meta, meta)))
			return f;
		if (!any)
			any = f;
	}
	return any;
}

const struct pap_plan *pap_meta_plan(struct pap_meta_fn *fn)
{
	if (!fn->plan &&
	    pap_plan_build(fn->graph.cfg, fn->mode, NULL, &fn->plan))
		fn->plan = NULL;
	return fn->plan;
}
