/* SPDX-License-Identifier: MIT */
/*
 * report-html.c - a self-contained HTML report: index.html lists the
 * functions by activity, and one page per function shows its CFG (inline
 * SVG drawn by graphviz's dot when it is installed), its hottest paths,
 * its k-iteration path forest and its annotated source; calls.html the
 * call sequences when the profile has them.  No script, no
 * server, no file outside the directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "decoder.h"
#include "selective.h"
#include "target.h"

extern char **environ;

#define HTML_PATHS 25		/* paths per function page without --top */
#define HTML_K 3		/* k-IPF depth without --k */
#define HTML_CFG_BLOCKS 300	/* larger graphs are not drawn */
/* The edges the pictures of one report draw at most, the hottest
 * functions' first: dot's work grows with them (lua's 5,571 edges take
 * it 0.8 s), so that a program of thousands of functions is drawn in
 * seconds too. */
#define HTML_DOT_EDGES 25000
#define HTML_KIPF_NODES 300	/* k-IPF nodes per page */
/* The k-IPF is built only when its work is bounded: the blocks of the
 * paths without repeats (each decoded and split into Ball-Larus ids)
 * and the packed breakpoints of those with (whose id stream is built
 * from their form); lua's interpreter loop, one path of 90,000
 * breakpoints, takes 10 s. */
#define HTML_KIPF_BLOCKS 10000000
#define HTML_KIPF_BPS 32768
/*
 * A page stays under 2 MB (doc/reports.md): a drawing of more than
 * HTML_SVG_MAX bytes is left out; the paths, the k-IPF's nodes, the
 * source lines and the index's rows are written while the page is
 * shorter than their mark below, each of them bounded (a source line's
 * text, a line in a title), so that what is past a mark is one item.
 */
#define HTML_SVG_MAX (768L << 10)
#define HTML_PATHS_UNTIL (1024L << 10)
#define HTML_KIPF_UNTIL (1280L << 10)
#define HTML_SOURCE_UNTIL (1536L << 10)
#define HTML_INDEX_UNTIL (1536L << 10)
#define HTML_CALLS_UNTIL (1536L << 10)
#define HTML_LINE_MAX 4096	/* bytes of a source line shown */
#define HTML_TITLE_MAX 200	/* bytes of a source line in a title */

static const char html_css[] =
"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;"
"margin:0;color:#1d232b;background:#f4f6f9}"
"header{background:#1f3a5f;color:#fff;padding:14px 28px}"
"header h1{margin:0;font-size:20px;font-weight:600}"
"header p{margin:4px 0 0;opacity:.8;font-size:13px}"
"header a{color:#cfe3ff}"
"main{max-width:1180px;margin:0 auto;padding:18px 28px 40px}"
"section{background:#fff;border:1px solid #dde3ea;border-radius:8px;"
"padding:14px 18px;margin:0 0 18px}"
"h2{font-size:16px;margin:0 0 10px;color:#1f3a5f}"
"table{border-collapse:collapse;width:100%}"
"th{text-align:left;font-weight:600;color:#4a5663;border-bottom:2px solid #dde3ea;"
"padding:5px 8px;font-size:12px;text-transform:uppercase;letter-spacing:.03em}"
"td{padding:4px 8px;border-bottom:1px solid #eef1f4;vertical-align:top}"
"tr:hover td{background:#f7fafd}"
"td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
".bar{display:inline-block;height:9px;background:#e4572e;border-radius:2px;"
"vertical-align:middle;margin-right:6px}"
".path{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px}"
".rep{color:#8a4b08;font-weight:600}"
".cfg{overflow:auto;text-align:center}.cfg svg{max-width:100%;height:auto}"
".src{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;"
"width:100%}.src td.n,.src th{width:1%;white-space:nowrap}"
".src td{padding:0 8px;border:0}.src td.t{white-space:pre}"
".src tr.cold td.t{color:#9aa3ad}.src tr.never td{background:#fde8e8}"
"ul.ipf{list-style:none;padding-left:18px;margin:2px 0;"
"border-left:1px dotted #c3ccd6}"
"ul.ipf.top{border:0;padding-left:0}"
".ipf li{margin:2px 0}.ipf .id{font-weight:600;color:#1f3a5f}"
".ipf .sh{color:#4a5663;font-size:12px}.ipf .ln{color:#6b7785;font-size:12px}"
"a{color:#1f5fa8;text-decoration:none}a:hover{text-decoration:underline}"
".muted{color:#6b7785}";

static void html_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* html_text() of at most @max bytes of @s, "&hellip;" for the rest. */
static void html_text_max(FILE *f, const char *s, size_t max)
{
	char buf[HTML_LINE_MAX + 1];
	size_t n = s ? strlen(s) : 0;

	if (n <= max || max > HTML_LINE_MAX) {
		html_text(f, s);
		return;
	}
	memcpy(buf, s, max);
	buf[max] = 0;
	html_text(f, buf);
	fputs("&hellip;", f);
}

/* The bytes written to page @f so far. */
static long page_bytes(FILE *f)
{
	long n = ftell(f);

	return n < 0 ? 0 : n;
}

static void page_head(FILE *f, const char *title, const char *sub)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<title>", f);
	html_text(f, title);
	fprintf(f, " - pap</title><style>%s</style></head><body><header><h1>",
		html_css);
	html_text(f, title);
	fprintf(f, "</h1><p>%s</p></header><main>\n", sub);
}

static void page_tail(FILE *f)
{
	fputs("</main></body></html>\n", f);
}

