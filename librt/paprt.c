/* SPDX-License-Identifier: MIT */
/*
 * paprt.c - libpaprt: records the paths instrumented code reports.
 *
 * Each thread aggregates into its own profile (libcore/profile.h): no
 * lock and no system call per record, and memory only for a path not seen
 * before.  At exit, or on pap_dump(), the threads' profiles are merged into
 * the profile file under a lock file, so the many processes of a test
 * suite that share one file lose nothing.  After fork the child starts
 * from zero, so each activation is counted by the process that ran it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pap/abi.h>
#include <pap/pap.h>

#include "profile.h"
#include "textfile.h"
#include "util.h"

/* A thread's aggregate, on the list of all threads' aggregates. */
struct rt_thread {
	struct pap_profile prof;
	struct rt_thread *next;
	int lost;		/* records dropped for lack of memory */
};

static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_thread *rt_threads;
static pthread_once_t rt_once = PTHREAD_ONCE_INIT;
static __thread struct rt_thread *rt_self;

/*
 * Breakpoints of this thread's open activations, oldest first, each
 * tagged with its activation's serial.  Activations nest, so an
 * activation's breakpoints lie above every older one's; those of
 * activations abandoned by longjmp lie above too and are dropped when an
 * enclosing activation ends.
 */
struct rt_bp {
	uint64_t act;
	struct pap_breakpoint bp;
};

static __thread struct rt_bp *rt_bps;
static __thread size_t rt_nbps, rt_cap_bps;
static __thread struct pap_breakpoint *rt_scratch;
static __thread size_t rt_cap_scratch;
static __thread uint64_t rt_serial;

static void rt_atexit(void)
{
	pap_dump();
}

static void rt_after_fork_child(void)
{
	struct rt_thread *t;

	/* The child counts only its own activations. */
	pthread_mutex_init(&rt_lock, NULL);
	for (t = rt_threads; t; t = t->next)
		pap_profile_zero(&t->prof);
}

static void rt_init(void)
{
	atexit(rt_atexit);
	pthread_atfork(NULL, NULL, rt_after_fork_child);
}

/* This thread's aggregate, created on its first record. */
static struct rt_thread *rt_thread(void)
{
	struct rt_thread *t = rt_self;

	if (t)
		return t;
	pthread_once(&rt_once, rt_init);
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	pap_profile_init(&t->prof);
	pthread_mutex_lock(&rt_lock);
	t->next = rt_threads;
	rt_threads = t;
	pthread_mutex_unlock(&rt_lock);
	rt_self = t;
	return t;
}

uint64_t __pap_enter(void)
{
	return ++rt_serial;
}

uint64_t __pap_fold(uint64_t act, uint64_t r, uint64_t n, uint64_t d,
		    uint32_t site, uint64_t restart)
{
	if (__builtin_expect(!pap_fold_overflows(r, n, d), 1))
		return r * n + d;
	if (rt_nbps == rt_cap_bps) {
		size_t cap = rt_cap_bps ? rt_cap_bps * 2 : 256;
		struct rt_bp *nb = realloc(rt_bps, cap * sizeof(*nb));

		if (!nb) {
			/* this activation cannot be recorded exactly */
			struct rt_thread *t = rt_thread();

			if (t)
				t->lost++;
			return restart * n + d;
		}
		rt_bps = nb;
		rt_cap_bps = cap;
	}
	rt_bps[rt_nbps].act = act;
	rt_bps[rt_nbps].bp.site = site;
	rt_bps[rt_nbps++].bp.r = r;
	return restart * n + d;
}

void __pap_count(const char *fn, uint64_t id)
{
	struct rt_thread *t = rt_thread();

	if (t && pap_profile_add(&t->prof, fn, PAP_REC_BL, 1, id, NULL, 0, 1))
		t->lost++;
}

