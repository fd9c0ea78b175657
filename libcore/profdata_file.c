/* SPDX-License-Identifier: MIT */
/*
 * profdata_file.c - merging into a profile file that many processes share:
 * a binary file is a log of segments, each process appending its own and
 * then the file's committed length (doc/formats.md, "Merging into a
 * shared profile").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "profbin.h"
#include "profdata.h"
#include "target.h"
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
 * Test points (PAP_TEST_KILL=MODE): SIGKILL while merging into a file.
 * append-mid: halfway through writing the appended segment;
 * append-after: once it is written, before the lock is let go;
 * compact-mid: halfway through writing the temporary that replaces the
 * file.
 */
enum pf_kill { PF_KILL_APPEND_MID = 1, PF_KILL_APPEND_AFTER,
	       PF_KILL_COMPACT_MID };

static void pf_test_point(enum pf_kill mode)
{
	static const char *const names[] = { NULL, "append-mid",
					     "append-after", "compact-mid" };
	const char *k = getenv("PAP_TEST_KILL");

	if (k && !strcmp(k, names[mode]))
		raise(SIGKILL);
}

/* Writes @n bytes of @buf at @off of @fd, with the test point @kill (if
 * not 0) halfway; 0 or -1 (errno). */
static int pf_write_all(int fd, const void *buf, size_t n, uint64_t off,
			enum pf_kill kill)
{
	size_t done = 0, half = n / 2;

	while (done < n) {
		ssize_t w;

		if (kill && done == half)
			pf_test_point(kill);
		w = pwrite(fd, (const char *)buf + done,
			   (kill && done < half ? half : n) - done,
			   (off_t)(off + done));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!w)
				errno = ENOSPC;
			return -1;
		}
		done += (size_t)w;
	}
	return 0;
}

/* Reads @n bytes at @off of @fd into @buf; 0, or -1 when they are not
 * all there. */
