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
 *
 * and writes them to $ORACLE_DIR/oracle.PID.N (N numbers the threads of
 * the process) when the thread ends (a pthread key's destructor) or, for
 * the thread that calls exit() or returns from main, from an atexit
 * handler registered by a priority-101 constructor: it runs after every
 * handler the program registers.  Without ORACLE_DIR nothing is written.
 * The checker (calls-check.c) turns the events into names.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct oev {
	char kind;
	void *fn;
	void *site;
};

static __thread struct oev *evs;
static __thread size_t nev, capev;
static __thread int registered;
static pthread_key_t okey;
static int okey_ok;
static unsigned nthreads;	/* files written, for their names */

/* The relocation anchor: its runtime address and nm's give the offset. */
__attribute__((noinline, used)) void oracle_anchor(void)
{
	__asm__ volatile("");
}

static void flush_events(void)
{
	const char *dir = getenv("ORACLE_DIR");
	char path[4096];
	unsigned n;
	FILE *f;
	size_t i;

	if (!dir || !evs) {
		free(evs);
		evs = NULL;
		nev = capev = 0;
		return;
	}
	n = __atomic_fetch_add(&nthreads, 1, __ATOMIC_RELAXED);
	snprintf(path, sizeof(path), "%s/oracle.%ld.%u", dir, (long)getpid(),
		 n);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		_exit(97);
	}
	fprintf(f, "A %p\n", (void *)oracle_anchor);
	for (i = 0; i < nev; i++) {
		if (evs[i].kind == 'E')
			fprintf(f, "E %p %p\n", evs[i].fn, evs[i].site);
		else
			fprintf(f, "%c %p\n", evs[i].kind, evs[i].fn);
	}
	if (fclose(f) != 0) {
		perror(path);
		_exit(97);
	}
	free(evs);
	evs = NULL;
	nev = capev = 0;
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
	if (!registered) {
		registered = 1;
		/* a non-NULL value makes the destructor run at thread end */
		if (okey_ok)
			pthread_setspecific(okey, (void *)1);
	}
	if (nev == capev) {
		size_t c = capev ? 2 * capev : 1024;
		struct oev *e = realloc(evs, c * sizeof(*e));

		if (!e) {
			fputs("cygoracle: out of memory\n", stderr);
			_exit(98);
		}
		evs = e;
		capev = c;
	}
	evs[nev].kind = kind;
	evs[nev].fn = fn;
	evs[nev].site = site;
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