/* A page being written: through a temporary renamed over it at the end
 * (libcore/target.h). */
struct page {
	char path[4096], tmp[4096 + 32];
};

/* Starts the page @dir/@name; NULL with a message when it cannot be (or
 * is not a regular file of ours). */
static FILE *page_open(struct page *pg, const char *dir, const char *name)
{
	FILE *f;
	int off;

	snprintf(pg->path, sizeof(pg->path), "%s/%s", dir, name);
	f = pap_target_begin(pg->path, pap_prog, pg->tmp, sizeof(pg->tmp),
			     &off);
	if (!f && off)
		fprintf(stderr, "%s: error: %s: not a page; not written\n",
			pap_prog, pg->path);
	return f;
}

/* Ends the page @f: 0, or -1 with a message. */
static int page_close(struct page *pg, FILE *f)
{
	return pap_target_commit(f, pg->tmp, pg->path, pap_prog);
}

/*
 * The graphs of a report, laid out by one run of dot beside the report:
 * each drawn function's graph is written to dot's input, then a graph of
 * ours that no function can be named (SYNC_GRAPH), and dot's output is
 * read up to that graph's drawing.  dot writes each graph's drawing as
 * soon as it has read the graph, so a page is written, and its
 * function's paths let go, as soon as its picture is drawn: memory holds
 * one function's paths, and one process starts for all the pictures.
 */
#define SYNC_TITLE "pap sync"	/* a space: no C function's name */
#define SYNC_GRAPH "digraph \"" SYNC_TITLE "\" {}\n"

/* dot runs; is not installed; could not be started; ended early */
enum { DOT_RUNNING, DOT_MISSING, DOT_FAILED, DOT_ENDED };

struct html_dot {
	int state;
	pid_t pid;		/* 0: none started */
	FILE *to, *from;	/* dot's input and output */
	struct sigaction pipe_was;	/* SIGPIPE's action before */
	char *svg;		/* the last graph's drawing, if kept */
	size_t len, cap;
	long size;		/* its size in bytes */
};

/* Starts dot; hd->state says whether it runs. */
static void dot_begin(struct html_dot *hd)
{
	posix_spawn_file_actions_t fa;
	struct sigaction ign;
	char *argv[] = { "dot", "-Tsvg", NULL };
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err;

	memset(hd, 0, sizeof(*hd));
	hd->state = DOT_FAILED;
	/* a dot that ends early is said on the pages, not by a signal */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &hd->pipe_was);
	if (pipe(in) || pipe(out))
		goto fail;
	/* the child has them as its input and output only */
	for (err = 0; err < 2; err++) {
		fcntl(in[err], F_SETFD, FD_CLOEXEC);
		fcntl(out[err], F_SETFD, FD_CLOEXEC);
	}
	if (posix_spawn_file_actions_init(&fa))
		goto fail;
	err = posix_spawn_file_actions_adddup2(&fa, in[0], 0) ||
	      posix_spawn_file_actions_adddup2(&fa, out[1], 1) ||
	      posix_spawn_file_actions_addopen(&fa, 2, "/dev/null",
					       O_WRONLY, 0);
	if (!err)
		err = posix_spawnp(&hd->pid, "dot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		hd->pid = 0;
		if (err == ENOENT)
			hd->state = DOT_MISSING;
		goto fail;
	}
	close(in[0]);
	close(out[1]);
	in[0] = out[1] = -1;
	hd->to = fdopen(in[1], "w");
	if (!hd->to)
		goto fail;
	in[1] = -1;
	hd->from = fdopen(out[0], "r");
	if (!hd->from)
		goto fail;
	out[0] = -1;
	hd->state = DOT_RUNNING;
	return;
fail:
	if (in[0] >= 0)
		close(in[0]);
	if (in[1] >= 0)
		close(in[1]);
	if (out[0] >= 0)
		close(out[0]);
	if (out[1] >= 0)
		close(out[1]);
}

/* Waits for dot to end: its exit status, or -1 (none started, or
 * killed). */
