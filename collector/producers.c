/* SPDX-License-Identifier: MIT */
/*
 * producers.c - pap-collector's side of the transport: segments, drains,
 * the end of a producer and the end of the collector.
 *
 * Nothing in a segment is trusted: the ring size is the collector's own
 * copy, head is checked against tail and the size, and every record is
 * copied out and checked before use (libcore/ring.c).  What cannot be
 * read is counted, never guessed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "target.h"
#include "util.h"

/* The one stored copy of function string [s, s+n); NULL if out of memory. */
static const char *col_intern(struct collector *c, const char *s, size_t n)
{
	size_t mask, k, i;
	char *copy;

	if (c->nstrs + 1 > c->nstr_slots / 2) {
		size_t ns = c->nstr_slots ? c->nstr_slots * 2 : 256;
		uint32_t *slots = calloc(ns, sizeof(*slots));

		if (!slots)
			return NULL;
		for (i = 0; i < c->nstrs; i++) {
			k = pap_fnv1a(c->strs[i], strlen(c->strs[i])) &
			    (ns - 1);
			while (slots[k])
				k = (k + 1) & (ns - 1);
			slots[k] = (uint32_t)(i + 1);
		}
		free(c->str_slots);
		c->str_slots = slots;
		c->nstr_slots = ns;
	}
	mask = c->nstr_slots - 1;
	for (k = pap_fnv1a(s, n) & mask; c->str_slots[k]; k = (k + 1) & mask) {
		const char *t = c->strs[c->str_slots[k] - 1];

		if (!strncmp(t, s, n) && !t[n])
			return t;
	}
	if (c->nstrs == c->cap_strs) {
		size_t cap = c->cap_strs ? c->cap_strs * 2 : 64;
		char **ns = realloc(c->strs, cap * sizeof(*ns));

		if (!ns)
			return NULL;
		c->strs = ns;
		c->cap_strs = cap;
	}
	copy = strndup(s, n);
	if (!copy)
		return NULL;
	c->strs[c->nstrs++] = copy;
	c->str_slots[k] = (uint32_t)c->nstrs;
	return copy;
}

static void col_pending_add(struct collector *c, uint64_t n)
{
	__atomic_store_n(c->pending, pap_sat_add(*c->pending, n),
			 __ATOMIC_RELAXED);
}

/* @n records found lost: in the profile's count, and pending until it is
 * written. */
static void col_lose(struct collector *c, uint64_t n)
{
	c->prof.lost = pap_sat_add(c->prof.lost, n);
	col_pending_add(c, n);
}

int col_pending_open(struct collector *c, const char *file)
{
	uint64_t *p;
	int fd;

	if (snprintf(c->pending_path, sizeof(c->pending_path), "%s.pending.%ld",
		     file, (long)getpid()) >= (int)sizeof(c->pending_path))
		return -1;
	fd = open(c->pending_path, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW |
		  O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, sizeof(uint64_t)) ||
	    (p = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE,
		      MAP_SHARED, fd, 0)) == MAP_FAILED) {
		close(fd);
		unlink(c->pending_path);
		return -1;
	}
	close(fd);
	c->pending = p;
	return 0;
}

struct col_ctx {
	struct collector *c;
	struct col_producer *p;
	uint64_t refused;	/* its ring's records the profile refused */
};

