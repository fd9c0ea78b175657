/* SPDX-License-Identifier: MIT */
/*
 * entry.c - libpaprt's entry points: what instrumented code calls
 * (pap/abi.h), each thread's activations and the breakpoints they make.
 *
 * An activation's breakpoints wait on the thread's breakpoint stack until
 * it ends; its record (final value, breakpoints packed) then goes to the
 * sinks (sink.h).  A breakpoint that cannot be kept poisons its
 * activation, whose record is then counted as lost rather than decoded
 * wrongly.  No lock, no allocation and no system call on the common
 * path: an activation without breakpoints is one call into the sinks.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#include <pap/abi.h>

#include "bpack.h"
#include "bpack_online.h"
#include "foldrun.h"
#include "rt.h"
#include "sink.h"
#include "util.h"

/*
 * Breakpoints of this thread's open activations, oldest first:
 * rt_bps[i] made by the activation whose serial is rt_bp_act[i].
 * Activations nest, so an activation's breakpoints lie above every older
 * one's; those of activations abandoned by longjmp lie above too and are
 * dropped when an enclosing activation ends.  Two arrays, so that a long
 * activation's breakpoints are one run that packing reads in place.
 */
static RT_TLS struct pap_breakpoint *rt_bps;
static RT_TLS uint64_t *rt_bp_act;
static RT_TLS size_t rt_nbps, rt_cap_bps;
static RT_TLS struct pap_breakpoint *rt_scratch;
static RT_TLS size_t rt_cap_scratch;
/* a long path's breakpoints packed (bpack.h), in use with rt_scratch */
static RT_TLS struct pap_bpack_buf rt_packed = { .mem = &rt_map_mem };
static RT_TLS uint64_t rt_serial;

/*
 * What this thread is in the middle of, for signal handlers to see: 0, or
 * the stack address of the runtime frame that is (RT_HERE, see
 * __pap_resume).  The aggregate has its own (rt_in_aggregate).
 */
static RT_TLS volatile uintptr_t rt_in_stack;	/* pushing a breakpoint */
static RT_TLS volatile uintptr_t rt_in_scratch; /* rt_scratch in use */
static RT_TLS volatile uintptr_t rt_in_record;	/* reading an activation's */

/*
 * Long activations.  The stack does not grow past RT_SPILL_AT breakpoints
 * while it can spill: an activation with RT_SPILL_MIN or more of its own
 * on the stack hands them to its packer, which holds them packed
 * (bpack_online.h), and leaves one mark (site RT_BP_SPILLED) where the
 * first of them was, so that the stack still shows that it has
 * breakpoints and where they begin.  Its record takes the rest from the
 * stack and finishes the packing: the packed record pap_bpack() makes of
 * the whole sequence.  An open activation then holds what its packing
 * cannot fold, not every breakpoint it made.
 */
#define RT_SPILL_AT 4096
#define RT_SPILL_MIN 64
/* activations looked at in one spill before the stack grows instead */
#define RT_SPILL_TRIES 8
/* no graph has so many edges (bpack.h) */
#define RT_BP_SPILLED (PAP_BP_REPEAT - 1)

struct rt_long {
	uint64_t act;
	struct pap_bpack_online pack;
};
/* the packers of open activations, by increasing serial */
static RT_TLS struct rt_long **rt_longs;
static RT_TLS size_t rt_nlongs, rt_cap_longs;
static void rt_long_drop_from(uint64_t act);
static void rt_block_signals(sigset_t *old);

/*
 * The oldest activation that lost a breakpoint (UINT64_MAX: none).  Its
 * record, and those of activations nested in it, would decode wrongly, so
 * they are counted as lost instead; a record of an enclosing activation
 * clears it, as everything nested inside has ended by then.
 */
static RT_TLS volatile uint64_t rt_poison = UINT64_MAX;

/* Inside __pap_tally's allocation: a signal handler's record meanwhile
 * takes the ordinary path. */
static RT_TLS volatile int rt_in_tally;

/* Largest block of counters the runtime hands out: the plugin's tally=N
 * goes up to this. */
#define RT_TALLY_MAX (1u << 16)

