/*
 * cworkload.c - a deterministic workload for the collector tests: each
 * mode runs work() a known number of times in threads, children, exec'd
 * images or spawned ones, and leaves in a known way.
 *
 *   cworkload threads T R     T threads, R calls each
 *   cworkload fork R          fork without exec: parent and child R each
 *   cworkload exec R          R, then exec "threads 1 R"
 *   cworkload spawn R         R, then posix_spawn "threads 2 R" and wait
 *   cworkload _exit R         R, then _exit(0)
 *   cworkload abort R         R, then SIGABRT
 *   cworkload pause R FILE    R, make FILE.ready, wait until FILE exists,
 *                             R more; then, if FILE.hold exists, make
 *                             FILE.held and wait to be killed
 *   cworkload churn T R       T threads started and ended one by one
 *   cworkload tpause T R FILE T threads: R calls, wait for FILE, R more
 *   cworkload tfork R         a second thread: R, fork, R in both; the
 *                             child's thread ends with pthread_exit
 *
 * With CW_FLAT set in the environment, each of those calls is to pick()
 * instead of work(): a function without loops, so its records carry no
 * breakpoint and are counted in the collector's slots, 10 distinct ones.
 */
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static volatile int sink;

static int work(int n)
{
	int s = 0, i;

	for (i = 0; i < n; i++)
		s += i % 3 ? i : -i;
	return s;
}

static int pick(int k, int i)
{
	switch (k) {
	case 0: return 3;
	case 1: return i & 16 ? 5 : 4;
	case 2: return 7;
	case 3: return i & 32 ? 1 : 2;
	case 4: return 11;
	case 5: return 13;
	case 6: return 17;
	default: return 19;
	}
}

static int flat;

static void run(int reps)
{
	int i;

	for (i = 0; i < reps; i++)
		sink += flat ? pick(i % 8, i) : work(i % 40);
}

static void *thread(void *arg)
{
	run((int)(long)arg);
	return NULL;
}

static const char *wait_file;
static int wait_reps;

static void *waiter(void *arg)
{
	(void)arg;
	run(wait_reps);
	while (access(wait_file, F_OK))
		usleep(2000);
	run(wait_reps);
	return NULL;
}

static void *forker(void *arg)
{
	int reps = (int)(long)arg;
	pid_t pid;

	run(reps);
	pid = fork();
	run(reps);
	if (pid == 0)
		pthread_exit(NULL);	/* the child's last thread */
	waitpid(pid, NULL, 0);
	return NULL;
}

static void threads(int t, int reps, int one_by_one)
{
	pthread_t th[64];
	int i;

	for (i = 0; i < t && i < 64; i++) {
		pthread_create(&th[i], NULL, thread, (void *)(long)reps);
		if (one_by_one)
			pthread_join(th[i], NULL);
	}
	if (!one_by_one)
		for (i = 0; i < t && i < 64; i++)
			pthread_join(th[i], NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "threads";
	int reps = argc > 2 ? atoi(argv[2]) : 100;
	char *args[5];
	pid_t pid;

	flat = getenv("CW_FLAT") != NULL;
	if (!strcmp(mode, "tfork")) {
		pthread_t th;

		pthread_create(&th, NULL, forker, (void *)(long)reps);
		pthread_join(th, NULL);
		return 0;
	}
	if (!strcmp(mode, "tpause") && argc > 4) {
		pthread_t th[64];
		int i, t = reps;

		wait_reps = atoi(argv[3]);
		wait_file = argv[4];
		for (i = 0; i < t && i < 64; i++)
			pthread_create(&th[i], NULL, waiter, NULL);
		for (i = 0; i < t && i < 64; i++)
			pthread_join(th[i], NULL);
		return 0;
	}
	if (!strcmp(mode, "threads") || !strcmp(mode, "churn")) {
		threads(reps, argc > 3 ? atoi(argv[3]) : 100, mode[0] == 'c');
		return 0;
	}
	run(reps);
	if (!strcmp(mode, "fork")) {
		pid = fork();
		run(reps);
		if (pid == 0)
			exit(0);
		waitpid(pid, NULL, 0);
	} else if (!strcmp(mode, "exec") || !strcmp(mode, "spawn")) {
		/* exec: "threads 1 R" in place; spawn: "threads 2 R" beside */
		args[0] = argv[0];
		args[1] = "threads";
		args[2] = mode[0] == 'e' ? "1" : "2";
		args[3] = argv[2];
		args[4] = NULL;
		if (mode[0] == 'e') {
			execv(argv[0], args);
			return 127;
		}
		if (posix_spawn(&pid, argv[0], NULL, NULL, args, environ))
			return 127;
		waitpid(pid, NULL, 0);
	} else if (!strcmp(mode, "_exit")) {
		_exit(0);
	} else if (!strcmp(mode, "abort")) {
		signal(SIGABRT, SIG_DFL);
		raise(SIGABRT);
	} else if (!strcmp(mode, "pause") && argc > 3) {
		char ready[4096];
		FILE *f;

		snprintf(ready, sizeof(ready), "%s.ready", argv[3]);
		f = fopen(ready, "w");
		if (f)
			fclose(f);
		while (access(argv[3], F_OK))
			usleep(2000);
		run(reps);
		snprintf(ready, sizeof(ready), "%s.hold", argv[3]);
		if (!access(ready, F_OK)) {
			/* stay, holding what a full ring refused, until killed */
			snprintf(ready, sizeof(ready), "%s.held", argv[3]);
			f = fopen(ready, "w");
			if (f)
				fclose(f);
			for (;;)
				pause();
		}
	}
	return 0;
}