/* An FN record: ids come in order 1, 2, ...; the string is a key. */
static int col_on_fn(void *ctx, uint32_t id, const char *s, uint32_t n)
{
	struct col_ctx *x = ctx;
	struct col_producer *p = x->p;
	const char *colon = memchr(s, ':', n);
	const char *str;
	uint32_t i;

	if (id != p->nfns + 1 || p->nfns >= COL_MAX_FNS ||
	    p->fn_bytes + n > COL_MAX_FN_BYTES || !colon || colon == s)
		return -1;
	for (i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return -1;
	if (p->nfns == p->cap_fns) {
		uint32_t cap = p->cap_fns ? p->cap_fns * 2 : 16;
		const char **nf = realloc(p->fns, cap * sizeof(*nf));

		if (!nf)
			return -1;
		p->fns = nf;
		p->cap_fns = cap;
	}
	str = col_intern(x->c, s, n);
	if (!str)
		return -1;
	p->fns[p->nfns++] = str;
	p->fn_bytes += n;
	return 0;
}

/* Counts @count records without breakpoints that the cache finds: 1, or
 * 0 if it does not. */
static int col_cached(struct collector *c, const char *fn, uint8_t kind,
		      uint8_t complete, uint64_t value, uint64_t count)
{
	uint64_t *n = pap_reccache_count(c->cache, COL_CACHE, &c->prof, fn,
					 kind, complete, value);

	if (!n)
		return 0;
	*n = pap_sat_add(*n, count);
	return 1;
}

/* What adding @it came to: the cache learns where a record without
 * breakpoints is, and a refused one (--max-records) is counted in the
 * context @arg. */
static void col_added(void *arg, const struct pap_prof_item *it)
{
	struct col_ctx *x = arg;

	if (it->err) {
		x->refused = pap_sat_add(x->refused, it->count);
		return;
	}
	pap_reccache_learn(x->c->cache, COL_CACHE, it);
}

/* Counts @count records without breakpoints at once: 0, or -1 if the
 * profile refused them. */
static int col_count(struct collector *c, const char *fn, uint8_t kind,
		     uint8_t complete, uint64_t value, uint64_t count)
{
	struct col_ctx x = { c, NULL, 0 };
	struct pap_prof_item it;

	if (col_cached(c, fn, kind, complete, value, count))
		return 0;
	pap_prof_item_set(&it, fn, kind, complete, value, NULL, 0, count);
	pap_profile_add_many(&c->prof, &it, 1);
	col_added(&x, &it);
	return it.err ? -1 : 0;
}

/* A ring's record: into the profile with the rest of the drain's batch
 * (col_drain_one flushes it), unless the cache finds it. */
static void col_queue(struct col_ctx *x, const char *fn, uint8_t kind,
		      uint8_t complete, uint64_t value,
		      const struct pap_breakpoint *bps, uint32_t nbps,
		      uint64_t count)
{
	if (!nbps && col_cached(x->c, fn, kind, complete, value, count))
		return;
	pap_prof_batch_add(&x->c->prof, &x->c->batch, fn, kind, complete,
			   value, bps, nbps, count, col_added, x);
}

/* Can producer @p send records of @kind under its function @fn (an id
 * it defined): the program kinds from 2.4 on, each under its kind's keys
 * (pap/records.h), which a profile's reader checks? */
static int col_kind_ok(const struct col_producer *p, uint8_t kind,
		       uint32_t fn)
{
	if (fn == 0 || fn > p->nfns || kind >= PAP_REC_NKINDS ||
	    (pap_rec_version(kind) > PAP_PROFILE_VERSION_END && p->minor < 4))
		return 0;
	return pap_rec_key_fits(kind, p->fns[fn - 1],
				strlen(p->fns[fn - 1]));
}

static int col_on_path(void *ctx, uint32_t fn, uint8_t kind,
		       uint8_t complete, uint64_t value,
		       const struct pap_breakpoint *bps, uint32_t nbps)
{
	struct col_ctx *x = ctx;
	size_t n = nbps;

	if (!col_kind_ok(x->p, kind, fn))
		return -1;
	/* a producer before 2.2 sends long paths unpacked: packed here as
	 * a newer one packs them, so that the same path makes one record */
	if (x->p->minor < 2 && !(bps = pap_bpack_old(&x->c->pack, bps, &n)))
		return -1;
	if (fn == 0 || fn > x->p->nfns)
		return -1;
	col_queue(x, x->p->fns[fn - 1], kind, complete, value, bps,
		  (uint32_t)n, 1);
	x->p->records++;
	return 0;
}

static int col_on_bl(void *ctx, uint32_t fn, uint8_t kind, uint64_t id)
{
	struct col_ctx *x = ctx;

	if (!col_kind_ok(x->p, kind, fn))
		return -1;
	col_queue(x, x->p->fns[fn - 1], kind, 1, id, NULL, 0, 1);
	x->p->records++;
	return 0;
}

/* A slot's final count: counted, and the slot marked as taken at @seq. */
static int col_on_count(void *ctx, uint32_t slot, uint64_t seq, uint32_t fn,
			uint8_t kind, uint8_t complete, uint64_t value,
			uint64_t count)
{
	struct col_ctx *x = ctx;

	if (!col_kind_ok(x->p, kind, fn) || slot >= x->p->nslots)
		return -1;
	col_queue(x, x->p->fns[fn - 1], kind, complete, value, NULL, 0, count);
	x->p->count_seq[slot] = seq + 1;
	x->p->records = pap_sat_add(x->p->records, count);
	return 0;
}

static const struct pap_ring_ops col_ops = { col_on_fn, col_on_path,
					     col_on_bl, col_on_count };

/* Takes @p's committed records; how many.  A broken frame discards the
 * rest of what is committed and is counted once. */
static uint64_t col_drain_one(struct collector *c, struct col_producer *p)
{
	struct col_ctx x = { c, p, 0 };
	struct pap_ring_stats st = { 0, 0, 0 };
	uint64_t head = __atomic_load_n(&p->shm->head, __ATOMIC_ACQUIRE);

	if (head == p->tail)
		return 0;
	if (pap_ring_read(p->shm->words, p->nwords, &p->tail, head, &col_ops,
			  &x, c->buf, &p->joined, &st)) {
		if (!p->broken)
			fprintf(stderr, "pap-collector: producer %ld/%ld wrote "
				"a malformed ring; its unreadable records are "
				"counted as lost\n", (long)p->pid, (long)p->tid);
		p->broken = 1;
		st.rejected++;
		/* resynchronise where the producer says it is */
		p->tail = head;
	}
	/* every record read is in the profile before the tail moves; one
	 * refused (--max-records) is lost, and taken as such */
	pap_prof_batch_flush(&c->prof, &c->batch, col_added, &x);
	st.records -= x.refused;
	st.rejected = pap_sat_add(st.rejected, x.refused);
	p->records -= x.refused;
	/* tail first: a SIGKILL between the two stores may lose this batch
	 * unreported, but can never count it twice */
	__atomic_store_n(&p->shm->tail, p->tail, __ATOMIC_RELEASE);
	col_pending_add(c, pap_sat_add(st.records, st.rejected));
	c->st.records = pap_sat_add(c->st.records, st.records);
	c->st.rejected += st.rejected;
	p->rejected += st.rejected;
	c->prof.lost = pap_sat_add(c->prof.lost, st.rejected);
	return st.records;
}

uint64_t col_drain(struct collector *c)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < c->nprods; i++)
		n += col_drain_one(c, c->prods[i]);
	if (c->file && c->spill_at &&
	    pap_profile_bytes(&c->prof) > c->spill_at)
		col_spill(c);
	return n;
}