void rt_entry_thread_end(void)
{
	struct pap_breakpoint *bps = rt_bps;
	uint64_t *acts = rt_bp_act;
	size_t cap = rt_cap_bps;
	sigset_t old;

	rt_long_drop_from(0);
	/* forgotten before they go, so that a handler arriving meanwhile
	 * starts a stack of its own rather than push into a freed one */
	rt_block_signals(&old);
	rt_map_release(rt_longs, rt_cap_longs * sizeof(*rt_longs));
	rt_longs = NULL;
	rt_cap_longs = 0;
	rt_map_release(rt_scratch, rt_cap_scratch * sizeof(*rt_scratch));
	rt_nbps = rt_cap_bps = rt_cap_scratch = 0;
	rt_bps = NULL;
	rt_bp_act = NULL;
	rt_scratch = NULL;
	pap_bpack_buf_free(&rt_packed);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	rt_map_release(bps, cap * sizeof(*bps));
	rt_map_release(acts, cap * sizeof(*acts));
}

void rt_entry_after_fork_child(void)
{
	rt_in_tally = 0;
}

uint64_t __pap_enter(void)
{
	return ++rt_serial;
}

/* Activation @act lost a breakpoint. */
static void rt_poison_act(uint64_t act)
{
	if (act < rt_poison)
		rt_poison = act;
}

/*
 * Activation @act ends: is its record intact, so that it may be kept?
 * Not when it or an activation nested in it lost a breakpoint: its
 * record is then counted as lost here.  Updates the poison mark.
 */
static int rt_act_intact(uint64_t act)
{
	uint64_t p = rt_poison;

	if (act < p) {
		rt_poison = UINT64_MAX;
		return 1;
	}
	if (act == p)
		rt_poison = UINT64_MAX;
	rt_agg_lost(1);
	return 0;
}

/* Blocks every signal this thread can block; *@old gets the mask to
 * give back with pthread_sigmask(SIG_SETMASK, ...). */
static void rt_block_signals(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
}

/*
 * Doubles the breakpoint stack, with every signal blocked: mremap moves
 * a large one without copying or touching it, and no handler can run,
 * let alone longjmp away, while the old arrays are gone and the new ones
 * not yet published.  0, or -1 (nothing changed).
 */
