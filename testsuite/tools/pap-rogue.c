/* SPDX-License-Identifier: MIT */
/*
 * pap-rogue.c - a misbehaving producer for the collector's tests: it
 * connects like libpaprt, then writes garbage where a ring should be.
 *
 *   pap-rogue mode              print the segment's owner check and mode
 *   pap-rogue ring SEED N       N random words, head set past them
 *   pap-rogue slots SEED        random slots and a random taken count
 *   pap-rogue segment SEED      the whole segment, header included
 *   pap-rogue records SEED N    N well-framed records with random bodies
 *   pap-rogue fns N             N distinct function names
 *   pap-rogue flood N           N distinct well-formed paths
 *   pap-rogue old SEED N        as a 2.1 producer, N times one path of 40
 *                               breakpoints in a period of 2, unpacked
 *   pap-rogue calls23           as a 2.3 producer, one CALLS, PROG and
 *                               UNIT record each (kinds of 2.4), then a
 *                               PATH record
 *   pap-rogue calls24           the same as a 2.4 producer
 *
 * PAP_COLLECTOR names the socket, as for any producer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <pap/shm.h>

#include "ringenc.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int attach(struct pap_shm_ring **shm, size_t *len, struct stat *st,
		  uint32_t minor)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct pap_shm_hello h = { PAP_SHM_MAGIC, PAP_SHM_VERSION_MAJOR,
				   minor, 0, 0 };
	struct pap_shm_welcome w;
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &w, sizeof(w) };
	struct msghdr m = { 0 };
	struct cmsghdr *c;
	const char *path = getenv("PAP_COLLECTOR");
	int s, fd = -1;

	if (!path || strlen(path) >= sizeof(sa.sun_path))
		return -1;
	strcpy(sa.sun_path, path);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	h.pid = (uint32_t)getpid();
	h.tid = h.pid;
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) ||
	    send(s, &h, sizeof(h), MSG_NOSIGNAL) != sizeof(h))
		return -1;
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = cbuf;
	m.msg_controllen = sizeof(cbuf);
	if (recvmsg(s, &m, 0) != sizeof(w))
		return -1;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (fd < 0 || fstat(fd, st))
		return -1;
	*len = pap_shm_segment_size(w.nwords, w.nslots,
				    pap_shm_ntally(w.nslots, w.minor));
	*shm = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	return *shm == MAP_FAILED ? -1 : s;
}

/* Writes one record of @n body words once there is room, publishes it. */
static void put(struct pap_shm_ring *r, unsigned tag, const uint64_t *body,
		uint64_t n)
{
	while (r->head + n + 1 - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) >
	       r->nwords)
		usleep(100);
	__atomic_store_n(&r->head, re_put(r->words, r->nwords, r->head, tag,
					  body, n), __ATOMIC_RELEASE);
}

static void put_fn(struct pap_shm_ring *r, uint32_t id, const char *s)
{
	while (r->head + 64 - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) >
	       r->nwords)
		usleep(100);
	__atomic_store_n(&r->head, re_put_fn(r->words, r->nwords, r->head, id,
					     s), __ATOMIC_RELEASE);
}

int main(int argc, char **argv)
{
	struct pap_shm_ring *r;
	struct stat st;
	size_t len;
	uint64_t i, n = argc > 3 ? strtoull(argv[3], NULL, 10) : 0;
	int s;

	if (argc < 2)
		return 2;
	if (argc > 2)
		rng += strtoull(argv[2], NULL, 10) * 0x9e3779b97f4a7c15ull;
	s = attach(&r, &len, &st, !strcmp(argv[1], "old") ? 1 :
				  !strcmp(argv[1], "calls23") ? 3 :
				  PAP_SHM_VERSION_MINOR);
	if (s < 0) {
		fprintf(stderr, "pap-rogue: refused\n");
		return 1;
	}
	if (!strcmp(argv[1], "mode")) {
		printf("%o %s\n", (unsigned)(st.st_mode & 0777),
		       st.st_uid == geteuid() ? "mine" : "other");
	} else if (!strcmp(argv[1], "ring")) {
		for (i = 0; i < n; i++)
			r->words[next() & (r->nwords - 1)] = next();
		__atomic_store_n(&r->head, next() % (2 * r->nwords),
				 __ATOMIC_RELEASE);
	} else if (!strcmp(argv[1], "slots")) {
		/* slots that look steady but name functions never defined,
		 * or hold garbage, and a taken count out of thin air */
		struct pap_shm_slot *sl = pap_shm_slots(r, r->nwords);

		put_fn(r, 1, "rogue:0123456789abcdef");
		for (i = 0; i < r->nslots; i++) {
			sl[i].seq = next() % 3 ? 2 * (next() % 9) : next();
			sl[i].key = next() % 2 ?
				pap_shm_key((uint32_t)(next() % 3), 0,
					    (unsigned)(next() % 2)) : next();
			sl[i].value = next();
			sl[i].count = next() % 2 ? next() % 1000 : next();
		}
		__atomic_store_n(&r->taken, next(), __ATOMIC_RELEASE);
	} else if (!strcmp(argv[1], "segment")) {
		uint64_t *w = (uint64_t *)r;

		for (i = 0; i < len / 8; i++)
			w[i] = next();
	} else if (!strcmp(argv[1], "records")) {
		uint64_t body[16];
		unsigned k;

		put_fn(r, 1, "rogue:0123456789abcdef");
		for (i = 0; i < n; i++) {
			for (k = 0; k < 16; k++)
				body[k] = next() % 4 ? next() % 5 : next();
			put(r, (unsigned)(next() % 5), body, next() % 16);
		}
	} else if (!strcmp(argv[1], "fns")) {
		char name[64];

		for (i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "f%llu:0123456789abcdef",
				 (unsigned long long)i);
			put_fn(r, (uint32_t)(i + 1), name);
		}
	} else if (!strcmp(argv[1], "old")) {
		uint64_t body[2 + 80];
		unsigned k;

		put_fn(r, 1, "old:0123456789abcdef");
		body[0] = 1 | 1ull << 32 | 40ull << 40;
		body[1] = 5;
		for (k = 0; k < 40; k++) {
			body[2 + 2 * k] = k % 2;
			body[3 + 2 * k] = 100 + k % 2;
		}
		for (i = 0; i < n; i++)
			put(r, PAP_SHM_PATH, body, 82);
	} else if (!strncmp(argv[1], "calls2", 6)) {
		uint64_t body[2];

		put_fn(r, 1, PAP_REC_CALLS_PREFIX "0123456789abcdef");
		put_fn(r, 2, PAP_REC_PROG_PREFIX "0123456789abcdef");
		put_fn(r, 3, PAP_REC_UNIT_PREFIX "0123456789abcdef:/x.papm");
		put_fn(r, 4, "plain:0123456789abcdef");
		body[0] = 1 | 1ull << 32;
		body[1] = 5;
		put(r, PAP_SHM_CALLS, body, 2);
		body[0] = 2 | 1ull << 32;
		body[1] = 1;
		put(r, PAP_SHM_PROG, body, 2);
		body[0] = 3;
		body[1] = 0;
		put(r, PAP_SHM_UNIT, body, 2);
		body[0] = 4 | 1ull << 32;
		body[1] = 7;
		put(r, PAP_SHM_PATH, body, 2);
	} else if (!strcmp(argv[1], "flood")) {
		uint64_t body[2];

		put_fn(r, 1, "flood:0123456789abcdef");
		for (i = 0; i < n; i++) {
			body[0] = 1;
			body[1] = i;
			put(r, PAP_SHM_BL, body, 2);
		}
	}
	close(s);
	return 0;
}
