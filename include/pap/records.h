/* SPDX-License-Identifier: MIT */
/*
 * pap/records.h - the kinds of record pap makes, listed once for every
 * format that carries them: the runtime's and the decoder's profiles in
 * memory, the profile file (libcore/profdata.h), and the shared-memory
 * transport (pap/shm.h).
 *
 * PAP_REC_KINDS(X) calls X(NAME, VALUE, LETTER, SHM_TAG) for each kind:
 * PAP_REC_NAME = VALUE in memory, LETTER opens its lines in a profile
 * file, and PAP_SHM_NAME = SHM_TAG tags its records in a ring.
 *
 * The inter-procedural mode's kinds (profile version 7, shm 2.4) are
 * keyed not by a function but by a program or a unit, "%KIND:SUM[:META]"
 * (PAP_REC_*_PREFIX): '%' starts no assembler name, so no function's key
 * is ever one of theirs.
 */
#ifndef PAP_RECORDS_H
#define PAP_RECORDS_H

#define PAP_REC_KINDS(X) \
	/* a whole path: its final value and breakpoints */ \
	X(PATH, 0, 'p', 2) \
	/* an acyclic (Ball-Larus) path id, mode epp */ \
	X(BL, 1, 'b', 3) \
	/* a thread's call sequence: final cr and breakpoints (marks among \
	 * them), key %calls:PROGSUM */ \
	X(CALLS, 2, 'c', 6) \
	/* a program: value its number of units, breakpoint i (i, fnid of \
	 * unit i's key), key %prog:PROGSUM */ \
	X(PROG, 3, 'g', 7) \
	/* a unit of a program, value 0, key %unit:UNITSUM:METAFILE */ \
	X(UNIT, 4, 'u', 8)

/* How many kinds there are: every value is below it. */
#define PAP_REC_NKINDS 5

/* The keys' prefixes of the kinds not keyed by a function. */
#define PAP_REC_CALLS_PREFIX "%calls:"
#define PAP_REC_PROG_PREFIX "%prog:"
#define PAP_REC_UNIT_PREFIX "%unit:"

enum pap_rec_kind {
#define PAP_REC_ENUM(name, value, letter, tag) PAP_REC_##name = value,
	PAP_REC_KINDS(PAP_REC_ENUM)
#undef PAP_REC_ENUM
};

/* The letter of @kind's lines in a profile file; 0 for no kind. */
static inline char pap_rec_letter(unsigned kind)
{
	switch (kind) {
#define PAP_REC_LETTER(name, value, letter, tag) \
	case value: return letter;
	PAP_REC_KINDS(PAP_REC_LETTER)
#undef PAP_REC_LETTER
	}
	return 0;
}

/* The kind whose lines @letter opens; -1 for none. */
static inline int pap_rec_of_letter(char c)
{
	switch (c) {
#define PAP_REC_OF_LETTER(name, value, letter, tag) \
	case letter: return value;
	PAP_REC_KINDS(PAP_REC_OF_LETTER)
#undef PAP_REC_OF_LETTER
	}
	return -1;
}

/* The tag of @kind's records in a shared-memory ring; 0 for no kind. */
static inline unsigned pap_rec_shm_tag(unsigned kind)
{
	switch (kind) {
#define PAP_REC_SHM_TAG(name, value, letter, tag) \
	case value: return tag;
	PAP_REC_KINDS(PAP_REC_SHM_TAG)
#undef PAP_REC_SHM_TAG
	}
	return 0;
}

/* Do @kind's records have breakpoints (and a complete flag): PATH, CALLS,
 * PROG; BL and UNIT are a value alone. */
static inline int pap_rec_has_bps(unsigned kind)
{
	return kind == PAP_REC_PATH || kind == PAP_REC_CALLS ||
	       kind == PAP_REC_PROG;
}

/* The profile version (text and binary) that first holds @kind. */
static inline int pap_rec_version(unsigned kind)
{
	return kind <= PAP_REC_BL ? 1 : 7;
}

/* The prefix @kind's keys start with; NULL for the kinds keyed by a
 * function (whose keys never start with '%'). */
static inline const char *pap_rec_key_prefix(unsigned kind)
{
	switch (kind) {
	case PAP_REC_CALLS:
		return PAP_REC_CALLS_PREFIX;
	case PAP_REC_PROG:
		return PAP_REC_PROG_PREFIX;
	case PAP_REC_UNIT:
		return PAP_REC_UNIT_PREFIX;
	}
	return 0;
}

/* Is the @n-byte key @s one that @kind's records may have: its prefix
 * for the program kinds, no leading '%' for the others?  (The rest of the
 * key is checked as a function key, fnkey.h.) */
static inline int pap_rec_key_fits(unsigned kind, const char *s,
				   unsigned long n)
{
	const char *pre = pap_rec_key_prefix(kind);
	unsigned long i;

	if (!pre)
		return !n || s[0] != '%';
	for (i = 0; pre[i]; i++)
		if (i >= n || s[i] != pre[i])
			return 0;
	return 1;
}

/* Is the record with @kind and @complete one pap makes?  A BL id, a
 * program and a unit are always complete. */
static inline int pap_rec_complete_ok(unsigned kind, unsigned complete)
{
	if (kind == PAP_REC_PATH || kind == PAP_REC_CALLS)
		return complete <= 1;
	return kind < PAP_REC_NKINDS && complete == 1;
}

#endif /* PAP_RECORDS_H */
