/* SPDX-License-Identifier: MIT */
/*
 * model.h - the model of a function's CFG that pap numbers.
 *
 * The model is canonical across -O levels.  GCC keeps some blocks at -O0
 * only, to hold debug locations: empty forwarders and straight-line chains
 * split in two.  So empty forwarder blocks are transparent (an edge into
 * one leads to where it forwards), a chain of blocks joined by
 * single-out/single-in edges is one node named after its first block, and
 * nodes are numbered by their rank in block order, which removing blocks
 * does not change.  Each model edge keeps the GCC edge its probes go on:
 * the first edge of the GCC path it stands for, which runs exactly when the
 * model edge is taken.
 *
 * Non-local control (setjmp, nonlocal goto): GCC routes every call that
 * may longjmp or goto a nonlocal label through an abnormal dispatcher
 * block to the setjmp receivers and nonlocal labels.  The model leaves the
 * dispatcher out; a receiver becomes a RESUME node and a block whose call
 * may jump and also return a CUT node (see libcore/cfgmodel.h).  A nonlocal
 * label's block is never an empty forwarder.  Exception edges are
 * ordinary model edges: nonlocal.cc gives each a landing pad of its own.
 */
#ifndef PAP_PLUGIN_MODEL_H
#define PAP_PLUGIN_MODEL_H

#include "plugin.h"

/* What a GCC block is for the model (pap_model.role, per bb index). */
#define PAP_BB_DISPATCHER	0x1	/* abnormal dispatcher: left out */
#define PAP_BB_RESUME		0x2	/* setjmp receiver: a path restarts */
#define PAP_BB_CUT		0x4	/* ends in a call that may longjmp */
#define PAP_BB_NORETURN_JMP	0x8	/* ends in a noreturn call that may
					 * longjmp back here */

struct pap_medge {
	int src;		/* head bb index */
	int dst;		/* head bb index, or -2 for EXIT */
	edge e;
};

struct pap_model {
	int nbb;
	basic_block *real;	/* per bb: the block it forwards to (itself);
				 * NULL for a dispatcher */
	int *head;		/* per bb: its chain's head, -1 if forwarder */
	basic_block *tail;	/* per head: last block of its chain */
	int *number;		/* per head: canonical number, from 1 */
	unsigned char *role;	/* per bb: PAP_BB_* */
	struct pap_medge *edges;
	int nedges;
	int nnodes;
};

/* The statement at @gsi if it is a call that returns twice (setjmp,
 * vfork), else NULL. */
gimple *pap_returns_twice(gimple_stmt_iterator gsi);
/* Does @bb start with a label that a nested function's goto reaches? */
bool pap_nonlocal_label_p(basic_block bb);
/* Builds the canonical model of @fun. */
void pap_model_build(function *fun, struct pap_model *m);
void pap_model_free(struct pap_model *m);
/* @bb's PAP_BB_* role; 0 for blocks made after the model. */
static inline unsigned char pap_model_role(const struct pap_model *m,
					   basic_block bb)
{
	return bb->index < m->nbb ? m->role[bb->index] : 0;
}
/* Is @bb the head of a model node? */
bool pap_model_is_node(const struct pap_model *m, basic_block bb);
/* The model in pap's text graph format: the metadata's core, which its
 * checksum covers.  Model edge k is the k-th "edge" line. */
void pap_model_graph_text(function *fun, const struct pap_model *m,
			  struct pap_text *t);
/* Each node's distinct source lines in statement order, as gcov gives
 * a block its lines (model.cc). */
void pap_model_lines_text(function *fun, const struct pap_model *m,
			  struct pap_text *t);

#endif /* PAP_PLUGIN_MODEL_H */
