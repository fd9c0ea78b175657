/* SPDX-License-Identifier: MIT */
/*
 * check-spec.c - pap-decode check-spec: reads path spec files as the
 * plugin will (libcore/pathspec.h), checks each path against its
 * function's metadata and prints the blocks each resolves to, so a spec
 * is known good before a build uses it.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "decoder.h"
#include "pathspec.h"
#include "textfile.h"

static void check_usage(FILE *f)
{
	fprintf(f,
"Usage: %s check-spec [--meta=PATH]... SPEC...\n"
"Reads the path spec files SPEC... together (doc/reports.md, \"Path spec\n"
"files\"), checks every path against its function's metadata and prints\n"
"each as SPEC:LINE FUNCTION BLOCK..., its blocks in execution order, loops\n"
"written out; a path given by its source lines is printed as the blocks\n"
"they resolve to.  Paths of the same function and blocks are printed once.\n"
"Each call sequence of interest ('calls' lines) is checked to name only\n"
"functions built with calls and printed as SPEC:LINE calls NAME....\n"
"On any error nothing is printed but the errors, each as FILE:LINE: error.\n"
"\n"
"      --meta=PATH  a metadata file (.papm) or a directory of them; may be\n"
"                   repeated (default: the current directory)\n"
"  -h, --help       show this help and exit\n"
"\n"
"Exit status: 0 if every path is good, 1 otherwise, 2 on bad usage.\n",
		pap_prog);
}

/* Reads metadata file @path into @m; 0, or 1 after a message. */
static int read_meta(struct pap_meta *m, const char *path)
{
	char err[512], *text;
	int rc = 0;

	text = pap_read_text_file(path, PAP_MAX_FILE, err, sizeof(err));
	if (!text) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	if (pap_meta_parse(m, text, path, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		rc = 1;
	}
	free(text);
	return rc;
}

/* Metadata file @path, or every .papm file in directory @path. */
static int read_meta_path(struct pap_meta *m, const char *path)
{
	struct stat st;
	struct dirent *de;
	DIR *dir;
	int rc = 0;

	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return read_meta(m, path);
	dir = opendir(path);
	if (!dir) {
		fprintf(stderr, "%s: error: %s: %s\n", pap_prog, path,
			strerror(errno));
		return 1;
	}
	while ((de = readdir(dir))) {
		size_t len = strlen(de->d_name);
		char file[4096];

		if (len < 6 || strcmp(de->d_name + len - 5, ".papm"))
			continue;
		if (snprintf(file, sizeof(file), "%s/%s", path, de->d_name) <
		    (int)sizeof(file))
			rc |= read_meta(m, file);
	}
	closedir(dir);
	return rc;
}

/*
 * The function path @p names: by name and FILE: qualifier, then by the
 * checksum if it gives one.  NULL after an error in @s (none, or several
 * that the spec does not tell apart); *@other the one of another build.
 */
static struct pap_meta_fn *find_fn(struct pap_spec *s,
				   const struct pap_spec_path *p,
				   struct pap_meta *m,
				   struct pap_meta_fn **other)
{
	struct pap_meta_fn *hit = NULL, *f;
	size_t i, named = 0;

	*other = NULL;
	for (i = 0; i < m->nfns; i++) {
		f = m->fns[i];
		if (!pap_spec_names(p, f->name, f->file))
			continue;
		named++;
		if (p->has_checksum && f->checksum != p->checksum) {
			*other = f;
			continue;
		}
		if (hit && (hit->checksum != f->checksum ||
			    strcmp(hit->file, f->file))) {
			pap_spec_error(s, p, "ambiguous function %s: in %s and "
				       "%s (write FILE:%s)", p->name,
				       hit->file, f->file, p->name);
			*other = NULL;
			return NULL;
		}
		hit = f;
	}
	if (!named)
		pap_spec_error(s, p, "unknown function %s%s%s: no metadata "
			       "has it", p->qual ? p->qual : "",
			       p->qual ? ":" : "", p->name);
	return hit;
}

/* Checks path @i of @s against the metadata @m. */
static int check_one(struct pap_spec *s, size_t i, struct pap_meta *m)
{
	struct pap_meta_fn *f, *other;
	struct pap_spec_fn fn;
	int r;

	f = find_fn(s, &s->paths[i], m, &other);
	if (!f)
		f = other;
	if (!f)
		return PAP_ECORRUPT;
	r = pap_spec_fn_from_meta(&fn, f);
	if (r == PAP_EINVAL)
		return pap_spec_error(s, &s->paths[i], "%s: the metadata's "
				      "block names are not bN", f->name);
	if (r)
		return r;
	r = pap_spec_check(s, i, &fn);
	pap_spec_fn_free(&fn);
	return r;
}

/*
 * Checks call sequence @c of @s: each function it names must be one the
 * metadata @m has with call probes (a build with calls).
 */
static void check_calls(struct pap_spec *s, const struct pap_spec_calls *c,
			const struct pap_meta *m)
{
	size_t j, i, k;

	for (j = 0; j < c->nitems; j++) {
		const char *name = c->item[j] + (c->item[j][0] == '>');
		int seen = 0, known = 0;

		for (k = 0; k < j && !seen; k++)
			seen = !strcmp(name, c->item[k] + (c->item[k][0] ==
							   '>'));
		if (seen)
			continue;
		for (i = 0; i < m->nfns && !known; i++)
			known = m->fns[i]->calls &&
				!strcmp(m->fns[i]->name, name);
		if (!known)
			pap_spec_calls_error(s, c, "unknown function %s in a "
					     "call sequence: no metadata has "
					     "it with call probes", name);
	}
}

int cmd_check_spec(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "meta", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct pap_meta m;
	struct pap_spec s;
	int opt, rc = 0, nmeta = 0;
	size_t i;

	pap_meta_init(&m);
	opterr = 1;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		if (opt == 'h') {
			check_usage(stdout);
			pap_meta_free(&m);
			return 0;
		}
		if (opt != 'm') {
			pap_meta_free(&m);
			return pap_usage_error(pap_prog);
		}
		rc |= read_meta_path(&m, optarg);
		nmeta++;
	}
	if (optind == argc) {
		fprintf(stderr, "%s: error: check-spec: expected SPEC...\n",
			pap_prog);
		pap_meta_free(&m);
		return pap_usage_error(pap_prog);
	}
	if (!nmeta)
		rc |= read_meta_path(&m, ".");
	pap_spec_init(&s);
	for (; optind < argc; optind++) {
		char err[512], *text;

		text = pap_read_text_file(argv[optind], PAP_MAX_FILE, err,
					  sizeof(err));
		if (!text) {
			fprintf(stderr, "%s\n", err);
			rc = 1;
			continue;
		}
		if (pap_spec_parse(&s, text, argv[optind]) == PAP_ENOMEM)
			rc = 1;
		free(text);
	}
	for (i = 0; i < s.npaths; i++)
		if (check_one(&s, i, &m) == PAP_ENOMEM) {
			fprintf(stderr, "%s: error: out of memory\n",
				pap_prog);
			rc = 1;
			break;
		}
	for (i = 0; i < s.ncalls; i++)
		check_calls(&s, &s.calls[i], &m);
	if (!rc && !s.nerrors && pap_spec_merge(&s))
		rc = 1;
	if (s.nerrors || rc) {
		pap_spec_sort_msgs(&s);
		if (s.msgs)
			fputs(s.msgs, stderr);
		rc = 1;
	} else {
		for (i = 0; i < s.npaths; i++) {
			const struct pap_spec_path *p = &s.paths[i];
			size_t k;

			printf("%s:%u %s", p->file, p->line, p->name);
			for (k = 0; k < p->nblocks; k++)
				printf(" %u", p->blocks[k]);
			putchar('\n');
		}
		for (i = 0; i < s.ncalls; i++) {
			const struct pap_spec_calls *c = &s.calls[i];
			size_t k;

			printf("%s:%u calls", c->file, c->line);
			for (k = 0; k < c->nitems; k++)
				printf(" %s", c->item[k]);
			putchar('\n');
		}
	}
	pap_spec_free(&s);
	pap_meta_free(&m);
	return rc;
}
