/* SPDX-License-Identifier: MIT */
/*
 * pap-collector.c - one profile from many instrumented processes.
 *
 *   pap-collector -o FILE [--name NAME] [-- COMMAND ARGS...]
 *
 * Listens on a Unix socket (PAP_COLLECTOR tells producers where), gives
 * each producer thread a ring in shared memory, drains the rings into one
 * deduplicated profile and, at the end, merges it into FILE the way the
 * runtime's file sink does.  With a command, runs it with PAP_COLLECTOR
 * set and ends when it does, with its status; without, runs until SIGINT
 * or SIGTERM.  SIGUSR1 writes a snapshot to FILE.snap.  With a command
 * (or --rendezvous), advertises itself to the processes it started that
 * lost PAP_COLLECTOR (rendezvous.c).  With --report, pap-decode reads
 * FILE once it is written (report.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pap/version.h>

#include "collector.h"
#include "diag.h"
#include "rendezvous.h"
#include "report.h"
#include "target.h"
#include "util.h"

static const char *prog = "pap-collector";

/* The exit status when pap-collector itself failed, told apart from its
 * command's (as env(1) and timeout(1) do). */
#define COL_EXIT_FAILED 125

static void usage(FILE *f)
{
	fprintf(f,
"Usage: %s -o FILE [OPTION]... [-- COMMAND [ARG]...]\n"
"Collect the paths of every instrumented process into one profile.\n"
"\n"
"With COMMAND, runs it with PAP_COLLECTOR set in its environment, so that\n"
"it and every instrumented process it starts stream their records here;\n"
"when it ends, drains what is left, merges the profile into FILE and exits\n"
"with COMMAND's status.  Without COMMAND, prints the PAP_COLLECTOR setting\n"
"for other shells and runs until SIGINT or SIGTERM.  SIGUSR1 writes what\n"
"was collected so far to FILE.snap.\n"
"\n"
"  -o, --output=FILE    the profile to merge into (required)\n"
"  -n, --name=NAME      the socket's name ([A-Za-z0-9._-], default: the\n"
"                       collector's pid); it lives in\n"
"                       ${TMPDIR:-/tmp}/pap-collector-UID/, mode 0700\n"
"      --lossy          producers drop records on a full ring, counting\n"
"                       them, instead of waiting and keeping them\n"
"      --ring-words=N   ring size per producer thread, in 8-byte words\n"
"                       (a power of two, default 65536)\n"
"      --slots=N        records each producer thread counts in place\n"
"                       before they go through its ring (0 or a power\n"
"                       of two up to 65536, default 4096; 0 sends every\n"
"                       record through the ring)\n"
"      --max-records=N  distinct records kept at most (default 4194304);\n"
"                       more are counted as lost\n"
"      --spill=BYTES    once the records held take more (k, M or G;\n"
"                       default 4M; 0: never), append them to FILE and\n"
"                       start again: memory stays bounded\n"
"      --rendezvous     advertise this collector in /tmp/pap-rendezvous-UID/\n"
"                       to the processes it started whose environment was\n"
"                       cleared (env -i): with COMMAND, the default, to\n"
"                       COMMAND and its descendants (the collector also\n"
"                       adopts those whose parent dies); without COMMAND,\n"
"                       to the descendants of the collector's parent\n"
"                       process (the shell that started it)\n"
"      --no-rendezvous  do not advertise: a process without PAP_COLLECTOR\n"
"                       and PAP_PROFILE writes ./pap.prof itself\n"
"      --report=FMT     once FILE is written, decode it: text or json on\n"
"                       stdout (after COMMAND's output), or html into\n"
"                       the directory pap-report\n"
"      --report-out=PATH  the text or json report's file, or the html\n"
"                       report's directory\n"
"      --report-opt=OPT   pass OPT to pap-decode (e.g. --top=5,\n"
"                       --function=REGEX, --meta=DIR); may be repeated\n"
"  -v, --verbose        print what was collected and lost at the end\n"
"  -h, --help           show this help and exit\n"
"  -V, --version        show the version and exit\n"
"\n"
"Exit status: COMMAND's (128+N if signal N ended it), or 0; 2 on bad\n"
"usage; 125 when pap-collector failed: FILE cannot be written (checked\n"
"before COMMAND starts, which it then never does) or was not written at\n"
"the end (the message gives COMMAND's status), the report failed (FILE\n"
"is written all the same), or it could not start.\n",
		prog);
}

