/* SPDX-License-Identifier: MIT */
/*
 * pap-plugin.cc - pap.so: exact path profiling probes for GCC.
 *
 * Usage:
 *   gcc -fplugin=pap.so [-fplugin-arg-pap-mode=pap-epp|pap|epp|none]
 *       [-fplugin-arg-pap-calls] [-fplugin-arg-pap-clusters=sc|ic|ac]
 *       [-fplugin-arg-pap-meta=DIR] [-fplugin-arg-pap-include=REGEX]
 *       [-fplugin-arg-pap-exclude=REGEX] [-fplugin-arg-pap-system-headers]
 *       [-fplugin-arg-pap-fold=inline|call] [-fplugin-arg-pap-tally=N]
 *       [-fplugin-arg-pap-loop-count=register|memory]
 *       [-fplugin-arg-pap-verbose]
 *       [-fplugin-arg-pap-disable] -c a.c
 *
 * A GIMPLE pass right after the CFG is built (pass "cfg", before any
 * optimization reshapes it, so a path means the same at every -O level)
 * translates each function's CFG into pap's core model, asks the core for
 * a probe plan and emits the plan's operations on the edges.  For
 *
 *     while (i < n) { if (x[i]) s++; i++; }
 *
 * the loop's back edge gets "r = __pap_fold(&bps, r, 6, a, site, 1);
 * a = 2" and one arm of the if "a += 3": one multiply per iteration.  The
 * CFG, the source lines of each block and a checksum go to NAME.papm,
 * next to the object file, for pap-decode.
 *
 * A pass "paploop", just before the loop optimisers, makes loops that
 * call nothing count their path in a register (loopcount.cc) or fold
 * their iterations where they end (loopfold.cc).
 *
 * A last pass, "papfold", after the GIMPLE optimisers, turns the folds
 * that may overflow into an inline test and multiply-add, and the records
 * counted in place into an inline increment (fold.cc).
 *
 * Debugging: -fplugin-arg-pap-verbose prints each function's plan summary;
 * -fdump-tree-all writes the instrumented GIMPLE (NAME.c.*t.pap) and the
 * folds made inline (NAME.c.*t.papfold).
 */
#include "gcc-common.h"
#include "plugin-version.h"
#include "plugin.h"

#include <pap/version.h>

int plugin_is_GPL_compatible;

struct pap_options pap_opts;

static struct plugin_info pap_plugin_info = {
	PAP_VERSION_STRING,
	"exact path profiling.  Arguments (-fplugin-arg-pap-KEY[=VALUE]):\n"
	"  mode=pap-epp|pap|epp|none\n"
	"                        numbering (default pap-epp); none: no\n"
	"                        intra-procedural paths (with calls)\n"
	"  calls                 also record each thread's sequence of calls\n"
	"                        and returns (doc/plugin.md, \"Call sequences\")\n"
	"  calls-tail            with calls: every call in tail position stays\n"
	"                        a tail call (one to another function costs a\n"
	"                        runtime mark each); by default only a\n"
	"                        function's direct tail call of itself does\n"
	"                        (no mark), the others become ordinary calls,\n"
	"                        so mutual tail recursion needs calls-tail\n"
	"  calls-notail          with calls: no call in tail position stays a\n"
	"                        tail call.  Build every unit alike\n"
	"  rt-static             the program links the static runtime, as\n"
	"                        pap-gcc does: the runtime's variables are\n"
	"                        reached local-exec outside -fPIC code\n"
	"  clusters=sc|ic|ac     how an indirect call's callee is named: by\n"
	"                        the runtime always (sc), or by compares\n"
	"                        with the unit's address-taken functions of\n"
	"                        its type (ic, default) or all of them (ac),\n"
	"                        at most 16\n"
	"  meta=DIR              where NAME.papm metadata goes (default: next\n"
	"                        to the object file)\n"
	"  include=REGEX         instrument only functions matching REGEX\n"
	"  exclude=REGEX         do not instrument functions matching REGEX\n"
	"  system-headers        also instrument functions defined in system\n"
	"                        headers (glibc's inline helpers, say)\n"
	"  fold=inline|call      fold r = r*n + d inline, calling the runtime\n"
	"                        only near overflow (default), or always call\n"
	"  tally=N               count the records of a function with at most\n"
	"                        N path values in place, without a call\n"
	"                        (default 16384, at most 4096 where the plan\n"
	"                        does not bound them; 0: always call)\n"
	"  loop-count=register|memory\n"
	"                        a loop without calls and with one path keeps\n"
	"                        its count in a register and adds it (epp) or\n"
	"                        folds it (pap, pap-epp) when it leaves\n"
	"                        (default), or counts or folds in memory every\n"
	"                        iteration (exact even when a signal handler\n"
	"                        leaves the loop by longjmp)\n"
	"  spec=FILE             selective profiling: instrument only the\n"
	"                        functions a path spec names, counting their\n"
	"                        paths of interest (may be repeated)\n"
	"  psp=spp|0|1|2|3|follow\n"
	"                        selective strategy (default follow:\n"
	"                        doc/plugin.md)\n"
	"  calls-spec=FILE       with calls: record only the threads whose\n"
	"                        sequence can be one of the spec's 'calls'\n"
	"                        lines; other functions get no call probes\n"
	"  verbose               print each function's plan\n"
	"  disable               load but instrument nothing\n"
	"  trace                 also report every block entered (slow; the\n"
	"                        test suite's oracle, see doc/plugin.md)\n",
};

