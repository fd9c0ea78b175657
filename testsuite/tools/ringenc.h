/* SPDX-License-Identifier: MIT */
/*
 * ringenc.h - a record encoder for the tests, written from pap/shm.h
 * alone (not the runtime's), so that it checks the reader independently.
 */
#ifndef PAP_TEST_RINGENC_H
#define PAP_TEST_RINGENC_H

#include <stdint.h>
#include <string.h>

#include <pap/shm.h>

/* Writes a record with body @body[@n] at @head of @words[@nwords]; the
 * new head. */
static inline uint64_t re_put(volatile uint64_t *words, uint64_t nwords,
			      uint64_t head, unsigned tag,
			      const uint64_t *body, uint64_t n)
{
	uint64_t i;

	words[head & (nwords - 1)] = pap_shm_header(tag, n + 1, head);
	for (i = 0; i < n; i++)
		words[(head + 1 + i) & (nwords - 1)] = body[i];
	return head + n + 1;
}

/* Writes an FN record defining @id as @s (at most 400 bytes). */
static inline uint64_t re_put_fn(volatile uint64_t *words, uint64_t nwords,
				 uint64_t head, uint32_t id, const char *s)
{
	uint64_t body[64] = { 0 };
	size_t n = strlen(s);

	body[0] = id | (uint64_t)n << 32;
	memcpy(&body[1], s, n);
	return re_put(words, nwords, head, PAP_SHM_FN, body,
		      1 + (n + 7) / 8);
}

#endif /* PAP_TEST_RINGENC_H */
