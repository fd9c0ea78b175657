/* SPDX-License-Identifier: MIT */
/*
 * rtabi.cc - the runtime's functions as GCC declarations (rtabi.h).
 */
#include "gcc-common.h"
#include "plugin.h"
#include "rtabi.h"

static tree pap_rt_decls[PAP_RT_NFNS];
static tree pap_rt_u64_type, pap_rt_u32_type;

static const char *const pap_rt_names[PAP_RT_NFNS] = {
	"__pap_enter", "__pap_fold", "__pap_fold_run", "__pap_count",
	"__pap_record", "__pap_path", "__pap_tally", "__pap_tally_add",
	"__pap_end", "__pap_lost", "__pap_resume", "__pap_intern",
	"__pap_trace_begin", "__pap_trace_unwind", "__pap_trace_block",
	"__pap_trace_end", "__pap_abi", "__pap_center", "__pap_cexit",
	"__pap_ccallee", "__pap_cresume", "__pap_cbreak", "__pap_cunit",
	"__pap_creturn", "__pap_ctail",
};

static tree pap_rt_vars[PAP_RV_NVARS];
static const char *const pap_rt_var_names[PAP_RV_NVARS] = {
	"__pap_cs", "__pap_cs_limit", "__pap_cr",
};

/* Until a call uses one, nothing else refers to a declaration, and later
 * passes build calls of __pap_tally_add and __pap_fold_run long after
 * the first pass made them. */