static int dot_wait(struct html_dot *hd)
{
	int st;

	if (!hd->pid)
		return -1;
	while (waitpid(hd->pid, &st, 0) < 0)
		if (errno != EINTR) {
			hd->pid = 0;
			return -1;
		}
	hd->pid = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Is @df's graph drawn: small enough for graphviz? */
static int cfg_drawn(const struct dfunc *df)
{
	return df->fn->graph.nblocks <= HTML_CFG_BLOCKS;
}

static const struct dfunc *budget_fs;

/* By activations (as the records say before decoding), then order. */
static int budget_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t tx = budget_fs[x].total, ty = budget_fs[y].total;

	if (tx != ty)
		return tx > ty ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Which of @dp's graphs of at most HTML_CFG_BLOCKS blocks fit in
 * HTML_DOT_EDGES edges, given to the functions by activations, hottest
 * first, each graph drawn if its edges fit in what the hotter ones
 * left: per function 1 or 0; NULL when out of memory.
 */
static uint8_t *dot_budget(const struct dprofile *dp)
{
	size_t *ord = malloc((dp->nfs + 1) * sizeof(*ord)), i;
	uint8_t *fits = calloc(dp->nfs + 1, 1);
	uint64_t used = 0, e;

	if (!ord || !fits) {
		free(ord);
		free(fits);
		return NULL;
	}
	for (i = 0; i < dp->nfs; i++)
		ord[i] = i;
	budget_fs = dp->fs;
	qsort(ord, dp->nfs, sizeof(*ord), budget_cmp);
	for (i = 0; i < dp->nfs; i++) {
		const struct dfunc *df = &dp->fs[ord[i]];

		if (!cfg_drawn(df))
			continue;
		e = dot_edges(df->fn->graph.cfg);
		if (used + e <= HTML_DOT_EDGES) {
			used += e;
			fits[ord[i]] = 1;
		}
	}
	free(ord);
	return fits;
}

/* Keeps @n bytes of @s in hd->svg unless that would pass HTML_SVG_MAX
 * (the drawing is left out then); counts them in hd->size. */
static void svg_keep(struct html_dot *hd, const char *s, size_t n)
{
	hd->size += (long)n;
	if (!hd->svg || hd->size > HTML_SVG_MAX)
		return;
	if (hd->len + n > hd->cap) {
		size_t cap = hd->cap;
		char *p;

		while (cap < hd->len + n)
			cap *= 2;
		p = realloc(hd->svg, cap);
		if (!p) {
			free(hd->svg);
			hd->svg = NULL;
			hd->len = hd->cap = 0;
			return;
		}
		hd->svg = p;
		hd->cap = cap;
	}
	memcpy(hd->svg + hd->len, s, n);
	hd->len += n;
}

/*
 * Reads dot's next SVG document (from its "<svg" line to its "</svg>"
 * line), hd->size its size, into hd->svg with @keep: 1 when it is the
 * drawing of SYNC_GRAPH, 0 when another's, -1 when dot's output ended.
 */
static int svg_read(struct html_dot *hd, int keep)
{
	char buf[8192];
	int bol = 1, at_bol, in = 0, sync = 0;
	size_t n;

	if (keep)
		hd->len = 0;
	hd->size = 0;
	if (keep && !hd->svg && (hd->svg = malloc(8192)) != NULL)
		hd->cap = 8192;
	while (fgets(buf, sizeof(buf), hd->from)) {
		const char *g;

		n = strlen(buf);
		at_bol = bol;
		bol = n && buf[n - 1] == '\n';
		if (!in) {
			if (!at_bol || strncmp(buf, "<svg", 4))
				continue;  /* prologue, doctype, comments */
			in = 1;
		}
		if (at_bol && !strcmp(buf, "<title>" SYNC_TITLE "</title>\n"))
			sync = 1;
		/* dot numbers the second graph of a run as if a page of the
		 * first: its group is the graph's as when drawn alone */
		g = at_bol && !strncmp(buf, "<g id=\"page", 11) ?
		    strstr(buf, "_graph0\" class=\"graph\"") : NULL;
		if (!keep) {
			hd->size += (long)n;
		} else if (g) {
			hd->size += (long)(g + 1 - buf) - 7;
			svg_keep(hd, "<g id=\"", 7);
			svg_keep(hd, g + 1, n - (size_t)(g + 1 - buf));
		} else {
			svg_keep(hd, buf, n);
		}
		if (at_bol && !strncmp(buf, "</svg>", 6))
			return sync;
	}
	return -1;
}

/*
 * Has dot draw @df's graph from its flow @fl: 0, the drawing in hd->svg
 * (NULL when out of memory) and its size in hd->size; -1 when there is
 * none (dot is not running, ended, or drew nothing of it).
 */
static int dot_draw(struct html_dot *hd, struct dfunc *df,
		    const struct func_flow *fl)
{
	int rc;

	if (hd->state != DOT_RUNNING)
		return -1;
	print_dot_flow(hd->to, df, fl->block, fl->edge, fl->hot);
	fputs(SYNC_GRAPH, hd->to);
	if (fflush(hd->to) == 0) {
		rc = svg_read(hd, 1);
		if (rc > 0)
			return -1;	/* ours only: dot refused the graph */
		if (rc == 0) {
			long size = hd->size;

			/* then ours (anything else before it is not asked) */
			while ((rc = svg_read(hd, 0)) == 0)
				;
			hd->size = size;
			if (rc > 0)
				return 0;
		}
	}
	/* dot ended: the graphs after have no picture either */
	hd->state = dot_wait(hd) == 127 ? DOT_MISSING : DOT_ENDED;
	return -1;
}

/* Stops dot and puts SIGPIPE's action back. */
static void dot_end(struct html_dot *hd)
{
	if (hd->to)
		fclose(hd->to);
	if (hd->from)
		fclose(hd->from);
	hd->to = hd->from = NULL;
	dot_wait(hd);
	free(hd->svg);
	hd->svg = NULL;
	sigaction(SIGPIPE, &hd->pipe_was, NULL);
}

/* The drawing kept in @hd, said to have its counts beside the edges
 * when @df's graph is that large. */
static void html_svg(FILE *f, const struct dfunc *df,
		     const struct html_dot *hd)
{
	if (dot_counts_beside(df->fn->graph.cfg))
		fprintf(f, "<p class=\"muted\">Counts beside the edges, "
			"placed once the graph is laid out: it has more than "
			"%u edges, and counts laid out as labels would double "
			"its ranks.</p>", DOT_LABEL_EDGES);
	fwrite(hd->svg, 1, hd->len, f);
}

/* The CFG as inline SVG drawn by dot from the flow @fl, or a note
 * saying why not (@fl->block NULL: its paths could not be counted;
 * @fits 0: its edges are past what the report's pictures draw). */
static void html_cfg(FILE *f, struct dfunc *df, struct html_dot *hd,
		     const struct func_flow *fl, int fits)
{
	int rc;

	/* graphviz's layout grows faster than the graph: a large one would
	 * take minutes and megabytes of SVG */
	if (!cfg_drawn(df)) {
		fprintf(f, "<p class=\"muted\">no picture: the graph has %u "
			"blocks, more than the %u drawn here; <code>pap-decode "
			"--format=dot --function</code> gives it</p>",
			df->fn->graph.nblocks, HTML_CFG_BLOCKS);
		return;
	}
	if (!fits) {
		fprintf(f, "<p class=\"muted\">no picture: a report's "
			"pictures draw %u edges at most, the hottest "
			"functions' first, and this graph's %u do not fit in "
			"what they left; <code>pap-decode --format=svg "
			"--function</code> draws it</p>", HTML_DOT_EDGES,
			dot_edges(df->fn->graph.cfg));
		return;
	}
	if (!fl->block) {
		fputs("<p class=\"muted\">no picture: out of memory</p>", f);
		return;
	}
	rc = dot_draw(hd, df, fl);
	if (rc == 0 && hd->size > HTML_SVG_MAX)
		fprintf(f, "<p class=\"muted\">no picture: its drawing has "
			"%ld KB, more than the %ld KB a page holds; "
			"<code>pap-decode --format=svg --function</code> "
			"gives it</p>", hd->size >> 10, HTML_SVG_MAX >> 10);
	else if (rc == 0 && !hd->svg)
		fputs("<p class=\"muted\">no picture: out of memory</p>", f);
	else if (rc == 0)
		html_svg(f, df, hd);
	else if (hd->state == DOT_MISSING)
		fputs("<p class=\"muted\">no picture: graphviz's <code>dot"
		      "</code> is not installed (<code>apt-get install graphviz"
		      "</code>); <code>pap-decode --format=dot</code> gives the "
		      "graph</p>", f);
	else
		fprintf(f, "<p class=\"muted\">no picture: graphviz's <code>"
			"dot</code> %s; <code>pap-decode --format=dot</code> "
			"gives the graph</p>", hd->state == DOT_FAILED ?
			"could not be started" : hd->state == DOT_ENDED ?
			"ended before drawing it" : "drew nothing of it");
}

struct html_seq {
	FILE *f;
	const struct pap_meta_fn *fn;
};

static void hs_item(void *ctx, uint32_t line)
{
	struct html_seq *h = ctx;

	fprintf(h->f, "<span title=\"");
	html_text_max(h->f, source_line(h->fn, line), HTML_TITLE_MAX);
	fprintf(h->f, "\">%u</span> ", line);
}

static void hs_open(void *ctx)
{
	fputs("<span class=\"rep\">(</span>", ((struct html_seq *)ctx)->f);
}

static void hs_close(void *ctx, size_t reps)
{
	fprintf(((struct html_seq *)ctx)->f,
		"<span class=\"rep\">)<sup>%zu</sup></span> ", reps);
}

static void hs_gap(void *ctx)
{
	fputs("<span class=\"rep\">&hellip;</span> ",
	      ((struct html_seq *)ctx)->f);
}

size_t html_shown_paths(const struct ropts *o)
{
	return o->top ? o->top : HTML_PATHS;
}

static void html_paths(FILE *f, struct dfunc *df, const struct ropts *o)
{
	struct html_seq hs = { f, df->fn };
	struct seq_printer sp = { hs_item, hs_open, hs_close, &hs };
	struct path_emit e = { df, NULL, NULL, 0, piece_lines, NULL };
	struct pap_rseq form;
	size_t i, limit = html_shown_paths(o);
	uint32_t *lines = NULL;

	pap_rseq_init(&form);
	fprintf(f, "<section id=\"paths\"><h2>Hottest paths</h2><table>"
		"<tr><th>#</th><th>count</th><th>share</th><th>blocks</th>"
		"<th>source lines (loops as (&hellip;)<sup>n</sup>)</th></tr>\n");
	for (i = 0; i < df->npaths && i < limit &&
		    page_bytes(f) < HTML_PATHS_UNTIL; i++) {
		struct dpath *p = &df->paths[i];
		double share = df->total ? 100.0 * p->count / df->total : 0;

		if (p->count < o->min_count ||
		    (double)p->count < o->min_share * (double)df->total ||
		    (!path_long(p) && path_open(df, p)))
			continue;
		fprintf(f, "<tr><td class=\"n\">%zu</td><td class=\"n\">%llu"
			"</td><td class=\"n\"><span class=\"bar\" style=\""
			"width:%.0fpx\"></span>%.1f%%</td><td class=\"n\">%zu"
			"%s</td><td class=\"path\">", i + 1,
			(unsigned long long)p->count, share * 0.6 + 1, share,
			p->n, p->complete ? "" : " (cut)");
		e.p = p;
		e.form = NULL;
		if (!path_long(p)) {
			e.n = path_lines(df->fn, p, &lines);
			e.v = lines;
		} else if (path_form(df, p, &form) == PAP_OK) {
			e.form = &form;	/* built once, printed twice */
		}
		print_bounded(&sp, hs_gap, emit_seq, &e);
		if (!path_long(p)) {
			free(lines);
			path_close(p);
		}
		fputs("</td></tr>\n", f);
	}
	pap_rseq_free(&form);
	fprintf(f, "</table>%s</section>\n", i < df->npaths ?
		"<p class=\"muted\">colder paths are left out</p>" : "");
}

/*
 * The k-IPF as nested lists, at most HTML_KIPF_NODES nodes: once that
 * many are written the rest are left out, and the lists opened are
 * closed as the walk leaves them.
 */
struct html_kipf {
	struct kipf_out ko;
	size_t nodes, left;
	uint32_t depth;			/* of the node being visited */
	unsigned char shown[65];	/* per depth: the node written */
	unsigned char open[66];		/* per depth: its list opened */
};

static void hi_enter(void *ctx, const struct pap_forest *ipf, uint32_t v,
		     uint64_t parent, uint64_t root, int first)
{
	struct html_kipf *h = ctx;
	const struct pap_fnode *nd = &ipf->nodes[v];
	uint32_t d = nd->depth > 64 ? 64 : nd->depth;

	h->depth = d;
	h->shown[d] = h->nodes < HTML_KIPF_NODES &&
		      page_bytes(h->ko.f) < HTML_KIPF_UNTIL;
	if (!h->shown[d]) {
		h->left++;
		return;
	}
	h->nodes++;
	if (first)
		h->open[d] = 1;
	fprintf(h->ko.f, "%s<li><span class=\"id\">BL %llu</span> &times; "
		"%llu ", first ? (d == 1 ? "<ul class=\"ipf top\">" :
				  "<ul class=\"ipf\">") : "",
		(unsigned long long)nd->label, (unsigned long long)nd->count);
	if (d > 1)
		fprintf(h->ko.f, "<span class=\"sh\">%.1f%% of parent (%.1f%% "
			"of root)</span> ", parent ? 100.0 * nd->count / parent :
			0, root ? 100.0 * nd->count / root : 0);
	fputs("<span class=\"ln\">lines ", h->ko.f);
	put_bl_lines(&h->ko, nd->label, " ");
	fputs("</span>", h->ko.f);
}

static void hi_leave(void *ctx, int last)
{
	struct html_kipf *h = ctx;

	(void)last;
	if (h->shown[h->depth])
		fputs("</li>", h->ko.f);
	if (h->depth)
		h->depth--;
}

/* After the children of the node at h->depth (or the roots). */
static void hi_end(void *ctx)
{
	struct html_kipf *h = ctx;
	uint32_t d = h->depth + 1 > 64 ? 64 : h->depth + 1;

	if (h->open[d])
		fputs("</ul>", h->ko.f);
	h->open[d] = 0;
}

/* Is building @df's k-IPF within the bounds above?  Else the blocks
 * and breakpoints it would go through in *@blocks and *@bps. */
static int kipf_bounded(const struct dfunc *df, uint64_t *blocks,
			uint64_t *bps)
{
	size_t i;

	*blocks = *bps = 0;
	for (i = 0; i < df->npaths; i++) {
		if (path_repeats(&df->paths[i]))
			*bps += df->paths[i].rec->nbps;
		else
			*blocks += df->paths[i].n;
	}
	return *blocks <= HTML_KIPF_BLOCKS && *bps <= HTML_KIPF_BPS;
}

static void html_kipf(FILE *f, struct dfunc *df, const struct ropts *o)
{
	uint64_t blocks, bps;
	struct html_kipf h;
	struct kipf_visit kv = { hi_enter, hi_leave, hi_end, &h };
	uint32_t k = o->k ? o->k : HTML_K;
	double min_share = o->min_share ? o->min_share : 0.1;

	memset(&h, 0, sizeof(h));
	h.ko = (struct kipf_out){ f, df };
	fprintf(f, "<section id=\"kipf\"><h2>%u-iteration path forest</h2>"
		"<p class=\"muted\">Runs of up to %u consecutive Ball-Larus "
		"paths (loop iterations); nodes under %.0f%% of their root "
		"left out.</p>\n", k, k, 100 * min_share);
	if (!kipf_bounded(df, &blocks, &bps))
		fprintf(f, "<p class=\"muted\">not built here: its paths "
			"have %llu blocks and %llu packed breakpoints in "
			"loops, more than the %u and %u a page's forest "
			"goes through; <code>pap-decode --k %u --function"
			"</code> builds it</p>", (unsigned long long)blocks,
			(unsigned long long)bps, HTML_KIPF_BLOCKS,
			HTML_KIPF_BPS, k);
	else if (kipf_report(df, k, min_share, &kv))
		fputs("<p class=\"muted\">not available</p>", f);
	else if (h.left)
		fprintf(f, "<p class=\"muted\">%zu colder nodes left out "
			"(<code>pap-decode --k %u</code> lists them all)</p>",
			h.left, k);
	fputs("</section>\n", f);
}

/* The function's source lines with counts and distinct paths, from
 * @fl; lines past the page's mark are left out, said. */
static void html_source(FILE *f, struct dfunc *df, const struct func_flow *fl)
{
	uint64_t max = 0;
	uint32_t n = fl->hi - fl->lo + 1, l, lo = 0, hi = 0, b, k;
	const struct pap_meta_fn *fn = df->fn;
	unsigned char *known = calloc(n, 1);

	for (b = 0; b < fn->graph.nblocks; b++)
		for (k = 0; k < blines(fn, b)[0]; k++) {
			l = blines(fn, b)[k + 1];
			if (l >= PAP_MAX_LINE)
				continue;
			if (!lo || l < lo)
				lo = l;
			if (l > hi)
				hi = l;
			if (known && l >= fl->lo && l <= fl->hi)
				known[l - fl->lo] = 1;
		}
	for (l = 0; fl->count && l < n; l++)
		if (fl->count[l] > max)
			max = fl->count[l];
	fputs("<section id=\"source\"><h2>Source</h2>"
	      "<table class=\"src\"><tr><th>line</th><th>count</th>"
	      "<th>paths</th><th></th></tr>\n", f);
	if (lo > 2)
		lo -= 2;		/* the function's head */
	for (l = lo ? lo : 1; l <= hi + 1; l++) {
		const char *text = source_line(fn, l);
		int in = fl->count && known && l >= fl->lo && l <= fl->hi;
		int kn = in && known[l - fl->lo];
		uint64_t c = in ? fl->count[l - fl->lo] : 0;

		if (!text && l > hi)
			break;
		if (page_bytes(f) >= HTML_SOURCE_UNTIL) {
			fprintf(f, "</table><p class=\"muted\">lines %u to %u "
				"left out: a page holds 2 MB; <code>pap-decode "
				"--format=annotate</code> shows them</p>",
				l, hi);
			fputs("</section>\n", f);
			free(known);
			return;
		}
		if (kn && c) {
			double heat = max ? (double)c / (double)max : 0;

			fprintf(f, "<tr><td class=\"n\">%u</td><td class=\"n\" "
				"style=\"background:rgba(228,87,46,%.2f)\">%llu"
				"</td><td class=\"n\">%u</td><td class=\"t\">", l,
				0.08 + 0.5 * heat, (unsigned long long)c,
				fl->paths[l - fl->lo]);
		} else {
			fprintf(f, "<tr class=\"%s\"><td class=\"n\">%u</td>"
				"<td class=\"n\">%s</td><td class=\"n\"></td>"
				"<td class=\"t\">", kn ? "never" : "cold", l,
				kn ? "0" : "");
		}
		html_text_max(f, text ? text : "", HTML_LINE_MAX);
		fputs("</td></tr>\n", f);
	}
	fprintf(f, "</table>%s</section>\n", source_line(fn, 1) ? "" :
		"<p class=\"muted\">source file not found</p>");
	free(known);
}

static int html_function(const char *dir, struct dfunc *df, size_t idx,
			 const struct ropts *o, struct html_dot *hd,
			 const struct func_flow *fl, int fits)
{
	char name[64], sub[512];
	struct page pg;
	FILE *f;

	snprintf(name, sizeof(name), "f%zu.html", idx);
	f = page_open(&pg, dir, name);
	if (!f)
		return -1;
	snprintf(sub, sizeof(sub), "%llu %s, %zu distinct paths &middot; "
		 "<a href=\"index.html\">all functions</a>",
		 (unsigned long long)df->total,
		 df->fn->mode == PAP_MODE_EPP ? "acyclic paths" : "activations",
		 df->npaths);
	page_head(f, df->fn->name, sub);
	fputs("<p class=\"muted\">", f);
	html_text(f, df->fn->file);
	fputs("</p>\n<section id=\"cfg\"><h2>Control-flow graph</h2>"
	      "<p class=\"muted\">Edge width and colour follow the flow (blue "
	      "cold, red hot); #1-#3 mark the hottest paths; dashed edges "
	      "never ran.</p><div class=\"cfg\">", f);
	html_cfg(f, df, hd, fl, fits);
	fputs("</div></section>\n", f);
	html_paths(f, df, o);
	html_kipf(f, df, o);
	html_source(f, df, fl);
	page_tail(f);
	return page_close(&pg, f);
}

/* The index's orders: each a page, its columns' headers linking to the
 * others, so that the index sorts without a script. */
enum { BY_ACTIVATIONS, BY_PATHS, BY_NAME, BY_COVERAGE, NORDERS };
static const char *const index_page[NORDERS] = {
	"index.html", "index-paths.html", "index-name.html",
	"index-coverage.html"
};

/* A function's row of the index, kept once its page is written and
 * its paths let go. */
struct index_row {
	struct dfunc *f;
	size_t idx;
	uint64_t total;		/* its activations */
	size_t npaths;		/* its distinct paths */
	uint64_t hottest;	/* its hottest path's count */
	double coverage;	/* share of acyclic paths taken; -1: none */
	char cov[96];
};

static int row_cmp_coverage(const void *a, const void *b)
{
	const struct index_row *x = a, *y = b;

	if (x->coverage != y->coverage)
		return x->coverage < y->coverage ? -1 : 1;
	return strcmp(x->f->fn->name, y->f->fn->name);
}

/* By activations, then name (the text report's --sort orders). */
static int row_cmp_activations(const void *a, const void *b)
{
	const struct index_row *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->f->fn->name, y->f->fn->name);
}

