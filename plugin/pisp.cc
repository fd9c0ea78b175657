/* SPDX-License-Identifier: MIT */
/*
 * pisp.cc - call sequences of interest (-fplugin-arg-pap-calls-spec=FILE;
 * doc/algorithms.md, "Call sequences of interest").
 *
 * The spec's "calls" lines name whole thread sequences (pathspec.h).  A
 * function that no sequence names keeps no call probes: its entry gets
 * one thread-local store instead, __pap_pisp_dead = 1 (librt/pisp.c),
 * and a thread that made it records no call sequence.  Callers count
 * such a function as uninstrumented (their sites to it are flagged o,
 * their clusters leave it out).  Every entry of an instrumented
 * function is an item of its thread's sequence, so a thread that
 * entered such a function is on no sequence of interest; a thread that
 * entered none made the same calls, entries and returns as in a build of
 * every function (it never took a site to such a function), so it
 * records the same sequence, numbered by this build's call-site graphs.
 * So each sequence of interest is counted exactly, and the functions
 * outside them pay one store per entry.
 *
 * Not yet: the per-thread automaton over the sequences (a thread in
 * functions of interest but off every sequence still records), paths
 * of interest inside functions (path and lines lines are refused).
 */
#include "gcc-common.h"
#include "plugin.h"

#include "pathspec.h"
#include "rtabi.h"
#include "textfile.h"
#include "util.h"

static struct pap_spec pap_pisp_spec;
static bool pap_pisp_on;
/* the names of the sequences, sorted, each once ('>' dropped) */
static const char **pap_pisp_names;
static size_t pap_pisp_nnames;
static tree pap_pisp_var;

static const struct ggc_root_tab pap_pisp_roots[] = {
	{ &pap_pisp_var, 1, sizeof(pap_pisp_var),
	  &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	LAST_GGC_ROOT_TAB
};

const struct ggc_root_tab *pap_pisp_gc_roots(void)
{
	return pap_pisp_roots;
}

bool pap_pisp_enabled(void)
{
	return pap_pisp_on;
}

static int pap_pisp_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* pap_pisp_names from the sequences read so far: a lookup per function
 * and per call site stays a binary search, however long they are. */
static void pap_pisp_index(void)
{
	size_t i, j, n = 0;

	for (i = 0; i < pap_pisp_spec.ncalls; i++)
		n += pap_pisp_spec.calls[i].nitems;
	pap_pisp_names = XRESIZEVEC(const char *, pap_pisp_names, n + 1);
	n = 0;
	for (i = 0; i < pap_pisp_spec.ncalls; i++)
		for (j = 0; j < pap_pisp_spec.calls[i].nitems; j++) {
			const char *it = pap_pisp_spec.calls[i].item[j];

			pap_pisp_names[n++] = it + (*it == '>');
		}
	qsort(pap_pisp_names, n, sizeof(*pap_pisp_names), pap_pisp_cmp);
	for (i = j = 0; i < n; i++)
		if (!j || strcmp(pap_pisp_names[j - 1], pap_pisp_names[i]))
			pap_pisp_names[j++] = pap_pisp_names[i];
	pap_pisp_nnames = j;
}

/* Does a sequence of interest name @asmname? */
static bool pap_pisp_has(const char *asmname)
{
	return bsearch(&asmname, pap_pisp_names, pap_pisp_nnames,
		       sizeof(*pap_pisp_names), pap_pisp_cmp) != NULL;
}

/*
 * Reads spec @file's "calls" lines into the sequences of interest; every
 * error, "FILE:LINE: error: ...", goes to GCC, and then nothing is
 * compiled.  A spec with paths inside functions, or with no sequence,
 * is refused (PISP with PSP inside is not made yet).
 */
bool pap_pisp_add_spec(const char *file)
{
	char err[512];
	char *text;
	int r;

	if (!pap_pisp_on)
		pap_spec_init(&pap_pisp_spec);
	pap_pisp_on = true;
	text = pap_read_text_file(file, (size_t)1 << 30, err, sizeof(err));
	if (!text) {
		error("%s", err);
		return false;
	}
	r = pap_spec_parse(&pap_pisp_spec, text, file);
	free(text);
	if (r || pap_pisp_spec.nerrors) {
		const char *m = pap_pisp_spec.msgs, *nl;

		pap_spec_sort_msgs(&pap_pisp_spec);
		m = pap_pisp_spec.msgs;
		while (m && (nl = strchr(m, '\n'))) {
			error("%.*s", (int)(nl - m), m);
			m = nl + 1;
		}
		if (!pap_pisp_spec.msglen)
			error("%s: cannot read the spec: %s", file,
			      pap_strerror(r));
		return false;
	}
	if (pap_pisp_spec.npaths) {
		const struct pap_spec_path *p = &pap_pisp_spec.paths[0];

		error("%s:%u: error: paths inside functions do not combine "
		      "with %<calls-spec%> yet (give them to %<spec%> in a "
		      "build without calls)", p->file, p->line);
		return false;
	}
	if (!pap_pisp_spec.ncalls) {
		error("%s: no %<calls%> line: no call sequence of interest",
		      file);
		return false;
	}
	pap_pisp_index();
	return true;
}

bool pap_pisp_named(tree decl)
{
	return !pap_pisp_on ||
	       pap_pisp_has(IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(decl)));
}

/* The runtime's flag, unsigned int, thread-local, initial-exec. */
static tree pap_pisp_dead(void)
{
	tree var = pap_pisp_var;

	if (var)
		return var;
	var = build_decl(UNKNOWN_LOCATION, VAR_DECL,
			 get_identifier("__pap_pisp_dead"),
			 unsigned_type_node);
	TREE_PUBLIC(var) = 1;
	DECL_EXTERNAL(var) = 1;
	TREE_STATIC(var) = 0;
	DECL_ARTIFICIAL(var) = 1;
	TREE_USED(var) = 1;
	set_decl_tls_model(var, TLS_MODEL_INITIAL_EXEC);
	pap_pisp_var = var;
	return var;
}

/*
 * Does @fun (@asmname) keep its call probes?  Yes without a spec, or
 * when a sequence of interest names it; otherwise its first block
 * starts with __pap_pisp_dead = 1 (no block is added: the path model
 * is made already) and it gets no call probes.
 */
bool pap_pisp_keep(function *fun, const char *asmname)
{
	gimple_stmt_iterator gsi;
	basic_block first;

	if (!pap_pisp_on || pap_pisp_has(asmname))
		return true;
	first = single_succ(ENTRY_BLOCK_PTR_FOR_FN(fun));
	gsi = gsi_after_labels(first);
	gsi_insert_before(&gsi, gimple_build_assign(pap_pisp_dead(),
		build_int_cst(unsigned_type_node, 1)), GSI_SAME_STMT);
	if (pap_opts.verbose)
		inform(DECL_SOURCE_LOCATION(fun->decl), "pap: %qs: on no "
		       "call sequence of interest: no call probes", asmname);
	return false;
}
