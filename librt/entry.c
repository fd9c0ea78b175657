/* SPDX-License-Identifier: MIT */
/*
 * paprt.c - libpaprt: records the paths instrumented code reports.
 *
 * Each thread aggregates into its own profile (libcore/profdata.h): no
 * lock and no system call per record, and memory only for a path not seen
 * before.  At exit, or on pap_dump(), the threads' profiles are merged into
 * the profile file under a lock file, so the many processes of a test
 * suite that share one file lose nothing.  After fork the child starts
 * from zero, so each activation is counted by the process that ran it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pap/abi.h>
#include <pap/pap.h>

#include "bpack.h"
#include "foldrun.h"
#include "profdata.h"
#include "rtwhere.h"
#include "rt.h"
#include "textfile.h"
#include "util.h"

/*
 * Signal handlers: a handler that runs instrumented code while its thread
 * is inside the runtime must not allocate or touch the half-updated
 * table.  Flags mark those sections; a record made meanwhile waits in a
 * fixed array of the thread's aggregate until the next ordinary record or
 * the dump, and what does not fit is counted as lost, never silently
 * dropped.
 */
#define RT_DEFER 32
#define RT_DEFER_BPS 8

struct rt_deferred {
	struct pap_prof_item rec;	/* its breakpoints: @bps */
	struct pap_breakpoint bps[RT_DEFER_BPS];
};

/*
 * A record with no breakpoints (an EPP id, or a path that never folded)
 * is found again through a small direct-mapped cache keyed by the
 * function string's address, not its text: a hit is a few loads and an
 * increment, where the aggregate's lookup hashes and compares the whole
 * string.  An entry names a record by its index in the aggregate, which
 * never moves a record to another index.
 */
#define RT_CACHE 256

struct rt_cache_entry {
	const char *fn;
	uint64_t value;
	uint32_t rec;		/* index + 1 in prof.recs; 0: empty */
	uint32_t kind;		/* kind << 1 | complete */
};

/* A thread's aggregate, on the list of all threads' aggregates. */
struct rt_thread {
	struct pap_profile prof;
	struct rt_thread *next;
	struct rt_cache_entry cache[RT_CACHE];
	struct rt_deferred defer[RT_DEFER];
	volatile unsigned ndefer;
	/* records the cache did not find, on their way to @prof together;
	 * only the owning thread touches it until @ended */
	struct pap_prof_batch batch;
	int ended;
};

static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_thread *rt_threads;
static pthread_once_t rt_once = PTHREAD_ONCE_INIT;
/* set in a thread that has an aggregate or breakpoint buffers: what it
 * does at its end (rt_thread_end) */
static pthread_key_t rt_end_key;
static RT_TLS struct rt_thread *rt_self;

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
static RT_TLS struct pap_bpack_buf rt_packed;
static RT_TLS uint64_t rt_serial;

/*
 * What this thread is in the middle of, for signal handlers to see: 0, or
 * the stack address of the runtime frame that is (see __pap_resume).
 */
static RT_TLS volatile uintptr_t rt_in_stack;	/* pushing a breakpoint */
static RT_TLS volatile uintptr_t rt_in_scratch; /* rt_scratch in use */
static RT_TLS volatile uintptr_t rt_in_table;	/* updating the aggregate */

/* A nonzero mark of the calling runtime frame's place on the stack. */
#define RT_HERE() ((uintptr_t)__builtin_frame_address(0) | 1)
/*
 * The oldest activation that lost a breakpoint (UINT64_MAX: none).  Its
 * record, and those of activations nested in it, would decode wrongly, so
 * they are counted as lost instead; a record of an enclosing activation
 * clears it, as everything nested inside has ended by then.
 */
static RT_TLS volatile uint64_t rt_poison = UINT64_MAX;
/* records that could not be kept, all threads; reported at dump */
static uint64_t rt_lost;


/* Set once the process is exiting: its last dump. */
static int rt_exiting;

static void rt_atexit(void)
{
	rt_ring_exit();
	rt_exiting = 1;
	pap_dump();
}

/* @t's aggregate, batch and deferred records count nothing (fork,
 * pap_reset). */
static void rt_zero(struct rt_thread *t)
{
	pap_profile_zero(&t->prof);
	t->batch.n = 0;
	t->batch.nbps = 0;
	t->ndefer = 0;
}

