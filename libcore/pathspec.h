/* SPDX-License-Identifier: MIT */
/*
 * pathspec.h - path spec files: paths of interest, named for selective
 * profiling.  pap-decode writes them (--write-spec) and checks them
 * (check-spec); the plugin is to read them with the same calls, to
 * instrument for those paths only.
 *
 * Format (text, version 2; doc/reports.md, "Path spec files"):
 *   pap-spec 2                        (2.N: a later minor version)
 *   path [FILE:]ASMNAME [checksum=HEX] [count=N] BLOCK...
 *   lines [FILE:]ASMNAME [checksum=HEX] LINE...
 *   calls [count=N] NAME...           (2.1: a call sequence of interest)
 *   # a comment, from '#' to the end of the line
 * BLOCK... is a whole path as the reports print it: block numbers, each
 * with or without its source lines ("6[10,11]", which must then be the
 * block's), and "( ... )^N" for N times what the parentheses hold
 * (nested as deep as wanted), so a path pasted from the text report is
 * read as it stands.  LINE... names the path by its source lines
 * instead: the one block path whose lines, as the report lists them
 * (consecutive equal lines once), are these; "( ... )^N" repeats them
 * the same way.  FILE: tells apart static functions of one name in
 * different files (a suffix of the function's source path at a '/').
 * The checksum, when given, pins the function's build.
 *
 * Version 1 ("path ASMNAME CHECKSUM COUNT BLOCK...", plain block numbers)
 * is still read.  A reader ignores the line kinds it does not know in a
 * file of a later minor version of its major version.
 *
 * Use: pap_spec_parse() each file into one struct pap_spec (paths of the
 * same function and blocks are merged as they come, the first place
 * kept); then, for each path, find the function it names
 * (pap_spec_names()) and pap_spec_check() it against the function's
 * graph, which resolves a LINE... path to its blocks; then
 * pap_spec_merge() merges what resolved to the same path.  Every
 * problem is kept as a "FILE:LINE: error: ..." line in s->msgs and
 * counted in s->nerrors; a spec with any error must not be used at all.
 * Nothing here depends on the decoder: the plugin fills a struct
 * pap_spec_fn from its own graph (pap_spec_fn_init(), or
 * pap_spec_fn_from_meta() to resolve paths by lines too).
 */
#ifndef PAP_CORE_PATHSPEC_H
#define PAP_CORE_PATHSPEC_H

#include <stdint.h>
#include <stdio.h>

#include "cfgtext.h"
#include "meta.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PAP_SPEC_MAGIC "pap-spec "
#define PAP_SPEC_VERSION 2
/* The minor version that has "calls" lines; a file with them says
 * "pap-spec 2.1". */
#define PAP_SPEC_MINOR_CALLS 1

/* The longest path a spec may name, in blocks once its repeats are
 * expanded (or lines, for a LINE... path): the longest path the decoder
 * prints block by block. */
#define PAP_SPEC_MAX_LEN 10000000u

enum pap_spec_kind {
	PAP_SPEC_BLOCKS = 0,	/* "path": by its blocks */
	PAP_SPEC_LINES,		/* "lines": by its source lines */
};

struct pap_spec_path {
	enum pap_spec_kind kind;
	char *name;		/* assembler name */
	char *qual;		/* the FILE: qualifier, or NULL */
	int has_checksum;
	uint64_t checksum;
	uint64_t count;		/* how often it ran where it came from;
				 * 0: not said */
	uint32_t *blocks;	/* block numbers as the reports print them,
				 * repeats expanded; a LINE... path gets them
				 * from pap_spec_check() */
	size_t nblocks;
	uint32_t *given;	/* per block: 0, or 1 + where given_lines
				 * holds the lines written in its brackets;
				 * NULL: no brackets */
	uint32_t *given_lines;	/* each: their number, then the lines */
	size_t ngiven_lines;
	uint32_t *lines;	/* a LINE... path: its lines, expanded */
	size_t nlines;
	uint32_t *index;	/* after pap_spec_check(): the graph's block
				 * index of each of blocks[] */
	char *fn_file;		/* after pap_spec_check(): the source file
				 * of the function it was checked against */
	const char *file;	/* the spec file it is in (s->files) */
	unsigned line;		/* and its line there */
};