/* Counts @p's drops (lossy mode) not yet counted.  A producer that broke
 * its ring's framing is not believed: its losses count as rejected. */
static void col_count_drops(struct collector *c, struct col_producer *p)
{
	uint64_t lost = __atomic_load_n(&p->shm->lost, __ATOMIC_ACQUIRE);

	if (!p->broken && lost > p->lost_seen) {
		c->st.dropped += lost - p->lost_seen;
		col_lose(c, lost - p->lost_seen);
		p->lost_seen = lost;
		/* counted here: the producer need not report them */
		__atomic_store_n(&p->shm->durable_lost, lost, __ATOMIC_RELEASE);
	}
}

static void col_release(struct col_producer *p)
{
	if (p->shm)
		munmap(p->shm, p->maplen);
	if (p->sock >= 0)
		close(p->sock);
	free(p->fns);
	free(p->count_seq);
	pap_ring_joined_free(&p->joined);
	free(p);
}

/* How a caller takes a producer's slots (col_take_slots). */
enum col_slots_mode {
	COL_SLOTS_GONE,		/* its producer is gone: into the profile */
	COL_SLOTS_STOP,		/* we stop: into the profile, and say so */
	COL_SLOTS_PEEK,		/* a snapshot: into a copy, nothing else */
};

/* Reads slot @s, retrying a while if a live producer is rewriting it. */
static int col_read_slot(const struct pap_shm_slot *s, struct pap_shm_slot *out,
			 enum col_slots_mode mode)
{
	int rc, tries = mode == COL_SLOTS_GONE ? 1 : 1000;

	while ((rc = pap_ring_read_slot(s, out)) == 2 && --tries > 0)
		sched_yield();
	return rc;
}

