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

/* A breakpoint list owned by one activation (the probes' *bps). */
struct rt_bps {
	uint32_t n, cap;
	struct pap_breakpoint v[];
};

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

uint64_t __pap_fold(void **bps, uint64_t r, uint64_t n, uint64_t d,
		    uint32_t site, uint64_t restart)
{
	struct rt_bps *b = *bps;

	if (__builtin_expect(!pap_fold_overflows(r, n, d), 1))
		return r * n + d;
	if (!b || b->n == b->cap) {
		uint32_t cap = b ? b->cap * 2 : 16;
		struct rt_bps *nb = realloc(b, sizeof(*nb) +
					       cap * sizeof(nb->v[0]));

		if (!nb) {
			/* the activation cannot be recorded exactly */
			struct rt_thread *t = rt_thread();

			if (t)
				t->lost++;
			return restart * n + d;
		}
		nb->cap = cap;
		if (!b)
			nb->n = 0;
		b = nb;
		*bps = b;
	}
	b->v[b->n].site = site;
	b->v[b->n++].r = r;
	return restart * n + d;
}

void __pap_count(const char *fn, uint64_t id)
{
	struct rt_thread *t = rt_thread();

	if (t && pap_profile_add(&t->prof, fn, PAP_REC_BL, 1, id, NULL, 0, 1))
		t->lost++;
}

void __pap_record(const char *fn, void **bps, uint64_t r, int complete)
{
	struct rt_thread *t = rt_thread();
	struct rt_bps *b = *bps;

	if (t && pap_profile_add(&t->prof, fn, PAP_REC_PATH, complete != 0, r,
				 b ? b->v : NULL, b ? b->n : 0, 1))
		t->lost++;
	free(b);
	*bps = NULL;
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
