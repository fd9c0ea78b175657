/* SPDX-License-Identifier: MIT */
/*
 * pap-decode - turn a pap profile and its metadata back into exact paths,
 * and the reports people read from them.
 *
 * Each record of the profile names its function as ASMNAME:CHECKSUM and,
 * usually, the metadata file that describes it.  The function's plan is
 * rebuilt from the metadata with the same core library the plugin used, and
 * every recorded path is decoded into its blocks and source lines.  A
 * record whose checksum no metadata has is refused, naming the function.
 *
 * The subcommands merge, print, compact, diff and coverage work on
 * whole profiles
 * (tools.c); check-spec checks path spec files (check-spec.c); the
 * reports are in report-*.c.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pap/version.h>

#include "decoder.h"

const char *pap_prog = "pap-decode";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [OPTION]... PROFILE\n"
"       %s merge [-o OUT] [--text] PROFILE...\n"
"       %s print PROFILE\n"
"       %s compact PROFILE\n"
"       %s diff [OPTION]... OLD NEW\n"
"       %s coverage [OPTION]... PROFILE\n"
"       %s check-spec [--meta=PATH]... SPEC...\n"
"Decode a pap profile into the exact paths each function took, with their\n"
"counts, shares and source lines; merge, compare and measure profiles.\n"
"\n"
"Reports:\n"
"      --format=FMT     text (default): per function and overall, the\n"
"                       hottest paths with count, share and length, as\n"
"                       blocks and source lines, loops as (...)^N;\n"
"                       json; paths (FUNCTION COUNT COMPLETE BLOCK...);\n"
"                       blocks (FUNCTION BLOCK COUNT); bl (the Ball-Larus\n"
"                       id stream: FUNCTION COUNT ID...); dot (each\n"
"                       function's CFG for graphviz); svg, png (one\n"
"                       function's CFG drawn by graphviz); annotate\n"
"                       (source lines with counts, like gcov); lcov (an\n"
"                       lcov tracefile for genhtml); gcov-json (gcov's\n"
"                       JSON intermediate format); gcov (gcov's text,\n"
"                       FILE.gcov); selective, selective-json (the\n"
"                       count of each path of interest of selectively\n"
"                       built functions, activations, early ends).  A path\n"
"                       of more than 10^7 blocks is printed with its\n"
"                       loops as ( ... )^N in every format (json gives\n"
"                       every path so as \"blocks_packed\"; doc/reports.md)\n"
"      --k=N            add each function's N-iteration path forest\n"
"                       (k-IPF) to the text and json reports, and the\n"
"                       call N-grams of the call sequences\n"
"      --min-share=PCT  only paths of at least PCT%% of their function's\n"
"                       activations and, in the k-IPF, nodes of at least\n"
"                       PCT%% of their root (the k-BLPP paper prunes at 10)\n"
"      --top=N          show the N hottest paths per function (text, json\n"
"                       and diff: 10 by default; 0: all), and the N\n"
"                       hottest call sequences\n"
"      --max-sequence=N a call sequence of more than N events (1000000\n"
"                       by default): json packs it, text shows N events\n"
"      --calls-spec=FILE  also count the call sequences of interest of\n"
"                       FILE's 'calls' lines (doc/reports.md)\n"
"      --sort=ORDER     text: functions by activations (default), paths\n"
"                       (distinct paths) or name\n"
"      --function=REGEX only functions whose name matches REGEX (POSIX\n"
"                       extended)\n"
"      --min-count=N    only paths taken at least N times\n"
"      --no-source      do not print source text under each path\n"
"      --source-prefix=OLD=NEW  read sources under OLD from NEW (a tree\n"
"                       moved since the build); may be repeated.  Relative\n"
"                       source paths are under the compile directory\n"
"      --json-blocks    json: the \"blocks\" array of every path, not only\n"
"                       of those of at most 1000 blocks\n"
"      --html=DIR       write a self-contained HTML report into DIR\n"
"      --write-spec=FILE  write the paths shown as a path spec file\n"
"                       (pap-spec 2, doc/reports.md) for selective\n"
"                       profiling\n"
"      --drop-stale     leave out, with a note, the records whose checksum\n"
"                       is not their metadata's (an older build's)\n"
"                       instead of failing on them\n"
"      --meta=DIR       also look for metadata (.papm files) in DIR; may\n"
"                       be repeated.  By default pap-decode reads the\n"
"                       metadata file each record names, then looks in\n"
"                       PROFILE's directory and the current directory.\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"merge writes the sum of the profiles (to OUT or standard output), in the\n"
"binary format (version 6) or with --text as text, and refuses records of\n"
"one function with different checksums.  print writes any profile as text\n"
"(version 6, ending in a line that counts the others).  compact rewrites a profile file as one segment, as\n"
"merging into it does once its log grows.  diff lists\n"
"the paths that appear, disappear, or change their share most between OLD\n"
"and NEW.  coverage prints, per function, its distinct whole paths and\n"
"the distinct acyclic (Ball-Larus) paths taken against those its graph has.\n"
"check-spec checks path spec files against the metadata and prints the\n"
"blocks of each path (check-spec --help).\n"
"\n"
"Exit status: 0 if every record was decoded and the output written, 1\n"
"otherwise, 2 on bad usage.\n",
		pap_prog, pap_prog, pap_prog, pap_prog, pap_prog, pap_prog,
		pap_prog);
}

enum { OPT_K = 256, OPT_MIN_SHARE, OPT_TOP, OPT_FUNCTION, OPT_MIN_COUNT,
       OPT_NO_SOURCE, OPT_HTML, OPT_SPEC, OPT_META, OPT_FORMAT, OPT_SORT,
       OPT_JSON_BLOCKS, OPT_SOURCE_PREFIX, OPT_DROP_STALE,
       OPT_MAX_SEQUENCE, OPT_CALLS_SPEC };

enum format { FMT_TEXT, FMT_JSON, FMT_PATHS, FMT_BLOCKS, FMT_BL, FMT_DOT,
	      FMT_ANNOTATE, FMT_SVG, FMT_PNG, FMT_LCOV, FMT_GCOV_JSON,
	      FMT_GCOV, FMT_SELECTIVE, FMT_SELECTIVE_JSON };

static const char *const format_names[] = {
	"text", "json", "paths", "blocks", "bl", "dot", "annotate", "svg",
	"png", "lcov", "gcov-json", "gcov", "selective", "selective-json",
	NULL
};

/* --sort, in enum fn_order's order. */
static const char *const sort_names[] = { "activations", "paths", "name",
					  NULL };