/*
 * What producer @p's slots count, not yet taken from its ring: each
 * steady slot holding a record whose final count no COUNT record has
 * brought.  GONE and STOP count them into the profile and p->records;
 * STOP also tells the live producer how much of each slot is taken, so
 * that it keeps only the rest if it takes its ring back.  PEEK adds them
 * to @copy only and changes nothing else.  A slot being rewritten holds
 * the record its producer was making: that is left to the conservation
 * count.  Garbage is counted as rejected (not when peeking).
 */
static void col_take_slots(struct collector *c, struct col_producer *p,
			   enum col_slots_mode mode, struct pap_profile *copy)
{
	struct pap_shm_slot *slots = pap_shm_slots(p->shm, p->nwords);
	struct pap_shm_took *t = pap_shm_took(p->shm, p->nwords, p->nslots);
	struct pap_shm_slot s;
	const char *fn;
	uint32_t i, id;
	int rc;

	for (i = 0; i < p->nslots; i++) {
		rc = col_read_slot(&slots[i], &s, mode);
		if (rc == 1 || rc == 2 ||
		    (rc == 0 && p->count_seq[i] == s.seq + 1))
			continue;
		id = pap_shm_key_fn(s.key);
		if (rc < 0 || !col_kind_ok(p, pap_shm_key_kind(s.key), id)) {
			if (mode != COL_SLOTS_PEEK) {
				c->st.rejected++;
				p->rejected++;
				col_lose(c, 1);
			}
			continue;
		}
		fn = p->fns[id - 1];
		if (mode == COL_SLOTS_PEEK) {
			pap_profile_add(copy, fn, pap_shm_key_kind(s.key),
					pap_shm_key_complete(s.key), s.value,
					NULL, 0, s.count);
			continue;
		}
		if (col_count(c, fn, pap_shm_key_kind(s.key),
			      pap_shm_key_complete(s.key), s.value,
			      s.count)) {
			/* refused (--max-records): lost, and taken as such */
			c->st.rejected = pap_sat_add(c->st.rejected, s.count);
			p->rejected = pap_sat_add(p->rejected, s.count);
			c->prof.lost = pap_sat_add(c->prof.lost, s.count);
		} else {
			p->records = pap_sat_add(p->records, s.count);
			c->st.records = pap_sat_add(c->st.records, s.count);
		}
		if (mode == COL_SLOTS_STOP) {
			/* took before pending: a SIGKILL between them may
			 * lose these unreported, never count them twice;
			 * count before seq, for a producer that sees seq */
			__atomic_store_n(&t[i].count, s.count,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&t[i].seq, s.seq, __ATOMIC_RELEASE);
		}
		col_pending_add(c, s.count);
	}
}

/*
 * What producer @p's tallies count (pap/shm.h), as col_take_slots takes
 * its slots: GONE and STOP into the profile, STOP also storing in
 * tally_took what it took of each counter, PEEK into @copy only.
 * Tallied records are outside the producer's taken count, so they go
 * neither into p->records nor into the conservation count; a block that
 * is garbage is one rejected record (not when peeking).
 */
static void col_take_tallies(struct collector *c, struct col_producer *p,
			     enum col_slots_mode mode, struct pap_profile *copy)
{
	const struct pap_shm_tally *tl;
	uint64_t *words, *took, n, k, v, count;
	const char *fn;
	uint32_t id;

