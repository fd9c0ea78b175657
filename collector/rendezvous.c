/* SPDX-License-Identifier: MIT */
/*
 * rendezvous.c - the collector advertises itself to the processes it
 * started that lost PAP_COLLECTOR (their environment was cleared).
 *
 * The directory, the entry and its format are libcore/rendezvous.h's;
 * an entry is written under a temporary name and linked into place, so
 * that it is created exclusively and read whole or not at all.  The
 * runtime's reader is librt/rtwhere.c.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collector.h"
#include "rendezvous.h"

/*
 * Is the entry @name of @dfd stale: a regular file whose collector is no
 * longer the process that wrote it?  A file that cannot be read as an
 * entry is not stale: it is left alone.  *@cpid gets its collector.
 */
static int rv_stale(int dfd, const char *name, long *cpid)
{
	char buf[PAP_RV_MAX_ENTRY];
	struct pap_rv_entry e;
	unsigned long long now;
	struct stat st;
	ssize_t n;
	int fd;

	*cpid = 0;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		return 0;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (pap_rv_parse(buf, &e))
		return 0;
	*cpid = e.collector;
	return pap_proc_stat(e.collector, NULL, &now) ||
	       now != e.collector_start;
}

/* Removes the entries of @dfd whose collector is gone, and temporary
 * files left by a collector killed while it wrote its entry. */
static void rv_clean(int dfd)
{
	struct dirent *e;
	unsigned long long start;
	long pid;
	DIR *d;
	int fd = dup(dfd);

	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		const char *s = e->d_name;

		if (!strncmp(s, ".tmp", 4)) {
			/* .tmpPID: gone when PID is */
			pid = strtol(s + 4, NULL, 10);
			if (pid > 0 && pap_proc_stat(pid, NULL, &start))
				unlinkat(dfd, s, 0);
		} else if (s[0] >= '0' && s[0] <= '9' &&
			   strspn(s, "0123456789") == strlen(s) &&
			   rv_stale(dfd, s, &pid)) {
			unlinkat(dfd, s, 0);
		}
	}
	closedir(d);
}

int col_rv_advertise(struct col_rv *rv, long anchor, const char *sock,
		     const char *file, int lossy)
{
	char def[64], tmp[32], text[PAP_RV_MAX_ENTRY];
	const char *dir = pap_rv_dir(def, sizeof(def));
	struct pap_rv_entry e;
	struct stat st;
	long other;
	int fd, len, tries;

	memset(rv, 0, sizeof(*rv));
	rv->dfd = -1;
	if (strchr(sock, '\n') || strchr(file, '\n')) {
		fprintf(stderr, "pap-collector: warning: %s: a path with a "
			"newline cannot be advertised\n", file);
		return -1;
	}
	if (mkdir(dir, 0700) && errno != EEXIST) {
		fprintf(stderr, "pap-collector: warning: %s: %s\n", dir,
			strerror(errno));
		return -1;
	}
	rv->dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (rv->dfd < 0 || fstat(rv->dfd, &st) || !pap_rv_private(&st, 1)) {
		fprintf(stderr, "pap-collector: error: %s: not a private "
			"directory of this user (mode 0700, no symbolic "
			"link); processes that clear their environment will "
			"not find this collector\n", dir);
		goto fail;
	}
	e.collector = (long)getpid();
	e.anchor = anchor;
	e.lossy = lossy != 0;
	e.socket = sock;
	e.profile = file;
	if (pap_proc_stat(e.collector, NULL, &e.collector_start) ||
	    pap_proc_stat(anchor, NULL, &e.anchor_start)) {
		fprintf(stderr, "pap-collector: warning: /proc/%ld/stat: "
			"cannot read it; not advertised\n", anchor);
		goto fail;
	}
	len = pap_rv_format(text, sizeof(text), &e);
	if (len < 0 || len >= (int)sizeof(text)) {
		fprintf(stderr, "pap-collector: warning: %s: paths too long "
			"for an entry; not advertised\n", dir);
		goto fail;
	}
	rv_clean(rv->dfd);
	snprintf(tmp, sizeof(tmp), ".tmp%ld", (long)getpid());
	snprintf(rv->name, sizeof(rv->name), "%ld", anchor);
	unlinkat(rv->dfd, tmp, 0);
	fd = openat(rv->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		    O_CLOEXEC, 0600);
	if (fd < 0 || fchmod(fd, 0600) || write(fd, text, (size_t)len) != len ||
	    fstat(fd, &st)) {
		fprintf(stderr, "pap-collector: warning: %s/%s: %s; not "
			"advertised\n", dir, tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		unlinkat(rv->dfd, tmp, 0);
		goto fail;
	}
	close(fd);
	rv->ino = st.st_ino;
	/* exclusive: an entry of a live collector for the same anchor
	 * stays; a stale one is replaced */
	for (tries = 0; linkat(rv->dfd, tmp, rv->dfd, rv->name, 0); tries++) {
		if (errno != EEXIST || tries ||
		    !rv_stale(rv->dfd, rv->name, &other)) {
			if (errno == EEXIST && other)
				fprintf(stderr, "pap-collector: warning: "
					"%s/%s: already advertised (by "
					"collector %ld); not advertised\n",
					dir, rv->name, other);
			else if (errno == EEXIST)
				fprintf(stderr, "pap-collector: error: "
					"%s/%s: exists and is not an entry "
					"(a symbolic link?); not "
					"advertised\n", dir, rv->name);
			else
				fprintf(stderr, "pap-collector: warning: "
					"%s/%s: %s; not advertised\n", dir,
					rv->name, strerror(errno));
			unlinkat(rv->dfd, tmp, 0);
			goto fail;
		}
		unlinkat(rv->dfd, rv->name, 0);
	}
	unlinkat(rv->dfd, tmp, 0);
	rv->on = 1;
	return 0;
fail:
	if (rv->dfd >= 0)
		close(rv->dfd);
	rv->dfd = -1;
	return -1;
}

void col_rv_withdraw(struct col_rv *rv)
{
	struct stat st;

	if (!rv->on)
		return;
	/* ours still (not replaced as stale meanwhile by someone who
	 * thought us dead): removed */
	if (!fstatat(rv->dfd, rv->name, &st, AT_SYMLINK_NOFOLLOW) &&
	    st.st_ino == rv->ino)
		unlinkat(rv->dfd, rv->name, 0);
	close(rv->dfd);
	rv->dfd = -1;
	rv->on = 0;
}
