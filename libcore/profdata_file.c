/* SPDX-License-Identifier: MIT */
/*
 * profdata_file.c - merging into a profile file that many processes share.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "profdata.h"
#include "textfile.h"
#include "util.h"

/*
 * The PATH.pending.PID files that collectors which died left next to a
 * profile: each holds how many records its collector drained but never
 * wrote.
 */
#define PF_MAX_DEAD_COLLECTORS 64
struct pf_dead_collectors {
	char *names[PF_MAX_DEAD_COLLECTORS];
	unsigned n;
	uint64_t lost;
};

/*
 * Finds PATH.pending.PID files whose collector PID is gone, and sums the
 * records they say it drained but never wrote.  Called with the lock held;
 * the files are removed once the profile that counts them is in place.
 */
static void pf_find_dead_collectors(const char *path,
				    struct pf_dead_collectors *o)
{
	const char *slash = strrchr(path, '/');
	char dir[4096], prefix[512], *name;
	size_t plen;
	struct dirent *e;
	DIR *d;

	if (slash)
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	else
		strcpy(dir, ".");
	if (snprintf(prefix, sizeof(prefix), "%s.pending.",
		     slash ? slash + 1 : path) >= (int)sizeof(prefix))
		return;
	plen = strlen(prefix);
	d = opendir(slash && slash == path ? "/" : dir);
	if (!d)
		return;
	while ((e = readdir(d)) && o->n < PF_MAX_DEAD_COLLECTORS) {
		char *end;
		long pid;
		uint64_t v = 0;
		int fd;

		if (strncmp(e->d_name, prefix, plen))
			continue;
		pid = strtol(e->d_name + plen, &end, 10);
		if (*end || pid <= 0 || kill((pid_t)pid, 0) == 0 ||
		    errno != ESRCH)
			continue;
		name = malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!name)
			break;
		sprintf(name, "%s/%s", dir, e->d_name);
		fd = open(name, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
			v = 0;
		if (fd >= 0)
			close(fd);
		o->lost = pap_sat_add(o->lost, v);
		o->names[o->n++] = name;
	}
	closedir(d);
}

/*
 * Merges @mine into the profile file @path: under an exclusive lock on
 * PATH.lock, read PATH, add, write PATH.tmp.PID, rename over PATH.  An
 * existing file that is not a valid profile is kept aside as
 * PATH.bad.PID, never overwritten.
 */
int pap_profile_merge_file(const char *path, const struct pap_profile *mine,
			   const char *who, void (*written)(void *), void *arg)
{
	char lockpath[4096], tmppath[4096], badpath[4096], err[256];
	struct pf_dead_collectors dead = { { NULL }, 0, 0 };
	struct pap_profile all, view;
	const struct pap_profile *out_prof;
	int lockfd, fd, rc = -1;
	unsigned i;
	FILE *f;

	if (snprintf(lockpath, sizeof(lockpath), "%s.lock", path) >=
		    (int)sizeof(lockpath) ||
	    snprintf(tmppath, sizeof(tmppath), "%s.tmp.%ld", path,
		     (long)getpid()) >= (int)sizeof(tmppath) ||
	    snprintf(badpath, sizeof(badpath), "%s.bad.%ld", path,
		     (long)getpid()) >= (int)sizeof(badpath)) {
		fprintf(stderr, "%s: %s: profile path too long\n", who, path);
		return -1;
	}
	lockfd = open(lockpath, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lockfd < 0 || flock(lockfd, LOCK_EX)) {
		fprintf(stderr, "%s: %s: cannot lock: %s\n", who, lockpath,
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
			fprintf(stderr, "%s: %s; kept it as %s\n", who,
				text ? err : "cannot read the profile", badpath);
			if (rename(path, badpath))
				goto out;
		}
		free(text);
	}
	/* no file yet (or an empty one): ours is written as it is, not
	 * copied record by record into an empty profile first */
	out_prof = mine;
	if (all.nrecs || all.lost) {
		if (pap_profile_merge(&all, mine)) {
			fprintf(stderr, "%s: out of memory merging the "
				"profile\n", who);
			goto out;
		}
		out_prof = &all;
	}
	pf_find_dead_collectors(path, &dead);
	view = *out_prof;
	view.lost = pap_sat_add(view.lost, dead.lost);
	f = fopen(tmppath, "w");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", who, tmppath, strerror(errno));
		goto out;
	}
	if (pap_profile_write(&view, f) | fclose(f) ||
	    rename(tmppath, path)) {
		fprintf(stderr, "%s: %s: cannot write: %s\n", who, path,
			strerror(errno));
		unlink(tmppath);
		goto out;
	}
	for (i = 0; i < dead.n; i++)
		unlink(dead.names[i]);
	if (written)
		written(arg);
	rc = 0;
out:
	for (i = 0; i < dead.n; i++)
		free(dead.names[i]);
	pap_profile_free(&all);
	close(lockfd);	/* releases the lock */
	return rc;
}
