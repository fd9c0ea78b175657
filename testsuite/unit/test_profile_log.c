/* SPDX-License-Identifier: MIT */
/*
 * test_profile_log.c - the binary profile (version 4): a log of segments.
 * Random profiles survive text and binary both ways; equal profiles are
 * equal files; segments appended add up; every cut of a file reads its
 * whole segments or is refused, and damage inside is refused, naming the
 * byte; a spill appends without malloc, or leaves a file it cannot
 * append to alone.
 */
#define _GNU_SOURCE	/* mremap */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "bpack.h"
#include "profbin.h"
#include "profdata.h"
#include "util.h"

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A buffer and its length. */
struct bytes {
	unsigned char *d;
	size_t n;
};

/* Everything written to a tmpfile() by @write(@p). */
static struct bytes written(const struct pap_profile *p,
			    int (*write)(const struct pap_profile *, FILE *))
{
	FILE *f = tmpfile();
	struct bytes b;
	long n;

	assert_non_null(f);
	assert_int_equal(write(p, f), 0);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	b.n = (size_t)n;
	b.d = malloc(b.n + 1);
	assert_non_null(b.d);
	assert_int_equal(fread(b.d, 1, b.n, f), b.n);
	b.d[b.n] = 0;
	fclose(f);
	return b;
}

/* @p as text, NUL-terminated: what the tests compare profiles by. */
static char *as_text(const struct pap_profile *p)
{
	return (char *)written(p, pap_profile_write_text).d;
}

static const char *const fns[] = {
	"walk:0123456789abcdef",
	"a:00000000000000ff:/tmp/a.papm",
	"zeta:fedcba9876543210:/x/y.papm",
	"mid:1111111111111111",
};

/*
 * Adds @n random records to @p: paths with 0 to 60 breakpoints drawn from
 * a small set (so that they share, and long ones pack into repeats),
 * complete and cut, and Ball-Larus ids; in a random order.  @seed picks
 * them; @order only the order they are added in.
 */
static void random_profile(struct pap_profile *p, uint64_t seed, size_t n,
			   uint64_t order)
{
	struct pap_bpack_buf pack = { 0 };
	struct pap_breakpoint bps[64];
	size_t i, *perm = malloc(n * sizeof(*perm));

	assert_non_null(perm);
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n; order && i > 1; i--) {
		size_t j = rng_next(&order) % i, t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++) {
		uint64_t s = seed ^ (perm[i] * 0x9e3779b97f4a7c15ull + 1);
		const char *fn;
		size_t nb, k;
		const struct pap_breakpoint *rec;
		int bl;

		rng_next(&s);
		rng_next(&s);
		fn = fns[rng_next(&s) % 4];
		bl = rng_next(&s) % 8 == 0;
		if (bl) {
			assert_int_equal(pap_profile_add(p, fn, PAP_REC_BL, 1,
							 rng_next(&s) % 1000,
							 NULL, 0,
							 1 + rng_next(&s) % 3),
					 0);
			continue;
		}
		nb = rng_next(&s) % 61;
		for (k = 0; k < nb; k++) {
			uint64_t c = rng_next(&s) % 12;

			bps[k].site = c == 11 ? UINT32_MAX : (uint32_t)c;
			bps[k].r = c < 4 ? c * 1000 :
				   UINT64_MAX - (rng_next(&s) % 4) * 77777;
		}
		/* (an empty packing has no buffer to point at) */
		rec = nb ? pap_bpack_into(&pack, bps, &nb) : bps;
		assert_non_null(rec);
		assert_int_equal(pap_profile_add(p, fn, PAP_REC_PATH,
						 rng_next(&s) % 5 != 0,
						 rng_next(&s) >> (rng_next(&s) %
								  64),
						 rec, (uint32_t)nb,
						 rng_next(&s) % 4 ? 1 :
						 rng_next(&s)), 0);
	}
	p->lost = seed % 3 ? 0 : seed % 1000;
	pap_bpack_buf_free(&pack);
	free(perm);
}