void __pap_record(const char *fn, uint64_t act, uint64_t r, int complete)
{
	struct rt_thread *t = rt_thread();
	size_t k = rt_nbps, i, n = 0;

	/* this activation's breakpoints and those abandoned above them */
	while (k > 0 && rt_bps[k - 1].act >= act)
		k--;
	if (rt_nbps - k > rt_cap_scratch) {
		struct pap_breakpoint *ns = realloc(rt_scratch, (rt_nbps - k) *
						    sizeof(*ns));

		if (!ns) {
			if (t)
				t->lost++;
			rt_nbps = k;
			return;
		}
		rt_scratch = ns;
		rt_cap_scratch = rt_nbps - k;
	}
	for (i = k; i < rt_nbps; i++)
		if (rt_bps[i].act == act)
			rt_scratch[n++] = rt_bps[i].bp;
	rt_nbps = k;
	if (t && pap_profile_add(&t->prof, fn, PAP_REC_PATH, complete != 0, r,
				 rt_scratch, (uint32_t)n, 1))
		t->lost++;
}

/*
 * Merges @mine into the profile file @path: under an exclusive lock on
 * PATH.lock, read PATH, add, write PATH.tmp.PID, rename over PATH.  An
 * existing file that is not a valid profile is kept aside as
 * PATH.bad.PID, never overwritten.
 */
static int rt_merge_into_file(const char *path, struct pap_profile *mine)
{
	char lockpath[4096], tmppath[4096], badpath[4096], err[256];
	struct pap_profile all;
	int lockfd, fd, rc = -1;
	FILE *f;

	if (snprintf(lockpath, sizeof(lockpath), "%s.lock", path) >=
		    (int)sizeof(lockpath) ||
	    snprintf(tmppath, sizeof(tmppath), "%s.tmp.%ld", path,
		     (long)getpid()) >= (int)sizeof(tmppath) ||
	    snprintf(badpath, sizeof(badpath), "%s.bad.%ld", path,
		     (long)getpid()) >= (int)sizeof(badpath)) {
		fprintf(stderr, "pap: %s: profile path too long\n", path);
		return -1;
	}
	lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lockfd < 0 || flock(lockfd, LOCK_EX)) {
		fprintf(stderr, "pap: %s: cannot lock: %s\n", lockpath,
			strerror(errno));
		if (lockfd >= 0)
			close(lockfd);
		return -1;
	}
	pap_profile_init(&all);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		size_t len;
		char *text = pap_read_fd(fd, (size_t)1 << 34, &len);

		close(fd);
		if (!text || pap_profile_parse(&all, text, path, err,
					       sizeof(err))) {
			fprintf(stderr, "pap: %s; kept it as %s\n",
				text ? err : "cannot read the profile", badpath);
			if (rename(path, badpath))
				goto out;
		}
		free(text);
	}
	if (pap_profile_merge(&all, mine)) {
		fprintf(stderr, "pap: out of memory merging the profile\n");
		goto out;
	}
	f = fopen(tmppath, "w");
	if (!f) {
		fprintf(stderr, "pap: %s: %s\n", tmppath, strerror(errno));
		goto out;
	}
	if (pap_profile_write(&all, f) | fclose(f) ||
	    rename(tmppath, path)) {
		fprintf(stderr, "pap: %s: cannot write: %s\n", path,
			strerror(errno));
		unlink(tmppath);
		goto out;
	}
	rc = 0;
out:
	pap_profile_free(&all);
	close(lockfd);	/* releases the lock */
	return rc;
}

int pap_dump(void)
{
	const char *path = getenv("PAP_PROFILE");
	struct pap_profile mine;
	struct rt_thread *t;
	size_t nrecs = 0;
	int lost = 0, rc;

	if (!path || !*path)
		path = "pap.prof";
	pap_profile_init(&mine);
	pthread_mutex_lock(&rt_lock);
	for (t = rt_threads; t; t = t->next) {
		if (pap_profile_merge(&mine, &t->prof))
			lost++;
		pap_profile_zero(&t->prof);
		lost += t->lost;
		t->lost = 0;
		nrecs += t->prof.nrecs;
	}
	pthread_mutex_unlock(&rt_lock);
	if (lost)
		fprintf(stderr, "pap: %d paths could not be recorded for lack "
			"of memory\n", lost);
	rc = nrecs ? rt_merge_into_file(path, &mine) : 0;
	pap_profile_free(&mine);
	return rc;
}

void pap_reset(void)
{
	struct rt_thread *t;

	pthread_mutex_lock(&rt_lock);
	for (t = rt_threads; t; t = t->next)
		pap_profile_zero(&t->prof);
	pthread_mutex_unlock(&rt_lock);
}
