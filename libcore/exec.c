/* SPDX-License-Identifier: MIT */
/*
 * exec.c - reference semantics of probe operations.
 *
 * The runtime and the code the plugin emits must behave exactly like this
 * function; the property tests run plans through it.
 */
#include "plan.h"
#include "util.h"

static void exec_null_bp(void *ctx, uint32_t site, uint64_t r)
{
	(void)ctx;
	(void)site;
	(void)r;
}

static void exec_null_val(void *ctx, uint64_t v)
{
	(void)ctx;
	(void)v;
}

const struct pap_exec_sink pap_exec_null_sink = {
	exec_null_bp, exec_null_val, exec_null_val, NULL
};

void pap_exec_edge(const struct pap_plan *plan, struct pap_exec_state *st,
		   uint32_t edge, const struct pap_exec_sink *sink)
{
	uint32_t i;

	for (i = plan->op_off[edge]; i < plan->op_off[edge + 1]; i++) {
		const struct pap_op *op = &plan->ops[i];
		uint64_t d;

		switch (op->kind) {
		case PAP_OP_INIT:
			st->r = op->n;
			st->a = op->k;
			break;
		case PAP_OP_ADD:
			st->a += op->k;
			break;
		case PAP_OP_FOLD:
			d = st->a + op->k;
			if (op->may_overflow &&
			    pap_fold_overflows(st->r, op->n, d)) {
				sink->breakpoint(sink->ctx, op->site, st->r);
				st->r = plan->restart;
			}
			st->r = st->r * op->n + d;
			break;
		case PAP_OP_SET:
			st->a = op->k;
			break;
		case PAP_OP_COUNT:
			sink->count(sink->ctx, st->a + op->k);
			break;
		case PAP_OP_RECORD:
			sink->record(sink->ctx, st->r);
			break;
		}
	}
}
