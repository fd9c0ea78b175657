/* SPDX-License-Identifier: MIT */
/*
 * keys.cc - the function keys of code for shared objects.
 *
 * The runtime keys what it keeps about a function by the address of the
 * function's key string (pap/abi.h).  In an executable that string lives
 * as long as the process.  In a shared object it is unmapped at dlclose,
 * and the next object loaded may put another key at the same address.
 * So code compiled for a shared object (flag_shlib) passes the runtime
 * the value of a static slot instead:
 *
 *   static const char *pap_key.N = "f:0123456789abcdef:a.papm";
 *   ...   tmp = pap_key.N;  __pap_record (tmp, act, r, 1);
 *
 * and one constructor per translation unit, run before any of the
 * program's (priority 100), points every slot at the runtime's own copy:
 *
 *   pap_key.N = __pap_intern (pap_key.N);
 *
 * Until it has run (code called from another object's constructor) the
 * slot holds the object's own string, which is the key executables pass.
 *
 * That constructor, in every unit with instrumented code (an executable's
 * too), first tells the runtime the ABI version the unit was built for:
 *
 *   __pap_abi (PAP_ABI_VERSION, "f:0123456789abcdef:a.papm");
 */
#include "gcc-common.h"
#include "plugin.h"

#include <pap/abi.h>

/* Priority of the constructor: reserved for the implementation (<= 100),
 * so it runs before the program's own constructors in the object. */
#define PAP_KEYS_PRIORITY 100

/* this unit's slots, a TREE_LIST, newest first */
static tree pap_key_slots;
/* this unit's functions with calls (calls.cc), a TREE_LIST of decl
 * (purpose) and key slot or NULL (value), newest first, and their keys
 * in the same order */
static tree pap_calls_fns;
static vec<char *> pap_calls_keys;
/* the text of one of this unit's function keys: how the runtime names
 * the object when it checks the ABI version (__pap_abi); the constructor
 * gets a literal of its own, as a tree is not shared between functions */
static char *pap_abi_key;

#define PAP_KEYS_ROOT(v) { &(v), 1, sizeof(v), &gt_ggc_mx_tree_node, \
			   &gt_pch_nx_tree_node }
static const struct ggc_root_tab pap_keys_roots[] = {
	PAP_KEYS_ROOT(pap_key_slots),
	PAP_KEYS_ROOT(pap_calls_fns),
	LAST_GGC_ROOT_TAB
};

const struct ggc_root_tab *pap_keys_gc_roots(void)
{
	return pap_keys_roots;
}

tree pap_static_var(const char *prefix, tree type)
{
	tree var = build_decl(UNKNOWN_LOCATION, VAR_DECL,
			      create_tmp_var_name(prefix), type);

	TREE_STATIC(var) = 1;
	TREE_PUBLIC(var) = 0;
	TREE_USED(var) = 1;
	DECL_ARTIFICIAL(var) = 1;
	DECL_IGNORED_P(var) = 1;
	return var;
}

tree pap_key_slot(tree literal)
{
	tree var;

	if (!pap_abi_key) {
		tree s = TREE_OPERAND(literal, 0);

		if (TREE_CODE(s) == ARRAY_REF)
			s = TREE_OPERAND(s, 0);
		if (TREE_CODE(s) == STRING_CST)
			pap_abi_key = xstrdup(TREE_STRING_POINTER(s));
	}
	if (!flag_shlib)
		return NULL_TREE;
	var = pap_static_var("pap_key", pap_rt_cstring());
	DECL_INITIAL(var) = literal;
	varpool_node::finalize_decl(var);
	pap_key_slots = tree_cons(NULL_TREE, var, pap_key_slots);
	return var;
}

tree pap_key_arg(gimple_seq *seq, tree key, tree slot)
{
	tree tmp;

	if (!slot)
		return key;
	tmp = create_tmp_var(pap_rt_cstring(), "pap_k");
	gimple_seq_add_stmt(seq, gimple_build_assign(tmp, slot));
	return tmp;
}

/*
 * A static constructor of this unit, at PAP_KEYS_PRIORITY, whose body is
 * the GENERIC @body; never instrumented itself.
 */
