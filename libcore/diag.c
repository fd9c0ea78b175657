/* SPDX-License-Identifier: MIT */
/*
 * diag.c - error messages in GCC's style.
 */
#include <stdarg.h>
#include <stdio.h>

#include "diag.h"

int pap_diag(int code, char *err, size_t errlen, const char *file,
	     unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s:%u: error: ", file, line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return code;
}