/* Where a message of s->msgs is about, and where it is there. */
struct pap_spec_place {
	size_t file;		/* index in s->files */
	unsigned line;
	size_t off, len;	/* in s->msgs */
};

/*
 * A "calls" line: a whole thread's call sequence of interest, as
 * pap-decode prints call_paths[].sequence (doc/formats.md): the function
 * entered at each call, ">name" for an entry from outside, the function
 * returned to at each return to instrumented code; "( ... )^N" repeats
 * as in a path.  Its first item is a plain name (a thread's first
 * entry).  Identical sequences are merged, counts added.
 */
struct pap_spec_calls {
	char **item;		/* names, ">name" kept as written */
	size_t nitems;
	uint64_t count;		/* 0: not said */
	const char *file;	/* the spec file it is in (s->files) */
	unsigned line;
};

struct pap_spec {
	struct pap_spec_path *paths;	/* in the files' order */
	size_t npaths, cap;
	struct pap_spec_calls *calls;	/* in the files' order */
	size_t ncalls, capcalls;
	char **files;			/* names of the files read */
	size_t nfiles;
	char *msgs;			/* "FILE:LINE: error: ...\n" each */
	size_t msglen, msgcap;
	struct pap_spec_place *places;	/* each message's, for sorting */
	size_t nplaces, capplaces;
	unsigned nerrors;		/* usable only while 0 */
};

void pap_spec_init(struct pap_spec *s);
void pap_spec_free(struct pap_spec *s);

/*
 * Adds the paths of spec text @text (named @file in messages) to @s,
 * each path's repeats expanded.  A path of the same kind, function and
 * blocks (or lines) as one already in @s is merged into it: the first
 * place is kept, counts add up.  Every malformed line gets its message
 * and the reading goes on to find the others; the good lines' paths are
 * added, to be checked too, but @s is not to be used (s->nerrors).
 * PAP_OK, PAP_ECORRUPT (see s->msgs) or PAP_ENOMEM.
 */
int pap_spec_parse(struct pap_spec *s, const char *text, const char *file);

/*
 * Appends "FILE:LINE: error: MESSAGE" for path @p (the place it is
 * written) to s->msgs and counts it; PAP_ECORRUPT.  For the errors the
 * caller finds, such as a function no metadata or unit has.
 */
