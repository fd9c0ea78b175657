/* SPDX-License-Identifier: MIT */
/*
 * rtwhere.c - where a process's records go; a process started under
 * pap-collector whose environment was cleared (env -i) finds its
 * collector all the same.
 *
 * A collector that runs a command advertises itself in a fixed per-user
 * directory, /tmp/pap-rendezvous-UID (PAP_RENDEZVOUS_DIR overrides it),
 * with one entry per anchor: a file named by the anchor's pid (the
 * collector itself, or with --rendezvous and no command the process that
 * started it), holding the collector's and the anchor's pids and start
 * times, its socket and its output file.  A process that finds neither
 * PAP_COLLECTOR nor PAP_PROFILE walks its parent chain in /proc and takes
 * the entry of the nearest ancestor that has one, provided the directory
 * and the entry are this user's alone (owner, type, mode 0700 and 0600,
 * no symbolic link followed) and both processes the entry names are still
 * the ones that wrote it (start times).  The runtime then uses its socket
 * and output file as if PAP_COLLECTOR and PAP_PROFILE said them, so that
 * the ring code connects as usual and whatever the process cannot hand
 * over lands in the collector's output file; the program's environment
 * is left as it is (its children look for themselves).  The collector
 * writes the entry (collector/rendezvous.c); its format is
 * libcore/rendezvous.c's.
 *
 * A process given PAP_COLLECTOR but no PAP_PROFILE (a collector started
 * without a command) takes the output file that the collector notes
 * beside its socket (pap_rv_profile_note), so that what it cannot hand
 * over joins the collector's file rather than ./pap.prof.
 *
 * Cost: a process with PAP_PROFILE set does two getenv calls, with
 * PAP_COLLECTOR alone one open and read more; without, and without the
 * directory, one failing open; with an empty directory, a look at it;
 * else a read of /proc/PID/stat and an openat per ancestor.  All of it once per process, when the runtime
 * first needs to know where its records go.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rendezvous.h"
#include "rtwhere.h"
#include "target.h"

#define RV_MAX_DEPTH 512	/* ancestors looked at, at most */

static pthread_once_t rt_rv_once = PTHREAD_ONCE_INIT;
/* what the environment, or else a rendezvous, says */
static const char *rt_rv_collector;	/* NULL: no collector */
static const char *rt_rv_profile;	/* NULL: none found */
static int rt_rv_lossy;

/*
 * Does the directory @dfd hold an entry (a name not starting with a dot)?
 * 1 also when it cannot be read: then the entries are looked for one by
 * one.  Spares a process the walk up its parents when no collector runs.
 */