static int pf_pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done,
				  (off_t)(off + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

/*
 * Writes the file header and @seg[0..@len) to a temporary next to @path,
 * created exclusively (pap_target_tmp), and renames it over @path, which
 * must still be absent or a regular file of ours: readers see the old
 * file or the new one, whole.  0, or -1 with a message prefixed by @who.
 */
static int pf_replace(const char *path, const unsigned char *seg,
		      size_t len, const char *who)
{
	unsigned char head[PAP_PROFBIN_HEAD];
	char tmppath[4096 + 32];
	int fd, e;

	pap_profbin_header(head, sizeof(head) + len);
	fd = pap_target_tmp(path, tmppath, sizeof(tmppath), who);
	if (fd < 0)
		return -1;
	if (pf_write_all(fd, head, sizeof(head), 0, 0) ||
	    pf_write_all(fd, seg, len, sizeof(head), PF_KILL_COMPACT_MID) ||
	    close(fd)) {
		e = errno;
		fprintf(stderr, "%s: error: %s: cannot write: %s\n", who,
			tmppath, strerror(e));
		unlink(tmppath);
		return -1;
	}
	/* what is there now is looked at again, said if refused */
	if (pap_target_check(path, who) > PAP_TARGET_FILE) {
		unlink(tmppath);
		return -1;
	}
	if (rename(tmppath, path)) {
		fprintf(stderr, "%s: error: %s: cannot write: %s\n", who,
			path, strerror(errno));
		unlink(tmppath);
		return -1;
	}
	return 0;
}

/* What the end of a binary file holds. */
enum pf_tail { PF_CLEAN, PF_TORN, PF_BAD };

/*
 * Checks the binary file open at @fd, of @size bytes: PF_CLEAN when its
 * last segment is whole (found from the end; its checksum is checked
 * unless it is the first, which came whole through a rename), PF_TORN
 * when the file ends inside a segment after sound ones (*@good: where
 * that segment starts), PF_BAD otherwise (not a version 6 file, shorter
 * than its committed length, or damaged before its end).  Only a tail
 * that is not clean is looked for from the start.  *@first: the first
 * segment's size, all framing included.
 */
static enum pf_tail pf_check_tail(int fd, uint64_t size, uint64_t *first,
				  uint64_t *good, const struct pap_mem *mem,
				  int spilling)
{
	unsigned char head[PAP_PROFBIN_HEAD], t[PAP_PROFBIN_SEG_TAIL];
	unsigned char h[PAP_PROFBIN_SEG_HEAD], *d;
	struct pap_profbin_head hd;
	uint64_t len, start, len1 = 0, committed;
	size_t n, got, at;
	char err[256];
	int r;

	*first = 0;
	*good = size;
	/* older versions, and a file cut, are rewritten whole */
	if (size < PAP_PROFBIN_HEAD || pf_pread_all(fd, head, sizeof(head), 0))
		return PF_BAD;
	if (pap_profbin_head_ok(head, sizeof(head), &hd, &at) ||
	    hd.version < PAP_PROFILE_VERSION_BIN || hd.committed > size)
		return PF_BAD;
	if (size >= PAP_PROFBIN_HEAD + PAP_PROFBIN_SEG_HEAD &&
	    !pf_pread_all(fd, h, sizeof(h), PAP_PROFBIN_HEAD) &&
	    !pap_profbin_seg_len(h, &len1) &&
	    len1 <= size - PAP_PROFBIN_HEAD - PAP_PROFBIN_SEG_HEAD -
			    PAP_PROFBIN_SEG_TAIL)
		*first = PAP_PROFBIN_SEG_HEAD + len1 + PAP_PROFBIN_SEG_TAIL;
	if (size == PAP_PROFBIN_HEAD)
		return PF_CLEAN;
	if (*first && !pf_pread_all(fd, t, sizeof(t), size - sizeof(t))) {
		for (len = 0, r = 7; r >= 0; r--)	/* little-endian */
			len = len << 8 | t[8 + r];
		if (len <= size - PAP_PROFBIN_HEAD - PAP_PROFBIN_SEG_HEAD -
			       PAP_PROFBIN_SEG_TAIL &&
		    !pap_profbin_seg_tail_ok(t, len, NULL)) {
			start = size - sizeof(t) - len - PAP_PROFBIN_SEG_HEAD;
			if (start == PAP_PROFBIN_HEAD && len == len1)
				return PF_CLEAN;
			if (!pf_pread_all(fd, h, sizeof(h), start) &&
			    !pap_profbin_seg_len(h, &len1) && len1 == len &&
			    (d = pap_mem_resize(mem, NULL, 0, len + 1))) {
				r = pf_pread_all(fd, d, (size_t)len,
						 start + PAP_PROFBIN_SEG_HEAD) ||
				    pap_profbin_seg_tail_ok(t, len, d);
				pap_mem_release(mem, d, len + 1);
				if (!r)
					return PF_CLEAN;
			}
		}
	}
	/* a spill leaves a tail to look into to the next ordinary writer */
	if (spilling)
		return PF_BAD;
	/* recovery: walk the segments from the start */
	if (lseek(fd, 0, SEEK_SET) ||
	    !(d = (unsigned char *)pap_read_fd(fd, (size_t)size, &n)))
		return PF_BAD;
	r = pap_profbin_read(NULL, d, n, &got, &committed, "", err,
			     sizeof(err));
	*good = got;
	free(d);
	if (r || n != size)
		return PF_BAD;
	return got < n ? PF_TORN : PF_CLEAN;
}

/* The file names merging uses. */
struct pf_names {
	char lock[4096], bad[4096], fallback[4096];
};

static int pf_names(struct pf_names *nm, const char *path, const char *who)
{
	if (snprintf(nm->lock, sizeof(nm->lock), "%s.lock", path) >=
		    (int)sizeof(nm->lock) ||
	    snprintf(nm->bad, sizeof(nm->bad), "%s.bad.%ld", path,
		     (long)getpid()) >= (int)sizeof(nm->bad) ||
	    snprintf(nm->fallback, sizeof(nm->fallback), "%s.%ld", path,
		     (long)getpid()) >= (int)sizeof(nm->fallback)) {
		fprintf(stderr, "%s: error: %s: profile path too long\n", who,
			path);
		return -1;
	}
	return 0;
}

/* Seconds a writer waits for a profile's lock (PAP_LOCK_TIMEOUT). */
static double pf_lock_timeout(void)
{
	const char *s = getenv("PAP_LOCK_TIMEOUT");
	char *end;
	double t;

	if (!s || !*s)
		return PAP_PROFILE_LOCK_TIMEOUT;
	t = strtod(s, &end);
	return *end || !(t >= 0) ? PAP_PROFILE_LOCK_TIMEOUT : t;
}

static double pf_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/*
 * The descriptor of @lockpath, created if need be: a regular file of ours
 * only, no symbolic link followed, never blocking on a FIFO; -1 with a
 * message.
 */
static int pf_open_lock(const char *lockpath, const char *who)
{
	enum pap_target what;
	int fd;

	fd = open(lockpath, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
		  O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
	if (fd < 0 && errno == EEXIST)
		fd = pap_target_open(lockpath, O_RDWR, who, &what);
	else if (fd < 0)
		fprintf(stderr, "%s: error: %s: cannot create: %s\n", who,
			lockpath, strerror(errno));
	return fd;
}

/*
 * The descriptor of @lockpath (pf_open_lock),
 * locked exclusively within PAP_LOCK_TIMEOUT seconds; -1 with a
 * message, or -2 when the lock is still held by another process then
 * (no message).
 */
static int pf_lock(const char *lockpath, const char *who)
{
	struct timespec nap = { 0, 1000000 };
	double until = pf_now() + pf_lock_timeout();
	int fd = pf_open_lock(lockpath, who);

	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			fprintf(stderr, "%s: error: %s: cannot lock: %s\n",
				who, lockpath, strerror(errno));
			close(fd);
			return -1;
		}
		if (pf_now() >= until) {
			close(fd);
			return -2;
		}
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 64000000)
			nap.tv_nsec *= 2;
	}
	return fd;
}

