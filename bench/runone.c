/* SPDX-License-Identifier: MIT */
/*
 * runone - runs one command and reports its wall time and peak RSS.
 *
 *   runone [-i INFILE] [-t SECONDS] [-m MB] OUTFILE COMMAND [ARG...]
 *
 * The command reads INFILE (default: runone's standard input) and its
 * standard output goes to OUTFILE.  On success prints "SECONDS MAXRSS_KB
 * CPU_SECONDS" on standard output (wall time; the largest peak RSS of the
 * command and the children it waited for; their user + system time) and
 * exits 0.  A command still running after -t SECONDS is killed (SIGALRM,
 * armed before exec): then prints "timeout" and the three figures up to
 * then, and exits 3.  -m limits the
 * command's address space (RLIMIT_AS), so that a runaway build cannot
 * take a shared machine's memory.  When the command
 * fails or cannot run, says why on standard error and exits 1.  Used by
 * bench/overhead.sh: fork/exec/wait4 keeps the shell out of the timing.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* User plus system time in @ru, in seconds. */
static double cpu_seconds(const struct rusage *ru)
{
	return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec * 1e-6 +
	       (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec * 1e-6;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	double t0, t1;
	const char *in = NULL;
	unsigned limit = 0;
	unsigned long mb = 0;
	pid_t pid;
	int fd, infd = -1, status;

	while (argc > 2 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-i"))
			in = argv[2];
		else if (!strcmp(argv[1], "-t"))
			limit = (unsigned)strtoul(argv[2], NULL, 10);
		else if (!strcmp(argv[1], "-m"))
			mb = strtoul(argv[2], NULL, 10);
		else
			break;
		argv += 2;
		argc -= 2;
	}
	if (argc < 3) {
		fprintf(stderr,
			"usage: runone [-i INFILE] [-t SECONDS] [-m MB] OUTFILE "
			"COMMAND [ARG...]\n");
		return 1;
	}
	if (in) {
		infd = open(in, O_RDONLY | O_CLOEXEC);
		if (infd < 0) {
			fprintf(stderr, "runone: %s: %s\n", in,
				strerror(errno));
			return 1;
		}
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "runone: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	t0 = now();
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "runone: fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		dup2(fd, 1);
		if (infd >= 0)
			dup2(infd, 0);
		if (limit)
			alarm(limit);
		if (mb) {
			struct rlimit rl;

			rl.rlim_cur = rl.rlim_max = (rlim_t)mb << 20;
			setrlimit(RLIMIT_AS, &rl);
		}
		execvp(argv[2], argv + 2);
		fprintf(stderr, "runone: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		fprintf(stderr, "runone: wait4: %s\n", strerror(errno));
		return 1;
	}
	t1 = now();
	if (limit && WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) {
		printf("timeout %.6f %ld %.6f\n", t1 - t0, ru.ru_maxrss,
		       cpu_seconds(&ru));
		return 3;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "runone: %s: %s %d\n", argv[2],
			WIFEXITED(status) ? "exit status" : "killed by signal",
			WIFEXITED(status) ? WEXITSTATUS(status) :
					    WTERMSIG(status));
		return 1;
	}
	printf("%.6f %ld %.6f\n", t1 - t0, ru.ru_maxrss, cpu_seconds(&ru));
	return 0;
}