/* One function's CFG drawn by graphviz's dot into standard output. */
static int draw_cfg(struct dprofile *dp, const struct ropts *o,
		    const char *fmt)
{
	char cmd[64];
	FILE *dot;

	if (dp->nfs != 1) {
		fprintf(stderr, "%s: error: --format=%s draws one function; "
			"%zu match (choose one with --function)\n", pap_prog,
			fmt, dp->nfs);
		return 1;
	}
	fflush(stdout);
	snprintf(cmd, sizeof(cmd), "dot -T%s", fmt);
	dot = popen(cmd, "w");
	if (!dot) {
		fprintf(stderr, "%s: error: cannot run graphviz's dot: %s\n",
			pap_prog, strerror(errno));
		return 1;
	}
	print_dot(dot, &dp->fs[0], o);
	if (pclose(dot)) {
		fprintf(stderr, "%s: error: graphviz's dot failed (is the "
			"graphviz package installed?)\n", pap_prog);
		return 1;
	}
	return 0;
}

/* Parses a non-negative integer option; -1 after a message. */
static int parse_count(const char *opt, const char *arg, uint64_t max,
		       uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || v > max) {
		fprintf(stderr, "%s: error: --%s: '%s' is not a number from 0 "
			"to %llu\n", pap_prog, opt, arg,
			(unsigned long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

struct cli {
	struct ropts o;
	enum format format;
	const char *html, *spec;
	int coverage, diff, top_given;
	struct decoder d;
};

static const struct option longopts[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "meta", required_argument, NULL, OPT_META },
	{ "drop-stale", no_argument, NULL, OPT_DROP_STALE },
	{ "k", required_argument, NULL, OPT_K },
	{ "min-share", required_argument, NULL, OPT_MIN_SHARE },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "function", required_argument, NULL, OPT_FUNCTION },
	{ "min-count", required_argument, NULL, OPT_MIN_COUNT },
	{ "no-source", no_argument, NULL, OPT_NO_SOURCE },
	{ "source-prefix", required_argument, NULL, OPT_SOURCE_PREFIX },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "json-blocks", no_argument, NULL, OPT_JSON_BLOCKS },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "write-spec", required_argument, NULL, OPT_SPEC },
	{ "max-sequence", required_argument, NULL, OPT_MAX_SEQUENCE },
	{ "calls-spec", required_argument, NULL, OPT_CALLS_SPEC },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* Parses the report options; returns -1 to exit 1, 1 to exit 0, 0 to go. */