namespace {

/*
 * A GIMPLE pass of pap's: @name, run on each function whose IL has
 * @required; it keeps every property it finds, and leaves @finish to the
 * pass manager, which also verifies the IL after every pass (under
 * checking) and runs what the body returns besides.
 */
#define PAP_PASS_DATA(name, required, finish) {				\
	GIMPLE_PASS,		/* type */				\
	name,			/* name */				\
	OPTGROUP_NONE,		/* optinfo_flags */			\
	TV_NONE,		/* tv_id */				\
	required,		/* properties_required */		\
	0,			/* properties_provided */		\
	0,			/* properties_destroyed */		\
	0,			/* todo_flags_start */			\
	finish,			/* todo_flags_finish */			\
}

/*
 * Right after the CFG is built: the probes.  Lowered GIMPLE (control
 * flow and EH) with a CFG, not yet in SSA form: the probes' locals are
 * plain variables that "ssa" renames with the user's.  Nothing to
 * finish: the call graph's edges are built a few passes later
 * ("*build_cgraph_edges"), calls of the runtime included; a CFG
 * cleanup here (TODO_cleanup_cfg) changes the code generated at -O2
 * and -O3, so the optimisers get the CFG as the probes leave it; and no
 * TODO frees dominators, which the pass must not leave behind once
 * edges are split (pap_fn_finish() frees them).
 */
const pass_data pap_pass_data = PAP_PASS_DATA("pap",
	PROP_gimple_any | PROP_gimple_lcf | PROP_gimple_leh | PROP_cfg, 0);
/*
 * Just before the loop optimisers: loop counts go to registers.  SSA
 * form; the body sets up the loops it needs itself.  The calls it adds
 * or moves need their virtual operands renamed; where it changed the
 * function it returns TODO_cleanup_cfg, not stated here, since a
 * cleanup of a function it left alone is not its business.  No call
 * graph edges to rebuild: after the IPA passes the optimisers start by
 * removing the function's ("*remove_cgraph_callee_edges").
 */
const pass_data pap_loop_pass_data = PAP_PASS_DATA("paploop",
	PROP_cfg | PROP_ssa, TODO_update_ssa_only_virtuals);
/* After the GIMPLE optimisers: fold calls become inline tests.  As
 * "paploop": SSA form, virtual operands renamed, a CFG cleanup where
 * it changed something. */
const pass_data pap_fold_pass_data = PAP_PASS_DATA("papfold",
	PROP_cfg | PROP_ssa, TODO_update_ssa_only_virtuals);

class pap_pass : public gimple_opt_pass {
public:
	pap_pass(const pass_data &data, gcc::context *ctxt,
		 unsigned int (*body)(function *))
		: gimple_opt_pass(data, ctxt), body(body)
	{
	}

	bool gate(function *) final override
	{
		return !pap_opts.disable;
	}

	unsigned int execute(function *fun) final override
	{
		return body(fun);
	}

private:
	unsigned int (*body)(function *);
};

} /* namespace */

static void pap_finish_unit(void *, void *)
{
	if (pap_opts.disable)
		return;
	pap_sel_finish_unit();
	pap_meta_write();
}