/*
 * Appends @mine (its lost count raised by @extra_lost) to the version 6
 * file @path as one segment, after cutting off a segment cut short, then
 * sets the file's committed length to its new end; with the lock held.
 * 1 when done; 0 when the file must be rewritten instead (no such file,
 * empty, text, an older version, cut, not this pap's, or its log is due
 * for compaction); -1 when the append failed (the file left as it was,
 * a message given).  When @spilling, nothing is read back and no memory
 * taken but @mine->mem's: a file due for compaction, or a header alone,
 * is appended to all the same, and 2 says that only a rewrite would do
 * (a text file, an older version, a cut one, one not this pap's, or a
 * tail to recover).
 */
static int pf_append(const char *path, const struct pap_profile *mine,
		     uint64_t extra_lost, const char *who, int spilling)
{
	struct stat st;
	unsigned char *seg = NULL, head[PAP_PROFBIN_HEAD];
	uint64_t first, good, size, floor, log;
	size_t len;
	enum pf_tail tail;
	int fd, rc = 0;

	enum pap_target what;

	/* a regular file of ours only: never written through */
	fd = pap_target_open(path, O_RDWR, who, &what);
	if (fd < 0)
		return what == PAP_TARGET_ABSENT ? 0 : -1;
	if (fstat(fd, &st)) {
		rc = spilling ? 2 : 0;
		goto out;
	}
	if (!st.st_size)
		goto out;
	size = (uint64_t)st.st_size;
	tail = pf_check_tail(fd, size, &first, &good, mine->mem, spilling);
	if (tail == PF_BAD) {
		rc = spilling ? 2 : 0;
		goto out;
	}
	if (tail == PF_TORN) {
		if (ftruncate(fd, (off_t)good))
			goto out;
		fprintf(stderr, "%s: %s: cut off the last %llu %s, a "
			"segment cut short (its writer was killed or the disk "
			"was full)\n", who, path,
			(unsigned long long)(size - good),
			pap_plural(size - good, "byte", "bytes"));
		size = good;
	}
	if (pap_profbin_segment(mine, extra_lost, &seg, &len)) {
		fprintf(stderr, "%s: out of memory merging the profile\n", who);
		rc = -1;
		goto out;
	}
	/* compaction is due once what follows the first segment outweighs
	 * it: its cost is then at most twice the bytes appended since the
	 * last one; but a writer never reads back more than
	 * PAP_PROFILE_COMPACT_MAX, so that its memory and time stay
	 * bounded (a larger log is compacted by pap-decode compact) */
	floor = first > PAP_PROFILE_LOG_FLOOR ? first : PAP_PROFILE_LOG_FLOOR;
	log = size - PAP_PROFBIN_HEAD - first;
	if (!spilling && (!first || (log + len > floor &&
				     size + len <= PAP_PROFILE_COMPACT_MAX)))
		goto out;
	/* the segment, then the length that commits it: a writer killed
	 * in between leaves a whole segment past the committed length,
	 * which readers count */
	pap_profbin_header(head, size + len);
	if (pf_write_all(fd, seg, len, size, PF_KILL_APPEND_MID))
		goto write_error;
	pf_test_point(PF_KILL_APPEND_AFTER);
	if (pf_write_all(fd, head + PAP_PROFBIN_COMMIT_AT, 8,
			 PAP_PROFBIN_COMMIT_AT, 0))
		goto write_error;
	rc = 1;
	goto out;
write_error:
	rc = errno;
	if (ftruncate(fd, (off_t)size))
		rc = errno;
	fprintf(stderr, "%s: %s: cannot write: %s\n", who, path,
		strerror(rc));
	rc = -1;
out:
	if (seg)
		pap_mem_release(mine->mem, seg, len);
	close(fd);
	return rc;
}

