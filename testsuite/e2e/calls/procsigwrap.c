/* SPDX-License-Identifier: MIT */
/*
 * procsigwrap.c - procsig.c's signal handler, compiled without pap and
 * without -finstrument-functions: it tells the oracle (cygoracle.c) that
 * the instrumented part it calls interrupted instrumented code (the
 * loop), or calls it inline (raise).  It counts the handlers that run
 * inside another's (nested: each a sequence of its own).
 */
#include <errno.h>
#include <signal.h>

extern volatile int sig_mode;
extern volatile unsigned long sig_count, sig_nested;
static volatile int depth;
void handler_body(unsigned depth);
void handler_long(unsigned long n);
void oracle_sig_begin(void);
void oracle_sig_end(void);

void on_signal(int sig)
{
	int e = errno;

	if (sig_mode == 1) {
		if (depth++)
			sig_nested++;
		oracle_sig_begin();
		/* now and then a long one, for the other timer's
		 * handler to interrupt */
		if (sig == SIGALRM && sig_count % 64 == 0)
			handler_long(sig_count++ < 64 ? 2000 : 20000);
		else
			handler_body((unsigned)(sig_count++ % 3));
		oracle_sig_end();
		depth--;
	} else if (sig_mode == 2) {
		handler_body(1);
	}
	errno = e;
}
