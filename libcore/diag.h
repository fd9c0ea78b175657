/* SPDX-License-Identifier: MIT */
/*
 * diag.h - error messages in GCC's style for pap's file readers.
 */
#ifndef PAP_CORE_DIAG_H
#define PAP_CORE_DIAG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Writes "FILE:LINE: error: MESSAGE" into @err (truncated to @errlen) and
 * returns @code, so a reader can `return pap_diag(...)`.
 */
int pap_diag(int code, char *err, size_t errlen, const char *file,
	     unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* The exit status of a usage error, in every pap tool. */
#define PAP_EXIT_USAGE 2

/*
 * Ends a usage error, whose one-line message is already said: "Try
 * '@prog --help' for more information." on stderr; PAP_EXIT_USAGE.
 */
int pap_usage_error(const char *prog);

/*
 * Flushes standard output and checks that everything written to it got
 * there: 0, or 1 with "PROG: error: standard output: REASON" on stderr
 * (a full disk, a closed pipe: a tool must not exit 0 then).
 */
int pap_close_stdout(const char *prog);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_DIAG_H */