/* Is @name a name that stays inside the collector's directory? */
static int name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64 || name[0] == '.')
		return 0;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789._-") == n;
}

/* Creates (or checks) the private directory and returns the socket path. */
static int socket_path(const char *name, char *path, size_t len)
{
	const char *base = getenv("TMPDIR");
	char dir[PATH_MAX];
	struct stat st;

	if (!base || !*base)
		base = "/tmp";
	if (snprintf(dir, sizeof(dir), "%s/pap-collector-%u", base,
		     (unsigned)geteuid()) >= (int)sizeof(dir))
		return -1;
	if (mkdir(dir, 0700) && errno != EEXIST) {
		fprintf(stderr, "%s: %s: %s\n", prog, dir, strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid() || (st.st_mode & 077)) {
		fprintf(stderr, "%s: %s: error: not a private directory of "
			"this user (mode 0700)\n", prog, dir);
		return -1;
	}
	if (snprintf(path, len, "%s/%s", dir, name) >= (int)len) {
		fprintf(stderr, "%s: %s/%s: error: socket path too long\n",
			prog, dir, name);
		return -1;
	}
	return 0;
}

/* Binds a 0600 listening socket at @path; a stale one is replaced, a
 * live collector of the same name is an error.  The socket is made
 * under a temporary name and renamed to @path once it listens, so a
 * producer that finds @path never meets a socket that refuses it. */
static int listen_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char tmp[sizeof(sa.sun_path)];
	mode_t old;
	int s, t, n;

	strcpy(sa.sun_path, path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	t = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (t >= 0 && !connect(t, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "%s: %s: error: a collector of that name is "
			"running\n", prog, path);
		close(t);
		close(s);
		return -1;
	}
	if (t >= 0)
		close(t);
	n = snprintf(tmp, sizeof(tmp), "%s.%ld", path, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof(tmp))
		strcpy(tmp, path);	/* no room: bound in place */
	unlink(tmp);
	strcpy(sa.sun_path, tmp);
	old = umask(0177);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) || chmod(tmp, 0600) ||
	    listen(s, 256) || (strcmp(tmp, path) && rename(tmp, path))) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		if (strcmp(tmp, path))
			unlink(tmp);
		umask(old);
		close(s);
		return -1;
	}
	umask(old);
	return s;
}

static int absolute(const char *file, char *out, size_t len)
{
	char cwd[PATH_MAX];

	if (file[0] == '/')
		return snprintf(out, len, "%s", file) >= (int)len ? -1 : 0;
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	return snprintf(out, len, "%s/%s", cwd, file) >= (int)len ? -1 : 0;
}

/*
 * Leaves beside the socket @sock the note that gives producers which
 * have PAP_COLLECTOR but no PAP_PROFILE this collector's output @file
 * (pap_rv_profile_note), its name into @note; -1 (said) when it cannot.
 */
static int write_profile_note(const char *sock, const char *file,
			      char *note, size_t len)
{
	size_t n = strlen(file);
	int fd;

	if (pap_rv_profile_note(sock, note, len)) {
		*note = 0;
		return -1;
	}
	fd = open(note, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
		  O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, file, n) != (ssize_t)n || close(fd)) {
		fprintf(stderr, "%s: warning: %s: %s; producers without "
			"PAP_PROFILE write ./pap.prof themselves when they "
			"cannot hand their records over\n", prog, note,
			strerror(errno));
		if (fd >= 0)
			unlink(note);
		*note = 0;
		return -1;
	}
	return 0;
}