/* Reads @b as a profile file; its error or warning in @err. */
static int read_mem(struct pap_profile *p, const struct bytes *b,
		    char *err, size_t errlen)
{
	return pap_profile_parse_mem(p, b->d, b->n, "t.prof", err, errlen);
}

/*
 * test_log_round_trip: 40 random profiles written as version 4 and read
 * back give the same text as the profile itself; their text read back and
 * written as version 4 gives the same bytes; and a profile of 2^20 + 1
 * breakpoints in one path comes back whole.
 */
static void test_log_round_trip(void **state)
{
	char err[256];
	uint64_t seed;

	(void)state;
	for (seed = 1; seed <= 40; seed++) {
		struct pap_profile p, q, r;
		struct bytes bin, bin2;
		char *text, *text2;

		pap_profile_init(&p);
		pap_profile_init(&q);
		pap_profile_init(&r);
		random_profile(&p, seed * 7919, seed * 13, 0);
		bin = written(&p, pap_profile_write);
		assert_memory_equal(bin.d, PAP_PROFBIN_MAGIC, 8);
		if (read_mem(&q, &bin, err, sizeof(err)))
			fail_msg("%s", err);
		assert_string_equal(err, "");
		text = as_text(&p);
		text2 = as_text(&q);
		assert_string_equal(text, text2);
		assert_int_equal(q.lost, p.lost);
		if (pap_profile_parse(&r, text, "t.prof", err, sizeof(err)))
			fail_msg("%s", err);
		bin2 = written(&r, pap_profile_write);
		assert_int_equal(bin.n, bin2.n);
		assert_memory_equal(bin.d, bin2.d, bin.n);
		free(bin.d);
		free(bin2.d);
		free(text);
		free(text2);
		pap_profile_free(&p);
		pap_profile_free(&q);
		pap_profile_free(&r);
	}
	{
		const uint32_t n = (1u << 20) + 1;
		struct pap_breakpoint *bps = malloc(n * sizeof(*bps));
		struct pap_profile p, q;
		struct bytes bin;
		uint32_t i;

		assert_non_null(bps);
		for (i = 0; i < n; i++) {
			bps[i].site = i % 7;
			bps[i].r = (uint64_t)i * 0x9e3779b97f4a7c15ull;
		}
		pap_profile_init(&p);
		pap_profile_init(&q);
		assert_int_equal(pap_profile_add(&p, fns[0], PAP_REC_PATH, 1, 5,
						 bps, n, 2), 0);
		bin = written(&p, pap_profile_write);
		if (read_mem(&q, &bin, err, sizeof(err)))
			fail_msg("%s", err);
		assert_int_equal(q.nrecs, 1);
		assert_int_equal(q.recs[0].nbps, n);
		assert_int_equal(q.recs[0].count, 2);
		for (i = 0; i < n; i++)
			if (q.recs[0].bps[i].site != bps[i].site ||
			    q.recs[0].bps[i].r != bps[i].r)
				fail_msg("breakpoint %u differs", i);
		free(bin.d);
		free(bps);
		pap_profile_free(&p);
		pap_profile_free(&q);
	}
}

/*
 * test_log_equal_files: one profile added in three orders, and once by
 * address with each function under two addresses, is written to the same
 * bytes.
 */
static void test_log_equal_files(void **state)
{
	struct pap_profile a, b, c;
	struct bytes ba, bb, bc;

	(void)state;
	pap_profile_init(&a);
	pap_profile_init(&b);
	pap_profile_init(&c);
	random_profile(&a, 99, 500, 0);
	random_profile(&b, 99, 500, 12345);
	random_profile(&c, 99, 250, 777);
	random_profile(&c, 99, 500, 4242);	/* the first half twice */
	ba = written(&a, pap_profile_write);
	bb = written(&b, pap_profile_write);
	assert_int_equal(ba.n, bb.n);
	assert_memory_equal(ba.d, bb.d, ba.n);
	/* counts differ: the files too, but only there */
	bc = written(&c, pap_profile_write);
	assert_true(bc.n != ba.n || memcmp(bc.d, ba.d, ba.n));
	free(ba.d);
	free(bb.d);
	free(bc.d);
	pap_profile_free(&a);
	pap_profile_free(&b);
	pap_profile_free(&c);
}

