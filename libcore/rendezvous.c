/* SPDX-License-Identifier: MIT */
/*
 * rendezvous.c - the collector's rendezvous entries (rendezvous.h).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rendezvous.h"

#define PAP_RV_HEADER "pap-rendezvous 1\n"

const char *pap_rv_dir(char *buf, size_t size)
{
	const char *dir = getenv("PAP_RENDEZVOUS_DIR");

	if (dir && *dir)
		return dir;
	snprintf(buf, size, "/tmp/pap-rendezvous-%u", (unsigned)geteuid());
	return buf;
}

int pap_rv_private(const struct stat *st, int dir)
{
	return (dir ? S_ISDIR(st->st_mode) : S_ISREG(st->st_mode)) &&
	       st->st_uid == geteuid() && !(st->st_mode & 077);
}

int pap_proc_stat(long pid, long *ppid, unsigned long long *start)
{
	char path[64], buf[1024], *p;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* the command name may hold spaces and parentheses: it ends at
	 * the last ')' */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return -1;
	p += 2;			/* field 3, the state */
	for (i = 3; i < 22; i++) {
		if (i == 4 && ppid)
			*ppid = strtol(p, NULL, 10);
		p = strchr(p, ' ');
		if (!p)
			return -1;
		p++;
	}
	*start = strtoull(p, NULL, 10);
	return 0;
}

int pap_rv_parse(char *text, struct pap_rv_entry *e)
{
	char *sock, *prof, *end;
	int n = 0;

	if (sscanf(text, PAP_RV_HEADER "collector %ld %llu\nanchor %ld "
		   "%llu\nlossy %d\nsocket %n", &e->collector,
		   &e->collector_start, &e->anchor, &e->anchor_start,
		   &e->lossy, &n) != 5 || !n)
		return -1;
	sock = text + n;
	end = strchr(sock, '\n');
	if (!end || strncmp(end + 1, "profile ", 8))
		return -1;
	*end = 0;
	prof = end + 9;
	end = strchr(prof, '\n');
	if (!end || end[1])
		return -1;
	*end = 0;
	if (sock[0] != '/' || prof[0] != '/')
		return -1;
	e->socket = sock;
	e->profile = prof;
	return 0;
}

int pap_rv_format(char *buf, size_t size, const struct pap_rv_entry *e)
{
	if (strchr(e->socket, '\n') || strchr(e->profile, '\n'))
		return -1;
	return snprintf(buf, size, PAP_RV_HEADER "collector %ld %llu\n"
			"anchor %ld %llu\nlossy %d\nsocket %s\nprofile %s\n",
			e->collector, e->collector_start, e->anchor,
			e->anchor_start, e->lossy != 0, e->socket,
			e->profile);
}

int pap_rv_profile_note(const char *sock, char *buf, size_t size)
{
	const char *slash = strrchr(sock, '/');
	int n;

	if (slash)
		n = snprintf(buf, size, "%.*s/.%s.profile",
			     (int)(slash - sock), sock, slash + 1);
	else
		n = snprintf(buf, size, ".%s.profile", sock);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}
