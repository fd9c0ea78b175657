/* SPDX-License-Identifier: MIT */
/*
 * profile.c - distinct records with counts; the profile file format.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "diag.h"
#include "profile.h"
#include "util.h"

static uint64_t prof_hash(const struct pap_profile *p, const char *fn,
			  uint8_t kind, uint8_t complete, uint64_t value,
			  const struct pap_breakpoint *bps, uint32_t nbps)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	if (p->by_address)
		h = ((uintptr_t)fn ^ h) * 0x9e3779b97f4a7c15ull;
	else
		for (; *fn; fn++)
			h = (h ^ (unsigned char)*fn) * 0x100000001b3ull;
	h = (h ^ kind ^ ((uint64_t)complete << 8)) * 0x100000001b3ull;
	h = (h ^ value) * 0x9e3779b97f4a7c15ull;
	for (i = 0; i < nbps; i++) {
		h = (h ^ bps[i].site) * 0x100000001b3ull;
		h = (h ^ bps[i].r) * 0x9e3779b97f4a7c15ull;
	}
	return h ^ (h >> 29);
}

void pap_profile_init(struct pap_profile *p)
{
	memset(p, 0, sizeof(*p));
}

void pap_profile_free(struct pap_profile *p)
{
	size_t i;

	for (i = 0; i < p->nrecs; i++) {
		free(p->recs[i].fn);
		free(p->recs[i].bps);
	}
	free(p->recs);
	free(p->slots);
	pap_profile_init(p);
}

void pap_profile_zero(struct pap_profile *p)
{
	size_t i;

	for (i = 0; i < p->nrecs; i++)
		p->recs[i].count = 0;
	p->lost = 0;
}

static int prof_equal(const struct pap_profile *p,
		      const struct pap_prof_rec *r, uint64_t hash,
		      const char *fn, uint8_t kind, uint8_t complete,
		      uint64_t value, const struct pap_breakpoint *bps,
		      uint32_t nbps)
{
	uint32_t i;

	if (r->hash != hash || r->kind != kind || r->complete != complete ||
	    r->value != value || r->nbps != nbps ||
	    (p->by_address ? r->key != fn : strcmp(r->fn, fn) != 0))
		return 0;
	for (i = 0; i < nbps; i++)
		if (r->bps[i].site != bps[i].site || r->bps[i].r != bps[i].r)
			return 0;
	return 1;
}

/* Doubles the slot table and rehashes. */
static int prof_rehash(struct pap_profile *p)
{
	size_t n = p->nslots ? p->nslots * 2 : 64, i;
	uint32_t *slots = calloc(n, sizeof(uint32_t));

	if (!slots)
		return PAP_ENOMEM;
	for (i = 0; i < p->nrecs; i++) {
		size_t s = p->recs[i].hash & (n - 1);

		while (slots[s])
			s = (s + 1) & (n - 1);
		slots[s] = (uint32_t)(i + 1);
	}
	free(p->slots);
	p->slots = slots;
	p->nslots = n;
	return PAP_OK;
}

int pap_profile_add(struct pap_profile *p, const char *fn, uint8_t kind,
		    uint8_t complete, uint64_t value,
		    const struct pap_breakpoint *bps, uint32_t nbps,
		    uint64_t count)
{
	size_t at;

	return pap_profile_add_at(p, fn, kind, complete, value, bps, nbps,
				  count, &at);
}

