/* SPDX-License-Identifier: MIT */
/*
 * rtabi.h - the runtime's ABI (pap/abi.h) as the plugin calls it: one
 * list of the runtime's functions, their GCC declarations made once per
 * translation unit, and how a later pass recognises their calls.
 */
#ifndef PAP_PLUGIN_RTABI_H
#define PAP_PLUGIN_RTABI_H

/* Every runtime function the plugin emits calls of (pap/abi.h). */
enum pap_rt_fn {
	PAP_RT_ENTER,		/* __pap_enter */
	PAP_RT_FOLD,		/* __pap_fold */
	PAP_RT_FOLD_RUN,	/* __pap_fold_run */
	PAP_RT_COUNT,		/* __pap_count */
	PAP_RT_RECORD,		/* __pap_record */
	PAP_RT_PATH,		/* __pap_path */
	PAP_RT_TALLY,		/* __pap_tally */
	PAP_RT_TALLY_ADD,	/* __pap_tally_add */
	PAP_RT_END,		/* __pap_end */
	PAP_RT_LOST,		/* __pap_lost */
	PAP_RT_RESUME,		/* __pap_resume */
	PAP_RT_INTERN,		/* __pap_intern */
	PAP_RT_TRACE_BEGIN,	/* __pap_trace_begin (the tracer) */
	PAP_RT_TRACE_UNWIND,	/* __pap_trace_unwind */
	PAP_RT_TRACE_BLOCK,	/* __pap_trace_block */
	PAP_RT_TRACE_END,	/* __pap_trace_end */
	PAP_RT_ABI,		/* __pap_abi */
	PAP_RT_CENTER,		/* __pap_center (call sequences) */
	PAP_RT_CEXIT,		/* __pap_cexit */
	PAP_RT_CCALLEE,		/* __pap_ccallee */
	PAP_RT_CRESUME,		/* __pap_cresume */
	PAP_RT_CBREAK,		/* __pap_cbreak */
	PAP_RT_CUNIT,		/* __pap_cunit */
	PAP_RT_CRETURN,		/* __pap_creturn (a tail chain ended) */
	PAP_RT_CTAIL,		/* __pap_ctail (a flagged frame's tail call) */
	PAP_RT_NFNS
};

/*
 * The declaration of runtime function @f: external, nothrow, leaf (it
 * calls nothing back in the unit), artificial; made on first use and
 * kept alive for GCC's collector by pap_rt_gc_roots().
 */
tree pap_rt_decl(enum pap_rt_fn f);
/* @f's name as an identifier: how calls of it are recognised. */
tree pap_rt_id(enum pap_rt_fn f);
/* The runtime's integer types: uint64_t and uint32_t. */
tree pap_rt_u64(void);
tree pap_rt_u32(void);
/* const char *: the type of a function key, as the runtime takes it. */
tree pap_rt_cstring(void);
/*
 * Is @stmt a call of the runtime's @id with @nargs arguments, argument
 * @cst a constant (a fold's radix, a tally's count of values)?  Matched
 * by name, so that calls inlined from other units (LTO) count too.
 */
gcall *pap_runtime_call(gimple *stmt, tree id, unsigned nargs,
			unsigned cst);
/* The call sequence's thread-local variables (pap/abi.h), initial-exec. */
enum pap_rt_var {
	PAP_RV_CS,		/* __pap_cs: the top frame */
	PAP_RV_CS_LIMIT,	/* __pap_cs_limit: the last usable frame */
	PAP_RV_CR,		/* __pap_cr: the thread's register */
	PAP_RV_NVARS
};
/* The declaration of @v (frames are void *, the register uint64_t). */
tree pap_rt_var(enum pap_rt_var v);
/* uintptr_t, the type of a frame's expect and an address called. */
tree pap_rt_uptr(void);
/* The declarations, as roots of GCC's garbage collector. */
const struct ggc_root_tab *pap_rt_gc_roots(void);

/*
 * Counting in place (pap/abi.h, __pap_tally).  Can this compilation do
 * it: a 64-bit x86 target (fold.cc's increment and the thunk are x86-64
 * assembly), code for an executable (static TLS)?
 */
bool pap_tally_possible(void);
/* The most values, one counter each, the runtime counts in place for one
 * function (librt/tally.c); tally=N goes up to this. */
#define PAP_TALLY_MAX_VALUES 65536u
/* The counters of a function that may break, whose records the plan does
 * not bound: r below this many counts in place (at most tally=N). */
#define PAP_TALLY_UNBOUNDED 4096u
/* The entry point a tally's rare arm calls from inline assembly, keeping
 * every register a call would not (pap/abi.h, ABI 7). */
#define PAP_RT_TALLY_PRESERVING "__pap_tally_preserving"

#endif /* PAP_PLUGIN_RTABI_H */
