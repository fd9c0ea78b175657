/* SPDX-License-Identifier: MIT */
/*
 * fuzz_ring.c - libFuzzer harness for the ring reader (libcore/ring.c),
 * run by `make soak-collector` for a fixed time.
 *
 * The input is a ring as a rogue producer could leave it: the first 16
 * bytes are the reader's tail and the head the producer claims, the rest
 * the ring's words (256 of them, zero-filled).  Every record the reader
 * accepts is checked for the promises of pap/shm.h and counted into a
 * size-bounded profile, as the collector does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profdata.h"
#include "ring.h"

#define NW 256u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz {
	struct pap_profile prof;
	char fns[8][64];
	uint32_t nfns;
};

static int fz_fn(void *ctx, uint32_t id, const char *s, uint32_t n)
{
	struct fz *z = ctx;

	if (n == 0 || n > PAP_SHM_MAX_FN || memchr(s, 0, n))
		abort();
	if (id != z->nfns + 1 || z->nfns == 8 || n >= 64)
		return -1;
	memcpy(z->fns[z->nfns], s, n);
	z->fns[z->nfns++][n] = 0;
	return 0;
}

static int fz_path(void *ctx, uint32_t fn, uint8_t kind, uint8_t complete,
		   uint64_t v, const struct pap_breakpoint *bps, uint32_t nbps)
{
	struct fz *z = ctx;

	if (complete > 1 || nbps > PAP_SHM_MAX_WORDS / 2 || (nbps && !bps) ||
	    !pap_rec_has_bps(kind))
		abort();
	if (fn == 0 || fn > z->nfns)
		return -1;
	return pap_profile_add(&z->prof, z->fns[fn - 1], kind,
			       complete, v, bps, nbps, 1);
}

static int fz_bl(void *ctx, uint32_t fn, uint8_t kind, uint64_t id)
{
	struct fz *z = ctx;

	if (pap_rec_has_bps(kind) || kind >= PAP_REC_NKINDS)
		abort();
	if (fn == 0 || fn > z->nfns)
		return -1;
	return pap_profile_add(&z->prof, z->fns[fn - 1], kind, 1, id,
			       NULL, 0, 1);
}

static int fz_count(void *ctx, uint32_t slot, uint64_t seq, uint32_t fn,
		    uint8_t kind, uint8_t complete, uint64_t v, uint64_t count)
{
	struct fz *z = ctx;

	if (slot >= PAP_SHM_MAX_SLOTS || (seq & 1) || !count ||
	    count > PAP_SHM_MAX_COUNT || complete > 1 ||
	    (kind != PAP_REC_PATH && kind != PAP_REC_BL))
		abort();
	if (fn == 0 || fn > z->nfns)
		return -1;
	return pap_profile_add(&z->prof, z->fns[fn - 1], kind, complete, v,
			       NULL, 0, count);
}

/* A slot made of the input's first 32 bytes: read as steady only when
 * it is one. */
static void fz_slot(const uint8_t *data, size_t size)
{
	struct pap_shm_slot in, out;
	int rc;

	if (size < sizeof(in))
		return;
	memcpy(&in, data, sizeof(in));
	rc = pap_ring_read_slot(&in, &out);
	if (rc == 0 && ((out.seq & 1) || !out.count ||
			!pap_shm_key_fn(out.key) || out.key >> 48 ||
			pap_shm_key_complete(out.key) > 1 ||
			pap_shm_key_kind(out.key) > PAP_REC_BL ||
			out.count > PAP_SHM_MAX_COUNT ||
			(pap_shm_key_kind(out.key) == PAP_REC_BL &&
			 pap_shm_key_complete(out.key) != 1)))
		abort();
	if (rc == 1 && (out.key || out.count))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct pap_ring_ops ops = { fz_fn, fz_path, fz_bl,
						 fz_count };
	static struct pap_ring_buf buf;
	static struct pap_ring_joined joined;
	static uint64_t words[NW];
	struct pap_ring_stats st = { 0, 0, 0 };
	struct fz z;
	uint64_t pos, head, start;

	fz_slot(data, size);
	if (size < 16)
		return 0;
	memcpy(&pos, data, 8);
	memcpy(&head, data + 8, 8);
	pos %= 4 * NW;		/* small positions reach the wrap often */
	head = pos + head % (NW + 8);
	memset(words, 0, sizeof(words));
	memcpy(words, data + 16, size - 16 < sizeof(words) ? size - 16 :
	       sizeof(words));
	memset(&z, 0, sizeof(z));
	pap_profile_init(&z.prof);
	z.prof.max_recs = 64;
	start = pos;
	joined.open = 0;
	pap_ring_read(words, NW, &pos, head, &ops, &z, &buf, &joined, &st);
	if (pos < start || pos > head || z.prof.nrecs > 64 ||
	    st.fns + st.rejected > head - start)
		abort();
	pap_ring_partial(words, NW, head);
	pap_profile_free(&z.prof);
	return 0;
}
