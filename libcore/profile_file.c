/* SPDX-License-Identifier: MIT */
/*
 * profile_file.c - merging into a profile file that many processes share.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "profile.h"
#include "textfile.h"

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
	struct pap_profile all;
	int lockfd, fd, rc = -1;
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
	if (pap_profile_merge(&all, mine)) {
		fprintf(stderr, "%s: out of memory merging the profile\n", who);
		goto out;
	}
	f = fopen(tmppath, "w");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", who, tmppath, strerror(errno));
		goto out;
	}
	if (pap_profile_write(&all, f) | fclose(f) ||
	    rename(tmppath, path)) {
		fprintf(stderr, "%s: %s: cannot write: %s\n", who, path,
			strerror(errno));
		unlink(tmppath);
		goto out;
	}
	if (written)
		written(arg);
	rc = 0;
out:
	pap_profile_free(&all);
	close(lockfd);	/* releases the lock */
	return rc;
}