static int parse_options(struct cli *c, int argc, char **argv)
{
	uint64_t v;
	char *end;
	int opt, i, rc;

	while ((opt = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_FORMAT:
			for (i = 0; format_names[i]; i++)
				if (!strcmp(optarg, format_names[i]))
					break;
			if (!format_names[i]) {
				fprintf(stderr, "%s: error: unknown format '%s' "
					"(use text, json, paths, blocks, bl, "
					"dot, svg, png, annotate, lcov, "
					"gcov-json or gcov)\n", pap_prog,
					optarg);
				return -1;
			}
			c->format = (enum format)i;
			break;
		case OPT_META:
			decoder_add_dir(&c->d, optarg);
			break;
		case OPT_K:
			if (parse_count("k", optarg, 64, &v))
				return -1;
			if (!v) {
				fprintf(stderr, "%s: error: --k: k must be at "
					"least 1\n", pap_prog);
				return -1;
			}
			c->o.k = (uint32_t)v;
			break;
		case OPT_MIN_SHARE:
			errno = 0;
			c->o.min_share = strtod(optarg, &end) / 100.0;
			if (errno || end == optarg || *end ||
			    !(c->o.min_share >= 0 && c->o.min_share <= 1)) {
				fprintf(stderr, "%s: error: --min-share: '%s' "
					"is not a percentage from 0 to 100\n",
					pap_prog, optarg);
				return -1;
			}
			break;
		case OPT_TOP:
			if (parse_count("top", optarg, SIZE_MAX, &v))
				return -1;
			c->o.top = (size_t)v;
			c->top_given = 1;
			break;
		case OPT_SORT:
			for (i = 0; sort_names[i]; i++)
				if (!strcmp(optarg, sort_names[i]))
					break;
			if (!sort_names[i]) {
				fprintf(stderr, "%s: error: --sort: unknown "
					"order '%s' (use activations, paths "
					"or name)\n", pap_prog, optarg);
				return -1;
			}
			c->o.sort = i;
			break;
		case OPT_MIN_COUNT:
			if (parse_count("min-count", optarg, UINT64_MAX, &v))
				return -1;
			c->o.min_count = v;
			break;
		case OPT_FUNCTION:
			if (c->o.have_regex)
				regfree(&c->o.fn_regex);
			rc = regcomp(&c->o.fn_regex, optarg,
				     REG_EXTENDED | REG_NOSUB);
			if (rc) {
				char msg[128];

				regerror(rc, &c->o.fn_regex, msg, sizeof(msg));
				fprintf(stderr, "%s: error: --function: bad "
					"regular expression '%s': %s\n",
					pap_prog, optarg, msg);
				return -1;
			}
			c->o.have_regex = 1;
			break;
		case OPT_JSON_BLOCKS:
			c->o.all_blocks = 1;
			break;
		case OPT_NO_SOURCE:
			c->o.source = 0;
			break;
		case OPT_SOURCE_PREFIX:
			if (source_prefix_add(optarg)) {
				fprintf(stderr, "%s: error: --source-prefix: "
					"'%s' is not OLD=NEW\n", pap_prog,
					optarg);
				return -1;
			}
			break;
		case OPT_HTML:
			c->html = optarg;
			break;
		case OPT_DROP_STALE:
			c->d.drop_stale = 1;
			break;
		case OPT_SPEC:
			c->spec = optarg;
			break;
		case OPT_CALLS_SPEC:
			c->o.calls_spec = optarg;
			break;
		case OPT_MAX_SEQUENCE:
			if (parse_count("max-sequence", optarg, UINT64_MAX, &v))
				return -1;
			if (!v) {
				fprintf(stderr, "%s: error: --max-sequence: N "
					"must be at least 1\n", pap_prog);
				return -1;
			}
			c->o.max_sequence = v;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case 'V':
			printf("pap-decode (pap) %s\n", PAP_VERSION_STRING);
			return 1;
		default:	/* getopt said what */
			return -1;
		}
	}
	return 0;
}

