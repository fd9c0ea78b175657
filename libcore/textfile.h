/* SPDX-License-Identifier: MIT */
/*
 * textfile.h - reading whole text files safely (internal to pap's tools
 * and runtime).
 */
#ifndef PAP_CORE_TEXTFILE_H
#define PAP_CORE_TEXTFILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* All of @fd, NUL-terminated, its length in *@len; NULL on a read error,
 * on more than @max bytes, or out of memory (errno says which). */
char *pap_read_fd(int fd, size_t max, size_t *len);

/*
 * All of file @path as a NUL-terminated string; NULL with
 * "PATH: error: ..." in @err when it cannot be read, is larger than @max
 * or holds a NUL byte.
 */
char *pap_read_text_file(const char *path, size_t max, char *err,
			 size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_TEXTFILE_H */