/*
 * Reads the profile file @path into @all for a rewrite: a missing or
 * empty file is an empty profile; a regular file of ours that is not a
 * profile is renamed to @badpath (-1 if that fails); anything else is
 * refused (-1, said).  A warning (a segment cut short, left out) is
 * said.
 */
static int pf_read_old(const char *path, struct pap_profile *all,
		       const char *badpath, const char *who)
{
	char err[512];
	struct stat st;

	switch (pap_target_check(path, who)) {
	case PAP_TARGET_ABSENT:
		return 0;
	case PAP_TARGET_FILE:
		break;
	default:
		return -1;
	}
	if (lstat(path, &st) || !st.st_size)
		return 0;
	if (pap_profile_read_file(all, path, (size_t)1 << 34, err, sizeof(err),
				  NULL)) {
		fprintf(stderr, "%s: %s; kept it as %s\n", who, err, badpath);
		pap_profile_free(all);
		pap_profile_init(all);
		return rename(path, badpath) ? -1 : 0;
	}
	if (*err)
		fprintf(stderr, "%s: %s\n", who, err);
	return 0;
}

/*
 * Checks @path before it is locked: 1 when it may be merged into (absent
 * or a regular file of ours), 0 when output is switched off, -1 when it
 * is refused (said).
 */
static int pf_target_ok(const char *path, const char *who)
{
	switch (pap_target_check(path, who)) {
	case PAP_TARGET_OFF:
		return 0;
	case PAP_TARGET_REFUSED:
		return -1;
	default:
		return 1;
	}
}

/*
 * Takes the profile's lock (pf_lock): its descriptor; -1 with a message; or,
 * when another process holds it too long, -2 after saying that the
 * fallback name in @nm is written instead.
 */
static int pf_lock_or_fall_back(const struct pf_names *nm, const char *who)
{
	int fd = pf_lock(nm->lock, who);

	if (fd == -2)
		fprintf(stderr, "%s: warning: %s: another process held the "
			"lock for %g s; writing the profile to %s instead "
			"(merge it with pap-decode merge)\n", who, nm->lock,
			pf_lock_timeout(), nm->fallback);
	return fd;
}

/*
 * pap_profile_merge_file with @path's lock held (@lockfd, closed here):
 * @mine appended, or the file rewritten with it.
 */
