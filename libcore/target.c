/* SPDX-License-Identifier: MIT */
/*
 * target.c - the one place that decides what a pap writer may write over
 * (target.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "target.h"

/* Linux's null device, wherever its node is. */
static int tg_is_null(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 &&
	       minor(st->st_rdev) == 3;
}

int pap_target_off(const char *path)
{
	struct stat st;

	return !*path || !strcmp(path, "/dev/null") ||
	       (!lstat(path, &st) && tg_is_null(&st));
}

/* What a file of mode @st is, for a message; NULL for a regular file. */
static const char *tg_kind(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return NULL;
	if (S_ISDIR(st->st_mode))
		return "is a directory";
	if (S_ISCHR(st->st_mode))
		return "is a character device";
	if (S_ISBLK(st->st_mode))
		return "is a block device";
	if (S_ISFIFO(st->st_mode))
		return "is a FIFO";
	if (S_ISSOCK(st->st_mode))
		return "is a socket";
	if (S_ISLNK(st->st_mode))
		return "is a symbolic link";
	return "is not a regular file";
}

/* Says why @path is refused; PAP_TARGET_REFUSED. */
static enum pap_target tg_refuse(const char *path, const char *why,
				 const char *who)
{
	fprintf(stderr, "%s: error: %s: %s; not written (a writer replaces "
		"only a regular file of its own)\n", who, path, why);
	return PAP_TARGET_REFUSED;
}

/* Sorts @st, the status of @path (not followed). */
static enum pap_target tg_sort(const char *path, const struct stat *st,
			       const char *who)
{
	const char *kind = tg_kind(st);

	if (!kind)
		return st->st_uid == geteuid() ? PAP_TARGET_FILE :
			tg_refuse(path, "belongs to another user", who);
	/* a symbolic link is never followed, even to the null device */
	if (!S_ISLNK(st->st_mode) && tg_is_null(st))
		return PAP_TARGET_OFF;
	return tg_refuse(path, kind, who);
}

enum pap_target pap_target_check(const char *path, const char *who)
{
	struct stat st;

	if (!*path || !strcmp(path, "/dev/null"))
		return PAP_TARGET_OFF;
	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return PAP_TARGET_ABSENT;
		return tg_refuse(path, strerror(errno), who);
	}
	return tg_sort(path, &st, who);
}

int pap_target_open(const char *path, int flags, const char *who,
		    enum pap_target *what)
{
	struct stat before, st;
	int fd;

	*what = pap_target_check(path, who);
	if (*what != PAP_TARGET_FILE)
		return -1;
	if (lstat(path, &before))
		goto gone;
	fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
		  O_CLOEXEC);
	if (fd < 0)
		goto gone;
	/* the same file as looked at: nothing swapped in meanwhile */
	if (fstat(fd, &st) || st.st_dev != before.st_dev ||
	    st.st_ino != before.st_ino ||
	    (*what = tg_sort(path, &st, who)) != PAP_TARGET_FILE) {
		if (*what == PAP_TARGET_FILE)
			*what = tg_refuse(path, "changed while opened", who);
		close(fd);
		return -1;
	}
	return fd;
gone:
	if (errno == ENOENT) {
		*what = PAP_TARGET_ABSENT;
		return -1;
	}
	*what = tg_refuse(path, errno == ELOOP ? "is a symbolic link" :
			  strerror(errno), who);
	return -1;
}

int pap_target_tmp(const char *path, char *tmp, size_t tmplen,
		   const char *who)
{
	struct stat st;
	unsigned n;
	int fd, len;

	for (n = 0; n < 16; n++) {
		len = n ? snprintf(tmp, tmplen, "%s.tmp.%ld.%u", path,
				   (long)getpid(), n) :
			  snprintf(tmp, tmplen, "%s.tmp.%ld", path,
				   (long)getpid());
		if (len < 0 || (size_t)len >= tmplen) {
			fprintf(stderr, "%s: error: %s: name too long\n", who,
				path);
			return -1;
		}
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			  O_NOCTTY | O_CLOEXEC, 0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			break;
		/* a writer of this pid that was killed left its own */
		if (!lstat(tmp, &st) && S_ISREG(st.st_mode) &&
		    st.st_uid == geteuid() && !unlink(tmp)) {
			fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL |
				  O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0644);
			if (fd >= 0)
				return fd;
		}
	}
	fprintf(stderr, "%s: error: %s: cannot create: %s\n", who, tmp,
		strerror(errno));
	return -1;
}

FILE *pap_target_begin(const char *path, const char *who, char *tmp,
		       size_t tmplen, int *off)
{
	enum pap_target what = pap_target_check(path, who);
	FILE *f;
	int fd;

	*off = what == PAP_TARGET_OFF;
	if (what != PAP_TARGET_ABSENT && what != PAP_TARGET_FILE)
		return NULL;
	fd = pap_target_tmp(path, tmp, tmplen, who);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		fprintf(stderr, "%s: error: %s: %s\n", who, tmp,
			strerror(errno));
		close(fd);
		unlink(tmp);
	}
	return f;
}

int pap_target_commit(FILE *f, const char *tmp, const char *path,
		      const char *who)
{
	int e = 0;

	errno = 0;
	if (fflush(f) || ferror(f))
		e = errno ? errno : EIO;
	if (fclose(f) && !e)
		e = errno;
	if (e) {
		fprintf(stderr, "%s: error: %s: cannot write: %s\n", who,
			path, strerror(e));
		unlink(tmp);
		return -1;
	}
	/* what is there now is looked at again: never renamed over a
	 * directory, a device or another user's file */
	if (pap_target_check(path, who) > PAP_TARGET_FILE) {
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, path)) {
		fprintf(stderr, "%s: error: %s: cannot write: %s\n", who,
			path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int pap_target_expand(const char *pattern, char *out, size_t size)
{
	char host[256];
	size_t n = 0;
	const char *s;
	int w;

	for (s = pattern; *s; s++) {
		w = 0;
		if (s[0] == '%' && s[1] == 'p') {
			w = snprintf(out + n, size - n, "%ld", (long)getpid());
			s++;
		} else if (s[0] == '%' && s[1] == 'h') {
			if (gethostname(host, sizeof(host)))
				strcpy(host, "localhost");
			host[sizeof(host) - 1] = 0;
			w = snprintf(out + n, size - n, "%s", host);
			s++;
		} else if (s[0] == '%' && s[1] == 'm') {
			w = snprintf(out + n, size - n, "0");
			s++;
		} else if (s[0] == '%' && s[1] >= '1' && s[1] <= '9' &&
			   s[2] == 'm') {
			w = snprintf(out + n, size - n, "%ld",
				     (long)getpid() % (s[1] - '0'));
			s += 2;
		} else if (s[0] == '%' && s[1] == '%') {
			w = snprintf(out + n, size - n, "%%");
			s++;
		} else {
			w = snprintf(out + n, size - n, "%c", *s);
		}
		if (w < 0 || (size_t)w >= size - n)
			return -1;
		n += (size_t)w;
	}
	if (n >= size)
		return -1;
	out[n] = 0;
	return 0;
}
