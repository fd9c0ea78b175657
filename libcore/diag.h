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

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_DIAG_H */
