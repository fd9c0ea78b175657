/* SPDX-License-Identifier: MIT */
/*
 * fnkey.h - the function key, "ASMNAME:CHECKSUM[:METAFILE]" (pap/abi.h):
 * made by the plugin, carried by the runtime and the collector, split
 * by the profile reader and the decoder.  CHECKSUM is 16 lowercase hex
 * digits; METAFILE, the metadata file that describes the function, is
 * left out when it has white space (a profile's fields are separated by
 * spaces) or does not fit.
 */
#ifndef PAP_CORE_FNKEY_H
#define PAP_CORE_FNKEY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of the longest key, its NUL included. */
#define PAP_FNKEY_MAX 4608

/* A key's parts, pointing into the key. */
struct pap_fnkey {
	const char *name;
	size_t name_len;
	uint64_t checksum;
	const char *meta;	/* NULL: no METAFILE */
	size_t meta_len;
};

/*
 * Writes into @buf (@size bytes) the key of function @asmname with
 * @checksum, naming @meta when it is not NULL, has no white space and
 * fits.  Its length, or -1 when not even ASMNAME:CHECKSUM fits.
 */
int pap_fnkey_format(char *buf, size_t size, const char *asmname,
		     uint64_t checksum, const char *meta);

/*
 * Splits the @n bytes at @s into @k: 0, or -1 when they are not a key
 * (no name, or a checksum that is not 16 lowercase hex digits).
 */
int pap_fnkey_split(const char *s, size_t n, struct pap_fnkey *k);

/*
 * The function id of a key: a 64-bit hash of the whole NUL-terminated
 * @key text (ASMNAME:CHECKSUM:META), which names a function in a call
 * sequence's marks (callseq.h).  Equal texts give equal ids; a reader
 * that meets two keys of one id refuses them rather than guess.
 */
uint64_t pap_fnid(const char *key);

#ifdef __cplusplus
}
#endif

#endif /* PAP_CORE_FNKEY_H */