/* A file of the header and @n segments, segment i holding the random
 * profile of seed @seed + i, committed whole; their sum into @sum. */
static struct bytes log_file(uint64_t seed, unsigned n, size_t recs,
			     struct pap_profile *sum, size_t *ends)
{
	struct bytes f = { malloc(PAP_PROFBIN_HEAD), PAP_PROFBIN_HEAD };
	unsigned i;

	assert_non_null(f.d);
	for (i = 0; i < n; i++) {
		struct pap_profile p;
		unsigned char *seg;
		size_t len;

		pap_profile_init(&p);
		random_profile(&p, seed + i, recs, 0);
		assert_int_equal(pap_profbin_segment(&p, 0, &seg, &len), 0);
		f.d = realloc(f.d, f.n + len);
		assert_non_null(f.d);
		memcpy(f.d + f.n, seg, len);
		f.n += len;
		if (ends)
			ends[i] = f.n;
		assert_int_equal(pap_profile_merge(sum, &p), 0);
		free(seg);
		pap_profile_free(&p);
	}
	pap_profbin_header(f.d, f.n);
	return f;
}

/* The profile file @path reads as @want, compared as text. */
static void assert_file_is(const char *path, const struct pap_profile *want)
{
	struct pap_profile got;
	char err[256], *t1, *t2;

	pap_profile_init(&got);
	if (pap_profile_read_file(&got, path, (size_t)1 << 30, err,
				  sizeof(err), NULL))
		fail_msg("%s", err);
	t1 = as_text(want);
	t2 = as_text(&got);
	assert_string_equal(t1, t2);
	free(t1);
	free(t2);
	pap_profile_free(&got);
}

/*
 * test_log_append: 12 segments in one file read as the sum of their
 * profiles; and 12 merges into a file on disk (appends, with compaction
 * when due) read the same, and compacted equal the sum written at once.
 */