static void rt_after_fork_child(void)
{
	struct rt_thread *t;

	/* The child counts only its own activations. */
	pthread_mutex_init(&rt_lock, NULL);
	for (t = rt_threads; t; t = t->next)
		rt_zero(t);
	rt_ring_after_fork_child();
	rt_tally_after_fork_child();
}

static void rt_drain(struct rt_thread *t);
static void rt_flush(struct rt_thread *t);

/*
 * May this thread touch @t's batch and deferred records?  Only its own
 * (@held: no frame of it is in the table) or an ended thread's: a live
 * thread adds its own when the batch fills or it ends.
 */
static int rt_batch_ours(struct rt_thread *t, int held)
{
	return t == rt_self ? held :
	       __atomic_load_n(&t->ended, __ATOMIC_ACQUIRE);
}

/*
 * A thread ends (rt_end_key): what waits in its batch and deferred
 * records goes into its aggregate, which a dump may then take whole, and
 * its breakpoint buffers are freed.
 */
static void rt_thread_end(void *unused)
{
	struct rt_thread *t = rt_self;

	(void)unused;
	if (t && !rt_in_table) {
		rt_in_table = RT_HERE();
		rt_drain(t);
		rt_flush(t);
		__atomic_store_n(&t->ended, 1, __ATOMIC_RELEASE);
		rt_in_table = 0;
	}
	rt_nbps = rt_cap_bps = rt_cap_scratch = 0;
	free(rt_bps);
	free(rt_bp_act);
	free(rt_scratch);
	rt_bps = rt_scratch = NULL;
	rt_bp_act = NULL;
	pap_bpack_buf_free(&rt_packed);
}

static void rt_init(void)
{
	pthread_key_create(&rt_end_key, rt_thread_end);
	atexit(rt_atexit);
	pthread_atfork(NULL, NULL, rt_after_fork_child);
}

void rt_start(void)
{
	pthread_once(&rt_once, rt_init);
}

/* This thread's aggregate, created on its first record. */
static struct rt_thread *rt_thread(void)
{
	struct rt_thread *t = rt_self;