static void cli_free(struct cli *c)
{
	if (c->o.have_regex)
		regfree(&c->o.fn_regex);
	decoder_free(&c->d);
	source_cache_free();
}

/*
 * Says on standard error when --top, --min-count or --min-share were
 * given to a report that adds up every path of the functions it shows
 * (block and line counts, coverage, pictures): there they select nothing,
 * and the reader should know the counts are not those of the paths kept.
 */
static void note_path_filters(const struct cli *c)
{
	const char *what = c->coverage ? "coverage" : NULL;

	if (!c->top_given && !c->o.min_count && !c->o.min_share)
		return;
	if (!what && !c->html && c->format != FMT_TEXT &&
	    c->format != FMT_JSON && c->format != FMT_PATHS &&
	    c->format != FMT_BL)
		what = format_names[c->format];
	if (what)
		fprintf(stderr, "%s: note: %s counts every path of the "
			"functions shown; --top, --min-count and --min-share "
			"select paths only in the text, json, paths, bl and "
			"HTML reports\n", pap_prog, what);
}

static int run_report(struct cli *c, const char *path)
{
	struct pap_profile prof;
	struct dprofile dp;
	char dir[4096];
	size_t i;
	int failed = 0;

	/* the reports people read are bounded unless --top says */
	if (!c->top_given && !c->coverage && !c->html &&
	    (c->format == FMT_TEXT || c->format == FMT_JSON))
		c->o.top = REPORT_TOP;
	note_path_filters(c);
	/* text, json, HTML and coverage decode a function when they print
	 * it (HTML and coverage keep every function's paths for
	 * --write-spec) */
	c->o.lazy = ((c->format == FMT_TEXT || c->format == FMT_JSON) &&
		     !c->coverage && !c->html) ||
		    ((c->html || c->coverage) && !c->spec);
	/* the HTML pages show their hottest paths: only those in order;
	 * coverage shows none, so it decodes one whole (func_decode()) */
	c->o.rank = c->coverage ? (c->spec ? 0 : 1) :
		    c->html && !c->spec ? html_shown_paths(&c->o) : 0;
	/* reports with acyclic coverage gather it while decoding */
	c->o.want_cov = c->format == FMT_TEXT || c->format == FMT_JSON ||
			c->coverage || c->html;
	if (decode_file(&c->d, &c->o, path, dir, sizeof(dir), &prof, &dp)) {
		pap_profile_free(&prof);
		return 1;
	}
	if (dp.saturated)
		fprintf(stderr, "%s: warning: %s: counts reached 2^64-1 and "
			"were held there (saturated): they are lower bounds\n",
			pap_prog, path);
	if (c->d.nstale_recs)
		fprintf(stderr, "%s: note: %s: %llu %s of %zu %s left out: "
			"their checksum is not their metadata's (an older "
			"build)\n", pap_prog, path,
			(unsigned long long)c->d.nstale_recs,
			pap_plural(c->d.nstale_recs, "record", "records"),
			c->d.nstale_fns,
			pap_plural(c->d.nstale_fns, "function", "functions"));
	if (prof.lost)
		fprintf(stderr, "%s: note: %s: %llu %s reported lost when "
			"%s recorded; %s not in these paths\n", pap_prog,
			path, (unsigned long long)prof.lost,
			pap_plural(prof.lost, "record was", "records were"),
			pap_plural(prof.lost, "it was", "they were"),
			pap_plural(prof.lost, "it is", "they are"));
	if (c->coverage) {
		failed |= cmd_coverage(&dp, &c->o, stdout);
	} else if (c->html) {
		failed |= write_html(c->html, &dp, &c->o) != 0;
	} else {
		switch (c->format) {
		case FMT_JSON:
			print_json(stdout, &dp, &c->o);
			break;
		case FMT_PATHS:
			print_paths(stdout, &dp, &c->o);
			break;
		case FMT_BLOCKS:
			print_block_counts(stdout, &dp);
			break;
		case FMT_BL:
			print_bl_stream(stdout, &dp, &c->o);
			break;
		case FMT_DOT:
			for (i = 0; i < dp.nfs; i++)
				print_dot(stdout, &dp.fs[i], &c->o);
			break;
		case FMT_ANNOTATE:
			print_annotated(stdout, &dp, &c->d.meta);
			break;
		case FMT_LCOV:
			print_lcov(stdout, &dp, &c->d.meta);
			break;
		case FMT_GCOV_JSON:
			print_gcov_json(stdout, &dp, &c->d.meta, path);
			break;
		case FMT_GCOV:
			print_gcov_text(stdout, &dp, &c->d.meta, path);
			break;
		case FMT_SELECTIVE:
		case FMT_SELECTIVE_JSON:
			failed |= print_selective(stdout, &c->d, &prof, &c->o,
				c->format == FMT_SELECTIVE_JSON) != 0;
			break;
		case FMT_SVG:
		case FMT_PNG:
			failed |= draw_cfg(&dp, &c->o, format_names[c->format]);
			break;
		default:
			print_text(stdout, &dp, &c->o);
			/* the functions built selectively, if any */
			failed |= print_selective(stdout, &c->d, &prof, &c->o,
						  0) != 0;
		}
	}
	if (c->spec)
		failed |= write_spec(c->spec, &dp, &c->o) != 0;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: error: writing the report: %s\n",
			pap_prog, strerror(errno));
		failed = 1;
	}
	dprofile_free(&dp);
	pap_profile_free(&prof);
	return failed || c->d.errors ? 1 : 0;
}