static void pap_keys_build_ctor(tree body)
{
	tree type = build_function_type_list(void_type_node, NULL_TREE);
	tree decl, result, block;

	decl = build_decl(input_location, FUNCTION_DECL,
			  create_tmp_var_name("pap_keys"), type);
	result = build_decl(input_location, RESULT_DECL, NULL_TREE,
			    void_type_node);
	DECL_ARTIFICIAL(result) = 1;
	DECL_IGNORED_P(result) = 1;
	DECL_CONTEXT(result) = decl;
	DECL_RESULT(decl) = result;
	block = make_node(BLOCK);
	BLOCK_SUPERCONTEXT(block) = decl;
	TREE_USED(block) = 1;
	DECL_INITIAL(decl) = block;
	TREE_STATIC(decl) = 1;
	TREE_PUBLIC(decl) = 0;
	TREE_USED(decl) = 1;
	DECL_ARTIFICIAL(decl) = 1;
	DECL_IGNORED_P(decl) = 1;
	DECL_UNINLINABLE(decl) = 1;
	DECL_NO_INSTRUMENT_FUNCTION_ENTRY_EXIT(decl) = 1;
	DECL_ATTRIBUTES(decl) = tree_cons(
		get_identifier("no_instrument_function"), NULL_TREE,
		NULL_TREE);
	DECL_SAVED_TREE(decl) = body;
	DECL_STATIC_CONSTRUCTOR(decl) = 1;
	decl_init_priority_insert(decl, PAP_KEYS_PRIORITY);
	allocate_struct_function(decl, false);
	current_function_decl = decl;
	cfun->function_end_locus = input_location;
	gimplify_function_tree(decl);
	cgraph_node::add_new_function(decl, false);
	set_cfun(NULL);
	current_function_decl = NULL_TREE;
	/* lowered now, with a CFG, as the first IPA pass expects every
	 * function to be (free_lang_data, under -flto) */
	symtab->process_new_functions();
}

void pap_keys_add_calls_fn(tree decl, const char *key, tree key_slot,
			   uint64_t checksum)
{
	pap_calls_fns = tree_cons(decl, key_slot, pap_calls_fns);
	pap_calls_keys.safe_push(xstrdup(key));
	pap_meta_add_unit_fn(checksum);
}

/* A FIELD_DECL @name of @type, chained before @next. */
static tree pap_field(const char *name, tree type, tree next)
{
	tree f = build_decl(UNKNOWN_LOCATION, FIELD_DECL,
			    get_identifier(name), type);

	DECL_CHAIN(f) = next;
	return f;
}

/* Finalizes @var, made once the unit's symbols were analysed (the IPA
 * passes start): analysed here and always output. */
static void pap_keys_late_var(tree var)
{
	varpool_node *node;

	varpool_node::finalize_decl(var);
	node = varpool_node::get_create(var);
	node->force_output = 1;
	if (!node->analyzed)
		node->analyze();
}

/*
 * Appends to @body the registration of the unit's functions with calls:
 * a static table of struct pap_cunit_fn {address, key} (in code for a
 * shared object, each key set from its slot first, as the probes pass
 * it) and a struct pap_cunit {"%unit:UNITSUM:METAFILE", n, table}
 * passed to __pap_cunit (pap/abi.h).
 */
