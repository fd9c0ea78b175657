/* SPDX-License-Identifier: MIT */
/*
 * textfile.c - reading whole text files safely.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "textfile.h"

char *pap_read_fd(int fd, size_t max, size_t *lenp)
{
	size_t len = 0, cap = 65536;
	char *buf = malloc(cap);
	ssize_t n;

	while (buf) {
		if (len + 1 == cap) {
			char *nb;

			if (cap > max) {
				errno = EFBIG;
				break;
			}
			nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (n == 0) {
			if (len > max) {
				errno = EFBIG;
				break;
			}
			buf[len] = 0;
			*lenp = len;
			return buf;
		}
		len += (size_t)n;
	}
	free(buf);
	return NULL;
}

char *pap_read_text_file(const char *path, size_t max, char *err,
			 size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len;
	char *text;

	if (fd < 0) {
		snprintf(err, errlen, "%s: error: %s", path, strerror(errno));
		return NULL;
	}
	text = pap_read_fd(fd, max, &len);
	if (!text) {
		snprintf(err, errlen, "%s: error: %s", path,
			 errno == EFBIG ? "file too large" : strerror(errno));
		close(fd);
		return NULL;
	}
	close(fd);
	if (strlen(text) != len) {
		snprintf(err, errlen, "%s: error: not a text file", path);
		free(text);
		return NULL;
	}
	return text;
}
