/* SPDX-License-Identifier: MIT */
/*
 * pap-plan - plan probes for a control-flow graph written in pap's text
 * format, show them, and optionally run a walk through them and decode it
 * back: compile -> run -> decode on one graph, without a compiler.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pap/version.h>

#include "cfgtext.h"
#include "diag.h"
#include "decode.h"
#include "plan.h"
#include "textfile.h"

static const char *prog = "pap-plan";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s [OPTION]... GRAPH\n"
"Plan pap probes for the control-flow graph in GRAPH (pap's text format,\n"
"see pap-plan(1)) and print them.  With --walk, execute a walk through the\n"
"probes exactly as the runtime would and decode what they recorded.\n"
"\n"
"  -m, --mode=MODE       pap-epp (default), pap, or epp\n"
"  -w, --walk=FILE       blocks visited, entry first, a returning block last\n"
"      --max-paths=N     cut acyclic regions with more than N paths\n"
"  -q, --quiet           do not print the plan\n"
"  -h, --help            show this help and exit\n"
"  -V, --version         show the version and exit\n"
"\n"
"Exit status: 0 when the walk decodes to itself, 1 on any error.\n",
		prog);
}

static const char *op_name(uint8_t kind)
{
	static const char *const names[] = {
		"init", "add", "fold", "set", "count", "record"
	};

	return kind < 6 ? names[kind] : "?";
}

static void print_plan(const struct pap_cfgtext *t, const struct pap_plan *p)
{
	const struct pap_cfg *cfg = t->cfg;
	uint32_t e, k;

	printf("plan: %s\n", p->note);
	for (e = 0; e < cfg->nedges; e++) {
		const struct pap_edge *pe = &cfg->edges[e];

		if (pe->flags & PAP_EF_DEAD || pe->kind == PAP_EDGE_FAKE)
			continue;
		printf("  %s -> %s%s%s:", pap_cfgtext_name(t, pe->src),
		       pap_cfgtext_name(t, pe->dst),
		       pe->flags & PAP_EF_BACK ? " (back)" : "",
		       p->is_fold[e] ? " (fold)" : "");
		if (!pap_plan_nops(p, e))
			printf(" -");
		for (k = p->op_off[e]; k < p->op_off[e + 1]; k++) {
			const struct pap_op *op = &p->ops[k];

			printf(" %s", op_name(op->kind));
			switch (op->kind) {
			case PAP_OP_INIT:
				printf(" r=%llu a=%lld", (unsigned long long)op->n,
				       (long long)op->k);
				break;
			case PAP_OP_FOLD:
				printf(" r=r*%llu+(a%+lld)",
				       (unsigned long long)op->n,
				       (long long)op->k);
				break;
			case PAP_OP_ADD:
			case PAP_OP_SET:
			case PAP_OP_COUNT:
				printf(" %lld", (long long)op->k);
				break;
			}
			if (k + 1 < p->op_off[e + 1])
				printf(";");
		}
		printf("\n");
	}
}

static void print_path(const struct pap_cfgtext *t, const struct pap_path *p)
{
	size_t i;

	for (i = 0; i < p->len; i++) {
		const struct pap_edge *e = &t->cfg->edges[p->edges[i]];

		if (e->src != t->cfg->entry)
			printf(" %s", pap_cfgtext_name(t, e->src));
	}
	printf("\n");
}

/* Runs the walk through the probes, decodes, compares; 0 if equal. */
static int run_walk(const struct pap_cfgtext *t, const struct pap_plan *p,
		    const uint32_t *walk, size_t len)
{
	struct pap_activation em;
	struct pap_exec_sink sink = pap_activation_sink(&em);
	struct pap_exec_state st = { 0, 0 };
	struct pap_path out;
	size_t i, c;
	int err = 0;

	pap_activation_init(&em);
	for (i = 0; i < len; i++)
		pap_exec_edge(p, &st, walk[i], &sink);
	if (em.oom) {
		fprintf(stderr, "%s: error: out of memory running the walk\n",
			prog);
		pap_activation_free(&em);
		return 1;
	}
	pap_path_init(&out);
	if (p->mode == PAP_MODE_EPP) {
		printf("run: %zu acyclic path ids\n", em.nids);
		for (c = 0; c < em.nids && !err; c++) {
			out.len = 0;
			err = pap_decode_bl(p, em.ids[c], &out);
			printf("  id %llu:", (unsigned long long)em.ids[c]);
			if (!err)
				print_path(t, &out);
		}
		pap_path_free(&out);
		if (err)
			fprintf(stderr, "%s: error: %s\n", prog,
				pap_strerror(err));
		pap_activation_free(&em);
		return err != 0;
	}
	printf("run: %zu breakpoints, final r = %llu\n", em.nbps,
	       (unsigned long long)em.final);
	for (i = 0; i < em.nbps; i++)
		printf("  breakpoint at %s -> %s, r = %llu\n",
		       pap_cfgtext_name(t, t->cfg->edges[em.bps[i].site].src),
		       pap_cfgtext_name(t, t->cfg->edges[em.bps[i].site].dst),
		       (unsigned long long)em.bps[i].r);
	err = pap_decode_path(p, em.bps, em.nbps, em.final, &out);
	if (err) {
		fprintf(stderr, "%s: error: decode: %s\n", prog,
			pap_strerror(err));
		pap_path_free(&out);
		pap_activation_free(&em);
		return 1;
	}
	printf("decoded:");
	print_path(t, &out);
	err = out.len != len || memcmp(out.edges, walk, len * sizeof(*walk));
	printf("%s\n", err ? "MISMATCH: decoded path differs from the walk" :
			     "exact: decoded path equals the walk");
	pap_path_free(&out);
	pap_activation_free(&em);
	return err;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "mode", required_argument, NULL, 'm' },
		{ "walk", required_argument, NULL, 'w' },
		{ "max-paths", required_argument, NULL, 'P' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	enum pap_mode mode = PAP_MODE_PAP_EPP;
	struct pap_plan_opts opts = { 0 };
	const char *walk_file = NULL;
	struct pap_cfgtext t;
	struct pap_plan *plan;
	char err[512], *text, *end;
	int c, quiet = 0, status = 0, r;

	while ((c = getopt_long(argc, argv, "m:w:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (pap_mode_parse(optarg, &mode)) {
				fprintf(stderr, "%s: error: unknown mode '%s' "
					"(use pap-epp, pap or epp)\n", prog,
					optarg);
				return pap_usage_error(prog);
			}
			break;
		case 'w':
			walk_file = optarg;
			break;
		case 'P':
			errno = 0;
			opts.max_paths = strtoull(optarg, &end, 10);
			if (errno || *end || opts.max_paths < 2 ||
			    opts.max_paths > (1ull << 63)) {
				fprintf(stderr, "%s: error: --max-paths wants a "
					"number from 2 to 2^63, not '%s'\n",
					prog, optarg);
				return pap_usage_error(prog);
			}
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return pap_close_stdout(prog);
		case 'V':
			printf("pap-plan (pap) %s\n", PAP_VERSION_STRING);
			return pap_close_stdout(prog);
		default:	/* getopt said what */
			return pap_usage_error(prog);
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "%s: error: expected one GRAPH file\n", prog);
		return pap_usage_error(prog);
	}
	text = pap_read_text_file(argv[optind], 256u << 20, err, sizeof(err));
	if (!text) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	r = pap_cfgtext_parse(text, argv[optind], &t, err, sizeof(err));
	free(text);
	if (r) {
		fprintf(stderr, "%s\n", r == PAP_ENOMEM ? "out of memory" : err);
		return 1;
	}
	r = pap_plan_build(t.cfg, mode, &opts, &plan);
	if (r) {
		fprintf(stderr, "%s: error: %s: cannot plan: %s\n", prog,
			argv[optind], pap_strerror(r));
		pap_cfgtext_free(&t);
		return 1;
	}
	if (!quiet)
		print_plan(&t, plan);
	if (walk_file) {
		uint32_t *walk;
		size_t len;

		text = pap_read_text_file(walk_file, 256u << 20, err,
					  sizeof(err));
		if (!text) {
			fprintf(stderr, "%s\n", err);
			status = 1;
			goto out;
		}
		r = pap_cfgtext_walk(&t, text, walk_file, &walk, &len, err,
				     sizeof(err));
		free(text);
		if (r) {
			fprintf(stderr, "%s\n", err);
			status = 1;
			goto out;
		}
		status = run_walk(&t, plan, walk, len);
		free(walk);
	}
out:
	pap_plan_free(plan);
	pap_cfgtext_free(&t);
	if (pap_close_stdout(prog) && !status)
		status = 1;
	return status;
}