static int rt_rv_any(int dfd)
{
	char buf[1024] __attribute__((aligned(8)));
	struct dirent64 *d;
	long n, off;

	while ((n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0)
		for (off = 0; off < n; off += d->d_reclen) {
			d = (struct dirent64 *)(buf + off);
			if (d->d_name[0] != '.')
				return 1;
		}
	return n < 0;
}

/* Prints why the rendezvous at @path is not used. */
static void rt_rv_refuse(const char *path, const char *why)
{
	fprintf(stderr, "pap: error: %s: %s; not used\n", path, why);
}

/*
 * Takes the advertisement in @text (the entry named @anchor, whose start
 * time is @astart): 1 when it is well formed, names @anchor and a
 * collector that is still the process that wrote it, and its socket and
 * output file are now the runtime's; 0 (stale, or not ours to use)
 * otherwise.
 */
static int rt_rv_take(char *text, long anchor, unsigned long long astart)
{
	struct pap_rv_entry e;
	unsigned long long now;

	if (pap_rv_parse(text, &e) || e.anchor != anchor ||
	    e.anchor_start != astart)
		return 0;
	/* the collector, alive and the one that wrote this */
	if (pap_proc_stat(e.collector, NULL, &now) ||
	    now != e.collector_start)
		return 0;
	rt_rv_collector = strdup(e.socket);
	rt_rv_profile = strdup(e.profile);
	if (!rt_rv_collector || !rt_rv_profile) {
		free((char *)rt_rv_collector);
		free((char *)rt_rv_profile);
		rt_rv_collector = rt_rv_profile = NULL;
		return 0;
	}
	rt_rv_lossy = e.lossy != 0;
	return 1;
}

/*
 * Reads the entry @name of the directory @dfd (@dir) if there is one: 1
 * when it was taken, 0 when there is none or it is stale, -1 when it is
 * refused (not a private regular file of this user: said on stderr).
 */
static int rt_rv_entry(int dfd, const char *dir, long anchor,
		       unsigned long long astart)
{
	char name[32], path[PATH_MAX + 32], *text;
	struct stat st;
	ssize_t n;
	int fd, rc = 0;

	snprintf(name, sizeof(name), "%ld", anchor);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (fd < 0 || fstat(fd, &st) || !pap_rv_private(&st, 0) ||
	    st.st_size >= PAP_RV_MAX_ENTRY) {
		rt_rv_refuse(path, "not a private file of this user (mode "
			     "0600, no symbolic link)");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	text = malloc(PAP_RV_MAX_ENTRY);
	if (text) {
		n = read(fd, text, PAP_RV_MAX_ENTRY - 1);
		if (n > 0) {
			text[n] = 0;
			rc = rt_rv_take(text, anchor, astart);
		}
		free(text);
	}
	close(fd);
	return rc;
}

/*
 * Takes the output file that the collector at @sock notes beside its
 * socket (pap_rv_profile_note), if it is there and a private file of
 * this user: what this process cannot hand over goes there.
 */
static void rt_rv_note(const char *sock)
{
	char note[PATH_MAX], *text;
	struct stat st;
	ssize_t n;
	int fd;

	if (pap_rv_profile_note(sock, note, sizeof(note)))
		return;
	fd = open(note, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	text = malloc(PATH_MAX);
	if (text && !fstat(fd, &st) && pap_rv_private(&st, 0) &&
	    (n = read(fd, text, PATH_MAX - 1)) > 0) {
		text[n] = 0;
		if (text[0] == '/' && !memchr(text, 0, (size_t)n)) {
			rt_rv_profile = text;
			text = NULL;
		}
	}
	free(text);
	close(fd);
}

/*
 * Settles once where this process's records go (rendezvous.h).  Whatever
 * it finds wrong (a directory or entry not this user's alone) it says on
 * stderr, and the process goes on with the file sink; errno is as it was.
 */
static void rt_rv_lookup(void)
{
	const char *env = getenv("PAP_COLLECTOR"), *dir;
	char def[64];
	unsigned long long start;
	struct stat st;
	long pid, ppid;
	int dfd, depth, saved_errno;

	/* set, even empty, PAP_COLLECTOR says where records go (empty: no
	 * collector); so does PAP_PROFILE */
	if (env) {
		rt_rv_collector = *env ? env : NULL;
		if (*env && !getenv("PAP_PROFILE")) {
			saved_errno = errno;
			rt_rv_note(env);
			errno = saved_errno;
		}
		env = getenv("PAP_COLLECTOR_LOSSY");
		rt_rv_lossy = env && *env && strcmp(env, "0");
		return;
	}
	if (getenv("PAP_PROFILE"))
		return;
	dir = pap_rv_dir(def, sizeof(def));
	saved_errno = errno;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		if (errno != ENOENT)
			rt_rv_refuse(dir, "not a private directory of this "
				     "user (mode 0700, no symbolic link)");
		errno = saved_errno;
		return;
	}
	if (fstat(dfd, &st) || !pap_rv_private(&st, 1)) {
		rt_rv_refuse(dir, "not a private directory of this user "
			     "(mode 0700, no symbolic link)");
		goto out;
	}
	if (!rt_rv_any(dfd))
		goto out;
	/* the nearest ancestor with an entry; pid 1 too (a collector may
	 * be a container's first process) */
	pid = getppid();
	for (depth = 0; pid > 0 && depth < RV_MAX_DEPTH; depth++) {
		if (pap_proc_stat(pid, &ppid, &start))
			break;
		if (rt_rv_entry(dfd, dir, pid, start))
			break;
		if (pid == 1)
			break;
		pid = ppid;
	}
out:
	close(dfd);
	errno = saved_errno;
}

const char *rt_where_collector(void)
{
	pthread_once(&rt_rv_once, rt_rv_lookup);
	return rt_abi_mismatch() ? NULL : rt_rv_collector;
}

int rt_where_lossy(void)
{
	pthread_once(&rt_rv_once, rt_rv_lookup);
	return rt_rv_lossy;
}

const char *rt_where_profile(char *buf, size_t size)
{
	const char *p = getenv("PAP_PROFILE");

	if (rt_abi_mismatch())
		return "";	/* off: an object was refused */
	/* empty: output off (libcore/target.h) */
	if (!p) {
		pthread_once(&rt_rv_once, rt_rv_lookup);
		p = rt_rv_profile ? rt_rv_profile : "pap.prof";
	}
	if (!strchr(p, '%'))
		return p;
	if (pap_target_expand(p, buf, size)) {
		fprintf(stderr, "pap: error: %s: the profile's name is too "
			"long once expanded; not written\n", p);
		return "";
	}
	return buf;
}
