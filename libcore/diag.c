/* SPDX-License-Identifier: MIT */
/*
 * diag.c - error messages in GCC's style.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "papdefs.h"

const char *pap_strerror(int err)
{
	switch (err) {
	case PAP_OK:
		return "success";
	case PAP_ENOMEM:
		return "out of memory";
	case PAP_EINVAL:
		return "invalid argument or malformed graph";
	case PAP_ECORRUPT:
		return "record stream does not match the plan";
	case PAP_ELIMIT:
		return "size limit exceeded";
	}
	return "unknown error";
}

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

int pap_usage_error(const char *prog)
{
	fprintf(stderr, "Try '%s --help' for more information.\n", prog);
	return PAP_EXIT_USAGE;
}

int pap_close_stdout(const char *prog)
{
	int e = 0;

	errno = 0;
	if (fflush(stdout) || ferror(stdout))
		e = errno ? errno : EIO;
	if (!e)
		return 0;
	fprintf(stderr, "%s: error: standard output: %s\n", prog,
		strerror(e));
	return 1;
}