	if (t)
		return t;
	rt_start();
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	pap_profile_init(&t->prof);
	/* the ABI's strings are stable: a record is found by its
	 * function's address, never by hashing and comparing its text */
	t->prof.by_address = 1;
	pthread_mutex_lock(&rt_lock);
	t->next = rt_threads;
	rt_threads = t;
	pthread_mutex_unlock(&rt_lock);
	rt_self = t;
	pthread_setspecific(rt_end_key, &rt_end_key);
	return t;
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

static void rt_count_lost(void)
{
	__atomic_fetch_add(&rt_lost, 1, __ATOMIC_RELAXED);
}

/* May activation @act's record be kept?  Updates the poison mark. */
static int rt_keep(uint64_t act)
{
	uint64_t p = rt_poison;

	if (act < p) {
		rt_poison = UINT64_MAX;
		return 1;
	}
	if (act == p)
		rt_poison = UINT64_MAX;
	rt_count_lost();
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
 * Doubles the breakpoint stack, with every signal blocked: realloc moves
 * a large one by remapping it, without copying or touching it, and no
 * handler can run, let alone longjmp away, while the old arrays are gone
 * and the new ones not yet published.  0, or -1 (nothing changed).
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
		pthread_setspecific(rt_end_key, &rt_end_key);
	}
	rt_block_signals(&old);
	na = realloc(rt_bp_act, cap * sizeof(*na));
	if (na) {
		rt_bp_act = na;
		nb = realloc(rt_bps, cap * sizeof(*nb));
		if (nb) {
			rt_bps = nb;
			rt_cap_bps = cap;
			rc = 0;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved_errno;	/* the program's, whatever realloc did */
	return rc;
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
		if (rt_nbps == rt_cap_bps && rt_grow_stack()) {
			rt_in_stack = 0;
			rt_poison_act(act);
			return;
		}
		rt_bp_act[rt_nbps] = act;
		rt_bps[rt_nbps].site = site;
		rt_bps[rt_nbps].r = r;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		rt_nbps++;
		rt_in_stack = 0;
	}
}

uint64_t __pap_fold(uint64_t act, uint64_t r, uint64_t n, uint64_t d,
		    uint32_t site, uint64_t restart)
{
	if (__builtin_expect(!pap_fold_overflows(r, n, d), 1))
		return r * n + d;
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

static struct rt_cache_entry *rt_cache_slot(struct rt_thread *t,
					    const char *fn, uint8_t kind,
					    uint8_t complete, uint64_t value)
{
	return &t->cache[rt_record_hash(fn, kind | (unsigned)complete << 8,
					value) & (RT_CACHE - 1)];
}

/* What adding @it to thread @arg's aggregate came to: a loss, or for a
 * record without breakpoints the cache's entry (not reentrant). */
static void rt_added(void *arg, const struct pap_prof_item *it)
{
	struct rt_thread *t = arg;
	struct rt_cache_entry *e;

	if (it->err) {
		rt_report_lost(it->count);
		return;
	}
	if (it->nbps)
		return;
	e = rt_cache_slot(t, it->fn, it->kind, it->complete, it->value);
	e->fn = it->fn;
	e->value = it->value;
	e->kind = (uint32_t)it->kind << 1 | it->complete;
	e->rec = (uint32_t)it->at + 1;
}

/* Adds @t's batch to its aggregate (not reentrant). */
static void rt_flush(struct rt_thread *t)
{
	pap_prof_batch_flush(&t->prof, &t->batch, rt_added, t);
}

/* Adds @count records to this thread's aggregate, by way of its batch
 * (not reentrant). */
static void rt_add(struct rt_thread *t, const char *fn, uint8_t kind,
		   uint8_t complete, uint64_t value,
		   const struct pap_breakpoint *bps, uint32_t nbps,
		   uint64_t count)
{
	pap_prof_batch_add(&t->prof, &t->batch, fn, kind, complete, value,
			   bps, nbps, count, rt_added, t);
}

/*
 * Counts a record with no breakpoints that this thread has made before,
 * without the aggregate's lookup: 1 if it was counted, 0 if the caller
 * must take the ordinary path.  The table is entered as rt_lock_thread
 * enters it, so a signal handler meanwhile defers its records rather
 * than grow the records array under this increment.
 */
static inline int rt_count_cached(const char *fn, uint8_t kind,
				  uint8_t complete, uint64_t value)
{
	struct rt_thread *t = rt_self;
	const struct rt_cache_entry *e;
	int hit = 0;

	if (__builtin_expect(!t || rt_in_table || t->ndefer, 0))
		return 0;
	rt_in_table = RT_HERE();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	e = rt_cache_slot(t, fn, kind, complete, value);
	if (e->fn == fn && e->value == value && e->rec &&
	    e->kind == ((uint32_t)kind << 1 | complete)) {
		uint64_t *c = &t->prof.recs[e->rec - 1].count;

		*c = pap_sat_add(*c, 1);
		hit = 1;
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rt_in_table = 0;
	return hit;
}

/* Records a signal handler's record for later, without allocating. */
static void rt_defer_record(const char *fn, uint8_t kind, uint8_t complete,
			    uint64_t value, const struct pap_breakpoint *bps,
			    uint32_t nbps, uint64_t count)
{
	struct rt_thread *t = rt_self;
	unsigned i = t ? t->ndefer : RT_DEFER;
	struct rt_deferred *d;

	if (i >= RT_DEFER || nbps > RT_DEFER_BPS) {
		rt_report_lost(count);
		return;
	}
	d = &t->defer[i];
	pap_prof_item_set(&d->rec, fn, kind, complete, value, d->bps, nbps,
			  count);
	if (nbps)
		memcpy(d->bps, bps, nbps * sizeof(*bps));
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->ndefer = i + 1;
}

/*
 * Moves @t's deferred records into its aggregate (table held).  A signal
 * handler may append meanwhile: the count is cleared only if it did not
 * move, else the newcomers are taken too.
 */
static void rt_drain(struct rt_thread *t)
{
	unsigned done = 0, n;

	for (;;) {
		n = t->ndefer;
		for (; done < n; done++) {
			const struct rt_deferred *d = &t->defer[done];

			rt_add(t, d->rec.fn, d->rec.kind, d->rec.complete,
			       d->rec.value, d->bps, d->rec.nbps,
			       d->rec.count);
		}
		if (__atomic_compare_exchange_n((unsigned *)&t->ndefer, &n, 0,
						0, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST))
			return;
	}
}

/* Enters the runtime's non-reentrant part: this thread's aggregate with
 * deferred records folded in; NULL when called from inside it. */
static struct rt_thread *rt_lock_thread(void)
{
	struct rt_thread *t;

	if (rt_in_table)
		return NULL;
	rt_in_table = RT_HERE();
	t = rt_thread();
	if (!t) {
		rt_in_table = 0;
		return NULL;
	}
	rt_drain(t);
	return t;
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
	if (rt_keep(act))
		rt_count_lost();
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
	if (rt_in_table && rt_in_table < f)
		rt_in_table = 0;
	rt_ring_resume(f);
}

/*
 * A record that carries no breakpoints (an EPP id, or a path's final
 * value): to the thread's ring, else counted in its aggregate.
 */
static inline void rt_keep_value(const char *fn, uint8_t kind,
				 uint8_t complete, uint64_t value)
{
	if (!rt_ring_none && rt_ring_value(fn, kind, complete, value))
		return;
	if (!rt_count_cached(fn, kind, complete, value))
		rt_keep_record(fn, kind, complete, value, NULL, 0, 1);
}

void __pap_count(const char *fn, uint64_t id)
{
	rt_keep_value(fn, PAP_REC_BL, 1, id);
}

/* Buffers above this many breakpoints are freed once a long path is done
 * with them, rather than kept for the next one. */
#define RT_KEEP_BPS 65536

/* Frees *@buf if it holds more than RT_KEEP_BPS breakpoints (its owner
 * marks it in use, so no signal handler touches it meanwhile). */
static void rt_release_big(struct pap_breakpoint **buf, size_t *cap)
{
	if (*cap > RT_KEEP_BPS) {
		free(*buf);
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
		if (rt_keep(act))
			rt_count_lost();
		return;
	}
	if (n > RT_DEFER_BPS) {
		if (rt_in_scratch || rt_in_stack) {
			rt_nbps = k;	/* a handler: no room for this */
			if (rt_keep(act))
				rt_count_lost();
			return;
		}
		rt_in_scratch = RT_HERE();
		scratch = 1;
		if (n > RT_PACK_IN_PLACE && n == rt_nbps - k) {
			out = rt_pack_in_place(k, &n);
			goto packed;
		}
		if (n > rt_cap_scratch) {
			struct pap_breakpoint *ns = realloc(rt_scratch, n *
							    sizeof(*ns));

			if (!ns) {
				rt_in_scratch = 0;
				rt_nbps = k;
				if (rt_keep(act))
					rt_count_lost();
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
		if (rt_keep(act))
			rt_count_lost();
	} else if (rt_keep(act)) {
		if (!n)
			rt_keep_value(fn, PAP_REC_PATH, complete != 0, r);
		else if (!rt_ring_path(fn, complete != 0, r, out, (uint32_t)n))
			rt_keep_record(fn, PAP_REC_PATH, complete != 0, r,
				       out, (uint32_t)n, 1);
	}
	if (scratch) {
		rt_release_big(&rt_scratch, &rt_cap_scratch);
		rt_release_big(&rt_packed.out, &rt_packed.cap);
		rt_in_scratch = 0;
	}
	if (!k && !rt_in_stack) {
		/* no open activation has a breakpoint: a stack grown by a
		 * long path goes back, so that the dump has the memory */
		rt_in_stack = RT_HERE();
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		if (!rt_nbps && rt_cap_bps > RT_KEEP_BPS) {
			free(rt_bps);
			free(rt_bp_act);
			rt_bps = NULL;
			rt_bp_act = NULL;
			rt_cap_bps = 0;
		}
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		rt_in_stack = 0;
	}
}

/* __pap_record for an activation that has breakpoints, or whose
 * breakpoints may have been lost; errno as the program left it, whatever
 * packing and allocating do. */
static __attribute__((noinline)) void
rt_record_slow(const char *fn, uint64_t act, uint64_t r, int complete)
{
	int saved_errno = errno;

	rt_record_bps(fn, act, r, complete);
	errno = saved_errno;
}

/*
 * A function without folds has no breakpoint, so its record is its final
 * value.  It leaves breakpoints and a loss mark of activations abandoned
 * inside it to the enclosing activation's record, which drops them.
 */
void __pap_path(const char *fn, uint64_t r, int complete)
{
	rt_keep_value(fn, PAP_REC_PATH, complete != 0, r);
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
		rt_keep_value(fn, PAP_REC_PATH, c, r);
		return;
	}
	rt_record_slow(fn, act, r, complete);
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

void rt_keep_record(const char *fn, uint8_t kind, uint8_t complete,
		    uint64_t value, const struct pap_breakpoint *bps,
		    uint32_t nbps, uint64_t count)
{
	int saved_errno = errno;	/* allocating may set it */
	struct rt_thread *t = rt_lock_thread();

	if (!t) {
		rt_defer_record(fn, kind, complete, value, bps, nbps, count);
		errno = saved_errno;
		return;
	}
	rt_add(t, fn, kind, complete, value, bps, nbps, count);
	rt_in_table = 0;
	errno = saved_errno;
}

void rt_report_lost(uint64_t n)
{
	__atomic_fetch_add(&rt_lost, n, __ATOMIC_RELAXED);
}

/* How many records wait in @t's batch and deferred records, read while
 * its thread may still be adding: for the lost count at exit. */
static uint64_t rt_pending(const struct rt_thread *t)
{
	unsigned n = __atomic_load_n(&t->batch.n, __ATOMIC_RELAXED), i;
	unsigned nd = t->ndefer;
	uint64_t sum = 0;

	for (i = 0; i < n && i < PAP_PROF_BATCH; i++)
		sum = pap_sat_add(sum, t->batch.items[i].count);
	for (i = 0; i < nd && i < RT_DEFER; i++)
		sum = pap_sat_add(sum, t->defer[i].rec.count);
	return sum;
}

int pap_dump(void)
{
	const char *path = rt_where_profile();
	struct pap_profile mine, *out = &mine;
	struct rt_thread *t, *only = NULL;
	size_t nwith = 0;
	uint64_t lost = 0;
	/* this thread's handlers defer what they record meanwhile; a dump
	 * from a handler that interrupted the runtime leaves the thread's
	 * batch alone */
	int held = !rt_in_table;
	int rc;

	pap_profile_init(&mine);
	if (held)
		rt_in_table = RT_HERE();
	pthread_mutex_lock(&rt_lock);
	for (t = rt_threads; t; t = t->next) {
		if (rt_batch_ours(t, held)) {
			rt_drain(t);
			rt_flush(t);
		} else if (rt_exiting) {
			/* what a thread still running leaves is lost */
			lost += rt_pending(t);
		}
		if (t->prof.nrecs) {
			only = t;
			nwith++;
		}
	}
	if (nwith == 1 && only == rt_self && held) {
		/* every record is this thread's: its aggregate is written as
		 * it is, not copied record by record */
		out = &only->prof;
	} else {
		for (t = rt_threads; t; t = t->next) {
			if (pap_profile_merge(&mine, &t->prof))
				lost++;
			pap_profile_zero(&t->prof);
		}
	}
	pthread_mutex_unlock(&rt_lock);
	if (held && out == &mine) {
		/* copied: this thread's handlers may record again */
		rt_in_table = 0;
		held = 0;
	}
	lost += rt_tally_take(out);
	lost += __atomic_exchange_n(&rt_lost, 0, __ATOMIC_RELAXED);
	if (lost)
		fprintf(stderr, "pap: %llu paths could not be recorded (out of "
			"memory, cut by a signal handler or by a longjmp "
			"out of one, left in a thread still running at exit, "
			"or lost with a collector that died); the profile "
			"counts them as lost\n",
			(unsigned long long)lost);
	out->lost = pap_sat_add(out->lost, lost);
	rc = out->nrecs || out->lost ?
		pap_profile_merge_file(path, out, "pap", NULL,
				       NULL) : 0;
	if (!rc)
		rt_ring_dumped();
	if (out != &mine)
		pap_profile_zero(out);
	if (held)
		rt_in_table = 0;
	pap_profile_free(&mine);
	return rc;
}

void pap_reset(void)
{
	struct rt_thread *t;
	int held = !rt_in_table;

	if (held)
		rt_in_table = RT_HERE();
	pthread_mutex_lock(&rt_lock);
	for (t = rt_threads; t; t = t->next) {
		if (rt_batch_ours(t, held))
			rt_zero(t);
		else
			pap_profile_zero(&t->prof);
	}
	pthread_mutex_unlock(&rt_lock);
	if (held)
		rt_in_table = 0;
	rt_tally_forget();
}
