/* SPDX-License-Identifier: MIT */
/*
 * shmsink.c - libpaprt's shared-memory sink: each thread streams its
 * records to pap-collector through a ring only it writes (pap/shm.h;
 * layers: rt.h).
 *
 * When PAP_COLLECTOR names the collector's socket, a thread's first
 * record connects, receives a 0600 segment from the collector (owner and
 * mode checked) and maps it.  From then on no lock and no system call: a
 * record without breakpoints that the thread made before is counted in
 * its slot of the segment (two stores), any other record is written to
 * the ring and published with one release store of head; a slot given to
 * a new record first sends its count through the ring (pap/shm.h).  A
 * function string is sent once per ring (an FN record) and named by a
 * small id afterwards, interned by its address, which the ABI keeps
 * stable for the life of the process.
 *
 * A full ring: the thread waits a bounded time for the collector, then
 * keeps the record in its own aggregate (written to the profile file at
 * exit, then counted as settled), so nothing is dropped.
 * PAP_COLLECTOR_LOSSY drops instead, counting each drop.  Every record
 * made while the ring is attached is counted in taken first, so that the
 * collector knows what a producer that died never sent.  When the
 * collector is gone (it stopped, or was killed), the thread takes back
 * whatever the collector did not drain and the slot counts it did not
 * take, and reports as lost what it drained but never wrote.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <pap/shm.h>

#include "bpack.h"
#include "profdata.h"
#include "reccache.h"
#include "rtwhere.h"
#include "ring.h"
#include "rt.h"
#include "sink.h"

#define RT_RING_FNS 4096u	/* functions one ring can name */
#define RT_RING_WAIT_NS 10000000ll	/* bounded wait on a full ring */

struct rt_ring {
	struct pap_shm_ring *shm;
	volatile uint64_t *words;
	uint64_t mask;
	uint64_t head;		/* our copy of shm->head */
	uint64_t limit;		/* head may grow up to here without a look */
	uint64_t dropped;	/* records dropped in lossy mode */
	uint64_t taken;		/* our copy of shm->taken */
	uint64_t kept;		/* records kept in the aggregate meanwhile */
	volatile struct pap_shm_slot *slots;
	const volatile struct pap_shm_took *took;
	const char **slot_fn;	/* the ABI string of each slot's record */
	uint32_t nslots;	/* 0: every record through the ring */
	/* tallies (pap/shm.h): blocks described, counter words used, and
	 * each block's thread-local pointer in the instrumented code */
	struct pap_shm_tally *tallies;
	uint64_t *tally, *tally_took;
	uint32_t ntally, tally_used, ntallies;
	uint64_t ***tally_ptr;
	uint32_t minor;		/* the segment's: repeats from 2.2 */
	size_t maplen;
	int sock;
	int detached;		/* the collector is gone: no more ring */
	int congested;		/* last wait failed: do not wait again yet */
	uint32_t nfns;
	struct rt_ring *next;
	const char *fns[RT_RING_FNS];	/* id - 1 -> the ABI's string */
	uint32_t fn_slots[2 * RT_RING_FNS];	/* address hash -> id */
};

static pthread_once_t rt_ring_once = PTHREAD_ONCE_INIT;
static pthread_key_t rt_ring_key;
static pthread_mutex_t rt_rings_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_ring *rt_rings;	/* this process's rings */
static const char *rt_collector;	/* socket path, or NULL */
static int rt_lossy;
/*
 * Test points (PAP_TEST_KILL=MODE:N): SIGKILL in the process's N-th
 * record given to a ring.  mid: inside it (after taken, inside the ring
 * write or before the slot's count); after: right after it; evict: after
 * the COUNT record that frees its slot is committed, before the slot is
 * rewritten; rewrite: in the middle of the slot's rewrite; piece: after
 * the first piece of the N-th path sent in pieces (N counts those only).
 */
static enum {
	RT_KILL_NONE, RT_KILL_MID, RT_KILL_AFTER, RT_KILL_EVICT,
	RT_KILL_REWRITE, RT_KILL_PIECE
} rt_kill_mode;
static uint64_t rt_kill_at;
static uint64_t rt_kill_count;
static RT_TLS int rt_kill_armed;	/* this record is the one */

static RT_TLS struct rt_ring *rt_ring;
static RT_TLS int rt_ring_tried;
RT_TLS int rt_ring_none;
static RT_TLS volatile uintptr_t rt_in_ring;

static void rt_ring_thread_end(void *arg);

static void rt_ring_init(void)
{
	const char *k = getenv("PAP_TEST_KILL");

	rt_collector = rt_where_collector();
	rt_lossy = rt_where_lossy();
	if (k) {
		static const char *const modes[] = { "mid:", "after:", "evict:",
						     "rewrite:", "piece:" };
		unsigned i;

		for (i = 0; i < 5; i++)
			if (!strncmp(k, modes[i], strlen(modes[i]))) {
				rt_kill_mode = RT_KILL_MID + (int)i;
				rt_kill_at = strtoull(k + strlen(modes[i]),
						      NULL, 10);
			}
	}
	pthread_key_create(&rt_ring_key, rt_ring_thread_end);
}