	if (!p->ntally)
		return;
	tl = pap_shm_tallies(p->shm, p->nwords, p->nslots);
	words = pap_shm_tally_words(p->shm, p->nwords, p->nslots);
	took = words + p->ntally;
	n = __atomic_load_n(&p->shm->ntallies, __ATOMIC_ACQUIRE);
	if (n > p->nslots)
		n = p->nslots;
	for (k = 0; k < n; k++) {
		struct pap_shm_tally t = tl[k];
		uint8_t kind = pap_shm_key_kind(t.key);

		id = pap_shm_key_fn(t.key);
		if (!id || id > p->nfns || t.n == 0 ||
		    (uint64_t)t.base + t.n > p->ntally ||
		    (kind != PAP_REC_PATH && kind != PAP_REC_BL) ||
		    pap_shm_key_complete(t.key) != 1 || t.key >> 48) {
			if (mode != COL_SLOTS_PEEK) {
				c->st.rejected++;
				col_lose(c, 1);
			}
			continue;
		}
		fn = p->fns[id - 1];
		for (v = 0; v < t.n; v++) {
			count = __atomic_load_n(&words[t.base + v],
						__ATOMIC_RELAXED);
			if (!count)
				continue;
			if (count > PAP_SHM_MAX_COUNT) {
				if (mode != COL_SLOTS_PEEK) {
					c->st.rejected++;
					col_lose(c, 1);
				}
				continue;
			}
			if (mode == COL_SLOTS_PEEK) {
				pap_profile_add(copy, fn, kind, 1, v, NULL, 0,
						count);
				continue;
			}
			if (col_count(c, fn, kind, 1, v, count)) {
				c->st.rejected = pap_sat_add(c->st.rejected,
							     count);
				c->prof.lost = pap_sat_add(c->prof.lost, count);
			} else {
				c->st.records = pap_sat_add(c->st.records,
							    count);
			}
			if (mode == COL_SLOTS_STOP)
				__atomic_store_n(&took[t.base + v], count,
						 __ATOMIC_RELEASE);
			col_pending_add(c, count);
		}
	}
}

/* Takes what producer @p counted in place: its slots, then its tallies. */
static void col_take_counted(struct collector *c, struct col_producer *p,
			     enum col_slots_mode mode, struct pap_profile *copy)
{
	if (p->broken)
		return;
	col_take_slots(c, p, mode, copy);
	col_take_tallies(c, p, mode, copy);
}

static uint64_t col_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void col_reclaim(struct collector *c, size_t i)
{
	struct col_producer *p = c->prods[i];
	uint64_t taken, got, settled;

	col_drain_one(c, p);
	if (!p->broken && pap_ring_partial(p->shm->words, p->nwords,
					   __atomic_load_n(&p->shm->head,
							   __ATOMIC_ACQUIRE)))
		c->st.partial++;	/* it died inside a ring record */
	col_count_drops(c, p);
	col_take_counted(c, p, COL_SLOTS_GONE, NULL);
	/*
	 * What it made and neither we (in the profile, or refused and
	 * counted as lost) nor its own profile file got: the record it died
	 * in, and what it kept in its memory.  A producer that broke its
	 * ring's framing is not believed about its counts.
	 */
	taken = __atomic_load_n(&p->shm->taken, __ATOMIC_ACQUIRE);
	settled = __atomic_load_n(&p->shm->settled, __ATOMIC_ACQUIRE);
	got = pap_sat_add(pap_sat_add(p->records, p->rejected),
			  pap_sat_add(p->lost_seen, settled));
	if (p->broken)
		taken = got;
	if (taken > got) {
		/* no thread makes records faster than one a nanosecond: a
		 * larger count is garbage, and does not swamp the lost count */
		uint64_t most = col_now_ns() - p->born_ns;
		uint64_t n = taken - got < most ? taken - got : most;

		c->st.unsent = pap_sat_add(c->st.unsent, n);
		col_lose(c, n);
	}
	col_release(p);
	c->prods[i] = c->prods[--c->nprods];
}

/* A new 0600 segment for a ring of @nwords words; its fd, or -1.  The
 * name, made of numbers only, is unlinked at once: nothing outlives us. */
static int col_segment(struct collector *c, struct col_producer *p)
{
	char name[64];
	struct stat st;
	int fd;

	snprintf(name, sizeof(name), "/pap-%u-%u-%u", (unsigned)geteuid(),
		 (unsigned)getpid(), c->seq++);
	fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	shm_unlink(name);
	p->maplen = pap_shm_segment_size(c->nwords, c->nslots, p->ntally);
	if (fchmod(fd, 0600) || ftruncate(fd, (off_t)p->maplen) ||
	    fstat(fd, &st) || st.st_uid != geteuid())
		goto fail;
	p->shm = mmap(NULL, p->maplen, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		      0);
	if (p->shm == MAP_FAILED) {
		p->shm = NULL;
		goto fail;
	}
	p->nwords = c->nwords;
	p->nslots = c->nslots;
	p->shm->magic = PAP_SHM_MAGIC;
	p->shm->nslots = c->nslots;
	p->shm->ntally = p->ntally;
	p->shm->major = PAP_SHM_VERSION_MAJOR;
	p->shm->minor = (uint16_t)p->minor;
	p->shm->header_size = sizeof(*p->shm);
	p->shm->nwords = c->nwords;
	p->shm->collector_pid = (uint32_t)getpid();
	return fd;
fail:
	close(fd);
	return -1;
}

