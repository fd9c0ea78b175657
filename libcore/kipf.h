/* SPDX-License-Identifier: MIT */
/*
 * kipf.h - k-slab forests and k-iteration path forests (seed 003 §2).
 *
 * The input is a stream of Ball-Larus path ids, one activation after the
 * other, each activation ended by a marker.  The k-iteration path forest
 * (k-IPF) is the prefix forest of every run of 1..k consecutive ids inside
 * one activation: a node at depth d (roots at depth 1) is such a run, and
 * its count says how many times the run occurred.  Depth 1 gives exactly
 * the Ball-Larus path counts.
 *
 * It is built as the paper does: items go into a k-slab forest in O(1)
 * amortised each (slabs of k ids, the upper part holding each slab's
 * prefixes, the lower part each slab continued by the next), and the
 * slab forest is turned into the k-IPF once the stream is over.
 */
#ifndef PAP_CORE_KIPF_H
#define PAP_CORE_KIPF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One node of a prefix forest; children are a first-child/next-sibling
 * list; index 0 is never a node (it means "none"). */
struct pap_fnode {
	uint64_t label;		/* Ball-Larus path id */
	uint64_t count;
	uint32_t child, sibling;
	uint32_t parent;	/* 0 for roots */
	uint32_t depth;		/* 1 for roots */
};

struct pap_forest {
	struct pap_fnode *nodes;	/* nodes[0] unused */
	uint32_t n, cap;
	uint32_t *slots;	/* roots by label: open addressing, index */
	uint32_t nslots, nroots;
	uint32_t *cslots;	/* other nodes by (parent, label), likewise */
	uint32_t ncslots, nchildren;
};

void pap_forest_init(struct pap_forest *f);
void pap_forest_free(struct pap_forest *f);
/* The root labelled @label, created with count 0 if absent; 0 if out of
 * memory. */
uint32_t pap_forest_root(struct pap_forest *f, uint64_t label);
/* The child of @parent labelled @label, created if absent; 0 if out of
 * memory. */
uint32_t pap_forest_child(struct pap_forest *f, uint32_t parent,
			  uint64_t label);
/* The roots, in no particular order, into a new array (free it); NULL
 * when there are none or out of memory. */
uint32_t *pap_forest_roots(const struct pap_forest *f);

struct pap_kslab {
	struct pap_forest sf;
	uint32_t k;
	uint64_t seen;		/* ids since the last marker */
	uint32_t top, bottom;	/* current upper and lower node */
	int oom;		/* an insertion failed: the forest is partial */
};

/* An empty k-slab forest; @k >= 1. */
void pap_kslab_init(struct pap_kslab *ks, uint32_t k);
void pap_kslab_free(struct pap_kslab *ks);
/*
 * Adds the next id of the current activation.  @weight is how many
 * identical activations this one stands for; every id of an activation
 * must carry the same weight.  0 or PAP_ENOMEM.
 */
int pap_kslab_item(struct pap_kslab *ks, uint64_t id, uint64_t weight);
/* Ends the current activation. */
void pap_kslab_marker(struct pap_kslab *ks);

/*
 * Builds into the empty forest @ipf the k-IPF of everything added to @ks:
 * every run of 1..k ids within an activation appears once, with the
 * number of times it occurred.  0 or PAP_ENOMEM.
 */
int pap_kslab_to_kipf(const struct pap_kslab *ks, struct pap_forest *ipf);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_KIPF_H */
