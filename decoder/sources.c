/* SPDX-License-Identifier: MIT */
/*
 * sources.c - the source text reports show: where a function's source
 * file is (its metadata's compile directory, remapped by --source-prefix),
 * read once per file, and a file that cannot be found named once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decoder.h"
#include "textfile.h"

struct prefix_map {
	char *old, *new;
};

static struct prefix_map *maps;
static size_t nmaps;

struct source {
	char *name;		/* the path as resolved (the cache's key) */
	char *text;		/* NULL: not found */
	char **lines;
	uint32_t nlines;
};

static struct source *sources;
static size_t nsources;
/* the function source_line() last looked up, and its source */
static const struct pap_meta_fn *last_fn;
static size_t last;

int source_prefix_add(const char *spec)
{
	const char *eq = strchr(spec, '=');
	struct prefix_map *m;

	if (!eq || eq == spec)
		return -1;
	m = realloc(maps, (nmaps + 1) * sizeof(*m));
	if (!m)
		return -1;
	maps = m;
	m[nmaps].old = strndup(spec, (size_t)(eq - spec));
	m[nmaps].new = strdup(eq + 1);
	if (!m[nmaps].old || !m[nmaps].new) {
		free(m[nmaps].old);
		free(m[nmaps].new);
		return -1;
	}
	nmaps++;
	return 0;
}

/*
 * @path with the first --source-prefix whose OLD is a whole-component
 * prefix of it replaced by NEW, into @buf; @path itself when none is.
 */
static const char *remap(const char *path, char *buf, size_t size)
{
	size_t i, n;

	for (i = 0; i < nmaps; i++) {
		n = strlen(maps[i].old);
		while (n > 1 && maps[i].old[n - 1] == '/')
			n--;
		if (strncmp(path, maps[i].old, n) ||
		    (path[n] && path[n] != '/' && maps[i].old[n - 1] != '/'))
			continue;
		if (snprintf(buf, size, "%s%s", maps[i].new, path + n) <
		    (int)size)
			return buf;
	}
	return path;
}

/*
 * source_path(): @fn's path, under the compile directory when relative,
 * remapped; when that cannot be read, the path as recorded (relative to
 * here), if that can.
 */
const char *source_path(const struct pap_meta_fn *fn, char *buf,
			size_t size)
{
	char full[4096];
	const char *p = fn->file;

	if (fn->file[0] != '/' && fn->dir &&
	    snprintf(full, sizeof(full), "%s/%s", fn->dir, fn->file) <
	    (int)sizeof(full))
		p = full;
	p = remap(p, buf, size);
	if (p != buf)
		snprintf(buf, size, "%s", p);
	if (access(buf, R_OK) && !access(fn->file, R_OK))
		snprintf(buf, size, "%s", fn->file);
	return buf;
}

/* Reads @s's file into its lines; a message once if it cannot. */
static void source_load(struct source *s, const struct pap_meta_fn *fn)
{
	char err[256], *c;
	uint32_t n = 1, cap = 0;

	s->text = pap_read_text_file(s->name, 64u << 20, err, sizeof(err));
	if (!s->text) {
		fprintf(stderr, "%s: warning: %s: source file not found "
			"(looked for %s; --source-prefix=OLD=NEW maps a moved "
			"tree)\n", pap_prog, fn->file, s->name);
		return;
	}
	for (c = s->text; c; n++) {
		char *nl = strchr(c, '\n');

		if (n >= cap) {
			uint32_t cp = cap ? 2 * cap : 256;
			char **m = realloc(s->lines, cp * sizeof(*m));

			if (!m)
				return;
			s->lines = m;
			cap = cp;
		}
		s->lines[n] = c;
		s->nlines = n;
		if (nl)
			*nl = 0;
		c = nl ? nl + 1 : NULL;
	}
}

const char *source_line(const struct pap_meta_fn *fn, uint32_t line)
{
	struct source *s = NULL, *m;
	char path[4096];
	size_t i;

	if (fn == last_fn && last < nsources) {
		s = &sources[last];
		goto found;
	}
	source_path(fn, path, sizeof(path));
	for (i = 0; i < nsources; i++)
		if (!strcmp(sources[i].name, path))
			s = &sources[i];
	if (!s) {
		m = realloc(sources, (nsources + 1) * sizeof(*m));
		if (!m)
			return NULL;
		sources = m;
		s = &sources[nsources];
		memset(s, 0, sizeof(*s));
		s->name = strdup(path);
		if (!s->name)
			return NULL;
		nsources++;
		source_load(s, fn);
	}
	last_fn = fn;
	last = (size_t)(s - sources);
found:
	if (!s->text || !line || line > s->nlines)
		return NULL;
	return s->lines[line];
}

void source_cache_free(void)
{
	size_t i;

	for (i = 0; i < nsources; i++) {
		free(sources[i].name);
		free(sources[i].text);
		free(sources[i].lines);
	}
	free(sources);
	sources = NULL;
	nsources = 0;
	last_fn = NULL;
	for (i = 0; i < nmaps; i++) {
		free(maps[i].old);
		free(maps[i].new);
	}
	free(maps);
	maps = NULL;
	nmaps = 0;
}