static int row_cmp_paths(const void *a, const void *b)
{
	const struct index_row *x = a, *y = b;

	if (x->npaths != y->npaths)
		return x->npaths > y->npaths ? -1 : 1;
	return row_cmp_activations(a, b);
}

static const struct index_row *sort_rows;
static int (*sort_cmp)(const void *, const void *);

static int row_cmp_order(const void *a, const void *b)
{
	return sort_cmp(&sort_rows[*(const size_t *)a],
			&sort_rows[*(const size_t *)b]);
}

/* The rows in order @by (BY_NAME: as they are, the functions' order);
 * NULL when out of memory. */
static size_t *index_order(const struct index_row *rows, size_t n, int by)
{
	size_t *ord = malloc((n + 1) * sizeof(*ord)), i;

	if (!ord)
		return NULL;
	for (i = 0; i < n; i++)
		ord[i] = i;
	sort_rows = rows;
	sort_cmp = by == BY_ACTIVATIONS ? row_cmp_activations :
		   by == BY_PATHS ? row_cmp_paths : row_cmp_coverage;
	if (by != BY_NAME)
		qsort(ord, n, sizeof(*ord), row_cmp_order);
	return ord;
}

/* The index's section on selectively built functions (@sel), if any:
 * each path of interest's count by its spec FILE:LINE. */
