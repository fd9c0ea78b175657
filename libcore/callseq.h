/* SPDX-License-Identifier: MIT */
/*
 * callseq.h - a thread's sequence of calls and returns as one PAP path:
 * the reference encoder (what the runtime records) and the decoder
 * (doc/algorithms.md, "Inter-procedural paths: numbering").
 *
 * The thread register cr starts at 1.  Each call-site graph node C_k and
 * X with a radix n above 1 folds cr = cr*n + d (d: the digit of the
 * activation's last source); so does an indirect site's return into an
 * instrumented callee, with the callee's index among the site's cluster
 * of n - 1 functions, n - 1 meaning "not in it" (a CALLEE mark names it).
 * A fold that would overflow the limit emits the breakpoint (node code,
 * cr) and restarts cr = 1*n + d.  Calls and returns fold nothing else.
 *
 * A mark emits (reserved site, cr), then its payload, then restarts
 * cr = 1.  Payload entries are (PAP_CS_ID, fnid) naming a function and
 * (PAP_CS_ARG | a, value).  Forward layout of each mark:
 *
 *   OUT_ENTER          ID(f)           f entered from outside
 *   OUT_RETURN         ID(f)           f returns to outside
 *   CALLEE             ID(g)           an indirect call entered g, not in
 *                                      the site's cluster
 *   TAIL_ENTRY | k     ID(f)           entered by f's tail call at site k
 *   TAIL_RETURN        ID(h) ARG(L)    the call's tail chain ended by
 *                                      h's return; L tail entries
 *   TAIL_OUT | k       ID(f) ARG(L)    it ended in an uninstrumented tail
 *                                      callee of f's site k
 *   FRAMES | n         n x (ID(f) ARG(flags | site, L))
 *                                      open frames, bottom first: each
 *                                      function, the site of its call in
 *                                      progress and the tail entries L
 *                                      of that call's chain
 *   RESUME | s         -               after FRAMES: the bottom frame
 *                                      resumes at source s (a longjmp's
 *                                      setjmp return, a landing pad)
 *   OUT_TAIL | k       ID(f)           f, entered from outside, left by
 *                                      the tail call at site k; its
 *                                      callee, if instrumented, is
 *                                      entered from outside
 *   FORK_START         -               the record's first breakpoint
 *                                      only: it is a forked child's,
 *                                      begun at the return of the call
 *                                      to fork, inside the frames open
 *                                      then
 *
 * A return's marks come in the order TAIL_*, CALLEE, then the cluster
 * fold.  A return of class 2 (the callee ended in a chain of tail calls,
 * callgraph.h) has a TAIL_RETURN or TAIL_OUT mark and no cluster digit;
 * its class is a source of its own so that the decoder knows the mark is
 * there.  In FRAMES, an entry with PAP_CS_F_TAILOUT is no frame: it says
 * that the frame before it waits for a chain whose last tail call, at
 * that function's site, left to uninstrumented code.  A record that ends
 * with frames open (exit deep in a stack, thread exit) ends with FRAMES;
 * one that ends at the thread's base does not.
 *
 * A forked child's record starts with FORK_START and the child's events
 * from fork's return on; decoding ends with the stack holding the frames
 * open at the fork, emitted as FORK events first.  A signal handler that
 * interrupted instrumented code has a record of its own, like a thread
 * whose only top-level frame is the handler.
 *
 * The decoder reads the breakpoints as they are packed (bpack.h): it
 * follows a repeat to the breakpoints it copies, never unpacking, and
 * keeps the events of a repeat's periods once when the decoder's state
 * recurs from one period to the next (pap_cseq_decode_packed()).
 */
#ifndef PAP_CORE_CALLSEQ_H
#define PAP_CORE_CALLSEQ_H

#include <stddef.h>
#include <stdint.h>

#include "callgraph.h"
#include "papdefs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Breakpoint sites at or above PAP_CS_MARKS are marks and payload. */
#define PAP_CS_MARKS		0xF0000000u
#define PAP_CS_KIND(site)	((site) & 0xFF000000u)
#define PAP_CS_LOW(site)	((site) & 0x00FFFFFFu)
#define PAP_CS_ID		0xF0000000u
#define PAP_CS_OUT_ENTER	0xF1000000u
#define PAP_CS_OUT_RETURN	0xF2000000u
#define PAP_CS_CALLEE		0xF3000000u
#define PAP_CS_TAIL_ENTRY	0xF4000000u
#define PAP_CS_TAIL_RETURN	0xF5000000u
#define PAP_CS_TAIL_OUT		0xF6000000u
#define PAP_CS_FRAMES		0xF7000000u
#define PAP_CS_ARG		0xF8000000u
#define PAP_CS_FORK_START	0xF9000000u
#define PAP_CS_RESUME		0xFA000000u
#define PAP_CS_OUT_TAIL		0xFB000000u

/* ARG flags of a FRAMES entry (the site is below 2^22). */
#define PAP_CS_F_OUTSIDE	0x400000u	/* entered from outside */
/* not a frame: the frame before it waits for a chain whose last tail
 * call, at this function's site, left to uninstrumented code */
#define PAP_CS_F_TAILOUT	0x200000u
#define PAP_CS_F_SITE		0x1FFFFFu

/* Overflow breakpoint codes: k for C_k, X, and an indirect return. */
#define PAP_CS_CODE_X		0xFFFFFFu
#define PAP_CS_CODE_CLUSTER	0x800000u