static int col_send_welcome(int sock, int status, uint64_t nwords,
			    uint32_t nslots, uint32_t minor, int fd)
{
	struct pap_shm_welcome w = { PAP_SHM_MAGIC, PAP_SHM_VERSION_MAJOR,
				     minor, status, nslots, nwords };
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &w, sizeof(w) };
	struct msghdr m = { 0 };
	struct cmsghdr *cm;

	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (fd >= 0) {
		memset(cbuf, 0, sizeof(cbuf));
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	return sendmsg(sock, &m, MSG_NOSIGNAL) == (ssize_t)sizeof(w) ? 0 : -1;
}

int col_accept(struct collector *c, int lsock)
{
	struct pap_shm_hello hello;
	struct timeval tv = { 1, 0 };
	struct col_producer *p;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int sock, fd;

	sock = accept4(lsock, NULL, NULL, SOCK_CLOEXEC);
	if (sock < 0)
		return -1;
	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
	    cred.uid != geteuid()) {
		col_send_welcome(sock, EPERM, 0, 0, PAP_SHM_VERSION_MINOR, -1);
		fprintf(stderr, "pap-collector: refused a producer of uid "
			"%ld\n", (long)cred.uid);
		goto refuse;
	}
	if (recv(sock, &hello, sizeof(hello), MSG_WAITALL) != sizeof(hello) ||
	    hello.magic != PAP_SHM_MAGIC ||
	    hello.major < PAP_SHM_VERSION_OLDEST ||
	    hello.major > PAP_SHM_VERSION_MAJOR) {
		col_send_welcome(sock, EPROTO, 0, 0, PAP_SHM_VERSION_MINOR,
				 -1);
		goto refuse;
	}
	if (c->nprods == c->cap_prods) {
		size_t cap = c->cap_prods ? c->cap_prods * 2 : 16;
		struct col_producer **np = realloc(c->prods,
						   cap * sizeof(*np));

		if (!np)
			goto refuse;
		c->prods = np;
		c->cap_prods = cap;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		goto refuse;
	p->sock = sock;
	p->pid = cred.pid;
	p->tid = (pid_t)hello.tid;
	p->born_ns = col_now_ns();
	/* the layout and records the producer knows: tallies from 2.1,
	 * repeats in breakpoints from 2.2 */
	p->minor = hello.major != PAP_SHM_VERSION_MAJOR ? 0 :
		   hello.minor < PAP_SHM_VERSION_MINOR ? hello.minor :
		   PAP_SHM_VERSION_MINOR;
	p->ntally = pap_shm_ntally(c->nslots, p->minor);
	p->count_seq = calloc(c->nslots ? c->nslots : 1, sizeof(uint64_t));
	fd = p->count_seq ? col_segment(c, p) : -1;
	if (fd < 0 || col_send_welcome(sock, 0, c->nwords, c->nslots, p->minor,
				       fd)) {
		if (fd >= 0)
			close(fd);
		col_release(p);
		c->st.refused++;
		return -1;
	}
	close(fd);
	c->prods[c->nprods++] = p;
	c->st.producers++;
	return 0;
refuse:
	c->st.refused++;
	close(sock);
	return -1;
}

/* Tells each producer the collector is gone, and, when @durable, that
 * what its ring gave is in the profile file (else it reports it lost). */
static void col_tell_producers_gone(struct collector *c, int durable)
{
	size_t i;

	for (i = 0; i < c->nprods; i++) {
		struct pap_shm_ring *s = c->prods[i]->shm;

		if (durable) {
			__atomic_store_n(&s->durable, c->prods[i]->records,
					 __ATOMIC_RELEASE);
			__atomic_store_n(&s->durable_lost,
					 c->prods[i]->lost_seen,
					 __ATOMIC_RELEASE);
		}
		__atomic_store_n(&s->state, PAP_SHM_GONE, __ATOMIC_SEQ_CST);
	}
}