static void html_selective(FILE *f, const struct sel_report *sel)
{
	size_t i;
	uint32_t k;

	if (!sel->nfs)
		return;
	fputs("<section><h2>Paths of interest</h2><p class=\"muted\">"
	      "Functions built from a path spec: each path's count, by its "
	      "spec line.</p><table><tr><th>function</th><th>strategy</th>"
	      "<th>activations</th><th>ended early</th><th>other paths</th>"
	      "<th>path (spec line)</th><th>count</th></tr>\n", f);
	for (i = 0; i < sel->nfs; i++) {
		const struct sel_func *sf = &sel->fs[i];

		for (k = 0; k < sf->fn->nsel; k++) {
			fputs("<tr><td>", f);
			if (!k) {
				html_text(f, sf->fn->name);
				fprintf(f, "</td><td>%s</td><td class=\"n\">"
					"%llu</td><td class=\"n\">%llu</td>"
					"<td class=\"n\">%llu",
					pap_sel_strategy_name(
						sf->fn->sel->strategy),
					(unsigned long long)sf->activations,
					(unsigned long long)(sf->early[1] +
						sf->early[2] + sf->early[3]),
					(unsigned long long)(sf->other +
							     sf->cut));
			} else {
				fputs("</td><td></td><td></td><td></td><td>",
				      f);
			}
			fputs("</td><td class=\"muted\">", f);
			html_text(f, sf->fn->sel_where[k]);
			fprintf(f, "</td><td class=\"n\">%llu</td></tr>\n",
				(unsigned long long)sel_path_count(sf, k));
		}
	}
	fputs("</table></section>\n", f);
}

