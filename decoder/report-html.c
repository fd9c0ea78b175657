/* SPDX-License-Identifier: MIT */
/*
 * report-html.c - a self-contained HTML report: index.html lists the
 * functions by activity, and one page per function shows its CFG (inline
 * SVG drawn by graphviz's dot when it is installed), its hottest paths,
 * its k-iteration path forest and its annotated source.  No script, no
 * server, no file outside the directory.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "decoder.h"
#include "target.h"

#define HTML_PATHS 25		/* paths per function page without --top */
#define HTML_K 3		/* k-IPF depth without --k */

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
	int off;
	FILE *f;

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

/* The CFG as inline SVG through dot, or a note when dot is missing. */
static void html_cfg(FILE *f, struct dfunc *df, const struct ropts *o)
{
	char dotfile[] = "/tmp/pap-dot-XXXXXX", cmd[128], buf[8192];
	FILE *d, *svg;
	int fd = mkstemp(dotfile), in_svg = 0;
	size_t n;

	if (fd < 0 || !(d = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		fputs("<p class=\"muted\">no picture: cannot write a temporary "
		      "file</p>", f);
		return;
	}
	print_dot(d, df, o);
	fclose(d);
	snprintf(cmd, sizeof(cmd), "dot -Tsvg %s 2>/dev/null", dotfile);
	svg = popen(cmd, "r");
	while (svg && fgets(buf, sizeof(buf), svg)) {
		if (!in_svg && strncmp(buf, "<svg", 4))
			continue;	/* XML prologue, doctype, comments */
		in_svg = 1;
		n = strlen(buf);
		fwrite(buf, 1, n, f);
	}
	if ((svg && pclose(svg)) || !in_svg)
		fputs("<p class=\"muted\">no picture: graphviz's <code>dot"
		      "</code> is not installed (<code>apt-get install graphviz"
		      "</code>); <code>pap-decode --format=dot</code> gives the "
		      "graph</p>", f);
	unlink(dotfile);
}

struct html_seq {
	FILE *f;
	const struct pap_meta_fn *fn;
};

static void hs_item(void *ctx, uint32_t line)
{
	struct html_seq *h = ctx;

	fprintf(h->f, "<span title=\"");
	html_text(h->f, source_line(h->fn, line));
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

static void html_paths(FILE *f, struct dfunc *df, const struct ropts *o)
{
	struct html_seq hs = { f, df->fn };
	struct seq_printer sp = { hs_item, hs_open, hs_close, &hs };
	size_t i, limit = o->top ? o->top : HTML_PATHS, n;
	uint32_t *lines;

	fprintf(f, "<section id=\"paths\"><h2>Hottest paths</h2><table>"
		"<tr><th>#</th><th>count</th><th>share</th><th>blocks</th>"
		"<th>source lines (loops as (&hellip;)<sup>n</sup>)</th></tr>\n");
	for (i = 0; i < df->npaths && i < limit; i++) {
		struct dpath *p = &df->paths[i];
		double share = df->total ? 100.0 * p->count / df->total : 0;

		if (p->count < o->min_count ||
		    (!path_long(p) && path_open(df, p)))
			continue;
		fprintf(f, "<tr><td class=\"n\">%zu</td><td class=\"n\">%llu"
			"</td><td class=\"n\"><span class=\"bar\" style=\""
			"width:%.0fpx\"></span>%.1f%%</td><td class=\"n\">%zu"
			"%s</td><td class=\"path\">", i + 1,
			(unsigned long long)p->count, share * 0.6 + 1, share,
			p->n, p->complete ? "" : " (cut)");
		if (path_long(p)) {
			print_form(&sp, df, p, piece_lines);
		} else {
			n = path_lines(df->fn, p, &lines);
			print_compressed(&sp, lines, n);
			free(lines);
			path_close(p);
		}
		fputs("</td></tr>\n", f);
	}
	fprintf(f, "</table>%s</section>\n", i < df->npaths ?
		"<p class=\"muted\">colder paths are left out</p>" : "");
}

static void hi_enter(void *ctx, const struct pap_forest *ipf, uint32_t v,
		     uint64_t parent, uint64_t root, int first)
{
	struct kipf_out *h = ctx;
	const struct pap_fnode *nd = &ipf->nodes[v];

	fprintf(h->f, "%s<li><span class=\"id\">BL %llu</span> &times; %llu ",
		first ? (nd->depth == 1 ? "<ul class=\"ipf top\">" :
			 "<ul class=\"ipf\">") : "",
		(unsigned long long)nd->label, (unsigned long long)nd->count);
	if (nd->depth > 1)
		fprintf(h->f, "<span class=\"sh\">%.1f%% of parent (%.1f%% of "
			"root)</span> ", parent ? 100.0 * nd->count / parent : 0,
			root ? 100.0 * nd->count / root : 0);
	fputs("<span class=\"ln\">lines ", h->f);
	put_bl_lines(h, nd->label, " ");
	fputs("</span>", h->f);
}

static void hi_leave(void *ctx, int last)
{
	(void)last;
	fputs("</li>", ((struct kipf_out *)ctx)->f);
}

static void hi_end(void *ctx)
{
	fputs("</ul>", ((struct kipf_out *)ctx)->f);
}

static void html_kipf(FILE *f, struct dfunc *df, const struct ropts *o)
{
	struct kipf_out h = { f, df };
	struct kipf_visit kv = { hi_enter, hi_leave, hi_end, &h };
	uint32_t k = o->k ? o->k : HTML_K;
	double min_share = o->min_share ? o->min_share : 0.1;

	fprintf(f, "<section id=\"kipf\"><h2>%u-iteration path forest</h2>"
		"<p class=\"muted\">Runs of up to %u consecutive Ball-Larus "
		"paths (loop iterations); nodes under %.0f%% of their root "
		"left out.</p>\n", k, k, 100 * min_share);
	if (kipf_report(df, k, min_share, &kv))
		fputs("<p class=\"muted\">not available</p>", f);
	fputs("</section>\n", f);
}

/* The function's source lines with counts and distinct paths. */
static void html_source(FILE *f, struct dfunc *df)
{
	uint64_t *count, max = 0;
	uint32_t *paths, n, l, lo = 0, hi = 0, b, k;
	const struct pap_meta_fn *fn = df->fn;

	line_counts(df, &count, &paths, &n);
	for (b = 0; b < fn->graph.nblocks; b++)
		for (k = 0; k < blines(fn, b)[0]; k++) {
			l = blines(fn, b)[k + 1];
			if (l >= PAP_MAX_LINE)
				continue;
			if (!lo || l < lo)
				lo = l;
			if (l > hi)
				hi = l;
		}
	for (l = 0; l < n; l++)
		if (count[l] > max)
			max = count[l];
	fputs("<section id=\"source\"><h2>Source</h2>"
	      "<table class=\"src\"><tr><th>line</th><th>count</th>"
	      "<th>paths</th><th></th></tr>\n", f);
	if (lo > 2)
		lo -= 2;		/* the function's head */
	for (l = lo ? lo : 1; l <= hi + 1; l++) {
		const char *text = source_line(fn, l);
		int known = 0;

		if (!text && l > hi)
			break;
		for (b = 0; b < fn->graph.nblocks && !known; b++)
			for (k = 0; k < blines(fn, b)[0]; k++)
				known |= blines(fn, b)[k + 1] == l;
		if (known && l < n && count[l]) {
			double heat = max ? (double)count[l] / (double)max : 0;

			fprintf(f, "<tr><td class=\"n\">%u</td><td class=\"n\" "
				"style=\"background:rgba(228,87,46,%.2f)\">%llu"
				"</td><td class=\"n\">%u</td><td class=\"t\">", l,
				0.08 + 0.5 * heat, (unsigned long long)count[l],
				paths[l]);
		} else {
			fprintf(f, "<tr class=\"%s\"><td class=\"n\">%u</td>"
				"<td class=\"n\">%s</td><td class=\"n\"></td>"
				"<td class=\"t\">", known ? "never" : "cold", l,
				known ? "0" : "");
		}
		html_text(f, text ? text : "");
		fputs("</td></tr>\n", f);
	}
	fprintf(f, "</table>%s</section>\n", source_line(fn, 1) ? "" :
		"<p class=\"muted\">source file not found</p>");
	free(count);
	free(paths);
}

static int by_activity(const void *a, const void *b)
{
	const struct dfunc *x = *(struct dfunc *const *)a;
	const struct dfunc *y = *(struct dfunc *const *)b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->fn->name, y->fn->name);
}

static int html_function(const char *dir, struct dfunc *df, size_t idx,
			 const struct ropts *o)
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
	html_cfg(f, df, o);
	fputs("</div></section>\n", f);
	html_paths(f, df, o);
	html_kipf(f, df, o);
	html_source(f, df);
	page_tail(f);
	return page_close(&pg, f);
}

