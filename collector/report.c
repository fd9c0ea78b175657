/* SPDX-License-Identifier: MIT */
/*
 * report.c - pap-collector's report: once the command has ended and the
 * profile is written, pap-decode reads it, as a person would run it, so
 * that one decoder serves both (pap-collector --report).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

/* Is @path an executable file? */
static int executable(const char *path)
{
	return !access(path, X_OK);
}

/*
 * pap-decode's path into @buf: $PAP_DECODE; else the one beside this
 * program (installed together), or in the build tree's decoder/; else
 * the configured bindir's; else "pap-decode", looked up in PATH.
 */
static const char *decoder_path(char *buf, size_t size)
{
	const char *env = getenv("PAP_DECODE");
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			snprintf(buf, size, "%s/pap-decode", self);
			if (executable(buf))
				return buf;
			snprintf(buf, size, "%s/../decoder/pap-decode", self);
			if (executable(buf))
				return buf;
		}
	}
#ifdef PAP_BINDIR
	snprintf(buf, size, "%s/pap-decode", PAP_BINDIR);
	if (executable(buf))
		return buf;
#endif
	return "pap-decode";
}

int col_report_format_ok(const char *fmt)
{
	return !strcmp(fmt, "text") || !strcmp(fmt, "json") ||
	       !strcmp(fmt, "html");
}

int col_report(const char *prog, const struct col_report *rep,
	       const char *profile)
{
	char dec[PATH_MAX + 32], html[PATH_MAX + 8];
	const char **argv;
	size_t i, n = 0;
	pid_t pid;
	int status;

	argv = calloc(rep->nopts + 8, sizeof(*argv));
	if (!argv) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return -1;
	}
	argv[n++] = decoder_path(dec, sizeof(dec));
	if (!strcmp(rep->format, "json"))
		argv[n++] = "--format=json";
	if (!strcmp(rep->format, "html")) {
		snprintf(html, sizeof(html), "--html=%s",
			 rep->out ? rep->out : "pap-report");
		argv[n++] = html;
	}
	for (i = 0; i < rep->nopts; i++)
		argv[n++] = rep->opts[i];
	argv[n++] = "--";
	argv[n++] = profile;
	argv[n] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", prog, strerror(errno));
		free(argv);
		return -1;
	}
	if (pid == 0) {
		if (rep->out && strcmp(rep->format, "html") &&
		    !freopen(rep->out, "w", stdout)) {
			fprintf(stderr, "%s: %s: error: cannot write the "
				"report: %s\n", prog, rep->out,
				strerror(errno));
			_exit(126);
		}
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "%s: %s: error: cannot run: %s\n", prog,
			argv[0], strerror(errno));
		_exit(127);
	}
	free(argv);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "%s: waitpid: %s\n", prog,
				strerror(errno));
			return -1;
		}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	fprintf(stderr, "%s: error: the %s report of %s failed (pap-decode "
		"%s %d); the profile is written\n", prog, rep->format,
		profile, WIFEXITED(status) ? "exited with" : "killed by signal",
		WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return -1;
}
