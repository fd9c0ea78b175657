/* SPDX-License-Identifier: MIT */
/*
 * pathspec.h - path spec files: paths of interest, named for selective
 * profiling.  pap-decode writes them (--write-spec), the reader below
 * takes them back.
 *
 * Format (text, version 1; doc/reports.md):
 *   pap-spec 1               (1.N: a later minor version)
 *   path ASMNAME CHECKSUM COUNT BLOCK...
 *   # a comment
 * CHECKSUM is the function's metadata checksum (16 hex digits), COUNT how
 * often the path ran where it was taken from, BLOCK... the whole path as
 * GCC's block numbers in execution order.  A reader of version 1 ignores
 * the line kinds it does not know in a file of a later minor version.
 */
#ifndef PAP_CORE_PATHSPEC_H
#define PAP_CORE_PATHSPEC_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PAP_SPEC_MAGIC "pap-spec "
#define PAP_SPEC_VERSION 1

struct pap_spec_path {
	char *name;		/* assembler name */
	uint64_t checksum;
	uint64_t count;
	uint32_t *blocks;	/* GCC's block numbers, in execution order */
	size_t nblocks;
	unsigned line;		/* where the file says it */
};

struct pap_spec {
	struct pap_spec_path *paths;	/* in the files' order */
	size_t npaths, cap;
};

void pap_spec_init(struct pap_spec *s);
void pap_spec_free(struct pap_spec *s);

/*
 * Adds the paths of spec text @text (named @file in messages) to @s.  On
 * malformed input nothing is added and @err gets "FILE:LINE: error: ...";
 * PAP_ECORRUPT, PAP_ENOMEM or PAP_OK.
 */
int pap_spec_parse(struct pap_spec *s, const char *text, const char *file,
		   char *err, size_t errlen);

/* Writes a spec file's first line; 0 or -1. */
int pap_spec_put_header(FILE *f);
/*
 * Writes the head of a path line, "path NAME CHECKSUM COUNT", for the
 * caller to finish with " BLOCK" for each block and a newline; 0 or -1.
 */
int pap_spec_put_path_head(FILE *f, const char *name, uint64_t checksum,
			   uint64_t count);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_PATHSPEC_H */