int pap_profile_add_at(struct pap_profile *p, const char *fn, uint8_t kind,
		       uint8_t complete, uint64_t value,
		       const struct pap_breakpoint *bps, uint32_t nbps,
		       uint64_t count, size_t *at)
{
	uint64_t h = prof_hash(p, fn, kind, complete, value, bps, nbps);
	struct pap_prof_rec *r;
	size_t s;

	if (p->nrecs + 1 > p->nslots / 2 && prof_rehash(p))
		return PAP_ENOMEM;
	for (s = h & (p->nslots - 1); p->slots[s];
	     s = (s + 1) & (p->nslots - 1)) {
		r = &p->recs[p->slots[s] - 1];
		if (prof_equal(p, r, h, fn, kind, complete, value, bps,
			       nbps)) {
			r->count = pap_sat_add(r->count, count);
			*at = p->slots[s] - 1;
			return PAP_OK;
		}
	}
	if (p->max_recs && p->nrecs >= p->max_recs)
		return PAP_ELIMIT;
	if (p->nrecs == p->cap_recs) {
		size_t cap = p->cap_recs ? p->cap_recs * 2 : 64;
		struct pap_prof_rec *n;

		if (cap > UINT32_MAX - 1)
			return PAP_ELIMIT;
		n = realloc(p->recs, cap * sizeof(*n));
		if (!n)
			return PAP_ENOMEM;
		p->recs = n;
		p->cap_recs = cap;
	}
	r = &p->recs[p->nrecs];
	r->fn = strdup(fn);
	r->key = fn;
	r->bps = nbps ? malloc(nbps * sizeof(*bps)) : NULL;
	if (!r->fn || (nbps && !r->bps)) {
		free(r->fn);
		free(r->bps);
		return PAP_ENOMEM;
	}
	if (nbps)
		memcpy(r->bps, bps, nbps * sizeof(*bps));
	r->kind = kind;
	r->complete = complete;
	r->nbps = nbps;
	r->count = count;
	r->value = value;
	r->hash = h;
	*at = p->nrecs;
	p->slots[s] = (uint32_t)(++p->nrecs);
	return PAP_OK;
}

int pap_profile_merge(struct pap_profile *to, const struct pap_profile *from)
{
	size_t i;

	for (i = 0; i < from->nrecs; i++) {
		const struct pap_prof_rec *r = &from->recs[i];
		int err = pap_profile_add(to, r->fn, r->kind, r->complete,
					  r->value, r->bps, r->nbps, r->count);

		if (err)
			return err;
	}
	to->lost = pap_sat_add(to->lost, from->lost);
	return PAP_OK;
}

/* ---- text format ---- */

struct prof_lexer {
	const char *p, *file;
	unsigned line;
	char *err;
	size_t errlen;
};

#define prof_error(lx, ...) \
	pap_diag(PAP_ECORRUPT, (lx)->err, (lx)->errlen, (lx)->file, \
		 (lx)->line, __VA_ARGS__)

/* Next space-separated word on this line into [*s, *s + *n). */
static int prof_word(struct prof_lexer *lx, const char **s, size_t *n)
{
	while (*lx->p == ' ')
		lx->p++;
	*s = lx->p;
	while (*lx->p && *lx->p != ' ' && *lx->p != '\n')
		lx->p++;
	*n = (size_t)(lx->p - *s);
	return *n > 0;
}

static int prof_u64(struct prof_lexer *lx, uint64_t *v, const char *what)
{
	const char *s;
	size_t n, i;

	if (!prof_word(lx, &s, &n))
		return prof_error(lx, "missing %s", what);
	*v = 0;
	if (n > 20)
		return prof_error(lx, "%s is not a number", what);
	for (i = 0; i < n; i++) {
		uint64_t d = (uint64_t)(unsigned char)s[i] - '0';

		if (d > 9)
			return prof_error(lx, "%s is not a number", what);
		/* fewer than 20 digits always fit */
		if (n == 20 && *v > (UINT64_MAX - d) / 10)
			return prof_error(lx, "%s does not fit 64 bits", what);
		*v = *v * 10 + d;
	}
	return PAP_OK;
}

/* Is [s, s+n) shaped like ASMNAME:HEX16[:METAFILE]? */
static int prof_key_ok(const char *s, size_t n)
{
	const char *c = memchr(s, ':', n);
	size_t i, k;

	if (!c || c == s)
		return 0;
	k = (size_t)(c - s) + 1;
	for (i = 0; k + i < n && s[k + i] != ':'; i++)
		if (!strchr("0123456789abcdef", s[k + i]))
			return 0;
	return i == 16;
}

/* One record line after its kind letter; adds it to @p. */
static int prof_line(struct prof_lexer *lx, struct pap_profile *p, char kind,
		     struct pap_breakpoint **bps, size_t *cap)
{
	const char *s;
	size_t n;
	char fn[4608];
	uint64_t complete = 1, count, value, nbps = 0, i, site;
	int err;

