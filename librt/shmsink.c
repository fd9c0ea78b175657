/* SPDX-License-Identifier: MIT */
/*
 * shmsink.c - libpaprt's shared-memory sink: each thread streams its
 * records to pap-collector through a ring only it writes (pap/shm.h).
 *
 * When PAP_COLLECTOR names the collector's socket, a thread's first
 * record connects, receives a 0600 segment from the collector (owner and
 * mode checked) and maps it.  From then on a record is a few stores into
 * the ring and one release store of head: no lock, no system call.  A
 * function string is sent once per ring (an FN record) and named by a
 * small id afterwards, interned by its address, which the ABI keeps
 * stable for the life of the process.
 *
 * A full ring: the thread waits a bounded time for the collector, then
 * keeps the record in its own aggregate (written to the profile file at
 * exit) and counts it as held, so nothing is dropped.  PAP_COLLECTOR_LOSSY
 * drops instead, counting each drop.  When the collector is gone (it
 * stopped, or was killed), the thread takes back whatever the collector
 * did not drain, and reports as lost what it drained but never wrote.
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

#include "profile.h"
#include "ring.h"
#include "rt.h"

#define RT_RING_FNS 4096u	/* functions one ring can name */
#define RT_RING_WAIT_NS 10000000ll	/* bounded wait on a full ring */

struct rt_ring {
	struct pap_shm_ring *shm;
	volatile uint64_t *words;
	uint64_t mask;
	uint64_t head;		/* our copy of shm->head */
	uint64_t limit;		/* head may grow up to here without a look */
	uint64_t dropped;	/* records dropped in lossy mode */
	size_t maplen;
	int sock;
	int detached;		/* the collector is gone: no more ring */
	int congested;		/* last wait failed: do not wait again yet */
	uint32_t nfns;
	struct rt_ring *next;
	const char *fns[RT_RING_FNS];	/* id - 1 -> the ABI's string */
	uint32_t slots[2 * RT_RING_FNS];	/* address hash -> id */
};

static pthread_once_t rt_ring_once = PTHREAD_ONCE_INIT;
static pthread_key_t rt_ring_key;
static pthread_mutex_t rt_rings_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_ring *rt_rings;	/* this process's rings */
static const char *rt_collector;	/* socket path, or NULL */
static int rt_lossy;
/* test points (PAP_TEST_KILL=MODE:N): SIGKILL at record N */
static enum { RT_KILL_NONE, RT_KILL_MID, RT_KILL_AFTER } rt_kill_mode;
static uint64_t rt_kill_at;
static uint64_t rt_kill_count;

static RT_TLS struct rt_ring *rt_ring;
static RT_TLS int rt_ring_tried;
RT_TLS int rt_ring_none;
static RT_TLS volatile uintptr_t rt_in_ring;

#define RT_HERE() ((uintptr_t)__builtin_frame_address(0) | 1)

static void rt_ring_thread_end(void *arg);

static void rt_ring_init(void)
{
	const char *s = getenv("PAP_COLLECTOR");
	const char *k = getenv("PAP_TEST_KILL");

	if (s && *s)
		rt_collector = s;
	s = getenv("PAP_COLLECTOR_LOSSY");
	rt_lossy = s && *s && strcmp(s, "0");
	if (k && (!strncmp(k, "mid:", 4) || !strncmp(k, "after:", 6))) {
		rt_kill_mode = k[0] == 'm' ? RT_KILL_MID : RT_KILL_AFTER;
		rt_kill_at = strtoull(strchr(k, ':') + 1, NULL, 10);
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

/*
 * Connects this thread to the collector and maps its ring; NULL when
 * there is no collector, or it does not answer as one should.  The
 * segment must be ours, 0600, and of the size the header says.
 */
static struct rt_ring *rt_ring_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct pap_shm_hello hello = { PAP_SHM_MAGIC, PAP_SHM_VERSION_MAJOR,
				       PAP_SHM_VERSION_MINOR, 0, 0 };
	struct pap_shm_welcome w;
	struct timeval tv = { 2, 0 };
	struct pap_shm_ring *shm;
	struct rt_ring *r;
	struct stat st;
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
	    send(sock, &hello, sizeof(hello), MSG_NOSIGNAL) != sizeof(hello) ||
	    (fd = rt_recv_segment(sock, &w)) < 0)
		goto fail_sock;
	len = pap_shm_segment_size(w.nwords);
	if (w.nwords < 64 || w.nwords > (1ull << 28) ||
	    (w.nwords & (w.nwords - 1)) || fstat(fd, &st) ||
	    st.st_uid != geteuid() || (st.st_mode & 077) ||
	    (uint64_t)st.st_size != len)
		goto fail_fd;
	shm = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
		   fd, 0);
	if (shm == MAP_FAILED)
		goto fail_fd;
	close(fd);
	if (shm->magic != PAP_SHM_MAGIC || shm->nwords != w.nwords ||
	    shm->header_size != sizeof(*shm) ||
	    shm->major != PAP_SHM_VERSION_MAJOR)
		goto fail_map;
	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		goto fail_map;
	r->shm = shm;
	r->words = shm->words;
	r->mask = w.nwords - 1;
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
	if (rt_collector)
		rt_ring = rt_ring_connect();
	rt_ring_none = !rt_ring;
	return rt_ring;
}