/*
 * The calls page, calls.html, when the profile holds call sequences:
 * the text report's call sections (callrender.c's trees with their
 * groups and "x N", the calling-context tree, the k-grams with --k),
 * each section a box of preformatted text, escaped, and the page cut at
 * a line once it passes HTML_CALLS_UNTIL bytes.  *@made says whether
 * the page was written; 0, or -1 with a message.
 */
static int write_calls(const char *dir, struct dprofile *dp,
		       const struct ropts *o, int *made)
{
	char *text = NULL, *at, *end, *nl;
	size_t len = 0;
	struct page pg;
	FILE *m = open_memstream(&text, &len), *f;
	int open = 0;

	*made = 0;
	if (!m)
		return -1;
	print_calls_text(m, dp, o);
	fclose(m);
	if (!len) {
		free(text);
		return 0;
	}
	f = page_open(&pg, dir, "calls.html");
	if (!f) {
		free(text);
		return -1;
	}
	page_head(f, "pap call sequences", "<a href=\"index.html\">functions"
		  "</a>: the call sequences of the threads, their calling "
		  "contexts and k-grams");
	end = text + len;
	for (at = text; at < end; at = nl + 1) {
		nl = memchr(at, '\n', (size_t)(end - at));
		if (!nl)
			nl = end;
		*nl = 0;
		if (page_bytes(f) >= HTML_CALLS_UNTIL) {
			size_t lines = 0;
			char *q;

			for (q = nl + 1; q < end; q++)
				lines += *q == '\n';
			fprintf(f, "%s<p class=\"muted\">%zu more lines left "
				"out: a page holds 2 MB; pap-decode's text "
				"report has them all</p>", open ?
				"</pre></section>" : "", lines + 1);
			open = 0;
			break;
		}
		if (!*at) {		/* a blank line ends a section */
			if (open)
				fputs("</pre></section>\n", f);
			open = 0;
			continue;
		}
		if (!open) {
			fputs("<section><h2>", f);
			html_text_max(f, at, HTML_LINE_MAX);
			fputs("</h2><pre class=\"path\">", f);
			open = 1;
			continue;
		}
		html_text_max(f, at, HTML_LINE_MAX);
		fputc('\n', f);
	}
	if (open)
		fputs("</pre></section>\n", f);
	free(text);
	page_tail(f);
	*made = 1;
	return page_close(&pg, f);
}