	if (!prof_word(lx, &s, &n))
		return prof_error(lx, "missing function");
	if (n >= sizeof(fn) || !prof_key_ok(s, n))
		return prof_error(lx, "bad function key '%.*s'",
				  (int)(n > 60 ? 60 : n), s);
	memcpy(fn, s, n);
	fn[n] = 0;
	if (kind == 'p' && (err = prof_u64(lx, &complete, "completeness")))
		return err;
	if (complete > 1)
		return prof_error(lx, "completeness must be 0 or 1");
	if ((err = prof_u64(lx, &count, "count")) ||
	    (err = prof_u64(lx, &value, kind == 'p' ? "final value" : "id")))
		return err;
	if (kind == 'p') {
		if ((err = prof_u64(lx, &nbps, "breakpoint count")))
			return err;
		if (nbps > UINT32_MAX)
			return prof_error(lx, "too many breakpoints");
		for (i = 0; i < nbps; i++) {
			/* grow with what the line really holds, never with
			 * the count it claims */
			if (i == *cap) {
				size_t want = *cap ? *cap * 2 : 256;
				struct pap_breakpoint *nb;

				if (want > nbps)
					want = (size_t)nbps;
				nb = realloc(*bps, want * sizeof(**bps));
				if (!nb)
					return PAP_ENOMEM;
				*bps = nb;
				*cap = want;
			}
			if ((err = prof_u64(lx, &site, "breakpoint site")) ||
			    (err = prof_u64(lx, &(*bps)[i].r,
					    "breakpoint value")))
				return err;
			if (site > UINT32_MAX)
				return prof_error(lx, "bad breakpoint site");
			(*bps)[i].site = (uint32_t)site;
		}
	}
	if (prof_word(lx, &s, &n))
		return prof_error(lx, "unexpected '%.*s'", (int)(n > 40 ? 40 : n),
				  s);
	return pap_profile_add(p, fn, kind == 'p' ? PAP_REC_PATH : PAP_REC_BL,
			       (uint8_t)complete, value, *bps, (uint32_t)nbps,
			       count);
}

/* A lost-record line "l COUNT" after its letter; adds to @p's count. */
static int prof_lost(struct prof_lexer *lx, struct pap_profile *p)
{
	const char *s;
	size_t n;
	uint64_t lost;
	int err = prof_u64(lx, &lost, "lost-record count");

	if (err)
		return err;
	if (prof_word(lx, &s, &n))
		return prof_error(lx, "unexpected '%.*s'", (int)(n > 40 ? 40 : n),
				  s);
	p->lost = pap_sat_add(p->lost, lost);
	return PAP_OK;
}

/* A parse in progress: where it is, and what it has read so far. */
struct prof_parse {
	struct prof_lexer lx;
	struct pap_profile tmp;
	struct pap_breakpoint *bps;
	size_t cap;
	int version;
};

/* Checks the header line at the start of @text; 0 or PAP_ECORRUPT. */
static int prof_header(struct prof_parse *ps, const char *text)
{
	ps->lx.p = text;
	if (strncmp(text, "pap-profile ", 12))
		return prof_error(&ps->lx, "not a pap profile");
	if (text[12] < '1' || text[12] > '0' + PAP_PROFILE_VERSION ||
	    text[13] != '\n')
		return prof_error(&ps->lx, "profile version %.8s is not "
				  "supported (this pap reads versions 1 to "
				  "%d)", text + 12, PAP_PROFILE_VERSION);
	ps->version = text[12] - '0';
	ps->lx.line = 2;
	return PAP_OK;
}

/* Parses the record lines of @text, up to its NUL, into ps->tmp. */
static int prof_body(struct prof_parse *ps, const char *text)
{
	struct prof_lexer *lx = &ps->lx;
	int r = PAP_OK;

	lx->p = text;
	while (*lx->p && !r) {
		char kind = *lx->p++;

		if (kind == '\n') {
			lx->line++;
			continue;
		}
		if (kind == 'l' && ps->version >= 2 && *lx->p == ' ')
			r = prof_lost(lx, &ps->tmp);
		else if ((kind != 'p' && kind != 'b') || *lx->p != ' ')
			r = prof_error(lx, "unknown record");
		else
			r = prof_line(lx, &ps->tmp, kind, &ps->bps, &ps->cap);
		if (!r && *lx->p == '\n') {
			lx->p++;
			lx->line++;
		} else if (!r && *lx->p) {
			r = prof_error(lx, "malformed line");
		}
	}
	return r;
}