static int rt_grow_stack(void)
{
	size_t cap = rt_cap_bps ? rt_cap_bps * 2 : 256;
	struct pap_breakpoint *nb;
	sigset_t old;
	uint64_t *na;
	int rc = -1, saved_errno = errno;

	if (!rt_cap_bps) {
		rt_start();
		rt_on_thread_end();
	}
	rt_block_signals(&old);
	na = rt_map_resize(rt_bp_act, rt_cap_bps * sizeof(*na),
			   cap * sizeof(*na));
	if (na) {
		rt_bp_act = na;
		nb = rt_map_resize(rt_bps, rt_cap_bps * sizeof(*nb),
				   cap * sizeof(*nb));
		if (nb) {
			rt_bps = nb;
			rt_cap_bps = cap;
			rc = 0;
		} else if ((na = rt_map_resize(rt_bp_act, cap * sizeof(*na),
					       rt_cap_bps * sizeof(*na)))) {
			rt_bp_act = na;	/* back to the size it is known by */
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved_errno;	/* the program's, whatever mmap did */
	return rc;
}

static size_t rt_bps_from(uint64_t act);

/* The packer of open activation @act, or NULL. */
static struct rt_long *rt_long_of(uint64_t act)
{
	size_t lo = 0, hi = rt_nlongs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rt_longs[mid]->act < act)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rt_nlongs && rt_longs[lo]->act == act ? rt_longs[lo] : NULL;
}

/* A new, empty packer for @act (which has none), in its place by serial;
 * NULL when out of memory.  Signals blocked by the caller. */
static struct rt_long *rt_long_new(uint64_t act)
{
	struct rt_long *l;
	size_t i;

	if (rt_nlongs == rt_cap_longs) {
		size_t cap = rt_cap_longs ? rt_cap_longs * 2 : 64;
		struct rt_long **nl = rt_map_resize(rt_longs,
						    rt_cap_longs * sizeof(*nl),
						    cap * sizeof(*nl));

		if (!nl)
			return NULL;
		rt_longs = nl;
		rt_cap_longs = cap;
	}
	l = rt_map_resize(NULL, 0, sizeof(*l));
	if (!l)
		return NULL;
	l->act = act;
	pap_bpack_online_init(&l->pack, &rt_map_mem);
	for (i = rt_nlongs; i > 0 && rt_longs[i - 1]->act > act; i--)
		rt_longs[i] = rt_longs[i - 1];
	rt_longs[i] = l;
	rt_nlongs++;
	return l;
}

/*
 * Forgets the packers of activations @act and later: they ended, lost
 * their record, or were abandoned by a longjmp.  Nothing to do, the
 * common case, costs one comparison.
 */
static void rt_long_drop_from(uint64_t act)
{
	sigset_t old;

	if (!rt_nlongs || rt_longs[rt_nlongs - 1]->act < act)
		return;
	rt_block_signals(&old);
	while (rt_nlongs && rt_longs[rt_nlongs - 1]->act >= act) {
		struct rt_long *l = rt_longs[--rt_nlongs];

		pap_bpack_online_free(&l->pack);
		rt_map_release(l, sizeof(*l));
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/*
 * Hands activation @act's breakpoints on the stack (those from @k up that
 * are its own) to its packer @l, and closes up the stack, leaving @act's
 * mark where its first breakpoint was.  A breakpoint the packer cannot
 * take poisons @act.  Signals blocked by the caller.
 */
static void rt_spill_act(struct rt_long *l, uint64_t act, size_t k)
{
	size_t i, w = k;
	int marked = 0;

	for (i = k; i < rt_nbps; i++) {
		struct pap_breakpoint bp = rt_bps[i];

		if (rt_bp_act[i] != act || bp.site == RT_BP_SPILLED) {
			marked |= rt_bp_act[i] == act;
			rt_bp_act[w] = rt_bp_act[i];
			rt_bps[w++] = bp;
			continue;
		}
		if (!marked) {
			rt_bp_act[w] = act;
			rt_bps[w].site = RT_BP_SPILLED;
			rt_bps[w++].r = 0;
			marked = 1;
		}
		if (pap_bpack_online_push(&l->pack, &bp))
			rt_poison_act(act);
	}
	rt_nbps = w;
}

/*
 * The stack is full: hands the breakpoints of open activations with at
 * least RT_SPILL_MIN of their own on it to their packers, newest first,
 * until it is half empty or RT_SPILL_TRIES activations were looked at.
 * Not while an activation's breakpoints are being read (a signal handler
 * interrupted a record): there is then no room.  Every signal blocked.
 */
static __attribute__((noinline)) void rt_spill(void)
{
	uint64_t below = UINT64_MAX;
	unsigned tries;
	sigset_t old;

	if (rt_in_record)
		return;
	rt_block_signals(&old);
	for (tries = 0; tries < RT_SPILL_TRIES &&
	     rt_nbps > RT_SPILL_AT / 2; tries++) {
		uint64_t act = 0;
		size_t i, k, n = 0;
		struct rt_long *l;

		/* the newest activation older than those looked at with a
		 * breakpoint of its own on the stack */
		for (i = rt_nbps; i > 0; i--)
			if (rt_bp_act[i - 1] < below &&
			    rt_bps[i - 1].site != RT_BP_SPILLED) {
				act = rt_bp_act[i - 1];
				break;
			}
		if (!act)
			break;
		below = act;
		k = rt_bps_from(act);
		for (i = k; i < rt_nbps; i++)
			n += rt_bp_act[i] == act &&
			     rt_bps[i].site != RT_BP_SPILLED;
		if (n < RT_SPILL_MIN)
			continue;
		l = rt_long_of(act);
		if (!l && !(l = rt_long_new(act)))
			break;
		rt_spill_act(l, act, k);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Room for one more breakpoint on the stack: spilled to long
 * activations' packers, else grown.  0, or -1 (no room). */
static int rt_make_room(void)
{
	if (rt_cap_bps >= RT_SPILL_AT) {
		int saved_errno = errno;

		rt_spill();
		errno = saved_errno;
		if (rt_nbps < rt_cap_bps)
			return 0;
	}
	/*
	 * Nor grown under a record (a signal handler interrupted it):
	 * growing may move the stack, and the record reads it through
	 * pointers loaded before; the handler's activation is lost
	 * instead.
	 */
	if (rt_in_record && rt_cap_bps)
		return -1;
	return rt_grow_stack();
}

/*
 * Pushes @count breakpoints (@site, @r) of activation @act, or poisons
 * the activation when they cannot all be kept: a signal handler that
 * interrupted a push, whose top is in flux, no memory, or more than a
 * record can hold (whose record would be lost anyway).  Each push is
 * marked on its own, so that a handler arriving between two of a long
 * run's pushes loses nothing.  Inline, so that __pap_fold's single push
 * is as short as it can be.
 */
static inline __attribute__((always_inline)) void
rt_push(uint64_t act, uint32_t site, uint64_t r, uint64_t count)
{
	if (count > UINT32_MAX) {
		rt_poison_act(act);
		return;
	}
	while (count--) {
		if (rt_in_stack) {
			rt_poison_act(act);
			return;
		}
		rt_in_stack = RT_HERE();
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (rt_nbps == rt_cap_bps && rt_make_room()) {
			rt_in_stack = 0;
			rt_poison_act(act);
			return;
		}
		rt_bp_act[rt_nbps] = act;
		rt_bps[rt_nbps].site = site;
		rt_bps[rt_nbps].r = r;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		rt_nbps++;
		/* the push is done before the mark goes: without this
		 * fence the compiler may clear the mark first, and a
		 * handler arriving in between pushes over the breakpoint
		 * just stored, which the top does not cover yet */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		rt_in_stack = 0;
	}
}

/*
 * The exact test of pap_fold_overflows() without its division: r*n + d
 * fits in 64 bits exactly when neither the product nor the sum wraps.
 */
uint64_t __pap_fold(uint64_t act, uint64_t r, uint64_t n, uint64_t d,
		    uint32_t site, uint64_t restart)
{
	uint64_t v;

	if (__builtin_expect(!__builtin_mul_overflow(r, n, &v) &&
			     !__builtin_add_overflow(v, d, &v), 1))
		return v;
	rt_push(act, site, r, 1);
	return restart * n + d;
}

/* __pap_fold_run's breakpoints: where they go, and whether any came. */
struct rt_run {
	uint64_t act;
	uint32_t site;
	int broke;
};

static void rt_run_emit(void *arg, uint64_t r, uint64_t count)
{
	struct rt_run *run = arg;

	rt_push(run->act, run->site, r, count);
	run->broke = 1;
}

uint64_t __pap_fold_run(uint64_t act, uint64_t r, uint64_t n, uint64_t first,
			uint64_t d, uint32_t site, uint64_t restart,
			uint64_t m, unsigned char *brk)
{
	struct rt_run run = { act, site, 0 };

	r = pap_fold_run(r, n, first, d, restart, m, rt_run_emit, &run);
	if (run.broke && brk)
		*brk = 1;
	return r;
}

/* Index of activation @act's first breakpoint: it and those above it
 * (its own, and those of activations abandoned inside it) are its. */
static size_t rt_bps_from(uint64_t act)
{
	size_t k = rt_nbps;

	while (k > 0 && rt_bp_act[k - 1] >= act)
		k--;
	return k;
}

void __pap_lost(uint64_t act)
{
	rt_nbps = rt_bps_from(act);
	rt_long_drop_from(act);
	if (rt_act_intact(act))
		rt_agg_lost(1);
}

/*
 * A longjmp came back into the activation whose frame holds @frame.  The
 * runtime calls nothing, so a runtime frame that was running deeper in
 * the stack (a signal handler longjmped out of it) is gone: its marks are
 * cleared.  Marks of runtime frames above @frame (a handler that jumped
 * within itself) stay.  The stack grows down.
 */
void __pap_resume(const volatile void *frame)
{
	uintptr_t f = (uintptr_t)frame;

	if (rt_in_stack && rt_in_stack < f)
		rt_in_stack = 0;
	if (rt_in_scratch && rt_in_scratch < f)
		rt_in_scratch = 0;
	if (rt_in_record && rt_in_record < f)
		rt_in_record = 0;
	rt_sink_resume(f);
}

void __pap_count(const char *fn, uint64_t id)
{
	rt_sink_value(fn, PAP_REC_BL, 1, id);
}

/* Buffers above this many breakpoints are freed once a long path is done
 * with them, rather than kept for the next one. */
#define RT_KEEP_BPS 65536

/* Frees *@buf if it holds more than RT_KEEP_BPS breakpoints (its owner
 * marks it in use, so no signal handler touches it meanwhile). */
static void rt_release_big(struct pap_breakpoint **buf, size_t *cap)
{
	if (*cap > RT_KEEP_BPS) {
		rt_map_release(*buf, *cap * sizeof(**buf));
		*buf = NULL;
		*cap = 0;
	}
}

/* Above this many breakpoints in one run, an activation's are packed
 * where they lie on the stack rather than copied out first. */
#define RT_PACK_IN_PLACE 4096

/*
 * The @*n breakpoints from rt_bps[@k] up, the top of the stack, packed
 * into rt_packed; the stack then goes back to @k.  Every signal is
 * blocked meanwhile, so that no handler pushes onto the stack and moves
 * it while it is read.  NULL when out of memory.
 */
static const struct pap_breakpoint *rt_pack_in_place(size_t k, size_t *n)
{
	const struct pap_breakpoint *out;
	sigset_t old;

	rt_block_signals(&old);
	out = pap_bpack_into(&rt_packed, rt_bps + k, n);
	rt_nbps = k;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return out;
}

/* rt_record_slow's work. */
static void rt_record_bps(const char *fn, uint64_t act, uint64_t r,
			  int complete)
{
	struct pap_breakpoint local[RT_DEFER_BPS];
	struct pap_breakpoint *bps = local;
	const struct pap_breakpoint *out;
	size_t k, i, n = 0;
	int scratch = 0;

	/*
	 * This activation's breakpoints and those abandoned above them.  A
	 * signal handler may push and pop above the top meanwhile; it leaves
	 * the top as it found it.
	 */
	k = rt_bps_from(act);
	for (i = k; i < rt_nbps; i++)
		n += rt_bp_act[i] == act;
	if (n > UINT32_MAX) {
		/* more than a record can hold: counted as lost, never cut */
		rt_nbps = k;
		if (rt_act_intact(act))
			rt_agg_lost(1);
		return;
	}
	if (n > RT_DEFER_BPS) {
		if (rt_in_scratch || rt_in_stack) {
			rt_nbps = k;	/* a handler: no room for this */
			if (rt_act_intact(act))
				rt_agg_lost(1);
			return;
		}
		rt_in_scratch = RT_HERE();
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		scratch = 1;
		if (n > RT_PACK_IN_PLACE && n == rt_nbps - k) {
			out = rt_pack_in_place(k, &n);
			goto packed;
		}
		if (n > rt_cap_scratch) {
			struct pap_breakpoint *ns;

			ns = rt_map_resize(rt_scratch, rt_cap_scratch *
					   sizeof(*ns), n * sizeof(*ns));

			if (!ns) {
				rt_in_scratch = 0;
				rt_nbps = k;
				if (rt_act_intact(act))
					rt_agg_lost(1);
				return;
			}
			rt_scratch = ns;
			rt_cap_scratch = n;
		}
		bps = rt_scratch;
	}
	n = 0;
	for (i = k; i < rt_nbps; i++)
		if (rt_bp_act[i] == act)
			bps[n++] = rt_bps[i];
	rt_nbps = k;
	out = n > PAP_BPACK_SHORT ? pap_bpack_into(&rt_packed, bps, &n) : bps;
packed:
	if (!out) {
		if (rt_act_intact(act))
			rt_agg_lost(1);
	} else if (rt_act_intact(act)) {
		if (!n)
			rt_sink_value(fn, PAP_REC_PATH, complete != 0, r);
		else
			rt_sink_path(fn, PAP_REC_PATH, complete != 0, r, out,
				     (uint32_t)n);
	}
	if (scratch) {
		rt_release_big(&rt_scratch, &rt_cap_scratch);
		rt_release_big(&rt_packed.out, &rt_packed.cap);
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		rt_in_scratch = 0;
	}
	if (!k && !rt_in_stack) {
		/* no open activation has a breakpoint: a stack grown by a
		 * long path goes back, so that the dump has the memory */
		rt_in_stack = RT_HERE();
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (!rt_nbps && rt_cap_bps > RT_KEEP_BPS) {
			rt_map_release(rt_bps, rt_cap_bps * sizeof(*rt_bps));
			rt_map_release(rt_bp_act,
				       rt_cap_bps * sizeof(*rt_bp_act));
			rt_bps = NULL;
			rt_bp_act = NULL;
			rt_cap_bps = 0;
		}
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		rt_in_stack = 0;
	}
}

/*
 * rt_record_slow's work for an activation with a packer: the rest of its
 * breakpoints from the stack into it, then the packed record, which is
 * the one rt_record_bps would have made of the whole sequence.
 */
static void rt_record_long(const char *fn, uint64_t act, uint64_t r,
			   int complete, struct rt_long *l)
{
	const struct pap_breakpoint *out;
	size_t k = rt_bps_from(act), i, n;
	sigset_t old;

	rt_block_signals(&old);
	for (i = k; i < rt_nbps; i++)
		if (rt_bp_act[i] == act && rt_bps[i].site != RT_BP_SPILLED &&
		    pap_bpack_online_push(&l->pack, &rt_bps[i]))
			rt_poison_act(act);
	rt_nbps = k;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (l->pack.pushed > UINT32_MAX) {
		/* more than a record can hold: counted as lost, never cut */
		if (rt_act_intact(act))
			rt_agg_lost(1);
		return;
	}
	out = pap_bpack_online_finish(&l->pack, &n);
	if (rt_act_intact(act))
		rt_sink_path(fn, PAP_REC_PATH, complete != 0, r, out,
			     (uint32_t)n);
}

/* __pap_record for an activation that has breakpoints, or whose
 * breakpoints may have been lost; errno as the program left it, whatever
 * packing and allocating do. */
static __attribute__((noinline)) void
rt_record_slow(const char *fn, uint64_t act, uint64_t r, int complete)
{
	int saved_errno = errno;
	uintptr_t was_in_record = rt_in_record;
	struct rt_long *l;

	/*
	 * Marked before the packer is looked up: a handler's spill could
	 * otherwise give @act a packer (and move rt_longs) after the
	 * lookup found none, and its record would miss what was spilled.
	 */
	rt_in_record = RT_HERE();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	l = rt_nlongs ? rt_long_of(act) : NULL;
	if (l)
		rt_record_long(fn, act, r, complete, l);
	else
		rt_record_bps(fn, act, r, complete);
	/* its packer, and those of activations abandoned inside it */
	rt_long_drop_from(act);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rt_in_record = was_in_record;
	errno = saved_errno;
}

/*
 * A function without folds has no breakpoint, so its record is its final
 * value.  It leaves breakpoints and a loss mark of activations abandoned
 * inside it to the enclosing activation's record, which drops them.
 */
void __pap_path(const char *fn, uint64_t r, int complete)
{
	rt_sink_value(fn, PAP_REC_PATH, complete != 0, r);
}

/*
 * The common case is an activation without breakpoints (none above it on
 * the stack) that no loss has touched: its record is its final value, and
 * takes no more than the ring's stores or a cached count.
 */
void __pap_record(const char *fn, uint64_t act, uint64_t r, int complete)
{
	uint8_t c = complete != 0;

	if (__builtin_expect((rt_nbps == 0 || rt_bp_act[rt_nbps - 1] < act) &&
			     rt_poison == UINT64_MAX, 1)) {
		rt_sink_value(fn, PAP_REC_PATH, c, r);
		return;
	}
	rt_record_slow(fn, act, r, complete);
}

/*
 * The instrumented code found *@counters NULL.  Counts this record as
 * __pap_count and __pap_path count theirs (with a collector: taken
 * first, so that it is reported lost if the process dies anywhere in
 * here), then gives this thread a block of counters for the function
 * where its records go (rt_sink_tally), so that the next records are
 * counted in place (tally.c says how).
 */
void __pap_tally(uint64_t **counters, const char *fn, uint64_t value,
		 uint64_t nvalues, int bl)
{
	uint8_t kind = bl ? PAP_REC_BL : PAP_REC_PATH;
	uint64_t *block;

	if (bl)
		__pap_count(fn, value);
	else
		__pap_path(fn, value, 1);
	if (*counters || rt_in_tally || value >= nvalues ||
	    nvalues > RT_TALLY_MAX)
		return;
	rt_in_tally = 1;
	block = rt_sink_tally(counters, fn, kind, nvalues);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (block)
		*counters = block;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rt_in_tally = 0;
}

/*
 * n calls of __pap_tally, made while *@counters is NULL: the first that
 * gets the thread a block adds the rest there at once.
 */
void __pap_tally_add(uint64_t **counters, const char *fn, uint64_t value,
		     uint64_t nvalues, int bl, uint64_t n)
{
	for (; n; n--) {
		uint64_t *block = *counters;

		if (block) {
			/* one instruction, as the instrumented code adds */
			__atomic_fetch_add(&block[value], n, __ATOMIC_RELAXED);
			return;
		}
		__pap_tally(counters, fn, value, nvalues, bl);
	}
}

/*
 * The activation of a function that may break ends completely.  When it
 * has no breakpoint after all (a fold called the runtime but did not
 * overflow, or no fold did and r was too large for the inline count), a
 * small r is counted in the function's counters, as the instrumented
 * code counts it itself.
 */
void __pap_end(uint64_t **counters, const char *fn, uint64_t act, uint64_t r,
	       uint64_t nvalues)
{
	if (r < nvalues &&
	    (rt_nbps == 0 || rt_bp_act[rt_nbps - 1] < act) &&
	    rt_poison == UINT64_MAX) {
		__pap_tally(counters, fn, r, nvalues, 0);
		return;
	}
	__pap_record(fn, act, r, 1);
}