/* Writes index page @by: the functions in that order, then the paths of
 * interest of @sel. */
static int write_index(const char *dir, struct dprofile *dp,
		       const struct index_row *rows, const size_t *ord,
		       int by, const struct sel_report *sel, int calls)
{
	static const char *const head[NORDERS] = {
		"activations", "distinct paths", "function",
		"acyclic paths covered"
	};
	char sub[256];
	struct page pg;
	size_t i;
	int c;
	FILE *f = page_open(&pg, dir, index_page[by]);

	if (!f)
		return -1;
	snprintf(sub, sizeof(sub), "%zu %s, %llu recorded %s", dp->nfs,
		 pap_plural(dp->nfs, "function", "functions"),
		 (unsigned long long)dp->total,
		 pap_plural(dp->total, "path", "paths"));
	page_head(f, "pap path profile", sub);
	if (calls)
		fputs("<section><h2>Call sequences</h2><p><a href=\"calls.html"
		      "\">The threads' call sequences, calling contexts and "
		      "k-grams</a></p></section>\n", f);
	fprintf(f, "<section><h2>Functions by %s</h2><p class=\"muted\">"
		"Sort by", by == BY_ACTIVATIONS ? "activity" : head[by]);
	for (c = 0; c < NORDERS; c++)
		fprintf(f, "%s<a href=\"%s\">%s</a>", c ? ", " : " ",
			index_page[c], head[c]);
	fputs(".</p><table><tr><th>function</th><th>file</th>"
	      "<th>activations</th><th>distinct paths</th>"
	      "<th>hottest path</th><th>acyclic paths covered</th></tr>\n", f);
	for (i = 0; i < dp->nfs; i++) {
		const struct index_row *r = &rows[ord[i]];
		if (page_bytes(f) >= HTML_INDEX_UNTIL) {
			fprintf(f, "</table><p class=\"muted\">%zu more "
				"functions left out: a page holds 2 MB; each "
				"has its page all the same</p>", dp->nfs - i);
			fputs("</section>\n", f);
			page_tail(f);
			return page_close(&pg, f);
		}
		struct dfunc *df = r->f;
		double share = r->npaths && r->total ?
			100.0 * r->hottest / r->total : 0;

		fprintf(f, "<tr><td><a href=\"f%zu.html\">", r->idx);
		html_text(f, df->fn->name);
		fputs("</a></td><td class=\"muted\">", f);
		html_text(f, strrchr(df->fn->file, '/') ?
			  strrchr(df->fn->file, '/') + 1 : df->fn->file);
		fprintf(f, "</td><td class=\"n\">%llu</td><td class=\"n\">%zu"
			"</td><td class=\"n\"><span class=\"bar\" style=\""
			"width:%.0fpx\"></span>%.1f%%</td><td class=\"n\">%s"
			"</td></tr>\n", (unsigned long long)r->total,
			r->npaths, share * 0.6 + 1, share, r->cov);
	}
	fputs("</table></section>\n", f);
	html_selective(f, sel);
	page_tail(f);
	return page_close(&pg, f);
}

