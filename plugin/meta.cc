/* SPDX-License-Identifier: MIT */
/*
 * meta.cc - the translation unit's metadata file, NAME.papm.
 */
#include "gcc-common.h"
#include "plugin.h"

struct pap_text pap_meta;

void pap_text_printf(struct pap_text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = t->cap - t->len;

		va_start(ap, fmt);
		n = vsnprintf(t->s ? t->s + t->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < room) {
			t->len += n;
			return;
		}
		t->cap = t->cap * 2 + (size_t)n + 256;
		t->s = XRESIZEVEC(char, t->s, t->cap);
	}
}

void pap_text_free(struct pap_text *t)
{
	XDELETEVEC(t->s);
	t->s = NULL;
	t->len = t->cap = 0;
}

uint64_t pap_hash(const void *p, size_t len, uint64_t h)
{
	const unsigned char *c = (const unsigned char *)p;
	size_t i;

	if (!h)
		h = 0xcbf29ce484222325ull;
	for (i = 0; i < len; i++) {
		h ^= c[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/*
 * Writes the unit's metadata to BASE.papm (in the meta directory when one
 * was given), atomically: a temporary file renamed into place.
 */
void pap_meta_write(const char *base)
{
	struct pap_text path = { NULL, 0, 0 }, tmp = { NULL, 0, 0 };
	const char *slash;
	FILE *f;

	if (!pap_meta.len)
		return;
	if (pap_opts.meta_dir) {
		slash = strrchr(base, '/');
		pap_text_printf(&path, "%s/%s.papm", pap_opts.meta_dir,
				slash ? slash + 1 : base);
	} else {
		pap_text_printf(&path, "%s.papm", base);
	}
	pap_text_printf(&tmp, "%s.tmp%d", path.s, (int)getpid());
	f = fopen(tmp.s, "w");
	if (!f) {
		error("pap: cannot write %qs: %m", tmp.s);
		goto out;
	}
	fprintf(f, "pap-meta 1\n");
	fwrite(pap_meta.s, 1, pap_meta.len, f);
	if (fclose(f) || rename(tmp.s, path.s)) {
		error("pap: cannot write %qs: %m", path.s);
		unlink(tmp.s);
	}
out:
	pap_text_free(&path);
	pap_text_free(&tmp);
}
