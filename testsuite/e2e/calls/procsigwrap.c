/* SPDX-License-Identifier: MIT */
/*
 * procsigwrap.c - procsig.c's signal handler, compiled without pap and
 * without -finstrument-functions: it tells the oracle (cygoracle.c) that
 * the instrumented part it calls interrupted instrumented code (the
 * loop), or calls it inline (raise).
 */
#include <errno.h>

extern volatile int sig_mode;
extern volatile unsigned long sig_count;
void handler_body(unsigned depth);
void oracle_sig_begin(void);
void oracle_sig_end(void);

void on_signal(int sig)
{
	int e = errno;

	(void)sig;
	if (sig_mode == 1) {
		oracle_sig_begin();
		handler_body((unsigned)(sig_count++ % 3));
		oracle_sig_end();
	} else if (sig_mode == 2) {
		handler_body(1);
	}
	errno = e;
}