static int rt_ring_keep_path(void *ctx, uint32_t fn, uint8_t complete,
			     uint64_t value, const struct pap_breakpoint *bps,
			     uint32_t nbps)
{
	struct rt_ring *r = ctx;

	if (fn == 0 || fn > r->nfns)
		return -1;
	rt_keep_record(r->fns[fn - 1], PAP_REC_PATH, complete, value, bps, nbps);
	return 0;
}

static int rt_ring_keep_bl(void *ctx, uint32_t fn, uint64_t id)
{
	struct rt_ring *r = ctx;

	if (fn == 0 || fn > r->nfns)
		return -1;
	rt_keep_record(r->fns[fn - 1], PAP_REC_BL, 1, id, NULL, 0);
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
 * The collector is gone: keeps the records it did not drain.  What it
 * drained it accounted for itself (in the profile, or as lost in its
 * FILE.pending.PID), and the drops it counted it marked in durable_lost;
 * only the other drops are reported lost here.  The ring is not used
 * again.
 */
static void rt_ring_take_back(struct rt_ring *r)
{
	static const struct pap_ring_ops ops = {
		rt_ring_skip_fn, rt_ring_keep_path, rt_ring_keep_bl
	};
	struct pap_ring_stats st = { 0, 0, 0 };
	struct pap_ring_buf *buf;
	uint64_t tail, seen, lost = 0, pos;

	r->detached = 1;
	tail = __atomic_load_n(&r->shm->tail, __ATOMIC_ACQUIRE);
	buf = mmap(NULL, sizeof(*buf), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pos = tail;
	if (buf == MAP_FAILED ||
	    pap_ring_read(r->words, r->mask + 1, &pos, r->head, &ops, r, buf,
			  &st))
		lost++;		/* at least one record could not be kept */
	if (buf != MAP_FAILED)
		munmap(buf, sizeof(*buf));
	seen = __atomic_load_n(&r->shm->durable_lost, __ATOMIC_ACQUIRE);
	if (r->dropped > seen)
		lost += r->dropped - seen;
	if (lost)
		rt_report_lost(lost);
}

/* Has the collector let go of @r (stopped, or died)?  Waits, bounded,
 * while it drains for the last time. */
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
	return 1;
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
	if (rt_lossy || r->congested)
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

static void rt_ring_test_point(struct rt_ring *r, int mid)
{
	(void)r;
	if ((rt_kill_mode == RT_KILL_MID) == mid &&
	    ++rt_kill_count == rt_kill_at)
		raise(SIGKILL);
}

/* Publishes the record of @len words written at r->head. */
static inline void rt_ring_publish(struct rt_ring *r, uint64_t len, int data)
{
	if (__builtin_expect(rt_kill_mode != RT_KILL_NONE, 0) && data)
		rt_ring_test_point(r, 1);
	r->head += len;
	__atomic_store_n(&r->shm->head, r->head, __ATOMIC_RELEASE);
	if (__builtin_expect(rt_kill_mode != RT_KILL_NONE, 0) && data)
		rt_ring_test_point(r, 0);
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

/* Where @fn's id is looked for first in a ring's slots. */
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
	rt_ring_publish(r, len, 0);
	r->fns[r->nfns++] = fn;
	r->slots[slot] = r->nfns;
	return r->nfns;
}

/* @fn's id in @r, defining it on first use; 0 when it cannot be named. */
static inline uint32_t rt_ring_fn(struct rt_ring *r, const char *fn)
{
	size_t mask = 2 * RT_RING_FNS - 1;
	size_t s = rt_ring_fn_slot(fn);
	uint32_t id;

	while ((id = r->slots[s])) {
		if (r->fns[id - 1] == fn)
			return id;
		s = (s + 1) & mask;
	}
	return rt_ring_define(r, fn, s);
}

/*
 * Writes one record of three words (no breakpoints) when that needs
 * nothing but stores: the thread's ring is attached, has room, already
 * names @fn, and no test point is armed.  1 when it is in the ring, 0
 * when rt_ring_put must take it.  Small, so that the common case pays no
 * more than its stores and the publish.
 */
static inline int rt_ring_put3(const char *fn, unsigned tag, uint64_t w1,
			       uint64_t w2)
{
	struct rt_ring *r = rt_ring;
	uint64_t head, mask, *w;
	uint32_t id;

	if (__builtin_expect(!r || rt_in_ring ||
			     rt_kill_mode != RT_KILL_NONE, 0))
		return 0;
	rt_in_ring = RT_HERE();
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	id = r->slots[rt_ring_fn_slot(fn)];
	head = r->head;
	if (__builtin_expect(r->detached || !id || r->fns[id - 1] != fn ||
			     head + 3 > r->limit, 0)) {
		rt_in_ring = 0;
		return 0;
	}
	rt_ring_prefetch(r);
	/* plain stores: the release store of head orders them for the
	 * collector, and nothing else reads them meanwhile */
	w = (uint64_t *)r->words;
	mask = r->mask;
	w[head & mask] = pap_shm_header(tag, 3, head);
	w[(head + 1) & mask] = id | w1;
	w[(head + 2) & mask] = w2;
	r->head = head + 3;
	__atomic_store_n(&r->shm->head, head + 3, __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	rt_in_ring = 0;
	return 1;
}

/*
 * Writes one record; 1 when it is in the ring (or dropped and counted,
 * in lossy mode), 0 when the caller must keep it.
 */
static __attribute__((noinline)) int
rt_ring_put(const char *fn, unsigned tag, uint64_t w1, uint64_t w2,
	    const struct pap_breakpoint *bps, uint32_t nbps)
{
	struct rt_ring *r;
	uint64_t len = 3 + 2 * (uint64_t)nbps;
	uint32_t id, i;
	int sent = 0;

	if (rt_in_ring || len > PAP_SHM_MAX_WORDS)
		return 0;
	rt_in_ring = RT_HERE();
	r = rt_ring_get();
	if (!r)
		goto out;
	id = rt_ring_fn(r, fn);
	if (r->detached)
		goto out;
	if (!id || (r->head + len > r->limit && !rt_ring_room(r, len))) {
		if (r->detached)
			goto out;
		if (rt_lossy && id) {
			r->dropped++;
			__atomic_store_n(&r->shm->lost, r->dropped,
					 __ATOMIC_RELAXED);
			sent = 1;
		} else {
			__atomic_store_n(&r->shm->held, r->shm->held + 1,
					 __ATOMIC_RELAXED);
		}
		goto out;
	}
	/* the line a few records ahead: owned before we get there */
	rt_ring_prefetch(r);
	rt_ring_store(r, 0, pap_shm_header(tag, len, r->head));
	rt_ring_store(r, 1, id | w1);
	rt_ring_store(r, 2, w2);
	for (i = 0; i < nbps; i++) {
		rt_ring_store(r, 3 + 2 * (uint64_t)i, bps[i].site);
		rt_ring_store(r, 4 + 2 * (uint64_t)i, bps[i].r);
	}
	rt_ring_publish(r, len, 1);
	sent = 1;
out:
	rt_in_ring = 0;
	return sent;
}

int rt_ring_bl(const char *fn, uint64_t id)
{
	return rt_ring_put3(fn, PAP_SHM_BL, 0, id) ||
	       rt_ring_put(fn, PAP_SHM_BL, 0, id, NULL, 0);
}

int rt_ring_path0(const char *fn, uint8_t complete, uint64_t value)
{
	uint64_t w1 = (uint64_t)complete << 32;

	return rt_ring_put3(fn, PAP_SHM_PATH, w1, value) ||
	       rt_ring_put(fn, PAP_SHM_PATH, w1, value, NULL, 0);
}

int rt_ring_path(const char *fn, uint8_t complete, uint64_t value,
		 const struct pap_breakpoint *bps, uint32_t nbps)
{
	if (!nbps)
		return rt_ring_path0(fn, complete, value);
	if (nbps >= 1u << 24)
		return 0;
	return rt_ring_put(fn, PAP_SHM_PATH,
			   (uint64_t)complete << 32 | (uint64_t)nbps << 40,
			   value, bps, nbps);
}

void rt_ring_resume(uintptr_t frame)
{
	if (rt_in_ring && rt_in_ring < frame)
		rt_in_ring = 0;
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
	/* what it held stays in the process's aggregate, written at exit */
	__atomic_store_n(&r->shm->held, 0, __ATOMIC_RELAXED);
	rt_ring_unlink(r);
	rt_ring = NULL;
	rt_ring_none = 1;
	close(r->sock);
	munmap(r->shm, r->maplen);
	munmap(r, sizeof(*r));
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
		__atomic_store_n(&r->shm->held, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&rt_rings_lock);
}

void rt_ring_after_fork_child(void)
{
	struct rt_ring *r, *next;

	pthread_mutex_init(&rt_rings_lock, NULL);
	if (rt_rings)	/* the key exists: this thread's ring is gone */
		pthread_setspecific(rt_ring_key, NULL);
	for (r = rt_rings; r; r = next) {
		next = r->next;
		close(r->sock);
		munmap(r->shm, r->maplen);
		munmap(r, sizeof(*r));
	}
	rt_rings = NULL;
	rt_ring = NULL;
	rt_ring_tried = 0;
	rt_ring_none = 0;
	rt_in_ring = 0;
}