static int pf_merge_locked(const char *path, const struct pf_names *nm,
			   int lockfd, const struct pap_profile *mine,
			   const char *who, void (*written)(void *), void *arg,
			   int spilling)
{
	struct pf_dead_collectors dead = { { NULL }, 0, 0 };
	struct pap_profile all, view;
	const struct pap_profile *out_prof;
	unsigned char *seg;
	uint64_t nstale = 0;
	size_t len, nfns = 0;
	int rc = -1, done;
	unsigned i;

	pap_profile_init(&all);
	/* a spill leaves dead collectors to the next ordinary writer: the
	 * search takes malloc's memory */
	if (!spilling)
		pf_find_dead_collectors(path, &dead);
	done = pf_append(path, mine, dead.lost, who, spilling);
	if (done < 0)
		goto out;
	if (done == 2) {
		rc = 1;
		goto out;
	}
	if (!done) {
		/* no file yet, an old one, or compaction: rewritten whole */
		if (pf_read_old(path, &all, nm->bad, who))
			goto out;
		out_prof = mine;
		if (all.nrecs || all.lost) {
			/* this process's build is the newest */
			all.gen = UINT32_MAX;
			if (pap_profile_merge(&all, mine) ||
			    pap_profile_drop_stale(&all, &nstale, &nfns)) {
				fprintf(stderr, "%s: out of memory merging the "
					"profile\n", who);
				goto out;
			}
			if (nstale)
				fprintf(stderr, "%s: note: %s: %llu %s of %zu "
					"%s from an older build replaced by "
					"this build's\n", who, path,
					(unsigned long long)nstale,
					pap_plural(nstale, "record",
						   "records"), nfns,
					pap_plural(nfns, "function",
						   "functions"));
			out_prof = &all;
		}
		view = *out_prof;
		view.lost = pap_sat_add(view.lost, dead.lost);
		if (pap_profbin_segment(&view, 0, &seg, &len)) {
			fprintf(stderr, "%s: out of memory merging the "
				"profile\n", who);
			goto out;
		}
		done = pf_replace(path, seg, len, who);
		pap_mem_release(view.mem, seg, len);
		if (done)
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

/* pap_profile_merge_file, or when @spilling pap_profile_spill_file. */
static int pf_merge(const char *path, const struct pap_profile *mine,
		    const char *who, void (*written)(void *), void *arg,
		    int spilling)
{
	struct pf_names nm;
	char fallback[sizeof(nm.fallback)];
	int ok = pf_target_ok(path, who), lockfd;

	if (ok <= 0) {
		if (!ok && written)
			written(arg);	/* off: nothing is kept */
		return ok;
	}
	if (pf_names(&nm, path, who))
		return -1;
	lockfd = pf_lock_or_fall_back(&nm, who);
	if (lockfd == -2) {
		memcpy(fallback, nm.fallback, sizeof(fallback));
		path = fallback;
		if (pf_target_ok(path, who) <= 0 || pf_names(&nm, path, who))
			return -1;
		lockfd = pf_lock(nm.lock, who);
		if (lockfd == -2)
			fprintf(stderr, "%s: error: %s: locked by another "
				"process too; profile not written\n", who,
				nm.lock);
	}
	if (lockfd < 0)
		return -1;
	return pf_merge_locked(path, &nm, lockfd, mine, who, written, arg,
			       spilling);
}

int pap_profile_merge_file(const char *path, const struct pap_profile *mine,
			   const char *who, void (*written)(void *), void *arg)
{
	return pf_merge(path, mine, who, written, arg, 0);
}

int pap_profile_spill_file(const char *path, const struct pap_profile *mine,
			   const char *who)
{
	return pf_merge(path, mine, who, NULL, NULL, 1);
}

int pap_profile_compact_file(const char *path, const char *who)
{
	struct pf_names nm;
	struct pap_profile all;
	unsigned char *seg;
	size_t len;
	char err[512];
	int lockfd, rc = -1;

	switch (pap_target_check(path, who)) {
	case PAP_TARGET_FILE:
		break;
	case PAP_TARGET_ABSENT:
		fprintf(stderr, "%s: error: %s: %s\n", who, path,
			strerror(ENOENT));
		return -1;
	case PAP_TARGET_OFF:
		return 0;
	default:
		return -1;
	}
	if (pf_names(&nm, path, who))
		return -1;
	lockfd = pf_lock(nm.lock, who);
	if (lockfd == -2)
		fprintf(stderr, "%s: error: %s: another process held the lock "
			"for %g s; not compacted\n", who, nm.lock,
			pf_lock_timeout());
	if (lockfd < 0)
		return -1;
	pap_profile_init(&all);
	if (pap_profile_read_file(&all, path, (size_t)1 << 34, err, sizeof(err),
				  NULL)) {
		fprintf(stderr, "%s: %s\n", who, err);
		goto out;
	}
	if (*err)
		fprintf(stderr, "%s: %s\n", who, err);
	if (pap_profbin_segment(&all, 0, &seg, &len)) {
		fprintf(stderr, "%s: out of memory\n", who);
		goto out;
	}
	rc = pf_replace(path, seg, len, who);
	free(seg);
out:
	pap_profile_free(&all);
	close(lockfd);
	return rc;
}

int pap_profile_can_merge(const char *path, const char *who)
{
	struct pf_names nm;
	int ok = pf_target_ok(path, who), fd;

	if (ok <= 0)
		return ok;
	if (pf_names(&nm, path, who) || (fd = pf_open_lock(nm.lock, who)) < 0)
		return -1;
	close(fd);
	return 0;
}