/*
 * Ends a parse that returned @r: on success adds what it read to @p (or,
 * @p being empty, makes it @p), and frees the rest.
 */
static int prof_finish(struct prof_parse *ps, struct pap_profile *p, int r)
{
	free(ps->bps);
	if (r == PAP_ENOMEM)
		snprintf(ps->lx.err, ps->lx.errlen, "%s: error: out of memory",
			 ps->lx.file);
	if (!r && !p->nrecs && !p->lost &&
	    (!p->max_recs || ps->tmp.nrecs <= p->max_recs)) {
		/* into an empty profile: the parsed one is the result */
		ps->tmp.max_recs = p->max_recs;
		pap_profile_free(p);
		*p = ps->tmp;
		return PAP_OK;
	}
	if (!r)
		r = pap_profile_merge(p, &ps->tmp);
	pap_profile_free(&ps->tmp);
	return r;
}

static void prof_parse_init(struct prof_parse *ps, const char *file,
			    char *err, size_t errlen)
{
	memset(ps, 0, sizeof(*ps));
	ps->lx.file = file;
	ps->lx.line = 1;
	ps->lx.err = err;
	ps->lx.errlen = errlen;
	pap_profile_init(&ps->tmp);
}

int pap_profile_parse(struct pap_profile *p, const char *text,
		      const char *file, char *err, size_t errlen)
{
	struct prof_parse ps;
	int r;

	prof_parse_init(&ps, file, err, errlen);
	r = prof_header(&ps, text);
	if (r)
		return r;
	return prof_finish(&ps, p, prof_body(&ps, text + 14));
}

/* Text read per step by pap_profile_read_file(). */
#define PROF_CHUNK ((size_t)1 << 22)

/*
 * Reads up to @want more bytes of @fd onto @buf (of @len bytes, room for
 * @cap), growing it; the bytes read, 0 at the end, -1 on an error (errno).
 */
static ssize_t prof_fill(int fd, char **buf, size_t *len, size_t *cap,
			 size_t want)
{
	ssize_t n;

	if (*len + want + 1 > *cap) {
		size_t c = *cap ? *cap : PROF_CHUNK;
		char *nb;

		while (c < *len + want + 1)
			c *= 2;
		nb = realloc(*buf, c);
		if (!nb) {
			errno = ENOMEM;
			return -1;
		}
		*buf = nb;
		*cap = c;
	}
	do
		n = read(fd, *buf + *len, want);
	while (n < 0 && errno == EINTR);
	if (n > 0) {
		if (memchr(*buf + *len, 0, (size_t)n)) {
			errno = EILSEQ;
			return -1;
		}
		*len += (size_t)n;
	}
	return n;
}

int pap_profile_read_file(struct pap_profile *p, const char *path,
			  size_t max, char *err, size_t errlen,
			  void (*tick)(size_t done, size_t size))
{
	struct stat st;
	struct prof_parse ps;
	char *buf = NULL;
	size_t len = 0, cap = 0, total = 0, done = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = PAP_OK, eof = 0;
	int header = 0;
	ssize_t n;

	if (fd < 0) {
		snprintf(err, errlen, "%s: error: %s", path, strerror(errno));
		return PAP_EINVAL;
	}
	prof_parse_init(&ps, path, err, errlen);
	if (fstat(fd, &st))
		st.st_size = 0;
	/*
	 * Whole lines are parsed as they arrive; a bad line stops the
	 * parsing but not the reading, so that a file holding a NUL byte or
	 * too long is refused as such, as when it is read whole first.
	 */
	while (!eof) {
		n = prof_fill(fd, &buf, &len, &cap, PROF_CHUNK);
		if (n < 0)
			goto read_error;
		eof = n == 0;
		total += (size_t)n;
		if (tick)
			tick(total, (size_t)st.st_size);
		if (total > max) {
			errno = EFBIG;
			goto read_error;
		}
		if (r) {
			len = 0;	/* only reading on */
			continue;
		}
		if (!eof && !header && len < 64)
			continue;
		buf[len] = 0;
		if (!header) {
			header = 1;
			r = prof_header(&ps, buf);
			done = 14;
			if (r)
				continue;
		}
		if (!eof) {
			/* up to the last whole line; keep the rest */
			char *nl = buf + len, c;

			while (nl > buf + done && nl[-1] != '\n')
				nl--;
			if (nl == buf + done)
				continue;
			nl--;
			c = nl[1];
			nl[1] = 0;
			r = prof_body(&ps, buf + done);
			nl[1] = c;
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
			done = 0;
		} else {
			r = prof_body(&ps, buf + done);
		}
	}
	close(fd);
	free(buf);
	if (r) {
		prof_finish(&ps, p, r);
		return r;
	}
	return prof_finish(&ps, p, PAP_OK);
read_error:
	snprintf(err, errlen, "%s: error: %s", path,
		 errno == EFBIG ? "file too large" :
		 errno == EILSEQ ? "not a text file" : strerror(errno));
	close(fd);
	free(buf);
	prof_finish(&ps, p, PAP_EINVAL);
	return PAP_EINVAL;
}

