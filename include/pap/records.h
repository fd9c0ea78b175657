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
 */
#ifndef PAP_RECORDS_H
#define PAP_RECORDS_H

#define PAP_REC_KINDS(X) \
	/* a whole path: its final value and breakpoints */ \
	X(PATH, 0, 'p', 2) \
	/* an acyclic (Ball-Larus) path id, mode epp */ \
	X(BL, 1, 'b', 3)

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

#endif /* PAP_RECORDS_H */
