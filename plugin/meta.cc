/* SPDX-License-Identifier: MIT */
/*
 * meta.cc - the translation unit's metadata file, NAME.papm.
 */
#include "gcc-common.h"
#include "plugin.h"

#include "meta.h"
#include "../libcore/target.h"	/* not GCC's target.h */

/* the entries of the unit's instrumented functions, in order */
static struct pap_text pap_meta;
/* the checksums of its functions with calls, in file order */
static uint64_t *pap_meta_sums;
static size_t pap_meta_ncalls;

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

/*
 * The absolute path of this unit's metadata file: BASE.papm, in the meta
 * directory when one was given.  Computed once.
 */
const char *pap_meta_path(void)
{
	static struct pap_text path;
	const char *base = aux_base_name ? aux_base_name : main_input_filename;
	const char *slash;
	char cwd[4096];

	if (path.s)
		return path.s;
	if (pap_opts.meta_dir) {
		slash = strrchr(base, '/');
		base = slash ? slash + 1 : base;
		if (pap_opts.meta_dir[0] != '/' && getcwd(cwd, sizeof(cwd)))
			pap_text_printf(&path, "%s/", cwd);
		pap_text_printf(&path, "%s/%s.papm", pap_opts.meta_dir, base);
	} else {
		if (base[0] != '/' && getcwd(cwd, sizeof(cwd)))
			pap_text_printf(&path, "%s/", cwd);
		pap_text_printf(&path, "%s.papm", base);
	}
	return path.s;
}

void pap_meta_add_fn(const char *name, const char *file, enum pap_mode mode,
		     const char *graph, const char *lines, uint64_t checksum)
{
	int n = pap_meta_format_fn(NULL, 0, name, file, mode, graph, lines,
				   checksum);

	if (n < 0)
		return;
	if (pap_meta.cap - pap_meta.len <= (size_t)n) {
		pap_meta.cap = pap_meta.cap * 2 + (size_t)n + 256;
		pap_meta.s = XRESIZEVEC(char, pap_meta.s, pap_meta.cap);
	}
	pap_meta.len += pap_meta_format_fn(pap_meta.s + pap_meta.len,
					   pap_meta.cap - pap_meta.len, name,
					   file, mode, graph, lines, checksum);
}

void pap_meta_add_unit_fn(uint64_t checksum)
{
	pap_meta_sums = XRESIZEVEC(uint64_t, pap_meta_sums,
				   pap_meta_ncalls + 1);
	pap_meta_sums[pap_meta_ncalls++] = checksum;
}

uint64_t pap_meta_unit(void)
{
	return pap_meta_unit_sum(pap_meta_sums, pap_meta_ncalls);
}

/*
 * Writes the unit's metadata atomically: the header, the compile
 * directory, each function's entry into a temporary created exclusively
 * next to the file, without following a link (libcore/target.h), then
 * renamed over it.  A target that is not a regular file of this user is
 * left alone and the compile fails, saying why; so does a failed write.
 */
void pap_meta_write(void)
{
	const char *path = pap_meta_path();
	char tmp[4096 + 64], cwd[4096];
	int off;
	FILE *f;

	if (!pap_meta.len)
		return;
	f = pap_target_begin(path, "pap", tmp, sizeof(tmp), &off);
	if (!f) {
		if (!off)
			error_at(UNKNOWN_LOCATION, "pap: metadata %qs not written",
				 path);
		return;
	}
	fputs(pap_meta_ncalls ? PAP_META_HEADER_V3 : PAP_META_HEADER, f);
	if (getcwd(cwd, sizeof(cwd)) && !strchr(cwd, '\n'))
		fprintf(f, "directory %s\n", cwd);
	if (pap_meta_ncalls)
		fprintf(f, "unit %016llx\n",
			(unsigned long long)pap_meta_unit());
	fwrite(pap_meta.s, 1, pap_meta.len, f);
	if (pap_target_commit(f, tmp, path, "pap"))
		error_at(UNKNOWN_LOCATION, "pap: metadata %qs not written",
			 path);
}