static void test_log_append(void **state)
{
	char dir[] = "/tmp/paplogXXXXXX", path[64], err[256];
	struct pap_profile sum, got, again;
	struct bytes f, whole, compact;
	char *t1, *t2;
	unsigned i;
	FILE *fp;

	(void)state;
	pap_profile_init(&sum);
	pap_profile_init(&got);
	f = log_file(1000, 12, 60, &sum, NULL);
	if (read_mem(&got, &f, err, sizeof(err)))
		fail_msg("%s", err);
	t1 = as_text(&sum);
	t2 = as_text(&got);
	assert_string_equal(t1, t2);
	free(t2);
	free(f.d);
	pap_profile_free(&got);

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.prof", dir);
	for (i = 0; i < 12; i++) {
		struct pap_profile p;

		pap_profile_init(&p);
		random_profile(&p, 1000 + i, 60, 0);
		assert_int_equal(pap_profile_merge_file(path, &p, "test", NULL,
							NULL), 0);
		pap_profile_free(&p);
	}
	/* each append committed the file's new length */
	{
		struct pap_profbin_head hd;
		unsigned char h[PAP_PROFBIN_HEAD];
		size_t at;

		fp = fopen(path, "rb");
		assert_non_null(fp);
		assert_int_equal(fread(h, 1, sizeof(h), fp), sizeof(h));
		assert_int_equal(fseek(fp, 0, SEEK_END), 0);
		assert_int_equal(pap_profbin_head_ok(h, sizeof(h), &hd, &at), 0);
		assert_int_equal(hd.committed, ftell(fp));
		fclose(fp);
	}
	pap_profile_init(&got);
	if (pap_profile_read_file(&got, path, (size_t)1 << 30, err,
				  sizeof(err), NULL))
		fail_msg("%s", err);
	t2 = as_text(&got);
	assert_string_equal(t1, t2);
	free(t2);
	assert_int_equal(pap_profile_compact_file(path, "test"), 0);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	compact.d = malloc(1 << 22);
	assert_non_null(compact.d);
	compact.n = fread(compact.d, 1, 1 << 22, fp);
	fclose(fp);
	whole = written(&sum, pap_profile_write);
	assert_int_equal(compact.n, whole.n);
	assert_memory_equal(compact.d, whole.d, whole.n);
	pap_profile_init(&again);
	assert_int_equal(read_mem(&again, &compact, err, sizeof(err)), 0);
	t2 = as_text(&again);
	assert_string_equal(t1, t2);
	free(t2);
	free(t1);
	free(compact.d);
	free(whole.d);
	pap_profile_free(&again);
	pap_profile_free(&got);

	/* past PAP_PROFILE_LOG_FLOOR of log, merging compacts: the file
	 * ends up smaller than its segments, and still their sum */
	{
		size_t segs = 0;
		long size;

		for (i = 0; i < 30; i++) {
			struct pap_profile p;
			unsigned char *seg;
			size_t len;

			pap_profile_init(&p);
			random_profile(&p, 5000 + i, 3000, 0);
			assert_int_equal(pap_profbin_segment(&p, 0, &seg, &len),
					 0);
			segs += len;
			free(seg);
			assert_int_equal(pap_profile_merge(&sum, &p), 0);
			assert_int_equal(pap_profile_merge_file(path, &p, "test",
								NULL, NULL), 0);
			pap_profile_free(&p);
		}
		fp = fopen(path, "rb");
		assert_non_null(fp);
		assert_int_equal(fseek(fp, 0, SEEK_END), 0);
		size = ftell(fp);
		fclose(fp);
		assert_true(segs > 2 * PAP_PROFILE_LOG_FLOOR);
		assert_true((size_t)size < segs);
		assert_file_is(path, &sum);
	}
	unlink(path);
	snprintf(path, sizeof(path), "%s/p.prof.lock", dir);
	unlink(path);
	rmdir(dir);
	pap_profile_free(&sum);
	pap_profile_free(&got);
}

/*
 * test_log_cuts: a file of three segments cut at every byte reads, from
 * the end of the header on, as the sum of the segments whole before the
 * cut, with a warning saying how much was left out (inside a segment) or
 * is missing (at a segment's end: shorter than its committed length);
 * only the whole file reads without one.  A cut inside the header is an
 * error naming the file.
 */
static void test_log_cuts(void **state)
{
	struct pap_profile sum, part[4];
	struct bytes f, cut;
	size_t ends[3], at;
	char *texts[4], err[256];
	unsigned k;

	(void)state;
	pap_profile_init(&sum);
	f = log_file(77, 3, 8, &sum, ends);
	/* the sums of the first k segments, k = 0..3 */
	for (k = 0; k < 4; k++) {
		struct bytes pre = { f.d, k ? ends[k - 1] : PAP_PROFBIN_HEAD };

		pap_profile_init(&part[k]);
		assert_int_equal(read_mem(&part[k], &pre, err, sizeof(err)), 0);
		texts[k] = as_text(&part[k]);
	}
	for (at = 0; at <= f.n; at++) {
		struct pap_profile p;
		int r;

		cut.d = malloc(at + 1);
		assert_non_null(cut.d);
		memcpy(cut.d, f.d, at);
		cut.n = at;
		pap_profile_init(&p);
		r = read_mem(&p, &cut, err, sizeof(err));
		if (at < PAP_PROFBIN_HEAD) {
			/* too short to be recognized is text, else refused */
			assert_int_not_equal(r, 0);
			assert_non_null(strstr(err, "t.prof:"));
		} else {
			char *t;

			for (k = 0; k < 3 && ends[k] <= at; k++)
				;
			if (r)
				fail_msg("cut at %zu: %s", at, err);
			t = as_text(&p);
			assert_string_equal(t, texts[k]);
			free(t);
			if (at == f.n)
				assert_string_equal(err, "");
			else if (at == (k ? ends[k - 1] : PAP_PROFBIN_HEAD))
				assert_non_null(strstr(err, "t.prof: warning: "
						       "the file was cut"));
			else
				assert_non_null(strstr(err, "t.prof: warning: "
						       "the last "));
		}
		free(cut.d);
		pap_profile_free(&p);
	}
	for (k = 0; k < 4; k++) {
		free(texts[k]);
		pap_profile_free(&part[k]);
	}
	free(f.d);
	pap_profile_free(&sum);
}

