/* SPDX-License-Identifier: MIT */
/*
 * gcc-common.h - every GCC internal header the plugin uses, in one place.
 *
 * pap supports GCC 12; the plugin is built against the installed GCC's
 * plugin headers and refuses to load into any other version.
 */
#ifndef PAP_GCC_COMMON_H
#define PAP_GCC_COMMON_H

/* configure's -DPACKAGE_* would clash with GCC's own auto-host.h */
#undef PACKAGE_NAME
#undef PACKAGE_STRING
#undef PACKAGE_TARNAME
#undef PACKAGE_VERSION
#undef PACKAGE_BUGREPORT
#undef PACKAGE_URL
#undef PACKAGE

#include "gcc-plugin.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "tree-pass.h"
#include "context.h"
#include "function.h"
#include "basic-block.h"
#include "cfg.h"
#include "tree-cfg.h"
#include "tree-eh.h"
#include "gimple-iterator.h"
#include "gimple-expr.h"
#include "stringpool.h"
#include "attribs.h"
#include "diagnostic-core.h"
#include "cgraph.h"
#include "options.h"
#include "toplev.h"
#include "langhooks.h"
#include "cfgloop.h"
#include "asan.h"		/* create_cond_insert_point */
#include "ssa.h"
#include "tree-into-ssa.h"
#include "varasm.h"		/* decl_default_tls_model */
#include "gimplify.h"		/* gimplify_function_tree */
#include "stor-layout.h"		/* finish_builtin_struct */
#include "tree-iterator.h"	/* append_to_statement_list */

#define BUILDING_GCC_VERSION_MAJOR GCC_VERSION / 1000

#if GCC_VERSION < 12000
#error "pap's plugin needs GCC 12 or newer"
#endif

#endif /* PAP_GCC_COMMON_H */