/* The exit status @rc, or 1 when standard output was not all written
 * (said unless @rc already tells a failure). */
static int finish(int rc)
{
	if (rc) {
		fflush(stdout);
		return rc;
	}
	return pap_close_stdout(pap_prog);
}

int main(int argc, char **argv)
{
	struct cli c;
	int rc;

	if (argc > 1 && !strcmp(argv[1], "merge"))
		return finish(cmd_merge(argc - 1, argv + 1));
	if (argc > 1 && !strcmp(argv[1], "print"))
		return finish(cmd_print(argc - 1, argv + 1));
	if (argc > 1 && !strcmp(argv[1], "compact"))
		return finish(cmd_compact(argc - 1, argv + 1));
	if (argc > 1 && !strcmp(argv[1], "check-spec"))
		return finish(cmd_check_spec(argc - 1, argv + 1));
	memset(&c, 0, sizeof(c));
	c.o.source = 1;
	decoder_init(&c.d);
	if (argc > 1 && (!strcmp(argv[1], "coverage") ||
			 !strcmp(argv[1], "diff"))) {
		c.coverage = argv[1][0] == 'c';
		c.diff = argv[1][0] == 'd';
		argc--;
		argv++;
	}
	rc = parse_options(&c, argc, argv);
	if (!rc && optind + 1 + c.diff != argc) {
		fprintf(stderr, "%s: error: expected %s\n", pap_prog,
			c.diff ? "two profiles, OLD and NEW" : "one PROFILE");
		rc = -1;
	}
	/* diff is bounded as the text report is: 10 a section unless
	 * --top says, --top=0 for all */
	if (!rc && c.diff && !c.top_given)
		c.o.top = REPORT_TOP;
	if (!rc && c.diff)
		rc = cmd_diff(&c.d, &c.o, argv[optind], argv[optind + 1]);
	else if (!rc)
		rc = run_report(&c, argv[optind]);
	else if (rc < 0)
		rc = pap_usage_error(pap_prog);
	else
		rc = 0;	/* --help, --version */
	cli_free(&c);
	return finish(rc);
}