static int prof_cmp(const void *a, const void *b)
{
	const struct pap_prof_rec *x = *(const struct pap_prof_rec *const *)a;
	const struct pap_prof_rec *y = *(const struct pap_prof_rec *const *)b;
	uint32_t i;
	int c = strcmp(x->fn, y->fn);

	if (c)
		return c;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->complete != y->complete)
		return x->complete > y->complete ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (x->nbps != y->nbps)
		return x->nbps < y->nbps ? -1 : 1;
	for (i = 0; i < x->nbps; i++) {
		if (x->bps[i].site != y->bps[i].site)
			return x->bps[i].site < y->bps[i].site ? -1 : 1;
		if (x->bps[i].r != y->bps[i].r)
			return x->bps[i].r < y->bps[i].r ? -1 : 1;
	}
	return 0;
}

#define PROF_U64_DIGITS 20

/* Writes @v in decimal at @out (no NUL); the number of digits. */
static size_t prof_put_u64(char *out, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324"
		"25262728293031323334353637383940414243444546474849"
		"50515253545556575859606162636465666768697071727374"
		"75767778798081828384858687888990919293949596979899";
	char tmp[PROF_U64_DIGITS];
	size_t at = sizeof(tmp), n;

	/* two digits per division: the writer's hot loop on long paths */
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		tmp[--at] = pairs[d + 1];
		tmp[--at] = pairs[d];
	}
	if (v >= 10) {
		tmp[--at] = pairs[v * 2 + 1];
		tmp[--at] = pairs[v * 2];
	} else {
		tmp[--at] = (char)('0' + v);
	}
	n = sizeof(tmp) - at;
	memcpy(out, tmp + at, n);
	return n;
}

int pap_profile_write(const struct pap_profile *p, FILE *f)
{
	const struct pap_prof_rec **order;
	char buf[8192];
	size_t i, n = 0;
	uint32_t k;

	order = malloc((p->nrecs + 1) * sizeof(*order));
	if (!order) {
		errno = ENOMEM;
		return -1;
	}
	for (i = 0; i < p->nrecs; i++)
		order[i] = &p->recs[i];
	qsort(order, p->nrecs, sizeof(*order), prof_cmp);
	if (p->lost)
		fprintf(f, "pap-profile %d\nl %llu\n", PAP_PROFILE_VERSION,
			(unsigned long long)p->lost);
	else
		fprintf(f, "pap-profile %d\n", PAP_PROFILE_VERSION_NOLOSS);
	for (i = 0; i < p->nrecs; i++) {
		const struct pap_prof_rec *r = order[i];

		if (!r->count)
			continue;
		if (r->kind == PAP_REC_BL) {
			fprintf(f, "b %s %llu %llu\n", r->fn,
				(unsigned long long)r->count,
				(unsigned long long)r->value);
			continue;
		}
		fprintf(f, "p %s %u %llu %llu %u", r->fn, r->complete,
			(unsigned long long)r->count,
			(unsigned long long)r->value, r->nbps);
		for (k = 0; k < r->nbps; k++) {
			if (n > sizeof(buf) - 2 * PROF_U64_DIGITS - 2) {
				fwrite(buf, 1, n, f);
				n = 0;
			}
			buf[n++] = ' ';
			n += prof_put_u64(buf + n, r->bps[k].site);
			buf[n++] = ' ';
			n += prof_put_u64(buf + n, r->bps[k].r);
		}
		buf[n++] = '\n';
		fwrite(buf, 1, n, f);
		n = 0;
	}
	free(order);
	return ferror(f) ? -1 : 0;
}