/* One instrumented function of the program. */
struct pap_cs_fn {
	const struct pap_callgraph *g;
	/* [k - 1]: a direct site's callee, or PAP_NONE (uninstrumented, or
	 * an indirect site) */
	const uint32_t *callee;
	const uint32_t *ncluster;	/* [k - 1]: indirect site's cluster */
	const uint32_t *const *cluster;	/* [k - 1][i]: functions */
	uint64_t id;			/* pap_fnid() of its key */
};

struct pap_cs_prog {
	uint32_t nfn;
	const struct pap_cs_fn *fn;
};

enum pap_cev_kind {
	PAP_CEV_ENTER = 1,	/* fn entered by the call or tail call in
				 * progress */
	PAP_CEV_OUT_ENTER,	/* fn entered from outside */
	PAP_CEV_CALL,		/* fn reaches C_site and calls */
	PAP_CEV_RETURN,		/* fn's call at site came back (cls) */
	PAP_CEV_EXIT,		/* fn returns */
	PAP_CEV_TAIL,		/* fn reaches C_site, a tail call */
	PAP_CEV_LONGJMP,	/* fn's activation resumes at source site
				 * (pap_cg_src), arg frames above abandoned */
	PAP_CEV_FORK,		/* the record starts in a forked child: fn's
				 * frame was open, calling at site (cls 1:
				 * entered from outside); one event a frame,
				 * bottom first, before any other, the
				 * innermost (arg 1) at fork's call.  In
				 * pap_cseq_exec's input: one event, the
				 * child's record starts here */
};

struct pap_cev {
	uint8_t kind;		/* enum pap_cev_kind */
	uint8_t cls;		/* RETURN: 0 entered, 1 not, 2 tail chain */
	uint32_t fn;		/* function index */
	uint32_t site;		/* CALL, RETURN, TAIL: k; LONGJMP: src */
	uint32_t arg;		/* LONGJMP: frames abandoned */
};

struct pap_cs_rec {
	uint64_t value;			/* final cr */
	struct pap_breakpoint *bps;	/* malloc'd */
	size_t nbps;
};

/*
 * The reference encoder: runs the @n events through the probes'
 * semantics and fills @rec with what the runtime records.  Folds
 * overflow past @limit (UINT64_MAX: 64 bits; tests use smaller ones so
 * breakpoints are dense; at least 2^12).  Frames still open after the
 * last event are written as FRAMES.  PAP_EINVAL, with *@why naming the
 * problem and *@at the event, when the events are not a possible run
 * (a call in a frame already calling, a return of another site, a
 * class the site does not have...).
 */
int pap_cseq_exec(const struct pap_cs_prog *prog, const struct pap_cev *ev,
		  size_t n, uint64_t limit, struct pap_cs_rec *rec,
		  const char **why, size_t *at);

/*
 * The decoder: from @rec's value and breakpoints (@limit as encoded;
 * bpack repeats allowed),
 * the exact events, malloc'd into *@ev, *@n of them, walking backward
 * from the end with a stack of pending calls.  At most @max_events
 * (PAP_ELIMIT beyond).  PAP_ECORRUPT with *@why naming the problem and
 * *@at the breakpoint index when the record cannot come from a run of
 * @prog; PAP_EINVAL when two functions of @prog have one id.
 */
int pap_cseq_decode(const struct pap_cs_prog *prog,
		    const struct pap_cs_rec *rec, uint64_t limit,
		    size_t max_events, struct pap_cev **ev, size_t *n,
		    const char **why, size_t *at);

void pap_cs_rec_free(struct pap_cs_rec *rec);

/* A run of events repeated: ev[at..at + len) of a packed sequence
 * stands for @count copies of itself. */
struct pap_cev_rep {
	size_t at, len;
	uint64_t count;
};

/*
 * A sequence of events packed as its record is: the events, of which
 * the runs named by @rep (ascending, disjoint, count >= 2) each stand
 * for count copies.  A repeat's body leaves the open frames as it found
 * them: walking it once and going on gives the state of walking it
 * count times (callctx.c counts its contexts count times).  @total: the
 * events it stands for (saturated).
 */
struct pap_cseq_packed {
	struct pap_cev *ev;
	size_t nev;
	struct pap_cev_rep *rep;
	size_t nrep;
	uint64_t total;
};

/*
 * pap_cseq_decode() without the expansion: @rec's breakpoints may hold
 * bpack repeats, read in place.  For a repeat item of distance D, the
 * decoder keeps its state at a step inside it and compares it one period
 * (D breakpoints) down; when it recurs (same node, register and stack of
 * pending calls), the period's events are kept once as a pap_cev_rep of
 * every period the record's periodic run holds, and decoding jumps past
 * them.  Time and memory then grow with the record and the period's
 * events, not the run.  A period whose state does not recur (a deepening
 * recursion) is decoded period by period, its events kept each time:
 * that part grows with the recursion the run reached.  At most
 * @max_events events kept (PAP_ELIMIT).  Errors as pap_cseq_decode().
 */
int pap_cseq_decode_packed(const struct pap_cs_prog *prog,
			   const struct pap_cs_rec *rec, uint64_t limit,
			   size_t max_events, struct pap_cseq_packed *out,
			   const char **why, size_t *at);
/* The events @pk stands for, malloc'd: PAP_ELIMIT beyond @max_events. */
int pap_cseq_expand(const struct pap_cseq_packed *pk, size_t max_events,
		    struct pap_cev **ev, size_t *n);
/* The first min(@max, total) events @pk stands for, malloc'd. */
int pap_cseq_expand_prefix(const struct pap_cseq_packed *pk, size_t max,
			   struct pap_cev **ev, size_t *n);
void pap_cseq_packed_free(struct pap_cseq_packed *pk);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_CALLSEQ_H */