int write_html(const char *dir, struct dprofile *dp, const struct ropts *o)
{
	struct dfunc **order;
	struct page pg;
	struct stat st;
	char sub[256];
	size_t i;
	FILE *f;
	int rc = 0;

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
	order = calloc(dp->nfs + 1, sizeof(*order));
	if (!order)
		return -1;
	for (i = 0; i < dp->nfs; i++)
		order[i] = &dp->fs[i];
	qsort(order, dp->nfs, sizeof(*order), by_activity);
	f = page_open(&pg, dir, "index.html");
	if (!f) {
		free(order);
		return -1;
	}
	snprintf(sub, sizeof(sub), "%zu %s, %llu recorded %s", dp->nfs,
		 pap_plural(dp->nfs, "function", "functions"),
		 (unsigned long long)dp->total,
		 pap_plural(dp->total, "path", "paths"));
	page_head(f, "pap path profile", sub);
	fputs("<section><h2>Functions by activity</h2><table><tr><th>function"
	      "</th><th>file</th><th>activations</th><th>distinct paths</th>"
	      "<th>hottest path</th></tr>\n", f);
	for (i = 0; i < dp->nfs; i++) {
		struct dfunc *df = order[i];
		size_t idx = (size_t)(df - dp->fs);
		double share = df->npaths && df->total ?
			100.0 * df->paths[0].count / df->total : 0;

		fprintf(f, "<tr><td><a href=\"f%zu.html\">", idx);
		html_text(f, df->fn->name);
		fputs("</a></td><td class=\"muted\">", f);
		html_text(f, strrchr(df->fn->file, '/') ?
			  strrchr(df->fn->file, '/') + 1 : df->fn->file);
		fprintf(f, "</td><td class=\"n\">%llu</td><td class=\"n\">%zu"
			"</td><td class=\"n\"><span class=\"bar\" style=\""
			"width:%.0fpx\"></span>%.1f%%</td></tr>\n",
			(unsigned long long)df->total, df->npaths,
			share * 0.6 + 1, share);
		if (html_function(dir, df, idx, o))
			rc = -1;
	}
	fputs("</table></section>\n", f);
	page_tail(f);
	if (page_close(&pg, f))
		rc = -1;
	free(order);
	return rc;
}