/*
 * test_log_old_versions: a file of versions 4 and 5 (a 16-byte header,
 * no committed length) reads as the same segments in version 6 do; a
 * merge into a version 5 file rewrites it as version 6, holding both.
 */
static void test_log_old_versions(void **state)
{
	char dir[] = "/tmp/paplogXXXXXX", path[64], err[256];
	struct pap_profile sum, mine, got;
	struct bytes f, old;
	unsigned char h[PAP_PROFBIN_HEAD];
	char *t1, *t2;
	int v;
	FILE *fp;

	(void)state;
	pap_profile_init(&sum);
	f = log_file(31, 3, 20, &sum, NULL);
	t1 = as_text(&sum);
	old.n = f.n - (PAP_PROFBIN_HEAD - PAP_PROFBIN_HEAD_OLD);
	old.d = malloc(old.n);
	assert_non_null(old.d);
	memcpy(old.d, f.d, PAP_PROFBIN_COMMIT_AT);
	memcpy(old.d + PAP_PROFBIN_HEAD_OLD, f.d + PAP_PROFBIN_HEAD,
	       f.n - PAP_PROFBIN_HEAD);
	for (v = 4; v <= 5; v++) {
		old.d[8] = (unsigned char)v;
		if (v == 4)
			memset(old.d + 12, 0, 4);	/* its flags */
		pap_profile_init(&got);
		if (read_mem(&got, &old, err, sizeof(err)))
			fail_msg("version %d: %s", v, err);
		assert_string_equal(err, "");
		t2 = as_text(&got);
		assert_string_equal(t1, t2);
		free(t2);
		pap_profile_free(&got);
	}
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.prof", dir);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(old.d, 1, old.n, fp), old.n);
	fclose(fp);
	pap_profile_init(&mine);
	random_profile(&mine, 99, 20, 0);
	assert_int_equal(pap_profile_merge(&sum, &mine), 0);
	assert_int_equal(pap_profile_merge_file(path, &mine, "test", NULL,
						NULL), 0);
	assert_file_is(path, &sum);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	assert_int_equal(fread(h, 1, sizeof(h), fp), sizeof(h));
	fclose(fp);
	assert_int_equal(h[8], PAP_PROFILE_VERSION_BIN);
	unlink(path);
	snprintf(path, sizeof(path), "%s/p.prof.lock", dir);
	unlink(path);
	rmdir(dir);
	free(t1);
	free(f.d);
	free(old.d);
	pap_profile_free(&mine);
	pap_profile_free(&sum);
}

/*
 * test_log_damage: every byte of the middle of three segments, flipped,
 * makes the file refused with "FILE: error: byte N: ..." (its checksum,
 * its framing, or its length running past the end with whole segments
 * after it); so does a byte of the header's version.
 */