/* Compiles @value for -fplugin-arg-@base-@key; false after an error. */
static bool pap_regex(const char *base, const char *key, const char *value,
		      regex_t *re)
{
	int rc;

	if (!value || !*value) {
		error("%<-fplugin-arg-%s-%s%> needs a regular expression",
		      base, key);
		return false;
	}
	rc = regcomp(re, value, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[128];

		regerror(rc, re, msg, sizeof(msg));
		error("%<-fplugin-arg-%s-%s=%s%>: %s", base, key, value, msg);
		return false;
	}
	return true;
}

static bool pap_parse_args(struct plugin_name_args *info)
{
	const char *base = info->base_name;
	bool ok = true;
	int i;

	pap_opts.mode = PAP_MODE_PAP_EPP;
	/* measured: doc/benchmarks.md, "Call sequences" */
	pap_opts.clusters = pap_options::PAP_CLUSTERS_IC;
	pap_opts.inline_fold = 1;
	pap_opts.tally_max_values = 16384;
	pap_opts.loop_register = 1;
	pap_opts.calls_tail = 1;		/* self tail calls */
	for (i = 0; i < info->argc; i++) {
		const char *key = info->argv[i].key;
		const char *value = info->argv[i].value;
		bool flag = !strcmp(key, "verbose") || !strcmp(key, "disable") ||
			    !strcmp(key, "trace") || !strcmp(key, "calls") ||
			    !strcmp(key, "calls-tail") ||
			    !strcmp(key, "calls-notail") ||
			    !strcmp(key, "rt-static") ||
			    !strcmp(key, "system-headers");

		if (flag && value) {
			error("%<-fplugin-arg-%s-%s%> takes no value", base, key);
			ok = false;
		} else if (!flag && !value && (!strcmp(key, "mode") ||
					       !strcmp(key, "meta") ||
					       !strcmp(key, "fold") ||
					       !strcmp(key, "loop-count") ||
					       !strcmp(key, "spec") ||
					       !strcmp(key, "calls-spec") ||
					       !strcmp(key, "psp") ||
					       !strcmp(key, "clusters") ||
					       !strcmp(key, "tally"))) {
			error("%<-fplugin-arg-%s-%s%> needs a value", base, key);
			ok = false;
		} else if (!strcmp(key, "mode")) {
			if (pap_mode_parse(value, &pap_opts.mode)) {
				error("%<-fplugin-arg-%s-mode=%s%>: unknown mode "
				      "(use pap-epp, pap, epp or none)", base,
				      value);
				ok = false;
			}
		} else if (!strcmp(key, "calls")) {
			pap_opts.calls = 1;
		} else if (!strcmp(key, "calls-tail")) {
			pap_opts.calls_tail = 2;
		} else if (!strcmp(key, "calls-notail")) {
			pap_opts.calls_tail = 0;
		} else if (!strcmp(key, "rt-static")) {
			pap_opts.rt_static = 1;
		} else if (!strcmp(key, "clusters")) {
			if (!strcmp(value, "sc")) {
				pap_opts.clusters = pap_options::PAP_CLUSTERS_SC;
			} else if (!strcmp(value, "ic")) {
				pap_opts.clusters = pap_options::PAP_CLUSTERS_IC;
			} else if (!strcmp(value, "ac")) {
				pap_opts.clusters = pap_options::PAP_CLUSTERS_AC;
			} else {
				error("%<-fplugin-arg-%s-clusters=%s%>: unknown "
				      "strategy (use sc, ic or ac)", base,
				      value);
				ok = false;
			}
		} else if (!strcmp(key, "fold")) {
			if (!strcmp(value, "inline") || !strcmp(value, "call")) {
				pap_opts.inline_fold = !strcmp(value, "inline");
			} else {
				error("%<-fplugin-arg-%s-fold=%s%>: unknown value "
				      "(use inline or call)", base, value);
				ok = false;
			}
		} else if (!strcmp(key, "loop-count")) {
			if (!strcmp(value, "register") ||
			    !strcmp(value, "memory")) {
				pap_opts.loop_register =
					!strcmp(value, "register");
			} else {
				error("%<-fplugin-arg-%s-loop-count=%s%>: unknown "
				      "value (use register or memory)", base,
				      value);
				ok = false;
			}
		} else if (!strcmp(key, "tally")) {
			char *end;
			unsigned long v;

			errno = 0;
			v = strtoul(value, &end, 10);
			if (!*value || *end || errno ||
			    v > PAP_TALLY_MAX_VALUES || *value == '-') {
				error("%<-fplugin-arg-%s-tally=%s%>: not a number "
				      "from 0 to %u", base, value,
				      PAP_TALLY_MAX_VALUES);
				ok = false;
			} else {
				pap_opts.tally_max_values = (unsigned)v;
			}
		} else if (!strcmp(key, "spec")) {
			ok &= pap_sel_add_spec(value);
		} else if (!strcmp(key, "calls-spec")) {
			ok &= pap_pisp_add_spec(value);
		} else if (!strcmp(key, "psp")) {
			if (pap_sel_set_strategy(value)) {
				error("%<-fplugin-arg-%s-psp=%s%>: unknown "
				      "strategy (use spp, 0, 1, 2 or 3)", base,
				      value);
				ok = false;
			}
		} else if (!strcmp(key, "meta")) {
			pap_opts.meta_dir = value;
		} else if (!strcmp(key, "include")) {
			ok &= pap_regex(base, key, value, &pap_opts.include);
			pap_opts.have_include = 1;
		} else if (!strcmp(key, "exclude")) {
			ok &= pap_regex(base, key, value, &pap_opts.exclude);
			pap_opts.have_exclude = 1;
		} else if (!strcmp(key, "verbose")) {
			pap_opts.verbose = 1;
		} else if (!strcmp(key, "disable")) {
			pap_opts.disable = 1;
		} else if (!strcmp(key, "trace")) {
			pap_opts.trace = 1;
		} else if (!strcmp(key, "system-headers")) {
			pap_opts.system_headers = 1;
		} else {
			error("unknown option %<-fplugin-arg-%s-%s%> (known: "
			      "mode, calls, calls-tail, calls-notail, rt-static, clusters, meta, fold, tally, loop-count, include, exclude, system-headers, spec, calls-spec, psp, verbose, disable, trace)",
			      base, key);
			ok = false;
		}
	}
	if (ok && pap_opts.mode == PAP_MODE_NONE && !pap_opts.calls) {
		error("%<-fplugin-arg-%s-mode=none%> needs "
		      "%<-fplugin-arg-%s-calls%>", base, base);
		ok = false;
	}
	if (ok && pap_pisp_enabled() && !pap_opts.calls) {
		error("%<-fplugin-arg-%s-calls-spec%> needs "
		      "%<-fplugin-arg-%s-calls%>", base, base);
		ok = false;
	}
	if (ok && pap_opts.calls && pap_opts.trace) {
		error("%<-fplugin-arg-%s-calls%> does not combine with "
		      "%<-fplugin-arg-%s-trace%>", base, base);
		ok = false;
	}
	return ok;
}