static pid_t start_command(char **argv, const sigset_t *old, const char *sock,
			   const char *file, int lossy)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	sigprocmask(SIG_SETMASK, old, NULL);
	signal(SIGPIPE, SIG_DFL);
	setenv("PAP_COLLECTOR", sock, 1);
	setenv("PAP_PROFILE", file, 1);
	if (lossy)
		setenv("PAP_COLLECTOR_LOSSY", "1", 1);
	else
		unsetenv("PAP_COLLECTOR_LOSSY");
	execvp(argv[0], argv);
	fprintf(stderr, "%s: %s: %s\n", prog, argv[0], strerror(errno));
	_exit(127);
}

/* This process's peak resident memory, in KiB. */
static long peak_rss_kib(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss;
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000ll + t.tv_nsec / 1000000;
}

/* Has producer @p's connection ended? */
static int gone(int sock)
{
	char c;
	ssize_t n = recv(sock, &c, 1, MSG_DONTWAIT);

	return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
			  errno != EINTR);
}

struct run {
	struct collector c;
	int lsock, sfd;
	pid_t cmd;
	int status, cmd_done, stop;
	int reaper;		/* a subreaper: orphaned descendants are ours */
	const char *file, *snap;
};

/* Has this process children left (live ones, or zombies not yet
 * waited for)? */
static int have_children(void)
{
	siginfo_t si;

	return !waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT);
}

static void on_signals(struct run *r)
{
	struct signalfd_siginfo si;
	pid_t pid;
	int st;

	while (read(r->sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			/* the command, and orphans we adopted as a subreaper,
			 * whose status nobody wants */
			while ((pid = waitpid(r->reaper ? -1 : r->cmd, &st,
					      WNOHANG)) > 0) {
				if (pid != r->cmd)
					continue;
				r->cmd_done = 1;
				r->status = WIFEXITED(st) ? WEXITSTATUS(st) :
					    128 + WTERMSIG(st);
				r->cmd = 0;
				if (!r->reaper)
					break;
			}
			break;
		case SIGUSR1:
			if (col_snapshot(&r->c, r->snap))
				fprintf(stderr, "%s: %s: cannot write the "
					"snapshot\n", prog, r->snap);
			break;
		default:	/* SIGINT, SIGTERM */
			if (r->cmd > 0)
				kill(r->cmd, (int)si.ssi_signo);
			else
				r->stop = 1;
		}
	}
}

/* Serves producers until the command ends (and they with it) or a stop
 * signal comes; then accepts the last connections. */
/*
 * How long to wait before draining again, in ns, after a drain that took
 * @n records from rings of @nwords words each.  Busy: come back soon, but
 * not at once: a drain that found little (under a sixteenth of a ring's
 * words in records) lets the rings fill a while, so that producers keep
 * writing lines and head words the collector is not reading at that very
 * moment.  Idle (*@idle drains in a row found under a 256th of a ring's
 * words): back off to 100 us, then, after 256 of them, to 2 ms.  Slots
 * keep most records out of the rings, so a trickle of ring records is
 * common and does not keep the collector awake: each wake-up costs CPU
 * time (about 15 us in a virtual machine).  A ring that fills meanwhile
 * makes its producer wait, bounded, as a full ring always does; signals
 * and producers arriving or leaving wake the collector at once.
 */
static long col_pause_ns(uint64_t n, uint64_t nwords, unsigned *idle)
{
	if (n >= nwords / 256) {
		*idle = 0;
		return n < nwords / 16 ? 100000 : 0;
	}
	if (++*idle <= 8)
		return 0;
	return *idle > 256 ? 2000000 : 100000;
}