/* @r's coverage column, of its function's acyclic paths taken. */
static void row_coverage(struct index_row *r)
{
	struct bl_coverage c;
	char of[32], share[32];

	r->coverage = -1;
	snprintf(r->cov, sizeof(r->cov), "-");
	if (!func_coverage(r->f, &c) && c.feasible) {
		r->coverage = (double)c.taken / (double)c.feasible;
		fmt_count(of, sizeof(of), c.feasible);
		fmt_share(share, sizeof(share), (double)c.taken,
			  (double)c.feasible);
		snprintf(r->cov, sizeof(r->cov), "%s (%llu of %s)", share,
			 (unsigned long long)c.taken, of);
	}
}

int write_html(const char *dir, struct dprofile *dp, const struct ropts *o)
{
	struct sel_report sel = { NULL, 0 };
	struct index_row *rows;
	struct html_dot hd;
	size_t *ord = NULL, i;
	uint8_t *fits;
	struct stat st;
	int rc = 0, sel_failed, by, calls = 0;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "%s: error: %s: %s\n", pap_prog, dir,
			strerror(errno));
		return -1;
	}
	/* a directory of ours: a symbolic link is not followed */
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid()) {
		fprintf(stderr, "%s: error: %s: not a directory of this user "
			"(a symbolic link is not followed); not written\n",
			pap_prog, dir);
		return -1;
	}
	rows = calloc(dp->nfs + 1, sizeof(*rows));
	if (!rows)
		return -1;
	/* a record of a selective function that matches no path is said;
	 * the rest is written */
	sel_failed = dp->prof && sel_report_build(dp->d, dp->prof, o, &sel);
	/* decoded one function at a time (o->lazy), its paths ordered as
	 * far as its page shows them */
	if (o->lazy)
		dp->rank = o->rank;
	/* each function decoded, its paths counted once (coverage, flow),
	 * its graph drawn, its page written, then its paths let go but for
	 * its row of the index */
	/* the graphs drawn, hottest first, within the report's edges (all
	 * of them when out of memory: each is bounded all the same) */
	fits = dot_budget(dp);
	dot_begin(&hd);
	for (i = 0; i < dp->nfs; i++) {
		struct index_row *r = &rows[i];
		struct func_flow fl;

		r->f = &dp->fs[i];
		r->idx = i;
		/* the paths counted as they are decoded */
		if (!func_flow_start(r->f, &fl) && !r->f->decoded) {
			fl.whole = 1;
			dp->on_whole = func_flow_whole;
			dp->on_form = func_flow_form;
			dp->on_path_ctx = &fl;
		}
		if (func_decode(dp, r->f))
			rc = -1;
		dp->on_whole = NULL;
		dp->on_form = NULL;
		row_coverage(r);
		if (func_flow(r->f, &fl))
			rc = -1;
		if (html_function(dir, r->f, i, o, &hd, &fl, !fits || fits[i]))
			rc = -1;
		func_flow_free(&fl);
		r->total = r->f->total;
		r->npaths = r->f->npaths;
		r->hottest = r->f->npaths ? r->f->paths[0].count : 0;
		if (o->lazy) {
			func_release(r->f);
			func_trim(r->f, 0);
		}
	}
	dot_end(&hd);
	free(fits);
	if (write_calls(dir, dp, o, &calls))
		rc = -1;
	for (by = 0; by < NORDERS && rc == 0; by++) {
		free(ord);
		ord = index_order(rows, dp->nfs, by);
		if (!ord || write_index(dir, dp, rows, ord, by, &sel, calls))
			rc = -1;
	}
	free(ord);
	free(rows);
	sel_report_free(&sel);
	return rc || sel_failed ? -1 : 0;
}
