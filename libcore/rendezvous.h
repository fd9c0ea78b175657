/* SPDX-License-Identifier: MIT */
/*
 * rendezvous.h - how pap-collector advertises itself to the processes it
 * started that lost PAP_COLLECTOR (their environment was cleared), and
 * how their runtime reads it (doc/collector.md, "Processes that clear
 * their environment").
 *
 * The directory is fixed per user, /tmp/pap-rendezvous-UID (TMPDIR and
 * XDG_RUNTIME_DIR are among what env -i clears), or PAP_RENDEZVOUS_DIR.
 * It must be a directory of this user's, mode 0700, reached without a
 * symbolic link; an entry is a 0600 regular file of this user's named by
 * its anchor's pid (format version 1):
 *
 *   pap-rendezvous 1
 *   collector PID START
 *   anchor PID START
 *   lossy 0|1
 *   socket PATH
 *   profile PATH
 *
 * START is the process's start time in /proc/PID/stat (clock ticks since
 * boot), so that a pid used again is not taken for the process that
 * wrote the entry.
 */
#ifndef PAP_CORE_RENDEZVOUS_H
#define PAP_CORE_RENDEZVOUS_H

#include <stddef.h>
#include <sys/stat.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of an entry, at most. */
#define PAP_RV_MAX_ENTRY 8192

struct pap_rv_entry {
	long collector;			/* its pid */
	unsigned long long collector_start;
	long anchor;			/* whose descendants it collects */
	unsigned long long anchor_start;
	int lossy;
	const char *socket;		/* absolute paths, in the text read */
	const char *profile;
};

/* The rendezvous directory's path into @buf: PAP_RENDEZVOUS_DIR, or
 * /tmp/pap-rendezvous-UID; @buf or the variable's value. */
const char *pap_rv_dir(char *buf, size_t size);
/* Is @st, of something opened without following a symbolic link, a
 * directory (@dir) or regular file of this user's that no one else may
 * read or write? */
int pap_rv_private(const struct stat *st, int dir);
/*
 * The name of the note beside a collector's socket SOCKDIR/NAME that
 * gives its output file (SOCKDIR/.NAME.profile: a 0600 regular file of
 * the user holding the absolute path, no newline), into @buf; -1 when
 * it does not fit.  A producer given PAP_COLLECTOR but no PAP_PROFILE
 * merges what it cannot hand over into that file.
 */
int pap_rv_profile_note(const char *sock, char *buf, size_t size);
/*
 * Reads @pid's parent (@ppid may be NULL) and start time from
 * /proc/PID/stat: 0, or -1 when the process is gone or unreadable.
 */
int pap_proc_stat(long pid, long *ppid, unsigned long long *start);
/*
 * Parses entry text @text in place into @e: 0, or -1 when it is not a
 * whole version 1 entry with absolute paths.
 */
int pap_rv_parse(char *text, struct pap_rv_entry *e);
/* Writes @e as an entry into @buf as snprintf does; -1 when a path holds
 * a newline. */
int pap_rv_format(char *buf, size_t size, const struct pap_rv_entry *e);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_RENDEZVOUS_H */
