/* SPDX-License-Identifier: MIT */
/*
 * cygoracle - an independent observer of a program's calls and returns,
 * for testing pap's call sequences (testsuite/e2e/calls.sh).  It shares
 * no code with pap: it is linked into a test program compiled with
 * -finstrument-functions, and is itself compiled without it (and without
 * the plugin), so GCC's entry and exit hooks land here.
 *
 * Each thread keeps its raw events in thread-local memory:
 *
 *   A ADDR		the address of oracle_anchor(), first line: the
 *			checker subtracts it from the symbols' to relocate
 *   E FN SITE		FN entered, called from the return address SITE
 *   X FN		FN returns
 *   R FN		the program resumed FN by longjmp (oracle_resumed)
 *   L ADDR		a library was loaded: ADDR is its lib_anchor()
 *			(oracle_dlopened; the checker's -l)
 *   F			the program forked and this is the child
 *			(oracle_fork, called by the child at once)
 *   N			a signal handler's own sequence follows
 *			(oracle_sig_begin/oracle_sig_end around the
 *			handler's instrumented part: one the program
 *			calls while its instrumented code runs)
 *
 * and writes them to $ORACLE_DIR/oracle.PID.N (N numbers the threads of
 * the process) when the thread ends (a pthread key's destructor) or, for
 * the thread that calls exit() or returns from main, from an atexit
 * handler registered by a priority-101 constructor: it runs after every
 * handler the program registers.  Without ORACLE_DIR nothing is written.
 * The checker (calls-check.c) turns the events into names.
 *
 * Events go to memory mapped once, never reallocated, so that a signal
 * handler may add its own while the thread's add() is interrupted: a
 * handler's events go to a buffer of its nesting level, copied, when it
 * ends, after the thread's other handlers' (an atomic reservation).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

struct oev {
	char kind;
	void *fn;
	void *site;
};

#define MAIN_CAP (1ul << 25)	/* events of a thread's own sequence */
#define SIG_LEVELS 8
#define SIG_CAP (1ul << 20)	/* events of one handler's */
#define DONE_CAP (1ul << 24)	/* events of a thread's handlers, all */

static __thread struct oev *evs;	/* MAIN_CAP */
static __thread size_t nev;
static __thread struct oev *sigev;	/* SIG_LEVELS x SIG_CAP */
static __thread size_t nsig[SIG_LEVELS];
static __thread volatile unsigned level;	/* handlers running */
static __thread struct oev *done;	/* DONE_CAP */
static __thread size_t ndone;
static __thread int registered;
static pthread_key_t okey;
static int okey_ok;
static unsigned nthreads;	/* files written, for their names */

/* The relocation anchor: its runtime address and nm's give the offset. */
__attribute__((noinline, used)) void oracle_anchor(void)
{
	__asm__ volatile("");
}

static void *map(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		fputs("cygoracle: out of memory\n", stderr);
		_exit(98);
	}
	return p;
}

static void put(FILE *f, const struct oev *e)
{
	if (e->kind == 'E')
		fprintf(f, "E %p %p\n", e->fn, e->site);
	else if (e->kind == 'F' || e->kind == 'N')
		fprintf(f, "%c\n", e->kind);
	else
		fprintf(f, "%c %p\n", e->kind, e->fn);
}

static void flush_events(void)
{
	const char *dir = getenv("ORACLE_DIR");
	char path[4096];
	unsigned n;
	FILE *f;
	size_t i;

	if (dir && evs) {
		n = __atomic_fetch_add(&nthreads, 1, __ATOMIC_RELAXED);
		snprintf(path, sizeof(path), "%s/oracle.%ld.%u", dir,
			 (long)getpid(), n);
		f = fopen(path, "w");
		if (!f) {
			perror(path);
			_exit(97);
		}
		fprintf(f, "A %p\n", (void *)oracle_anchor);
		for (i = 0; i < nev; i++)
			put(f, &evs[i]);
		for (i = 0; done && i < ndone; i++)
			put(f, &done[i]);
		if (fclose(f) != 0) {
			perror(path);
			_exit(97);
		}
	}
	if (evs)
		munmap(evs, MAIN_CAP * sizeof(*evs));
	if (sigev)
		munmap(sigev, SIG_LEVELS * SIG_CAP * sizeof(*sigev));
	if (done)
		munmap(done, DONE_CAP * sizeof(*done));
	evs = sigev = done = NULL;
	nev = ndone = 0;
}

static void thread_end(void *unused)
{
	(void)unused;
	flush_events();
}

static void at_exit(void)
{
	flush_events();
}

__attribute__((constructor(101))) static void oracle_init(void)
{
	okey_ok = pthread_key_create(&okey, thread_end) == 0;
	atexit(at_exit);
}

static void add(char kind, void *fn, void *site)
{
	struct oev *e;
	unsigned lv = level;

	if (!registered) {
		registered = 1;
		/* a non-NULL value makes the destructor run at thread end */
		if (okey_ok)
			pthread_setspecific(okey, (void *)1);
		evs = map(MAIN_CAP * sizeof(*evs));
	}
	if (lv) {
		if (nsig[lv - 1] == SIG_CAP) {
			fputs("cygoracle: a handler's events overflow\n",
			      stderr);
			_exit(98);
		}
		e = &sigev[(lv - 1) * SIG_CAP + nsig[lv - 1]++];
	} else {
		if (nev == MAIN_CAP) {
			fputs("cygoracle: too many events\n", stderr);
			_exit(98);
		}
		e = &evs[nev];
	}
	e->kind = kind;
	e->fn = fn;
	e->site = site;
	if (!lv)
		nev++;
}

void __cyg_profile_func_enter(void *fn, void *site)
{
	add('E', fn, site);
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	add('X', fn, NULL);
}

/* Called by a test program where a setjmp returned nonzero in @fn. */
void oracle_resumed(void *fn)
{
	add('R', fn, NULL);
}

/* Called by a forked child at once: what came before is the parent's,
 * and so are its handlers' sequences. */
void oracle_fork(void)
{
	ndone = 0;
	add('F', NULL, NULL);
}

/* Called by a signal handler before its instrumented part, when it
 * interrupted the thread's instrumented code: its events are a sequence
 * of their own.  Not async-signal-safe the first time in a thread (the
 * buffers are mapped): the program calls oracle_sig_prepare() first. */
void oracle_sig_prepare(void)
{
	if (!sigev)
		sigev = map(SIG_LEVELS * SIG_CAP * sizeof(*sigev));
	if (!done)
		done = map(DONE_CAP * sizeof(*done));
}

void oracle_sig_begin(void)
{
	unsigned lv = level;

	if (lv == SIG_LEVELS || !sigev) {
		fputs("cygoracle: handlers nested too deep or unprepared\n",
		      stderr);
		_exit(98);
	}
	level = lv + 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	nsig[lv] = 0;
}

/* The handler's instrumented part is over: its sequence is kept. */
void oracle_sig_end(void)
{
	unsigned lv = level - 1;
	size_t n = nsig[lv], at, i;

	at = __atomic_fetch_add(&ndone, n + 1, __ATOMIC_RELAXED);
	if (at + n + 1 > DONE_CAP) {
		fputs("cygoracle: handlers' events overflow\n", stderr);
		_exit(98);
	}
	done[at].kind = 'N';
	for (i = 0; i < n; i++)
		done[at + 1 + i] = sigev[lv * SIG_CAP + i];
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	level = lv;
}

/* Called by a test program after dlopen: @anchor is the library's
 * lib_anchor(), by which the checker relocates the library's symbols. */
void oracle_dlopened(void *anchor)
{
	add('L', anchor, NULL);
}
