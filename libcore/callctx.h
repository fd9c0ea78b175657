/* SPDX-License-Identifier: MIT */
/*
 * callctx.h - the calling-context tree of call sequences: each context
 * (the chain of calls from a thread's first function, or from an entry
 * from outside, down to a function) with the number of times it was
 * entered, as a prefix forest (kipf.h's struct pap_forest).
 *
 * A node's label is pap_cctx_label(fn, site, outside): the function
 * entered, the call site of its parent through which it was entered (0
 * for a root), and whether it was entered from outside (a callback from
 * uninstrumented code called at that site, a signal handler, a thread's
 * start).  Contexts follow the source: a function entered by a tail call
 * is in the context of the function that made it, which returns when
 * its callee does, as -finstrument-functions sees it.  The exception is
 * what the record cannot tell apart: the tail callee of a function
 * entered from outside is itself an entry from outside, in the context
 * where its caller was.
 */
#ifndef PAP_CORE_CALLCTX_H
#define PAP_CORE_CALLCTX_H

#include <stddef.h>
#include <stdint.h>

#include "callseq.h"
#include "kipf.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PAP_CCTX_OUTSIDE (1ull << 63)

static inline uint64_t pap_cctx_label(uint32_t fn, uint32_t site,
				      int outside)
{
	return (outside ? PAP_CCTX_OUTSIDE : 0) | (uint64_t)site << 32 | fn;
}

static inline uint32_t pap_cctx_fn(uint64_t label)
{
	return (uint32_t)label;
}

static inline uint32_t pap_cctx_site(uint64_t label)
{
	return (uint32_t)(label >> 32) & 0x7fffffffu;
}

static inline int pap_cctx_outside(uint64_t label)
{
	return !!(label & PAP_CCTX_OUTSIDE);
}

/*
 * Adds to @cct the entries of one thread's sequence of @n events @ev
 * (as pap_cseq_decode() gives them), each counted @count times (the
 * sequence's count).  Memory grows with the distinct contexts.
 * PAP_EINVAL when the events are no sequence (an entry with no caller,
 * an event of a function that is not running); PAP_ENOMEM.
 */
int pap_cctx_add(struct pap_forest *cct, const struct pap_cev *ev, size_t n,
		 uint64_t count);
/*
 * pap_cctx_add() of the events @pk stands for, in time and memory of
 * @pk: each repeat's body is walked once with its entries counted count
 * times, which is exact because a body leaves the open frames as it
 * found them (callseq.h).  The forest grows as pap_cctx_add()'s would,
 * node for node.
 */
int pap_cctx_add_packed(struct pap_forest *cct,
			const struct pap_cseq_packed *pk, uint64_t count);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_CALLCTX_H */
