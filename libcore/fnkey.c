/* SPDX-License-Identifier: MIT */
/*
 * fnkey.c - making and splitting function keys (fnkey.h).
 */
#include <stdio.h>
#include <string.h>

#include "fnkey.h"
#include "util.h"

#define PAP_FNKEY_SUM_DIGITS 16

int pap_fnkey_format(char *buf, size_t size, const char *asmname,
		     uint64_t checksum, const char *meta)
{
	int n = snprintf(buf, size, "%s:%016llx", asmname,
			 (unsigned long long)checksum);
	size_t m;

	if (n < 0 || (size_t)n >= size)
		return -1;
	if (!meta || strpbrk(meta, " \t\n"))
		return n;
	m = strlen(meta);
	if ((size_t)n + m + 2 >= size)
		return n;
	buf[n] = ':';
	memcpy(buf + n + 1, meta, m + 1);
	return n + 1 + (int)m;
}

int pap_fnkey_split(const char *s, size_t n, struct pap_fnkey *k)
{
	const char *c = memchr(s, ':', n);
	size_t at, i;
	uint64_t sum = 0;

	if (!c || c == s)
		return -1;
	at = (size_t)(c - s) + 1;
	for (i = 0; at + i < n && s[at + i] != ':'; i++) {
		char d = s[at + i];

		if (d >= '0' && d <= '9')
			sum = sum << 4 | (uint64_t)(d - '0');
		else if (d >= 'a' && d <= 'f')
			sum = sum << 4 | (uint64_t)(d - 'a' + 10);
		else
			return -1;
	}
	if (i != PAP_FNKEY_SUM_DIGITS)
		return -1;
	k->name = s;
	k->name_len = (size_t)(c - s);
	k->checksum = sum;
	at += i;
	if (at < n) {
		k->meta = s + at + 1;
		k->meta_len = n - at - 1;
	} else {
		k->meta = NULL;
		k->meta_len = 0;
	}
	return 0;
}

uint64_t pap_fnid(const char *key)
{
	uint64_t h = pap_fnv1a_str(key);

	/* FNV-1a's high bits mix poorly; a final avalanche spreads them */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}