/* Did the collector's end of @sock close (it stopped or was killed)? */
static int rt_hung_up(int sock)
{
	struct pollfd p = { .fd = sock, .events = POLLIN | POLLRDHUP };
	char c;

	if (poll(&p, 1, 0) <= 0)
		return 0;
	if (p.revents & (POLLHUP | POLLRDHUP | POLLERR | POLLNVAL))
		return 1;
	return recv(sock, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/* Receives the welcome and the segment's descriptor; -1 on any doubt. */
static int rt_recv_segment(int sock, struct pap_shm_welcome *w)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { w, sizeof(*w) };
	struct msghdr m = { 0 };
	struct cmsghdr *c;
	int fd = -1;

	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = cbuf;
	m.msg_controllen = sizeof(cbuf);
	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof(*w))
		return -1;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (fd >= 0 && (w->magic != PAP_SHM_MAGIC || w->status ||
			w->major != PAP_SHM_VERSION_MAJOR)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Bytes of a ring's private state with @nslots slots. */
static size_t rt_ring_state_size(uint32_t nslots)
{
	return sizeof(struct rt_ring) + nslots * (sizeof(char *) +
						  sizeof(uint64_t **));
}

/*
 * Connects this thread to the collector and maps its ring; NULL when
 * there is no collector, or it does not answer as one should.  The
 * collector must run as this user (SO_PEERCRED), and the segment must be
 * ours, 0600, and of the size the header says.
 */
static struct rt_ring *rt_ring_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct pap_shm_hello hello = { PAP_SHM_MAGIC, PAP_SHM_VERSION_MAJOR,
				       PAP_SHM_VERSION_MINOR, 0, 0 };
	struct pap_shm_welcome w;
	struct timeval tv = { 2, 0 };
	struct ucred cred;
	socklen_t credlen = sizeof(cred);
	struct pap_shm_ring *shm;
	struct rt_ring *r;
	struct stat st;
	uint32_t ntally;
	int sock, fd;
	size_t len;

	if (strlen(rt_collector) >= sizeof(sa.sun_path))
		return NULL;
	strcpy(sa.sun_path, rt_collector);
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return NULL;
	hello.pid = (uint32_t)getpid();
	hello.tid = (uint32_t)syscall(SYS_gettid);
	setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(sock, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(sock, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &credlen) ||
	    cred.uid != geteuid() ||
	    send(sock, &hello, sizeof(hello), MSG_NOSIGNAL) != sizeof(hello) ||
	    (fd = rt_recv_segment(sock, &w)) < 0)
		goto fail_sock;
	ntally = pap_shm_ntally(w.nslots, w.minor);
	len = pap_shm_segment_size(w.nwords, w.nslots, ntally);
	if (w.nwords < 64 || w.nwords > (1ull << 28) ||
	    (w.nwords & (w.nwords - 1)) || w.nslots > PAP_SHM_MAX_SLOTS ||
	    (w.nslots & (w.nslots - 1)) || fstat(fd, &st) ||
	    st.st_uid != geteuid() || (st.st_mode & 077) ||
	    (uint64_t)st.st_size != len)
		goto fail_fd;
	shm = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		   fd, 0);
	if (shm == MAP_FAILED)
		goto fail_fd;
	close(fd);
	if (shm->magic != PAP_SHM_MAGIC || shm->nwords != w.nwords ||
	    shm->nslots != w.nslots || shm->header_size != sizeof(*shm) ||
	    shm->major != PAP_SHM_VERSION_MAJOR || shm->ntally != ntally)
		goto fail_map;
	/* the ring's state, one string pointer per slot, one tally pointer
	 * per tally block */
	r = mmap(NULL, rt_ring_state_size(w.nslots), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		goto fail_map;
	r->shm = shm;
	r->words = shm->words;
	r->mask = w.nwords - 1;
	r->nslots = w.nslots;
	r->slots = pap_shm_slots(shm, w.nwords);
	r->took = pap_shm_took(shm, w.nwords, w.nslots);
	r->slot_fn = (const char **)(r + 1);
	r->tally_ptr = (uint64_t ***)(r->slot_fn + w.nslots);
	r->ntally = ntally;
	r->minor = w.minor;
	if (ntally) {
		r->tallies = pap_shm_tallies(shm, w.nwords, w.nslots);
		r->tally = pap_shm_tally_words(shm, w.nwords, w.nslots);
		r->tally_took = r->tally + ntally;
	}
	r->taken = __atomic_load_n(&shm->taken, __ATOMIC_RELAXED);
	r->head = __atomic_load_n(&shm->head, __ATOMIC_RELAXED);
	r->limit = r->head;
	r->maplen = len;
	r->sock = sock;
	shm->pid = hello.pid;
	shm->tid = hello.tid;
	pthread_mutex_lock(&rt_rings_lock);
	r->next = rt_rings;
	rt_rings = r;
	pthread_mutex_unlock(&rt_rings_lock);
	pthread_setspecific(rt_ring_key, r);
	return r;
fail_map:
	munmap(shm, len);
	goto fail_sock;
fail_fd:
	close(fd);
fail_sock:
	close(sock);
	return NULL;
}

/* This thread's ring, connecting on first use; NULL: keep records here. */
static inline struct rt_ring *rt_ring_get(void)
{
	struct rt_ring *r = rt_ring;

	if (__builtin_expect(r != NULL, 1))
		return r->detached ? NULL : r;
	if (rt_ring_tried)
		return NULL;
	rt_ring_tried = 1;
	rt_start();
	pthread_once(&rt_ring_once, rt_ring_init);
	if (rt_collector) {
		/* the program may be about to read errno: a failed
		 * connect must not change it */
		int saved_errno = errno;

		rt_ring = rt_ring_connect();
		errno = saved_errno;
	}
	rt_ring_none = !rt_ring;
	return rt_ring;
}

int rt_ring_attached(void)
{
	return rt_ring_get() != NULL;
}

static int rt_ring_keep_path(void *ctx, uint32_t fn, uint8_t kind,
			     uint8_t complete, uint64_t value,
			     const struct pap_breakpoint *bps, uint32_t nbps)
{
	struct rt_ring *r = ctx;

	if (fn == 0 || fn > r->nfns)
		return -1;
	rt_agg_keep(r->fns[fn - 1], kind, complete, value, bps, nbps, 1);
	return 0;
}

static int rt_ring_keep_bl(void *ctx, uint32_t fn, uint8_t kind, uint64_t id)
{
	struct rt_ring *r = ctx;

	if (fn == 0 || fn > r->nfns)
		return -1;
	rt_agg_keep(r->fns[fn - 1], kind, 1, id, NULL, 0, 1);
	return 0;
}

/* What of @count records of slot @slot at @seq the collector did not take
 * when it stopped. */
static uint64_t rt_ring_untaken(struct rt_ring *r, uint32_t slot,
				uint64_t seq, uint64_t count)
{
	const volatile struct pap_shm_took *t = &r->took[slot];
	uint64_t c;

	if (__atomic_load_n(&t->seq, __ATOMIC_ACQUIRE) != seq)
		return count;
	c = __atomic_load_n(&t->count, __ATOMIC_RELAXED);
	return c < count ? count - c : 0;
}

static int rt_ring_keep_count(void *ctx, uint32_t slot, uint64_t seq,
			      uint32_t fn, uint8_t kind, uint8_t complete,
			      uint64_t value, uint64_t count)
{
	struct rt_ring *r = ctx;

	if (fn == 0 || fn > r->nfns || slot >= r->nslots)
		return -1;
	count = rt_ring_untaken(r, slot, seq, count);
	if (count)
		rt_agg_keep(r->fns[fn - 1], kind, complete, value, NULL, 0,
			       count);
	return 0;
}

static int rt_ring_skip_fn(void *ctx, uint32_t id, const char *s, uint32_t n)
{
	(void)ctx;
	(void)id;
	(void)s;
	(void)n;
	return 0;
}

/*
 * The instrumented code stops counting into @r's tallies: each block's
 * thread-local pointer goes back to NULL, so that the next record asks
 * the runtime again.  Only @r's thread may still be counting; it is this
 * one, except at exit (rt_ring_exit).
 */
static void rt_ring_drop_tallies(struct rt_ring *r)
{
	uint32_t k;

	for (k = 0; k < r->ntallies; k++)
		__atomic_store_n(r->tally_ptr[k], NULL, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* Keeps the tally counts of @r the collector did not take when it
 * stopped; the tallies are dropped first. */
static void rt_ring_take_back_tallies(struct rt_ring *r)
{
	uint32_t k, v, id;

	rt_ring_drop_tallies(r);
	for (k = 0; k < r->ntallies; k++) {
		const struct pap_shm_tally *t = &r->tallies[k];

		id = pap_shm_key_fn(t->key);
		if (!id || id > r->nfns)
			continue;	/* never: the block is ours */
		for (v = 0; v < t->n; v++) {
			uint64_t c = __atomic_load_n(&r->tally[t->base + v],
						     __ATOMIC_RELAXED);
			uint64_t took = __atomic_load_n(
				&r->tally_took[t->base + v], __ATOMIC_ACQUIRE);

			if (c > took)
				rt_agg_keep(r->fns[id - 1],
					       pap_shm_key_kind(t->key), 1, v,
					       NULL, 0, c - took);
		}
	}
}

/*
 * The collector is gone: keeps the records it did not drain, and the
 * counts in the slots it did not take when it stopped.  What it drained
 * it accounted for itself (in the profile, or as lost in its
 * FILE.pending.PID), and the drops it counted it marked in durable_lost;
 * only the other drops are reported lost here.  The ring and the slots
 * are not used again.
 */
static void rt_ring_take_back(struct rt_ring *r)
{
	static const struct pap_ring_ops ops = {
		rt_ring_skip_fn, rt_ring_keep_path, rt_ring_keep_bl,
		rt_ring_keep_count
	};
	struct pap_ring_stats st = { 0, 0, 0 };
	struct pap_ring_joined joined = { NULL, 0, 0, 0, 0, 0, 0 };
	struct pap_ring_buf *buf;
	uint64_t tail, seen, lost = 0, pos, n;
	uint32_t i;

	r->detached = 1;
	tail = __atomic_load_n(&r->shm->tail, __ATOMIC_ACQUIRE);
	buf = mmap(NULL, sizeof(*buf), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pos = tail;
	if (buf == MAP_FAILED ||
	    pap_ring_read(r->words, r->mask + 1, &pos, r->head, &ops, r, buf,
			  &joined, &st))
		lost++;		/* at least one record could not be kept */
	/* a path whose first pieces the collector took with it, or whose
	 * joining failed, cannot be kept */
	lost += st.rejected;
	pap_ring_joined_free(&joined);
	if (buf != MAP_FAILED)
		munmap(buf, sizeof(*buf));
	for (i = 0; i < r->nslots; i++) {
		volatile struct pap_shm_slot *s = &r->slots[i];

		if (!r->slot_fn[i] || !s->count)
			continue;
		n = rt_ring_untaken(r, i, s->seq, s->count);
		if (n)
			rt_agg_keep(r->slot_fn[i],
				       pap_shm_key_kind(s->key),
				       pap_shm_key_complete(s->key), s->value,
				       NULL, 0, n);
	}
	rt_ring_take_back_tallies(r);
	seen = __atomic_load_n(&r->shm->durable_lost, __ATOMIC_ACQUIRE);
	if (r->dropped > seen)
		lost += r->dropped - seen;
	if (lost)
		rt_agg_lost(lost);
}

/* Has the collector let go of @r (stopped, or died)?  Waits, bounded,
 * while it drains for the last time; 0 when it is attached, or still
 * finishing after the wait. */
static int rt_ring_orphaned(struct rt_ring *r)
{
	int i;

	for (i = 0; i < 2000; i++) {
		uint64_t s = __atomic_load_n(&r->shm->state, __ATOMIC_SEQ_CST);

		if (s == PAP_SHM_GONE || rt_hung_up(r->sock))
			return 1;
		if (s == PAP_SHM_ATTACHED)
			return 0;
		usleep(1000);
	}
	/*
	 * Still finishing after 2 s (stopped, or slow): the ring is left to
	 * it.  Taking it back now could count twice what it is about to
	 * write; if it dies instead, what it had not drained is lost
	 * unreported.
	 */
	return 0;
}

/* Makes room for @len words: a bounded wait, then 0 (ring full). */
static int rt_ring_room(struct rt_ring *r, uint64_t len)
{
	struct timespec t0, t;
	long long ns;

	r->limit = __atomic_load_n(&r->shm->tail, __ATOMIC_ACQUIRE) +
		   r->mask + 1;
	if (r->head + len <= r->limit) {
		r->congested = 0;
		return 1;
	}
	/* a record of more than an eighth of the ring (a long path) is
	 * kept in the process rather than waited for: the collector would
	 * take longer to make room than the process takes to keep it */
	if (rt_lossy || r->congested || len > (r->mask + 1) / 8)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		sched_yield();
		r->limit = __atomic_load_n(&r->shm->tail, __ATOMIC_ACQUIRE) +
			   r->mask + 1;
		if (r->head + len <= r->limit)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		ns = (t.tv_sec - t0.tv_sec) * 1000000000ll +
		     (t.tv_nsec - t0.tv_nsec);
		if (ns > RT_RING_WAIT_NS)
			break;
	}
	if (rt_ring_orphaned(r))
		rt_ring_take_back(r);
	else
		r->congested = 1;
	return 0;
}

/* SIGKILL here if the test point @mode is armed for this record. */
static void rt_ring_test_point(unsigned mode)
{
	if (__builtin_expect(rt_kill_armed, 0) && rt_kill_mode == mode)
		raise(SIGKILL);
}

/* Publishes the record of @len words written at r->head. */
static inline void rt_ring_publish(struct rt_ring *r, uint64_t len)
{
	r->head += len;
	__atomic_store_n(&r->shm->head, r->head, __ATOMIC_RELEASE);
}

/*
 * Asks for the ring line RT_RING_AHEAD words ahead in the state for
 * writing: the collector has read it on the previous lap, and taking it
 * back costs a trip to the collector's core that the producer should not
 * wait for.  PREFETCHW is a hint: processors without it ignore it.
 */
#define RT_RING_AHEAD 256

static inline void rt_ring_prefetch(struct rt_ring *r)
{
	const volatile uint64_t *p = &r->words[(r->head + RT_RING_AHEAD) &
					      r->mask];
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("prefetchw %0" : : "m"(*p));
#else
	__builtin_prefetch((const void *)p, 1, 3);
#endif
}

static inline void rt_ring_store(struct rt_ring *r, uint64_t off, uint64_t v)
{
	r->words[(r->head + off) & r->mask] = v;
}

/*
 * Where @fn's id is looked for first in a ring's table of function ids
 * (fn_slots).  Not the record cache's hash (libcore/reccache.h): this
 * table is a set of every function the ring has named, keyed by address
 * alone, with linear probing, and must never forget one, where the
 * record cache maps a whole record to a profile index and may.
 */
static inline size_t rt_ring_fn_slot(const char *fn)
{
	return ((uintptr_t)fn >> 3) * 0x9e3779b97f4a7c15ull >> 40 &
	       (2 * RT_RING_FNS - 1);
}

/* Sends @fn's FN record; its id, or 0 when it cannot be named. */
static uint32_t rt_ring_define(struct rt_ring *r, const char *fn, size_t slot)
{
	size_t n = strlen(fn), i;
	uint64_t len = 2 + (n + 7) / 8, w;

	if (r->nfns == RT_RING_FNS || n == 0 || n > PAP_SHM_MAX_FN ||
	    (r->head + len > r->limit && !rt_ring_room(r, len)))
		return 0;
	rt_ring_store(r, 0, pap_shm_header(PAP_SHM_FN, len, r->head));
	rt_ring_store(r, 1, (uint64_t)(r->nfns + 1) | (uint64_t)n << 32);
	for (i = 0; i < len - 2; i++) {
		size_t k = n - i * 8 < 8 ? n - i * 8 : 8;

		w = 0;
		memcpy(&w, fn + i * 8, k);
		rt_ring_store(r, 2 + i, w);
	}
	rt_ring_publish(r, len);
	r->fns[r->nfns++] = fn;
	r->fn_slots[slot] = r->nfns;
	return r->nfns;
}

/* @fn's id in @r, defining it on first use; 0 when it cannot be named. */
static inline uint32_t rt_ring_fn(struct rt_ring *r, const char *fn)
{
	size_t mask = 2 * RT_RING_FNS - 1;
	size_t s = rt_ring_fn_slot(fn);
	uint32_t id;

	while ((id = r->fn_slots[s])) {
		if (r->fns[id - 1] == fn)
			return id;
		s = (s + 1) & mask;
	}
	return rt_ring_define(r, fn, s);
}

/*
 * Writes the record @tag with body @body (@nbody words) and @nbps
 * breakpoints, and publishes it: 1 when it is in the ring, 0 when there
 * is no room (the ring may have been taken back meanwhile: r->detached).
 */
static int rt_ring_write(struct rt_ring *r, unsigned tag, const uint64_t *body,
			 uint64_t nbody, const struct pap_breakpoint *bps,
			 uint32_t nbps)
{
	uint64_t len = 1 + nbody + 2 * (uint64_t)nbps, i;

	if (r->head + len > r->limit && !rt_ring_room(r, len))
		return 0;
	/* the line a few records ahead: owned before we get there */
	rt_ring_prefetch(r);
	rt_ring_store(r, 0, pap_shm_header(tag, len, r->head));
	for (i = 0; i < nbody; i++)
		rt_ring_store(r, 1 + i, body[i]);
	for (i = 0; i < nbps; i++) {
		rt_ring_store(r, 1 + nbody + 2 * i, bps[i].site);
		rt_ring_store(r, 2 + nbody + 2 * i, bps[i].r);
	}
	/* a record a thread made killed here is half-written */
	rt_ring_test_point(RT_KILL_MID);
	rt_ring_publish(r, len);
	return 1;
}

/*
 * @count records the ring could not take: dropped and counted in lossy
 * mode (1), else left to the caller to keep in the aggregate (0), counted
 * as kept so that the collector does not report them lost.
 */
static int rt_ring_refused(struct rt_ring *r, uint64_t count)
{
	if (rt_lossy) {
		r->dropped += count;
		__atomic_store_n(&r->shm->lost, r->dropped, __ATOMIC_RELAXED);
		return 1;
	}
	r->kept += count;
	return 0;
}

/*
 * rt_ring_write for one record the thread made: 1 when it is in the ring
 * or dropped and counted (lossy), 0 when the caller must keep it (ring
 * full, counted as kept; or the ring was taken back meanwhile).
 */
static int rt_ring_send(struct rt_ring *r, unsigned tag, const uint64_t *body,
			uint64_t nbody, const struct pap_breakpoint *bps,
			uint32_t nbps)
{
	if (rt_ring_write(r, tag, body, nbody, bps, nbps))
		return 1;
	return r->detached ? 0 : rt_ring_refused(r, 1);
}

/* Counts one more record made while @r is attached; arms the test point
 * when it is the one. */
static inline void rt_ring_take(struct rt_ring *r)
{
	__atomic_store_n(&r->shm->taken, ++r->taken, __ATOMIC_RELAXED);
	if (__builtin_expect(rt_kill_mode != RT_KILL_NONE, 0) &&
	    rt_kill_mode != RT_KILL_PIECE)
		rt_kill_armed = ++rt_kill_count == rt_kill_at;
}

/*
 * Begins giving a record of @fn to this thread's ring (the caller has
 * marked the ring code busy): connects on first use, counts the record as
 * taken and names @fn in *@id (0 when it cannot be named).  NULL when
 * there is no ring to give it to (none, or taken back meanwhile): the
 * caller keeps the record.
 */
static struct rt_ring *rt_ring_begin(const char *fn, uint32_t *id)
{
	struct rt_ring *r = rt_ring_get();

	if (!r)
		return NULL;
	rt_ring_take(r);
	*id = rt_ring_fn(r, fn);
	return r->detached ? NULL : r;
}

/*
 * Slot of the record (@fn, @kind_complete, @value) in @r: placed by the
 * record cache's hash (libcore/reccache.h).  The slots are not a
 * reccache: they live in the collector's segment, hold a count and the
 * function's ring id rather than an index into a profile, and a slot
 * given to another record first sends its count (rt_ring_give_slot).
 * The collector reads them by index and never hashes a record itself.
 */
static inline uint32_t rt_ring_slot(const struct rt_ring *r, const char *fn,
				    unsigned kind_complete, uint64_t value)
{
	return pap_record_hash(fn, kind_complete, value) & (r->nslots - 1);
}

/* Does slot @i of @r hold the record (@fn, @kind_complete, @value)? */
static inline int rt_ring_slot_holds(const struct rt_ring *r, uint32_t i,
				     const char *fn, unsigned kind_complete,
				     uint64_t value)
{
	return r->slot_fn[i] == fn && r->slots[i].value == value &&
	       r->slots[i].key >> 32 == kind_complete;
}

/*
 * Gives slot @i to the record (@id, @fn, @kind, @complete, @value) with a
 * count of 1: 1 when it is counted there.  The slot's old record goes
 * first, as a COUNT record through the ring; only then is the slot
 * rewritten, so that a SIGKILL anywhere in between leaves either the
 * COUNT record or the old slot for the collector, never both.  When the
 * ring has no room for the COUNT record the slot stays as it is and the
 * new record is refused instead (rt_ring_refused); 0 also when the ring
 * was taken back meanwhile.  A signal handler that longjmps out of here
 * leaves the slot unowned (slot_fn NULL) once its count is sent, so that
 * it is neither counted on nor sent again.
 */
static int rt_ring_give_slot(struct rt_ring *r, uint32_t i, uint32_t id,
			     const char *fn, unsigned kind, uint8_t complete,
			     uint64_t value)
{
	volatile struct pap_shm_slot *s = &r->slots[i];
	uint64_t seq = s->seq, count = s->count;

	if (r->slot_fn[i] && count) {
		uint64_t body[5] = { i, seq, s->key, s->value, count };

		/* no room: the new record is refused, the slot stays */
		if (!rt_ring_write(r, PAP_SHM_COUNT, body, 5, NULL, 0))
			return r->detached ? 0 : rt_ring_refused(r, 1);
		rt_ring_test_point(RT_KILL_EVICT);
	}
	r->slot_fn[i] = NULL;
	__atomic_store_n(&s->seq, seq | 1, __ATOMIC_RELAXED);
	/* seq odd before the record changes, for a reader on another core */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	s->key = pap_shm_key(id, kind, complete);
	s->value = value;
	rt_ring_test_point(RT_KILL_REWRITE);
	rt_ring_test_point(RT_KILL_MID);
	s->count = 1;
	__atomic_store_n(&s->seq, (seq | 1) + 1, __ATOMIC_RELEASE);
	r->slot_fn[i] = fn;
	return 1;
}

/*
 * rt_ring_take_value beyond its common case: connects on first use,
 * names the function, gives the record a slot, or writes it to the ring
 * when there are no slots; test points live here.
 */
static __attribute__((noinline)) int
rt_ring_take_value_slow(const char *fn, uint8_t kind, uint8_t complete,
			uint64_t value)
{
	unsigned kind_complete = pap_kind_complete(kind, complete);
	struct rt_ring *r;
	uint32_t id, i;
	int sent = 0;

	if (rt_in_ring)
		return 0;
	rt_in_ring = RT_HERE();
	/* a collector before 2.4 reads no program kinds: the process keeps
	 * such a record, which it has not taken yet */
	r = rt_ring_get();
	if (r && r->minor < 4 && pap_rec_version(kind) > 6)
		goto out;
	r = rt_ring_begin(fn, &id);
	if (!r)
		goto out;
	if (!id) {
		sent = rt_ring_refused(r, 1);
		goto out;
	}
	if (!r->nslots) {
		uint64_t body[2] = { pap_rec_has_bps(kind) ?
				     id | (uint64_t)complete << 32 : id,
				     value };

		sent = rt_ring_send(r, pap_rec_shm_tag(kind), body, 2, NULL,
				    0);
		goto out;
	}
	i = rt_ring_slot(r, fn, kind_complete, value);
	if (rt_ring_slot_holds(r, i, fn, kind_complete, value)) {
		rt_ring_test_point(RT_KILL_MID);
		r->slots[i].count++;
		sent = 1;
	} else {
		sent = rt_ring_give_slot(r, i, id, fn, kind, complete, value);
	}
out:
	if (sent)
		rt_ring_test_point(RT_KILL_AFTER);
	rt_kill_armed = 0;
	rt_in_ring = 0;
	return sent;
}

/*
 * The common case: this thread's segment has a slot holding the record,
 * so it is counted there with two stores.  Anything else (no ring yet, a
 * slot holding another record, no slots, a test point) takes the slow
 * path.
 */
int rt_ring_take_value(const char *fn, uint8_t kind, uint8_t complete,
		       uint64_t value)
{
	struct rt_ring *r = rt_ring;
	unsigned kind_complete = pap_kind_complete(kind, complete);
	uint32_t i;

	if (__builtin_expect(!r || rt_in_ring || !r->nslots || r->detached ||
			     rt_kill_mode != RT_KILL_NONE, 0))
		return rt_ring_take_value_slow(fn, kind, complete, value);
	rt_in_ring = RT_HERE();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	i = rt_ring_slot(r, fn, kind_complete, value);
	if (__builtin_expect(rt_ring_slot_holds(r, i, fn, kind_complete,
					       value), 1)) {
		__atomic_store_n(&r->shm->taken, ++r->taken, __ATOMIC_RELAXED);
		r->slots[i].count++;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		rt_in_ring = 0;
		return 1;
	}
	rt_in_ring = 0;
	return rt_ring_take_value_slow(fn, kind, complete, value);
}

/*
 * A path too long for one ring record, as PIECE records of at most
 * PAP_SHM_PIECE_BPS breakpoints and an eighth of the ring, which the
 * thread waits for as for any record (pap/shm.h): 1 when all are in the
 * ring,
 * else as rt_ring_send says for the path, whose pieces already sent the
 * collector then drops.
 */
static int rt_ring_send_pieces(struct rt_ring *r, uint32_t id,
			       uint8_t kind, uint8_t complete, uint64_t value,
			       const struct pap_breakpoint *bps, uint32_t nbps)
{
	/* a piece the ring waits for: an eighth of it (rt_ring_room) */
	uint64_t most = ((r->mask + 1) / 8 - 3) / 2, body[2];
	uint32_t done, n;

	if (most > PAP_SHM_PIECE_BPS)
		most = PAP_SHM_PIECE_BPS;
	for (done = 0; done < nbps; done += n) {
		n = nbps - done < most ? nbps - done : (uint32_t)most;
		body[0] = id | (uint64_t)complete << 32 | (uint64_t)n << 40 |
			  (uint64_t)kind << PAP_SHM_PIECE_KIND_SHIFT |
			  (done ? 0 : PAP_SHM_PIECE_FIRST) |
			  (done + n == nbps ? PAP_SHM_PIECE_LAST : 0);
		body[1] = value;
		if (!rt_ring_write(r, PAP_SHM_PIECE, body, 2, bps + done, n))
			return r->detached ? 0 : rt_ring_refused(r, 1);
		/* a producer killed here has sent part of the path */
		if (!done && __builtin_expect(rt_kill_mode == RT_KILL_PIECE,
					      0) &&
		    __atomic_add_fetch(&rt_kill_count, 1, __ATOMIC_RELAXED) ==
		    rt_kill_at)
			raise(SIGKILL);
	}
	return 1;
}

int rt_ring_take_path(const char *fn, uint8_t kind, uint8_t complete,
		      uint64_t value, const struct pap_breakpoint *bps,
		      uint32_t nbps)
{
	struct rt_ring *r;
	uint64_t body[2];
	uint32_t id;
	int sent = 0, pieces;

	if (rt_in_ring || nbps > PAP_SHM_MAX_PIECED_BPS)
		return 0;
	rt_in_ring = RT_HERE();
	r = rt_ring_get();
	/* longer than a record the ring waits for (rt_ring_room) */
	pieces = r && 3 + 2 * (uint64_t)nbps > (r->mask + 1) / 8;
	/* a collector before 2.2 reads no repeats, one before 2.3 no
	 * pieces, one before 2.4 no program kinds: the process keeps such a
	 * record, which it has not taken yet */
	if (r && ((r->minor < 2 && pap_bpack_has_repeat(bps, nbps)) ||
		  (r->minor < 3 && pieces) ||
		  (r->minor < 4 && kind != PAP_REC_PATH)))
		goto out;
	r = rt_ring_begin(fn, &id);
	if (!r)
		goto out;
	body[0] = id | (uint64_t)complete << 32 | (uint64_t)nbps << 40;
	body[1] = value;
	if (!id)
		sent = rt_ring_refused(r, 1);
	else if (pieces)
		sent = rt_ring_send_pieces(r, id, kind, complete, value, bps,
					   nbps);
	else
		sent = rt_ring_send(r, pap_rec_shm_tag(kind), body, 2, bps,
				    nbps);
	if (sent)
		rt_ring_test_point(RT_KILL_AFTER);
out:
	rt_kill_armed = 0;
	rt_in_ring = 0;
	return sent;
}

uint64_t *rt_ring_tally(uint64_t **counters, const char *fn, uint8_t kind,
			uint64_t n)
{
	struct rt_ring *r = rt_ring;
	struct pap_shm_tally *t;
	uint64_t *p = NULL;
	uint32_t id;

	if (!r || r->detached || rt_in_ring || !r->ntally ||
	    n > r->ntally - r->tally_used || r->ntallies == r->nslots)
		return NULL;
	rt_in_ring = RT_HERE();
	id = rt_ring_fn(r, fn);
	if (id && !r->detached) {
		t = &r->tallies[r->ntallies];
		t->key = pap_shm_key(id, kind, 1);
		t->base = r->tally_used;
		t->n = (uint32_t)n;
		r->tally_ptr[r->ntallies] = counters;
		p = r->tally + r->tally_used;
		r->tally_used += (uint32_t)n;
		/* the block, then its publication, then its first count */
		__atomic_store_n(&r->shm->ntallies, ++r->ntallies,
				 __ATOMIC_RELEASE);
	}
	rt_in_ring = 0;
	return p;
}

void rt_ring_resume(uintptr_t frame)
{
	if (rt_in_ring && rt_in_ring < frame)
		rt_in_ring = 0;
}

/* Unmaps @r's segment and frees its state. */
static void rt_ring_free(struct rt_ring *r)
{
	close(r->sock);
	munmap(r->shm, r->maplen);
	munmap(r, rt_ring_state_size(r->nslots));
}

static void rt_ring_unlink(struct rt_ring *r)
{
	struct rt_ring **p;

	pthread_mutex_lock(&rt_rings_lock);
	for (p = &rt_rings; *p; p = &(*p)->next)
		if (*p == r) {
			*p = r->next;
			break;
		}
	pthread_mutex_unlock(&rt_rings_lock);
}

/*
 * Hands @r back: to the collector, which drains it once the connection
 * closes, or, when the collector is gone, into this process's aggregate.
 */
static void rt_ring_hand_back(struct rt_ring *r)
{
	if (!r->detached && rt_ring_orphaned(r))
		rt_ring_take_back(r);
	r->detached = 1;
}

/* A thread ends: its ring goes back, and is unmapped. */
static void rt_ring_thread_end(void *arg)
{
	struct rt_ring *r = arg;

	if (!r)
		return;
	rt_in_ring = RT_HERE();
	rt_ring_hand_back(r);
	/* what it kept stays in the process's aggregate, written at exit */
	__atomic_store_n(&r->shm->settled, r->kept, __ATOMIC_RELEASE);
	rt_ring_unlink(r);
	rt_ring = NULL;
	rt_ring_none = 1;
	/* instrumented code may still run in this thread (other keys'
	 * destructors): it must not count into the unmapped segment */
	rt_ring_drop_tallies(r);
	rt_ring_free(r);
	rt_in_ring = 0;
}

void rt_ring_exit(void)
{
	struct rt_ring *r;

	/* other threads may still be writing: nothing is unmapped */
	rt_in_ring = RT_HERE();
	pthread_mutex_lock(&rt_rings_lock);
	for (r = rt_rings; r; r = r->next)
		rt_ring_hand_back(r);
	pthread_mutex_unlock(&rt_rings_lock);
	rt_in_ring = 0;
}

void rt_ring_dumped(void)
{
	struct rt_ring *r;

	pthread_mutex_lock(&rt_rings_lock);
	for (r = rt_rings; r; r = r->next)
		__atomic_store_n(&r->shm->settled, r->kept, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&rt_rings_lock);
}

void rt_ring_spilled(void)
{
	struct rt_ring *r = rt_ring;

	if (r && !r->detached)
		__atomic_store_n(&r->shm->settled, r->kept, __ATOMIC_RELEASE);
}

void rt_ring_after_fork_child(void)
{
	struct rt_ring *r, *next;

	pthread_mutex_init(&rt_rings_lock, NULL);
	if (rt_rings)	/* the key exists: this thread's ring is gone */
		pthread_setspecific(rt_ring_key, NULL);
	/* and so are its tallies: this thread counts anew, elsewhere */
	if (rt_ring)
		rt_ring_drop_tallies(rt_ring);
	for (r = rt_rings; r; r = next) {
		next = r->next;
		rt_ring_free(r);
	}
	rt_rings = NULL;
	rt_ring = NULL;
	rt_ring_tried = 0;
	rt_ring_none = 0;
	rt_in_ring = 0;
}