static void serve(struct run *r)
{
	struct pollfd *pf = NULL;
	size_t cap = 0, i;
	long long done_at = 0;
	unsigned idle = 0;

	for (;;) {
		uint64_t n = col_drain(&r->c);
		struct timespec wait = { 0, col_pause_ns(n, r->c.nwords,
							 &idle) };

		if (cap < r->c.nprods + 2) {
			cap = (r->c.nprods + 2) * 2;
			free(pf);
			pf = calloc(cap, sizeof(*pf));
			if (!pf) {
				fprintf(stderr, "%s: out of memory\n", prog);
				return;
			}
		}
		pf[0].fd = r->sfd;
		pf[0].events = POLLIN;
		pf[1].fd = r->lsock;
		pf[1].events = POLLIN;
		for (i = 0; i < r->c.nprods; i++) {
			pf[i + 2].fd = r->c.prods[i]->sock;
			pf[i + 2].events = POLLIN | POLLRDHUP;
			pf[i + 2].revents = 0;
		}
		if (!wait.tv_nsec)
			sched_yield();
		if (ppoll(pf, r->c.nprods + 2, &wait, NULL) < 0 &&
		    errno != EINTR)
			break;
		if (pf[0].revents)
			on_signals(r);
		for (i = r->c.nprods; i-- > 0;)
			if (pf[i + 2].revents && gone(r->c.prods[i]->sock))
				col_reclaim(&r->c, i);
		if (pf[1].revents & POLLIN)
			col_accept(&r->c, r->lsock);
		if (r->stop)
			break;
		if (r->cmd_done) {
			/* descendants may still be finishing: a little while;
			 * as a subreaper, orphans that have not connected yet
			 * are waited for too */
			if (!done_at)
				done_at = now_ms();
			if ((!r->c.nprods && !(r->reaper && have_children())) ||
			    now_ms() - done_at > 2000)
				break;
		}
	}
	free(pf);
	/* connections already queued get their ring and the final drain */
	for (;;) {
		struct pollfd p = { .fd = r->lsock, .events = POLLIN };

		if (poll(&p, 1, 0) <= 0 || col_accept(&r->c, r->lsock))
			break;
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "name", required_argument, NULL, 'n' },
		{ "lossy", no_argument, NULL, 'L' },
		{ "ring-words", required_argument, NULL, 'R' },
		{ "slots", required_argument, NULL, 'S' },
		{ "max-records", required_argument, NULL, 'M' },
		{ "spill", required_argument, NULL, 'P' },
		{ "rendezvous", no_argument, NULL, 'A' },
		{ "no-rendezvous", no_argument, NULL, 'N' },
		{ "report", required_argument, NULL, 'r' },
		{ "report-out", required_argument, NULL, 'O' },
		{ "report-opt", required_argument, NULL, 'X' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	char file[PATH_MAX], snap[PATH_MAX + 8], note[PATH_MAX] = "",
	     sock[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char namebuf[32];
	const char *out = NULL, *name = NULL;
	unsigned long long nwords = 65536, maxrecs = 1u << 22, nslots = 4096;
	size_t spill = COL_SPILL_DEFAULT;
	int c, lossy = 0, verbose = 0, rc, rendezvous = -1;
	struct col_rv rv = { 0, -1, 0, "" };
	const char *report_opts[COL_REPORT_MAX_OPTS];
	struct col_report rep = { NULL, NULL, report_opts, 0 };
	struct run r;
	sigset_t set, old;
	char *end;

	memset(&r, 0, sizeof(r));
	while ((c = getopt_long(argc, argv, "+o:n:vhV", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'n':
			name = optarg;
			break;
		case 'L':
			lossy = 1;
			break;
		case 'R':
			nwords = strtoull(optarg, &end, 10);
			if (*end || nwords < 64 || nwords > (1u << 26) ||
			    (nwords & (nwords - 1))) {
				fprintf(stderr, "%s: error: --ring-words must be "
					"a power of two from 64 to 2^26\n", prog);
				return pap_usage_error(prog);
			}
			break;
		case 'S':
			nslots = strtoull(optarg, &end, 10);
			if (*end || !*optarg || nslots > PAP_SHM_MAX_SLOTS ||
			    (nslots & (nslots - 1))) {
				fprintf(stderr, "%s: error: --slots must be 0 "
					"or a power of two up to %u\n", prog,
					PAP_SHM_MAX_SLOTS);
				return pap_usage_error(prog);
			}
			break;
		case 'P':
			if (pap_parse_bytes(optarg, &spill)) {
				fprintf(stderr, "%s: error: bad --spill '%s' "
					"(a number of bytes, like 16M)\n",
					prog, optarg);
				return pap_usage_error(prog);
			}
			break;
		case 'M':
			maxrecs = strtoull(optarg, &end, 10);
			if (*end || !maxrecs || maxrecs > UINT32_MAX - 1) {
				fprintf(stderr, "%s: error: bad --max-records "
					"'%s'\n", prog, optarg);
				return pap_usage_error(prog);
			}
			break;
		case 'A':
			rendezvous = 1;
			break;
		case 'N':
			rendezvous = 0;
			break;
		case 'r':
			if (!col_report_format_ok(optarg)) {
				fprintf(stderr, "%s: error: unknown report "
					"format '%s' (text, json or html)\n",
					prog, optarg);
				return pap_usage_error(prog);
			}
			rep.format = optarg;
			break;
		case 'O':
			rep.out = optarg;
			break;
		case 'X':
			if (rep.nopts == COL_REPORT_MAX_OPTS) {
				fprintf(stderr, "%s: error: more than %d "
					"--report-opt\n", prog,
					COL_REPORT_MAX_OPTS);
				return pap_usage_error(prog);
			}
			report_opts[rep.nopts++] = optarg;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'h':
			usage(stdout);
			return pap_close_stdout(prog);
		case 'V':
			printf("pap-collector (pap) %s\n", PAP_VERSION_STRING);
			return pap_close_stdout(prog);
		default:	/* getopt said what */
			return pap_usage_error(prog);
		}
	}
	if (!out) {
		fprintf(stderr, "%s: error: no output file (-o FILE)\n", prog);
		return pap_usage_error(prog);
	}
	if ((rep.out || rep.nopts) && !rep.format) {
		fprintf(stderr, "%s: error: --report-out and --report-opt need "
			"--report\n", prog);
		return pap_usage_error(prog);
	}
	if (rep.format && pap_target_off(out)) {
		fprintf(stderr, "%s: error: --report needs a profile to read: "
			"%s keeps none\n", prog, out);
		return pap_usage_error(prog);
	}
	if (!name) {
		snprintf(namebuf, sizeof(namebuf), "%ld", (long)getpid());
		name = namebuf;
	}
	if (!name_ok(name)) {
		fprintf(stderr, "%s: error: bad name '%s': use 1 to 64 of "
			"[A-Za-z0-9._-], not starting with '.'\n", prog, name);
		return pap_usage_error(prog);
	}
	if (absolute(out, file, sizeof(file))) {
		fprintf(stderr, "%s: %s: error: path too long\n", prog, out);
		return pap_usage_error(prog);
	}
	snprintf(snap, sizeof(snap), "%s.snap", file);
	/* never a whole run for nothing: FILE is checked first */
	if (pap_profile_can_merge(file, prog)) {
		fprintf(stderr, "%s: error: %s: the profile could not be "
			"written; %s\n", prog, out, optind < argc ?
			"the command is not started" : "not started");
		return COL_EXIT_FAILED;
	}
	if (socket_path(name, sock, sizeof(sock)))
		return COL_EXIT_FAILED;
	if (col_init(&r.c, nwords, (uint32_t)nslots, (size_t)maxrecs)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return COL_EXIT_FAILED;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	signal(SIGPIPE, SIG_IGN);
	prctl(PR_SET_TIMERSLACK, 1000UL);	/* short sleeps stay short */
	r.sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	r.lsock = listen_at(sock);
	if (r.sfd < 0 || r.lsock < 0) {
		col_free(&r.c);
		return COL_EXIT_FAILED;
	}
	r.file = file;
	if (!pap_target_off(file)) {
		r.c.file = file;
		r.c.spill_at = spill;
	}
	/* output off (-o /dev/null): nothing beside it either */
	r.snap = pap_target_off(file) ? "" : snap;
	write_profile_note(sock, file, note, sizeof(note));
	if (!pap_target_off(file) && col_pending_open(&r.c, file))
		fprintf(stderr, "%s: %s.pending.%ld: cannot create (%s): if "
			"this collector is killed, what it drained is lost "
			"without being counted\n", prog, file, (long)getpid(),
			strerror(errno));
	/* by default advertised for the command's sake, never for an
	 * unknown set of shells without one */
	if (rendezvous < 0)
		rendezvous = optind < argc;
	if (rendezvous && optind >= argc && getppid() == 1)
		fprintf(stderr, "%s: warning: no parent process to advertise "
			"this collector to; --rendezvous ignored\n", prog);
	else if (rendezvous &&
		 !col_rv_advertise(&rv, optind < argc ? (long)getpid() :
				   (long)getppid(), sock, file, lossy) &&
		 optind < argc)
		/* a descendant whose parent dies stays ours, and so in
		 * reach of the rendezvous */
		r.reaper = !prctl(PR_SET_CHILD_SUBREAPER, 1UL);
	if (optind < argc) {
		r.cmd = start_command(argv + optind, &old, sock, file, lossy);
		if (r.cmd < 0) {
			fprintf(stderr, "%s: fork: %s\n", prog, strerror(errno));
			unlink(sock);
			if (*note)
				unlink(note);
			col_rv_withdraw(&rv);
			col_free(&r.c);
			return COL_EXIT_FAILED;
		}
	} else {
		printf("PAP_COLLECTOR=%s\n", sock);
		if (pap_close_stdout(prog))
			fprintf(stderr, "%s: warning: the PAP_COLLECTOR "
				"setting was not printed; the collector runs "
				"all the same\n", prog);
	}
	serve(&r);
	close(r.lsock);
	unlink(sock);
	rc = col_finish(&r.c, file);
	if (*note)
		unlink(note);
	/* only now: a process that looks the collector up meanwhile still
	 * learns FILE, and merges into it itself */
	col_rv_withdraw(&rv);
	if (verbose || r.c.prof.lost)
		fprintf(stderr, "%s: %llu producers (%llu refused), %llu records,"
			" %llu distinct; lost %llu: %llu dropped, %llu made "
			"by producers that died and never sent (%llu died "
			"inside a ring record), %llu rejected; peak RSS %ld "
			"KiB\n", prog,
			(unsigned long long)r.c.st.producers,
			(unsigned long long)r.c.st.refused,
			(unsigned long long)r.c.st.records,
			(unsigned long long)r.c.prof.nrecs,
			(unsigned long long)r.c.prof.lost,
			(unsigned long long)r.c.st.dropped,
			(unsigned long long)r.c.st.unsent,
			(unsigned long long)r.c.st.partial,
			(unsigned long long)r.c.st.rejected, peak_rss_kib());
	col_free(&r.c);
	if (rc) {
		if (optind < argc)
			fprintf(stderr, "%s: error: %s: the profile was not "
				"written; the command's exit status was %d\n",
				prog, file, r.status);
		return COL_EXIT_FAILED;
	}
	rc = rep.format ? col_report(prog, &rep, out) : 0;
	if (rc && optind < argc)
		fprintf(stderr, "%s: the command's exit status was %d\n", prog,
			r.status);
	return rc ? COL_EXIT_FAILED : r.status;
}