int pap_spec_error(struct pap_spec *s, const struct pap_spec_path *p,
		   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The same for line @line of @file (one of s->files). */
int pap_spec_error_at(struct pap_spec *s, const char *file, unsigned line,
		      const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Orders the messages of s->msgs by place: by file, in the order the
 * files were read, then by line, messages of one line in the order they
 * were said (checks come after reading, so they are said out of order).
 * PAP_OK, or PAP_ENOMEM with the messages as they were.
 */
int pap_spec_sort_msgs(struct pap_spec *s);

/* Does path @p name the function @name from source file @file (NULL:
 * unknown, matched by name only)? */
int pap_spec_names(const struct pap_spec_path *p, const char *name,
		   const char *file);

/*
 * A function as a spec path is checked against: its finished graph, the
 * number spec files and reports give each user block, and each block's
 * source lines as the reports list them.
 */
struct pap_spec_fn {
	const char *name;		/* assembler name */
	const char *file;		/* source file; NULL: unknown */
	uint64_t checksum;		/* metadata checksum (meta.h) */
	const struct pap_cfg *cfg;	/* finished */
	uint32_t *number;		/* per user block (owned) */
	uint32_t *const *lines;		/* per user block: [0] their
					 * count, then the lines; an entry
					 * or the whole table may be NULL */
};

/*
 * @fn for graph @g (blocks named "bN": number N), with line table @lines
 * (as pap_meta_fn has it, or NULL) and the other fields as given.
 * PAP_OK, PAP_EINVAL for a block name not of that form, PAP_ENOMEM.
 * pap_spec_fn_free() lets go of it.
 */
int pap_spec_fn_init(struct pap_spec_fn *fn, const char *name,
		     const char *file, uint64_t checksum,
		     const struct pap_cfgtext *g, uint32_t *const *lines);
void pap_spec_fn_free(struct pap_spec_fn *fn);
/*
 * @fn for metadata function @m, its graph and line table: what
 * pap-decode check-spec checks against.  The plugin, which has its
 * function's graph and lines as metadata text before it writes them, gets
 * the same by reading its own entry back (pap_meta_format_fn() after
 * PAP_META_HEADER, then pap_meta_parse()), so that it resolves a path by
 * lines exactly as check-spec does.  As pap_spec_fn_init().
 */
int pap_spec_fn_from_meta(struct pap_spec_fn *fn,
			  const struct pap_meta_fn *m);

/*
 * Checks path @i of @s against the function @fn it names: the checksum
 * when the spec gives one; for a BLOCK... path, that every block is one
 * of @fn's (with the source lines given in its brackets), that it
 * starts where a path of @fn starts (the entry block, or a block a
 * nonlocal jump resumes at), that an edge joins each two consecutive
 * blocks, and that it ends at a block that leaves the function; a
 * LINE... path is resolved to the one block path from a
 * start to a leaving block whose lines are the ones given (none:
 * "impossible", several: "ambiguous", a few candidates listed), in time
 * and memory bounded by the graph's size times the number of lines.  On
 * success path @i gets its blocks (a LINE... path) and their indices in
 * @fn's graph.  PAP_OK, PAP_ECORRUPT with the message in s->msgs, or
 * PAP_ENOMEM.
 */
int pap_spec_check(struct pap_spec *s, size_t i, const struct pap_spec_fn *fn);

/*
 * After the checks: merges the paths that resolved to the same blocks of
 * the same function (a LINE... path and a BLOCK... path may), keeping the
 * first in the files' order with its place; counts add up.  PAP_OK or
 * PAP_ENOMEM.
 */
int pap_spec_merge(struct pap_spec *s);

/*
 * Reads the rest of a "calls" line (after the word), [@p, @end), of
 * line @line of @file (one of s->files), into @s (pathspec_calls.c;
 * pap_spec_parse() calls it).  PAP_OK, PAP_ECORRUPT with the message in
 * s->msgs, or PAP_ENOMEM.
 */
int pap_spec_parse_calls(struct pap_spec *s, const char *p, const char *end,
			 const char *file, unsigned line);
void pap_spec_calls_free(struct pap_spec *s);
/*
 * Appends "FILE:LINE: error: MESSAGE" for sequence @c to s->msgs and
 * counts it; PAP_ECORRUPT.  For what the caller finds (a function no
 * metadata has).
 */
int pap_spec_calls_error(struct pap_spec *s, const struct pap_spec_calls *c,
			 const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Is the function @name (an assembler name) named by any sequence of
 * @s, plain or as ">name"? */
int pap_spec_calls_names(const struct pap_spec *s, const char *name);
/*
 * A hash of @s's sequences in their order (FNV-1a over the items), the
 * same for the same "calls" lines whatever their spacing and repeats'
 * form; 0 when there is none.
 */
uint64_t pap_spec_calls_hash(const struct pap_spec *s);
/* Writes "calls count=N" for the caller to finish with " NAME..." and a
 * newline; 0 or -1. */
int pap_spec_put_calls_head(FILE *f, uint64_t count);

/*
 * A thread whose sequence left every sequence of interest (a build with
 * -fplugin-arg-pap-calls-spec) makes a CALLS record of this value and
 * no breakpoint, which no sequence can make (a register starts at 1 and
 * only grows); their records merge into one that counts them.
 */
#define PAP_CSEQ_LEFT 0u
static inline int pap_cseq_left(uint64_t value, uint32_t nbps)
{
	return value == PAP_CSEQ_LEFT && !nbps;
}

/* Writes a spec file's first line ("pap-spec 2"); 0 or -1. */
int pap_spec_put_header(FILE *f);
/*
 * Writes the head of a path line, "path [QUAL:]NAME checksum=HEX
 * count=N" (@qual NULL: no qualifier), for the caller to finish with its
 * blocks (" 1 ( 6 2 )^3 7", as the text report prints them without
 * their lines) and a newline; 0 or -1.
 */
int pap_spec_put_path_head(FILE *f, const char *qual, const char *name,
			   uint64_t checksum, uint64_t count);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_PATHSPEC_H */