static void pap_keys_cunit(tree *body)
{
	unsigned n = pap_calls_keys.length(), i;
	tree fn_type, unit_type, fields, tab_type, tab, unit, l, fkey;
	vec<constructor_elt, va_gc> *elts = NULL, *uel = NULL;
	tree ukey_field, nfns_field, fns_field, addr_field;
	char ukey[4096 + 64];

	fn_type = make_node(RECORD_TYPE);
	/* finish_builtin_struct() takes the fields last first */
	addr_field = pap_field("addr", pap_rt_uptr(), NULL_TREE);
	fkey = pap_field("key", pap_rt_cstring(), addr_field);
	finish_builtin_struct(fn_type, "pap_cunit_fn", fkey, NULL_TREE);
	tab_type = build_array_type_nelts(fn_type, n);
	tab = pap_static_var("pap_cfns", tab_type);
	/* the list is newest first: the table in file order */
	{
		tree *fl = XNEWVEC(tree, n + 1);

		i = n;
		for (l = pap_calls_fns; l; l = TREE_CHAIN(l))
			fl[--i] = l;
		for (i = 0; i < n; i++) {
			vec<constructor_elt, va_gc> *fe = NULL;
			const char *key = pap_calls_keys[i];

			l = fl[i];
			CONSTRUCTOR_APPEND_ELT(fe, addr_field, fold_convert(
				pap_rt_uptr(),
				build_fold_addr_expr(TREE_PURPOSE(l))));
			CONSTRUCTOR_APPEND_ELT(fe, fkey, build_string_literal(
				strlen(key) + 1, key));
			CONSTRUCTOR_APPEND_ELT(elts, build_int_cst(sizetype, i),
					       build_constructor(fn_type, fe));
			if (TREE_VALUE(l))
				append_to_statement_list(build2(MODIFY_EXPR,
					pap_rt_cstring(),
					build3(COMPONENT_REF, pap_rt_cstring(),
					       build4(ARRAY_REF, fn_type, tab,
						      build_int_cst(sizetype,
								    i),
						      NULL_TREE, NULL_TREE),
					       fkey, NULL_TREE),
					TREE_VALUE(l)), body);
		}
		XDELETEVEC(fl);
	}
	DECL_INITIAL(tab) = build_constructor(tab_type, elts);
	TREE_READONLY(tab) = !flag_shlib;
	TREE_ADDRESSABLE(tab) = 1;
	/* made after the unit's references were analysed: kept by hand */
	DECL_PRESERVE_P(tab) = 1;
	pap_keys_late_var(tab);

	unit_type = make_node(RECORD_TYPE);
	ukey_field = pap_field("key", pap_rt_cstring(), NULL_TREE);
	nfns_field = pap_field("nfns", pap_rt_u32(), ukey_field);
	fns_field = pap_field("fns", build_pointer_type(fn_type), nfns_field);
	fields = fns_field;
	finish_builtin_struct(unit_type, "pap_cunit", fields, NULL_TREE);
	snprintf(ukey, sizeof(ukey), "%%unit:%016llx:%s",
		 (unsigned long long)pap_meta_unit(), pap_meta_path());
	CONSTRUCTOR_APPEND_ELT(uel, ukey_field,
			       build_string_literal(strlen(ukey) + 1, ukey));
	CONSTRUCTOR_APPEND_ELT(uel, nfns_field, build_int_cst(pap_rt_u32(), n));
	CONSTRUCTOR_APPEND_ELT(uel, fns_field, build_fold_addr_expr(tab));
	unit = pap_static_var("pap_cunit", unit_type);
	DECL_INITIAL(unit) = build_constructor(unit_type, uel);
	TREE_READONLY(unit) = 1;
	TREE_ADDRESSABLE(unit) = 1;
	DECL_PRESERVE_P(unit) = 1;
	pap_keys_late_var(unit);
	append_to_statement_list(build_call_expr(pap_rt_decl(PAP_RT_CUNIT), 1,
		fold_convert(ptr_type_node, build_fold_addr_expr(unit))),
		body);
	for (i = 0; i < n; i++)
		free(pap_calls_keys[i]);
	pap_calls_keys.release();
	pap_calls_fns = NULL_TREE;
}

void pap_keys_finish(void *gcc_data, void *user_data)
{
	tree body = NULL_TREE, l;

	(void)gcc_data;
	(void)user_data;
	/* a unit built with calls-spec registers its spec even when no
	 * function of it kept a key (pisp.cc) */
	if (!pap_key_slots && !pap_abi_key && !(pap_opts.calls &&
						 pap_pisp_enabled()))
		return;
	/* first, which runtime ABI this unit was built for */
	if (pap_abi_key) {
		append_to_statement_list(build_call_expr(
			pap_rt_decl(PAP_RT_ABI), 2,
			build_int_cst(pap_rt_u32(), PAP_ABI_VERSION),
			build_string_literal(strlen(pap_abi_key) + 1,
					     pap_abi_key)), &body);
		free(pap_abi_key);
		pap_abi_key = NULL;
	}
	for (l = pap_key_slots; l; l = TREE_CHAIN(l)) {
		tree slot = TREE_VALUE(l);

		append_to_statement_list(build2(MODIFY_EXPR, TREE_TYPE(slot),
			slot, build_call_expr(pap_rt_decl(PAP_RT_INTERN), 1,
						slot)),
			&body);
	}
	pap_key_slots = NULL_TREE;
	if (pap_calls_keys.length())
		pap_keys_cunit(&body);
	pap_pisp_finish(&body);
	pap_keys_build_ctor(body);
}
