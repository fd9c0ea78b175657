/* SPDX-License-Identifier: MIT */
/*
 * plugin.h - what the plugin's files share (internal).
 */
#ifndef PAP_PLUGIN_H
#define PAP_PLUGIN_H

#include <regex.h>

#include "plan.h"
#include "rtabi.h"

struct pap_options {
	enum pap_mode mode;
	const char *meta_dir;		/* NULL: next to the object file */
	int have_include, have_exclude;
	regex_t include, exclude;
	int verbose;
	int disable;
	int trace;		/* test oracle: report every block */
	int system_headers;	/* also functions from system headers */
	int inline_fold;	/* fold inline, the runtime only near overflow */
	/* tally=N: a function whose records take at most this many values
	 * counts them in place, one counter each, without a call (0:
	 * never; at most PAP_TALLY_MAX_VALUES) */
	unsigned tally_max_values;
	/* a call-free loop counts its path in a register (loopcount.cc) */
	int loop_register;
	/* call sequences (calls.cc) and their indirect sites' clusters */
	int calls;
	/* calls in tail position that stay tail calls (calls.cc): 0 none
	 * (calls-notail), 1 a function's of itself (default), 2 all
	 * (calls-tail) */
	int calls_tail;
	/* rt-static: the runtime is linked statically into the executable
	 * (pap-gcc), so code not built for a shared library reaches its
	 * variables local-exec (rtabi.cc) */
	int rt_static;
	enum pap_calls_clusters { PAP_CLUSTERS_SC, PAP_CLUSTERS_IC,
				  PAP_CLUSTERS_AC } clusters;
};

extern struct pap_options pap_opts;

/* A growable text buffer. */
struct pap_text {
	char *s;
	size_t len, cap;
};