static void test_log_damage(void **state)
{
	struct pap_profile sum;
	struct bytes f;
	size_t ends[3], at;
	char err[256];

	(void)state;
	pap_profile_init(&sum);
	f = log_file(5, 3, 10, &sum, ends);
	for (at = ends[0]; at < ends[1]; at++) {
		struct pap_profile p;

		pap_profile_init(&p);
		f.d[at] ^= 0x41;
		if (!read_mem(&p, &f, err, sizeof(err)))
			fail_msg("byte %zu flipped: read", at);
		assert_non_null(strstr(err, "t.prof: error: byte "));
		f.d[at] ^= 0x41;
		pap_profile_free(&p);
	}
	f.d[8] = PAP_PROFILE_VERSION_BIN + 1;
	{
		struct pap_profile p;
		char want[64];

		snprintf(want, sizeof(want), "version %d is not supported",
			 PAP_PROFILE_VERSION_BIN + 1);
		pap_profile_init(&p);
		assert_int_not_equal(read_mem(&p, &f, err, sizeof(err)), 0);
		assert_non_null(strstr(err, want));
		pap_profile_free(&p);
	}
	/* version 4 had flags there, which must be 0 */
	f.d[8] = 4;
	f.d[12] = 1;
	{
		struct pap_profile p;

		pap_profile_init(&p);
		assert_int_not_equal(read_mem(&p, &f, err, sizeof(err)), 0);
		assert_non_null(strstr(err, "unknown profile flags"));
		pap_profile_free(&p);
	}
	/* the committed length: where a segment ends, or beyond the file
	 * (a cut, tested above); anywhere else it is damage */
	{
		static const long off[] = { -1, 1, 8 };
		struct pap_profile p, whole;
		char *t1, *t2;
		unsigned i;

		pap_profile_init(&whole);
		pap_profbin_header(f.d, f.n);
		assert_int_equal(read_mem(&whole, &f, err, sizeof(err)), 0);
		for (i = 0; i < 3; i++) {
			pap_profile_init(&p);
			pap_profbin_header(f.d, (uint64_t)((long)ends[1] +
							   off[i]));
			assert_int_not_equal(read_mem(&p, &f, err,
						      sizeof(err)), 0);
			assert_non_null(strstr(err, "t.prof: error: byte 16: "
					       "committed length"));
			pap_profile_free(&p);
		}
		pap_profbin_header(f.d, PAP_PROFBIN_HEAD - 1);
		pap_profile_init(&p);
		assert_int_not_equal(read_mem(&p, &f, err, sizeof(err)), 0);
		assert_non_null(strstr(err, "shorter than the header"));
		pap_profile_free(&p);
		/* a writer killed before it committed its whole segment:
		 * the segment counts, nothing is said */
		pap_profbin_header(f.d, ends[1]);
		pap_profile_init(&p);
		assert_int_equal(read_mem(&p, &f, err, sizeof(err)), 0);
		assert_string_equal(err, "");
		t1 = as_text(&whole);
		t2 = as_text(&p);
		assert_string_equal(t1, t2);
		free(t1);
		free(t2);
		pap_profile_free(&p);
		pap_profile_free(&whole);
	}
	free(f.d);
	pap_profile_free(&sum);
}

/* A file of one segment whose body is @body[0..@n), framed right. */
static struct bytes framed(const unsigned char *body, size_t n)
{
	struct bytes f;
	unsigned char *at;
	uint64_t h = pap_fnv1a(body, n), v;
	unsigned i;

	f.n = PAP_PROFBIN_HEAD + PAP_PROFBIN_SEG_HEAD + n +
	      PAP_PROFBIN_SEG_TAIL;
	f.d = calloc(1, f.n);
	assert_non_null(f.d);
	pap_profbin_header(f.d, f.n);
	at = f.d + PAP_PROFBIN_HEAD;
	memcpy(at, PAP_PROFBIN_SEG_MARK, 4);
	for (i = 0, v = n; i < 8; i++, v >>= 8)
		at[8 + i] = (unsigned char)v;
	memcpy(at + 16, body, n);
	at += 16 + n;
	for (i = 0; i < 8; i++) {
		at[i] = (unsigned char)(h >> (8 * i));
		at[8 + i] = (unsigned char)((uint64_t)n >> (8 * i));
	}
	memcpy(at + 16, PAP_PROFBIN_END_MARK, 4);
	return f;
}

/* Expects the body @b to be refused with a message holding @what. */
static void refused(const unsigned char *b, size_t n, const char *what)
{
	struct bytes f = framed(b, n);
	struct pap_profile p;
	char err[256];

	pap_profile_init(&p);
	if (!read_mem(&p, &f, err, sizeof(err)))
		fail_msg("read a body that should hold %s", what);
	if (!strstr(err, "t.prof: error: byte ") || !strstr(err, what))
		fail_msg("'%s' does not say %s", err, what);
	pap_profile_free(&p);
	free(f.d);
}