/* Inserts @pass right after the first instance of the pass named @ref. */
static void pap_register_after(const char *base, opt_pass *pass,
			       const char *ref)
{
	struct register_pass_info where;

	where.pass = pass;
	where.reference_pass_name = ref;
	where.ref_pass_instance_number = 1;
	where.pos_op = PASS_POS_INSERT_AFTER;
	register_callback(base, PLUGIN_PASS_MANAGER_SETUP, NULL, &where);
}

int plugin_init(struct plugin_name_args *info,
		struct plugin_gcc_version *version)
{
	if (!plugin_default_version_check(version, &gcc_version)) {
		error("pap.so was built for GCC %s and cannot load into GCC %s",
		      gcc_version.basever, version->basever);
		return 1;
	}
	if (!pap_parse_args(info))
		return 1;
	register_callback(info->base_name, PLUGIN_INFO, NULL,
			  &pap_plugin_info);
	pap_register_after(info->base_name,
			   new pap_pass(pap_pass_data, g,
					pap_instrument_function), "cfg");
	pap_register_after(info->base_name,
			   new pap_pass(pap_loop_pass_data, g, pap_loop_counts),
			   "fix_loops");
	pap_register_after(info->base_name,
			   new pap_pass(pap_fold_pass_data, g,
					pap_inline_folds), "optimized");
	register_callback(info->base_name, PLUGIN_FINISH_UNIT, pap_finish_unit,
			  NULL);
	register_callback(info->base_name, PLUGIN_ALL_IPA_PASSES_START,
			  pap_keys_finish, NULL);
	register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, NULL,
			  (void *)pap_rt_gc_roots());
	register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, NULL,
			  (void *)pap_keys_gc_roots());
	register_callback(info->base_name, PLUGIN_REGISTER_GGC_ROOTS, NULL,
			  (void *)pap_pisp_gc_roots());
	return 0;
}