void pap_text_printf(struct pap_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pap_text_free(struct pap_text *t);

/* keys.cc: a new file-scope static variable of pap's own, named from
 * @prefix, of @type, for the caller to finish and finalize. */
tree pap_static_var(const char *prefix, tree type);
/*
 * keys.cc.  The static slot code for a shared object passes instead of
 * the key string @literal (an ADDR_EXPR), or NULL_TREE when this
 * compilation is for an executable and passes @literal itself.
 */
tree pap_key_slot(tree literal);
/* What a call in @seq passes as the key: @key, or a load of @slot
 * appended to @seq. */
tree pap_key_arg(gimple_seq *seq, tree key, tree slot);
/* PLUGIN_ALL_IPA_PASSES_START: the unit's constructor that points its
 * slots at the runtime's copies (__pap_intern). */
void pap_keys_finish(void *gcc_data, void *user_data);
const struct ggc_root_tab *pap_keys_gc_roots(void);

/*
 * instrument.cc: a new static thread-local counters pointer for records
 * of the function being instrumented counted in place (__pap_tally),
 * when they take at most @nvalues values, few enough; else NULL_TREE.
 */
tree pap_tally_var(uint64_t nvalues);

/* instrument.cc: the pass "pap" on one function; returns 0 (no TODO
 * flags: see pap-plugin.cc). */
unsigned int pap_instrument_function(function *fun);
/*
 * fold.cc, the pass after "optimized": turns every fold call left in
 * @fun into an inline multiply-add that calls the runtime only when
 * r*n + d may overflow; the value r gets is the call's in every case.
 * Returns TODO_cleanup_cfg where it changed @fun, whose virtual operands
 * it leaves marked for renaming (the pass's todo_flags_finish).
 */
unsigned int pap_inline_folds(function *fun);
/* fold.cc's helper, for loopcount.cc: does @t take part in an abnormal
 * PHI? */
bool pap_abnormal_p(tree t);
/*
 * loopcount.cc, the pass before the loop optimisers: in each innermost
 * loop of @fun that makes no call but one __pap_tally or one __pap_fold,
 * with the same path in every iteration but the first, counts
 * iterations in a register and replaces the call by __pap_tally_add
 * calls (loopcount.cc) or one __pap_fold_run call (loopfold.cc) where
 * the loop is left (under loop-count=register).  Returns
 * TODO_cleanup_cfg where it changed @fun, whose virtual operands it
 * leaves marked for renaming (the pass's todo_flags_finish).
 */
unsigned int pap_loop_counts(function *fun);
/* loopcount.cc's tests and values, for loopfold.cc (see there). */
bool pap_loop_visible(function *fun, gimple *g);
/* Is @t the same in every iteration of @loop: a constant or a value
 * from before it? */
bool pap_loop_invariant(class loop *loop, tree t);
/*
 * Is reducible, innermost @loop's only statement with an effect a call
 * of the runtime's @id (pap_runtime_call() with @nargs and @cst), whose
 * block dominates the latch?  That call, or NULL.  Dominators current.
 */
gcall *pap_loop_only_call(class loop *loop, tree id, unsigned nargs,
			  unsigned cst);
bool pap_loop_value_steady(class loop *loop, tree value, tree *base,
			   uint64_t *k, tree *steady);
void pap_loop_steady_values(class loop *loop, tree base, uint64_t k,
			    tree steady, tree *first, tree *rest);
/*
 * loopfold.cc: innermost @loop, dominators current, is one whose folds
 * can wait for its exit: then what pap_loop_fold_apply() needs, else
 * NULL.  Apply makes the change and frees it; dominators need not be
 * current.
 */
struct pap_loop_fold;
struct pap_loop_fold *pap_loop_fold_find(class loop *loop, tree fold_id);
void pap_loop_fold_apply(struct pap_loop_fold *lf);

/*
 * selective.cc: selective profiling (-fplugin-arg-pap-spec=FILE).  Is a
 * spec given; adds spec @file (false after an error); sets the strategy
 * from "spp", "psp0".."psp3", "0".."3" or "follow", the default (0 or an
 * error code); does the spec name @fun?
 */
bool pap_sel_enabled(void);
bool pap_sel_add_spec(const char *file);
int pap_sel_set_strategy(const char *value);
bool pap_sel_named(function *fun);
/* Under verbose, a note for each function of the specs that the unit
 * does not define (another unit may: no error). */
void pap_sel_finish_unit(void);
/*
 * pisp.cc: call sequences of interest (-fplugin-arg-pap-calls-spec=FILE).
 * Is a spec given; adds spec @file (false after an error); does @fun
 * keep its call probes (if not, its entry marks the thread off every
 * sequence of interest)?
 */
bool pap_pisp_enabled(void);
bool pap_pisp_add_spec(const char *file);
bool pap_pisp_keep(function *fun, const char *asmname);
/* Does the function @decl keep its call probes (as pap_pisp_keep()),
 * for its callers' sites and clusters? */
bool pap_pisp_named(tree decl);
/*
 * selective.cc's uninstrumented copy of a body, shared with pisp.cc: why
 * @fun cannot be copied (NULL: it can); the copy of every block, after
 * the last, by index (XNEWVEC; its SSA temporaries made variables);
 * once the copy is entered from the body, its loops found again.
 */
const char *pap_sel_uncopyable(function *fun);
basic_block *pap_sel_copy_body(function *fun);
void pap_sel_copied(function *fun);
/*
 * pisp.cc: in a function that keeps call probes (@calls), an
 * uninstrumented copy of its body (NULL: none, no calls-spec or not
 * copyable), made before any probe; once every probe is in,
 * pap_pisp_guard() makes its entry jump there when its thread is dead.
 */
basic_block *pap_pisp_copy(function *fun, const struct pap_calls *calls);
void pap_pisp_guard(function *fun, basic_block *copy);
/* Is @bb a block of such a copy (no call probe goes there)? */
bool pap_pisp_in_copy(basic_block bb);
/* After a named function's entry probe, at *@gsi: its automaton step. */
void pap_pisp_on_entry(tree decl, gimple_stmt_iterator *gsi);
/* The unit's registration of its spec, appended to constructor @body. */
void pap_pisp_finish(tree *body);
const struct ggc_root_tab *pap_pisp_gc_roots(void);
struct pap_cfgtext;
struct pap_sel_plan;
/*
 * The selective plan of @fun (model @g, its text @graph) for the specs'
 * paths of it, into *@sel; *@plan its operations by CFG edge for the
 * probes, *@checksum the metadata's, and the selection's metadata lines
 * appended to @lines.  False after a GCC error naming the spec's
 * FILE:LINE.
 */
bool pap_sel_plan_fn(function *fun, const char *asmname,
		     const struct pap_cfgtext *g, const char *graph,
		     struct pap_text *lines, struct pap_plan **plan,
		     uint64_t *checksum, struct pap_sel_plan **sel);
/*
 * Before any probe goes in: copies @fun's body, uninstrumented, and
 * sends each boundary edge of @sel (GCC edges @gcc_edge by core edge) to
 * the copy through a block that counts the early end, and each T1 or T2
 * check (on @plan's registers @r, @a) that fails likewise.  An edge of
 * @gcc_edge that carries probes may become the edge where they must go
 * now (after a T2 check); an edge or a core node's tail block (@tails)
 * no execution reaches any more becomes NULL.  Nothing for a function
 * whose body cannot be copied.
 */
void pap_sel_terminate(function *fun, const struct pap_sel_plan *sel,
		       const struct pap_plan *plan, const char *asmname,
		       uint64_t checksum, const struct pap_cfgtext *g,
		       edge *gcc_edge, basic_block *tails, tree r, tree a);

/* calls.cc: is call @s a call site (a call that may enter code of the
 * program: not pap's runtime, the -finstrument-functions hooks, a builtin
 * GCC expands in place or a leaf C library function the unit does not
 * define)? */
bool pap_calls_is_site(gcall *s);

/*
 * calls.cc: the call sequence's probes of one function (pap/abi.h,
 * librt/calls.h).  Collect, before any probe goes in, finds the call
 * sites of @fun (model @m, the core's CFG @g) and builds its call-site
 * graph: NULL when the function gets no call probes (it has exception
 * edges, or the core refuses its graph), after a note under verbose.
 * Its metadata lines (calls, site) are pap_calls_text()'s.  Emit, once
 * every other probe is in, places the entry, site, return and exit
 * probes with the function's key @key (its static slot @key_slot in
 * code for a shared object).
 */
struct pap_calls;
struct pap_model;
struct pap_calls *pap_calls_collect(function *fun, const struct pap_model *m,
				    const struct pap_cfgtext *g,
				    const char *asmname);
const char *pap_calls_text(const struct pap_calls *c);
void pap_calls_emit(struct pap_calls *c, tree key, tree key_slot);
void pap_calls_free(struct pap_calls *c);
/* The checksum of a function with calls: @base, its checksum without
 * them, continued over its calls lines (pap_meta_calls_checksum()). */
uint64_t pap_calls_checksum(const struct pap_calls *c, uint64_t base);
/* keys.cc: @fun, compiled with calls under @key, goes into the unit's
 * table for __pap_cunit (@checksum: for the unit's sum). */
void pap_keys_add_calls_fn(tree decl, const char *key, tree key_slot,
			   uint64_t checksum);

/* meta.cc: metadata of the translation unit.  Adds one instrumented
 * function's entry (libcore/meta.h); writes the whole file. */
void pap_meta_add_fn(const char *name, const char *file, enum pap_mode mode,
		     const char *graph, const char *lines, uint64_t checksum);
/* A function with calls, in file order: its checksum goes into the
 * unit's sum (pap_meta_unit_sum()), pap_meta_unit()'s value. */
void pap_meta_add_unit_fn(uint64_t checksum);
uint64_t pap_meta_unit(void);
void pap_meta_write(void);
const char *pap_meta_path(void);

#endif /* PAP_PLUGIN_H */
