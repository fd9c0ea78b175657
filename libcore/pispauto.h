/* SPDX-License-Identifier: MIT */
/*
 * pispauto.h - the automaton over the call sequences of interest
 * (-fplugin-arg-pap-calls-spec; doc/algorithms.md, "Call sequences of
 * interest"): a trie over the entries the sequences can begin with, which
 * a thread walks at each entry of a function the sequences name, and
 * leaves (dies) at the first entry no sequence of interest can make next.
 *
 * The alphabet is the entries alone, '>' dropped: letter i is the i-th
 * of the sequences' distinct names in strcmp order (plugin/pisp.cc).
 * A sequence's text does not say which of its names are entries: a
 * name that is on the stack so far may be a return or a longjmp's
 * resume to it as well as an entry ("main f main" is f returning, or f
 * calling main).  The trie holds every reading: the first name and each
 * '>name' are entries, any other name an entry or, when it is on the
 * stack, a return or resume to its topmost frame (the stack is kept
 * longer than the thread's can be, never shorter, so no reading is
 * lost).  So the entries of a thread whose sequence is a prefix of a
 * sequence of interest are a path of the trie, and a thread the trie
 * leaves is on no sequence of interest: the automaton never drops a
 * thread that could still make one.  A spec whose readings exceed
 * PAP_PISP_MAX_NODES nodes or PAP_PISP_MAX_STEPS steps makes an open
 * automaton, which never dies (exact still, with no saving).
 *
 * The plugin builds it (pap_pisp_auto_build()) and writes it into each
 * unit (pap_pisp_auto_encode()); the runtime reads it once per process
 * (pap_pisp_auto_decode()) and steps it (pap_pisp_next()).
 */
#ifndef PAP_CORE_PISPAUTO_H
#define PAP_CORE_PISPAUTO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PAP_PISP_MAX_NODES	(1u << 16)
#define PAP_PISP_MAX_STEPS	(1u << 22)
/* pap_pisp_next(): no sequence of interest has the entries seen */
#define PAP_PISP_DEAD		UINT32_MAX

struct pap_pisp_auto {
	uint32_t nletters;
	uint32_t nnodes;	/* node 0: the root, no entry seen */
	int open;		/* never dies (readings over the bounds) */
	uint64_t hash;		/* the spec's (pathspec.h) */
	uint32_t *first;	/* [nnodes + 1]: node v's edges */
	uint32_t *letter;	/* [edges], ascending within a node */
	uint32_t *child;	/* [edges] */
};

/* One item of a sequence: its letter, and whether written '>name'. */
struct pap_pisp_item {
	uint32_t letter;
	uint32_t outside;
};

/*
 * The trie of every reading (above) of the @nseq sequences, @seq[i]
 * with @len[i] items over @nletters letters, into @a (freed by
 * pap_pisp_auto_free()); @hash is kept.  0, or PAP_ENOMEM.
 */
int pap_pisp_auto_build(struct pap_pisp_auto *a, uint32_t nletters,
			const struct pap_pisp_item *const *seq,
			const size_t *len, size_t nseq, uint64_t hash);
void pap_pisp_auto_free(struct pap_pisp_auto *a);

/* The node after @state on entry @letter, or PAP_PISP_DEAD; an open
 * automaton stays at the root. */
uint32_t pap_pisp_next(const struct pap_pisp_auto *a, uint32_t state,
		       uint32_t letter);

/*
 * @a as bytes (little-endian words, target-independent): a malloc'ed
 * buffer, its size in *@size; NULL when out of memory.
 */
unsigned char *pap_pisp_auto_encode(const struct pap_pisp_auto *a,
				    size_t *size);
/* @a from @n bytes at @p, checked; 0, PAP_EINVAL or PAP_ENOMEM. */
int pap_pisp_auto_decode(struct pap_pisp_auto *a, const unsigned char *p,
			 size_t n);
/* The hash an encoded automaton carries (0: not one). */
uint64_t pap_pisp_auto_hash(const unsigned char *p, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_PISPAUTO_H */