/*
 * test_log_malformed: bodies framed right but wrong inside: a reference
 * past the dictionary, a varint too long, a key longer than the body, a
 * repeat reaching before the path, more shared breakpoints than the path
 * before had, bytes after the last function.  One well-formed body reads.
 */
#define KEY 21, 'w', 'a', 'l', 'k', ':', '0', '1', '2', '3', '4', '5', '6', \
	'7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'
#define R8 1, 2, 3, 4, 5, 6, 7, 8
static void test_log_malformed(void **state)
{
	/* lost 0, 1 function, 1 entry (site 0), 1 complete path of 1
	 * breakpoint, value 5, nothing shared, reference 0 */
	static const unsigned char good[] = { 0, 1, KEY, 1, 1, R8, 1, 0, 0,
					      2, 5, 0, 0 };
	static const unsigned char past[] = { 0, 1, KEY, 1, 1, R8, 1, 0, 0,
					      2, 5, 0, 2 };
	static const unsigned char longv[] = { 0x80, 0x80, 0x80, 0x80, 0x80,
					       0x80, 0x80, 0x80, 0x80, 0x80,
					       0x01, 0 };
	static const unsigned char longkey[] = { 0, 1, 100, 'w', 'a' };
	static const unsigned char before[] = { 0, 1, KEY, 1, 1, R8, 1, 0, 0,
						2, 5, 0, 3, 1 };
	static const unsigned char shared[] = { 0, 1, KEY, 1, 1, R8, 1, 0, 0,
						2, 5, 1, 0 };
	static const unsigned char after[] = { 0, 1, KEY, 1, 1, R8, 1, 0, 0,
					       2, 5, 0, 0, 9 };
	struct bytes f = framed(good, sizeof(good));
	struct pap_profile p;
	char err[256];

	(void)state;
	pap_profile_init(&p);
	if (read_mem(&p, &f, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(p.nrecs, 1);
	assert_int_equal(p.recs[0].bps[0].r, 0x0807060504030201ull);
	pap_profile_free(&p);
	free(f.d);
	refused(past, sizeof(past), "past the dictionary");
	refused(longv, sizeof(longv), "too long");
	refused(longkey, sizeof(longkey), "more than the segment holds");
	refused(before, sizeof(before), "before the path's start");
	refused(shared, sizeof(shared), "shared with a path of 0");
	refused(after, sizeof(after), "after the segment's last function");
}

/* Mapped pages, counted: memory as the runtime gives it (librt/pages.c). */
static long map_held;

static void *map_resize(void *p, size_t old, size_t size)
{
	void *q;

	size = (size + 4095) & ~(size_t)4095;
	old = (old + 4095) & ~(size_t)4095;
	q = p && old ? mremap(p, old, size, MREMAP_MAYMOVE) :
		       mmap(NULL, size, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		return NULL;
	map_held += (long)size - (long)(p ? old : 0);
	return q;
}

static void map_release(void *p, size_t size)
{
	size = (size + 4095) & ~(size_t)4095;
	munmap(p, size);
	map_held -= (long)size;
}

static const struct pap_mem map_mem = { map_resize, map_release };

/*
 * malloc, calloc and realloc counted while @counting, by way of glibc's
 * own (AddressSanitizer has its own, so a sanitized build counts none).
 */
static int counting;
static unsigned long mallocs;
#ifndef __SANITIZE_ADDRESS__
void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

void *malloc(size_t n)
{
	mallocs += counting;
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	mallocs += counting;
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	mallocs += counting;
	return __libc_realloc(p, n);
}
#endif

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? -1 : (long)st.st_size;
}

static struct bytes file_bytes(const char *path)
{
	struct bytes b = { NULL, 0 };
	FILE *f = fopen(path, "rb");
	long n = file_size(path);

	assert_non_null(f);
	assert_true(n >= 0);
	b.d = malloc((size_t)n + 1);
	assert_non_null(b.d);
	b.n = fread(b.d, 1, (size_t)n, f);
	fclose(f);
	return b;
}

/* A random profile of seed @seed in mapped pages, spilled into @path:
 * what pap_profile_spill_file returned; none of it called malloc, and a
 * file appended to grew by the profile's segment exactly.  The profile
 * is added to @sum when it went in. */
static int spilled(const char *path, uint64_t seed, struct pap_profile *sum)
{
	struct pap_profile p;
	unsigned char *seg;
	size_t len;
	long before = file_size(path);
	int rc;

	pap_profile_init(&p);
	p.mem = &map_mem;
	random_profile(&p, seed, 3000, 0);
	mallocs = 0;
	counting = 1;
	rc = pap_profile_spill_file(path, &p, "test");
	counting = 0;
	assert_int_equal(mallocs, 0);
	assert_int_equal(pap_profbin_segment(&p, 0, &seg, &len), 0);
	if (!rc && before > 0)
		assert_int_equal(file_size(path), before + (long)len);
	else if (!rc)
		assert_int_equal(file_size(path), PAP_PROFBIN_HEAD + (long)len);
	pap_mem_release(p.mem, seg, len);
	if (!rc)
		assert_int_equal(pap_profile_merge(sum, &p), 0);
	pap_profile_free(&p);
	return rc;
}

/* A spill of seed @seed into @path is refused (1) and leaves the file
 * byte for byte as it was. */
static void spill_refused(const char *path, uint64_t seed)
{
	struct bytes before = file_bytes(path), after;
	struct pap_profile none;

	pap_profile_init(&none);
	assert_int_equal(spilled(path, seed, &none), 1);
	after = file_bytes(path);
	assert_int_equal(after.n, before.n);
	assert_memory_equal(after.d, before.d, before.n);
	free(before.d);
	free(after.d);
	pap_profile_free(&none);
}

/*
 * test_log_spill: spills (the runtime's, which a signal handler may make
 * while its thread is inside malloc) call no malloc: into a missing file
 * and 30 times into a log well past compaction, each appended as it is,
 * the file reading as their sum; a text profile and a file ending in a
 * cut segment are left byte for byte alone (1: only an ordinary writer
 * can merge there); every mapped page is given back.
 */
static void test_log_spill(void **state)
{
	char dir[] = "/tmp/papspillXXXXXX", path[64], lock[80];
	struct pap_profile sum;
	char *t1;
	unsigned i;
	FILE *fp;

	(void)state;
	pap_profile_init(&sum);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.prof", dir);
	snprintf(lock, sizeof(lock), "%s.lock", path);
	for (i = 0; i < 30; i++)
		assert_int_equal(spilled(path, 7000 + i, &sum), 0);
	assert_true(file_size(path) > 2 * (long)PAP_PROFILE_LOG_FLOOR);
	assert_file_is(path, &sum);

	/* a segment cut short at the end: left for the next ordinary
	 * writer to cut off */
	assert_int_equal(truncate(path, file_size(path) - 3), 0);
	spill_refused(path, 9000);

	/* a text profile */
	t1 = as_text(&sum);
	fp = fopen(path, "wb");
	assert_non_null(fp);
	assert_int_equal(fputs(t1, fp) >= 0, 1);
	fclose(fp);
	spill_refused(path, 9001);
	free(t1);

	assert_int_equal(map_held, 0);
	unlink(path);
	unlink(lock);
	rmdir(dir);
	pap_profile_free(&sum);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_round_trip),
		cmocka_unit_test(test_log_equal_files),
		cmocka_unit_test(test_log_append),
		cmocka_unit_test(test_log_cuts),
		cmocka_unit_test(test_log_old_versions),
		cmocka_unit_test(test_log_damage),
		cmocka_unit_test(test_log_malformed),
		cmocka_unit_test(test_log_spill),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
