/* SPDX-License-Identifier: MIT */
/*
 * target.h - what every pap writer may write over: a regular file of the
 * user's own, or nothing; the null device (or an empty name) switches the
 * output off; anything else (a directory, a device, a FIFO, a socket, a
 * symbolic link, another user's file) is refused with a message and never
 * written through, renamed or replaced (doc/formats.md, "What a writer
 * does with its target").
 */
#ifndef PAP_CORE_TARGET_H
#define PAP_CORE_TARGET_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an output name names. */
enum pap_target {
	PAP_TARGET_ABSENT,	/* nothing yet: the writer creates it */
	PAP_TARGET_FILE,	/* a regular file of this user */
	PAP_TARGET_OFF,		/* "", /dev/null, a null device: off */
	PAP_TARGET_REFUSED	/* anything else: said on stderr */
};

/* Does @path name the output switched off ("" or a null device)? */
int pap_target_off(const char *path);

/*
 * What @path names, looked at without following a symbolic link or
 * opening it.  PAP_TARGET_REFUSED comes with "WHO: error: PATH: is a
 * directory; not written" (or the like) on stderr.
 */
enum pap_target pap_target_check(const char *path, const char *who);

/*
 * Opens the existing @path with @flags (O_RDONLY, O_RDWR, O_APPEND...),
 * never following a symbolic link nor blocking on a FIFO or device, and
 * keeps it only when it is a regular file of this user: its descriptor,
 * or -1 with *@what saying why (ABSENT: no such file, no message;
 * OFF: a null device, no message; REFUSED: said on stderr).
 */
int pap_target_open(const char *path, int flags, const char *who,
		    enum pap_target *what);

/*
 * Creates the temporary file that will replace @path, next to it,
 * exclusively and without following a symbolic link: PATH.tmp.PID, or
 * PATH.tmp.PID.N when that name is taken (a name in the way is never
 * removed unless it is a regular file of this user, which a writer of
 * the same pid that was killed left).  Its descriptor, its name in
 * @tmp; -1 with a message on stderr.
 */
int pap_target_tmp(const char *path, char *tmp, size_t tmplen,
		   const char *who);

/*
 * A whole file written through a temporary and renamed over its target
 * (merge -o, HTML pages, snapshots, path specs): pap_target_begin checks
 * @path and creates the temporary; NULL with *@off set when the output
 * is switched off (nothing to write, no message), NULL with a message
 * otherwise.  pap_target_commit closes @f and renames the temporary over
 * @path: 0, or -1 with a message when anything failed to be written
 * (the temporary removed, @path left as it was).
 */
FILE *pap_target_begin(const char *path, const char *who, char *tmp,
		       size_t tmplen, int *off);
int pap_target_commit(FILE *f, const char *tmp, const char *path,
		      const char *who);

/*
 * Expands PAP_PROFILE's patterns in @pattern into @out (@size bytes):
 * %p the process id, %h the host name, %Nm one of a pool of N files
 * (N from 1 to 9, %m is %1m; the process takes pool member pid mod N,
 * written as that number), %% a percent sign; any other % stays as it
 * is.  0, or -1 when the result does not fit.
 */
int pap_target_expand(const char *pattern, char *out, size_t size);

#ifdef __cplusplus
}
#endif

#endif