static const struct ggc_root_tab pap_rt_roots[] = {
	{ &pap_rt_decls[0], PAP_RT_NFNS, sizeof(pap_rt_decls[0]),
	  &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	{ &pap_rt_vars[0], PAP_RV_NVARS, sizeof(pap_rt_vars[0]),
	  &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
	LAST_GGC_ROOT_TAB
};

const struct ggc_root_tab *pap_rt_gc_roots(void)
{
	return pap_rt_roots;
}

tree pap_rt_u64(void)
{
	if (!pap_rt_u64_type)
		pap_rt_u64_type = long_long_unsigned_type_node;
	return pap_rt_u64_type;
}

tree pap_rt_u32(void)
{
	if (!pap_rt_u32_type)
		pap_rt_u32_type = unsigned_type_node;
	return pap_rt_u32_type;
}

tree pap_rt_cstring(void)
{
	return build_pointer_type(build_qualified_type(char_type_node,
						       TYPE_QUAL_CONST));
}

/* @f's C type, as pap/abi.h declares it. */
static tree pap_rt_type(enum pap_rt_fn f)
{
	tree cs = pap_rt_cstring();
	tree u64 = pap_rt_u64(), u32 = pap_rt_u32(), vd = void_type_node;
	tree in = integer_type_node, ptr = ptr_type_node;

	switch (f) {
	case PAP_RT_ENTER:
		return build_function_type_list(u64, NULL_TREE);
	case PAP_RT_FOLD:
		return build_function_type_list(u64, u64, u64, u64, u64, u32,
						 u64, NULL_TREE);
	case PAP_RT_FOLD_RUN:
		return build_function_type_list(u64, u64, u64, u64, u64, u64,
			u32, u64, u64,
			build_pointer_type(unsigned_char_type_node),
			NULL_TREE);
	case PAP_RT_COUNT:
		return build_function_type_list(vd, cs, u64, NULL_TREE);
	case PAP_RT_RECORD:
		return build_function_type_list(vd, cs, u64, u64, in,
						 NULL_TREE);
	case PAP_RT_PATH:
		return build_function_type_list(vd, ptr, u64, in, NULL_TREE);
	case PAP_RT_TALLY:
		return build_function_type_list(vd, ptr, cs, u64, u64, in,
						 NULL_TREE);
	case PAP_RT_TALLY_ADD:
		return build_function_type_list(vd, ptr, cs, u64, u64, in, u64,
						 NULL_TREE);
	case PAP_RT_END:
		return build_function_type_list(vd, ptr, cs, u64, u64, u64,
						 NULL_TREE);
	case PAP_RT_LOST:
		return build_function_type_list(vd, u64, NULL_TREE);
	case PAP_RT_RESUME:
		return build_function_type_list(vd, ptr, NULL_TREE);
	case PAP_RT_INTERN:
		return build_function_type_list(cs, cs, NULL_TREE);
	case PAP_RT_TRACE_BEGIN:
		return build_function_type_list(u64, cs, NULL_TREE);
	case PAP_RT_TRACE_UNWIND:
		return build_function_type_list(vd, u64, NULL_TREE);
	case PAP_RT_TRACE_BLOCK:
		return build_function_type_list(vd, u32, NULL_TREE);
	case PAP_RT_TRACE_END:
		return build_function_type_list(vd, in, NULL_TREE);
	case PAP_RT_ABI:
		return build_function_type_list(vd, u32, cs, NULL_TREE);
	case PAP_RT_CENTER:
		return build_function_type_list(ptr, ptr, cs, pap_rt_uptr(),
						 NULL_TREE);
	case PAP_RT_CEXIT:
		return build_function_type_list(vd, ptr, NULL_TREE);
	case PAP_RT_CCALLEE:
		return build_function_type_list(vd, pap_rt_uptr(), NULL_TREE);
	case PAP_RT_CRESUME:
		return build_function_type_list(vd, ptr, u32, NULL_TREE);
	case PAP_RT_CBREAK:
		return build_function_type_list(u64, u64, u64, u64, u32,
						 NULL_TREE);
	case PAP_RT_CUNIT:
		return build_function_type_list(vd, ptr, NULL_TREE);
	case PAP_RT_CRETURN:
		return build_function_type_list(u32, ptr, pap_rt_uptr(),
						 NULL_TREE);
	case PAP_RT_CTAIL:
		return build_function_type_list(vd, ptr, u32, NULL_TREE);
	case PAP_RT_NFNS:
		break;
	}
	gcc_unreachable();
}

tree pap_rt_decl(enum pap_rt_fn f)
{
	tree decl = pap_rt_decls[f];

	if (decl)
		return decl;
	decl = build_fn_decl(pap_rt_names[f], pap_rt_type(f));
	TREE_NOTHROW(decl) = 1;
	/* __pap_intern, __pap_abi and __pap_cunit run in constructors,
	 * where leaf adds nothing */
	if (f != PAP_RT_INTERN && f != PAP_RT_ABI && f != PAP_RT_CUNIT)
		DECL_ATTRIBUTES(decl) = tree_cons(get_identifier("leaf"),
						  NULL_TREE,
						  DECL_ATTRIBUTES(decl));
	DECL_ARTIFICIAL(decl) = 1;
	pap_rt_decls[f] = decl;
	return decl;
}

tree pap_rt_uptr(void)
{
	return pointer_sized_int_node;
}

tree pap_rt_var(enum pap_rt_var v)
{
	tree var = pap_rt_vars[v];

	if (var)
		return var;
	var = build_decl(UNKNOWN_LOCATION, VAR_DECL,
			 get_identifier(pap_rt_var_names[v]),
			 v == PAP_RV_CR ? pap_rt_u64() : ptr_type_node);
	TREE_PUBLIC(var) = 1;
	DECL_EXTERNAL(var) = 1;
	TREE_STATIC(var) = 0;
	DECL_ARTIFICIAL(var) = 1;
	TREE_USED(var) = 1;
	/* the runtime's, in libpaprt, loaded at start (pap/abi.h).  With
	 * rt-static (pap-gcc) an executable links libpaprt.a, so code not
	 * built for a shared library finds the variable at a constant
	 * offset from the thread pointer; otherwise the runtime may be
	 * libpaprt.so (gcc -fplugin ... -lpaprt), reached through the GOT */
	set_decl_tls_model(var, pap_opts.rt_static && !flag_shlib ?
				TLS_MODEL_LOCAL_EXEC :
				TLS_MODEL_INITIAL_EXEC);
	pap_rt_vars[v] = var;
	return var;
}

tree pap_rt_id(enum pap_rt_fn f)
{
	return get_identifier(pap_rt_names[f]);
}

gcall *pap_runtime_call(gimple *stmt, tree id, unsigned nargs,
			unsigned cst)
{
	gcall *call = dyn_cast<gcall *>(stmt);
	tree fn;

	if (!call || gimple_call_num_args(call) != nargs)
		return NULL;
	fn = gimple_call_fndecl(call);
	if (!fn || DECL_NAME(fn) != id ||
	    TREE_CODE(gimple_call_arg(call, cst)) != INTEGER_CST ||
	    !tree_fits_uhwi_p(gimple_call_arg(call, cst)))
		return NULL;
	return call;
}

bool pap_tally_possible(void)
{
#if defined(__x86_64__)
	/* the increment is x86-64 assembly: not for -m32 or -mx32, nor for
	 * shared-library code, whose TLS needs a call to reach */
	return TYPE_PRECISION(ptr_type_node) == 64 && !flag_shlib;
#else
	return false;
#endif
}
