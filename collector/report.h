/* SPDX-License-Identifier: MIT */
/*
 * report.h - pap-collector --report: the collected profile decoded by
 * pap-decode once the command has ended.
 */
#ifndef PAP_COLLECTOR_REPORT_H
#define PAP_COLLECTOR_REPORT_H

#include <stddef.h>

/* --report-opt options at most */
#define COL_REPORT_MAX_OPTS 64

struct col_report {
	const char *format;	/* text, json or html; NULL: no report */
	const char *out;	/* text and json: a file (NULL: stdout);
				 * html: the directory (NULL: pap-report) */
	const char **opts;	/* more of pap-decode's options */
	size_t nopts;
};

/* Is @fmt a report format (text, json, html)? */
int col_report_format_ok(const char *fmt);

/*
 * Runs pap-decode on @profile for @rep and waits for it: 0 when it
 * succeeded; otherwise -1 after a message on stderr that names the
 * report and says the profile is written.
 */
int col_report(const char *prog, const struct col_report *rep,
	       const char *profile);

#endif /* PAP_COLLECTOR_REPORT_H */