/* Under the profile file's lock, once a spill is written: what was
 * drained so far is in the file, nothing pending. */
static void col_spilled(void *arg)
{
	struct collector *c = arg;

	__atomic_store_n(c->pending, 0, __ATOMIC_RELAXED);
}

void col_spill(struct collector *c)
{
	if (pap_profile_merge_file(c->file, &c->prof, "pap-collector",
				   col_spilled, c)) {
		/* kept, and written at the end if the file will take it */
		c->spill_at = 0;
		return;
	}
	pap_profile_clear(&c->prof);
	memset(c->cache, 0, sizeof(c->cache));
	c->spilled = 1;
}

/* Under the profile file's lock, after the rename: everything is in the
 * file, nothing pending. */
static void col_written(void *arg)
{
	struct collector *c = arg;

	__atomic_store_n(c->pending, 0, __ATOMIC_RELAXED);
	col_tell_producers_gone(c, 1);
}

int col_finish(struct collector *c, const char *file)
{
	size_t i;
	int rc;

	for (i = 0; i < c->nprods; i++)
		__atomic_store_n(&c->prods[i]->shm->state, PAP_SHM_DETACHING,
				 __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	col_drain(c);
	for (i = 0; i < c->nprods; i++) {
		col_count_drops(c, c->prods[i]);
		col_take_counted(c, c->prods[i], COL_SLOTS_STOP, NULL);
	}
	rc = pap_profile_merge_file(file, &c->prof, "pap-collector",
				    col_written, c);
	if (rc)
		col_tell_producers_gone(c, 0);
	else if (c->pending != &c->pending_local)
		unlink(c->pending_path);
	return rc;
}

int col_snapshot(struct collector *c, const char *file)
{
	struct pap_profile slots, *out = &c->prof;
	char tmp[COL_SIDE_PATH_MAX + 32];
	size_t i;
	FILE *f;
	int rc = -1, off;

	col_drain(c);
	/* the slots' counts join a copy, not what we hold; so does what was
	 * spilled to the output file already */
	pap_profile_init(&slots);
	if (c->spilled) {
		char err[512];

		if (pap_profile_read_file(&slots, c->file, (size_t)1 << 34,
					  err, sizeof(err), NULL)) {
			fprintf(stderr, "pap-collector: %s\n", err);
			goto out;
		}
	}
	for (i = 0; i < c->nprods; i++)
		if (c->prods[i]->nslots)
			col_take_counted(c, c->prods[i], COL_SLOTS_PEEK,
					 &slots);
	if (slots.nrecs || slots.lost) {
		if (pap_profile_merge(&slots, &c->prof))
			goto out;
		out = &slots;
	}
	/* a regular file of ours only, through a temporary made safely */
	f = pap_target_begin(file, "pap-collector", tmp, sizeof(tmp), &off);
	if (!f) {
		rc = off ? 0 : -1;
		goto out;
	}
	if (pap_profile_write(out, f)) {
		fclose(f);
		unlink(tmp);
		goto out;
	}
	rc = pap_target_commit(f, tmp, file, "pap-collector");
out:
	pap_profile_free(&slots);
	return rc;
}

int col_init(struct collector *c, uint64_t nwords, uint32_t nslots,
	     size_t max_recs)
{
	memset(c, 0, sizeof(*c));
	pap_profile_init(&c->prof);
	c->prof.max_recs = max_recs;
	/* every function string it is given is interned (col_intern): one
	 * address per text, so it is found by address, not by hashing and
	 * comparing its text */
	c->prof.by_address = 1;
	c->nwords = nwords;
	c->nslots = nslots;
	c->pending = &c->pending_local;
	c->buf = malloc(sizeof(*c->buf));
	return c->buf ? 0 : -1;
}

void col_free(struct collector *c)
{
	size_t i;

	for (i = 0; i < c->nprods; i++)
		col_release(c->prods[i]);
	for (i = 0; i < c->nstrs; i++)
		free(c->strs[i]);
	free(c->strs);
	free(c->str_slots);
	free(c->prods);
	free(c->buf);
	if (c->pending != &c->pending_local)
		munmap(c->pending, sizeof(uint64_t));
	pap_profile_free(&c->prof);
	pap_bpack_buf_free(&c->pack);
}
