/* SPDX-License-Identifier: MIT */
/*
 * jsonstr.c - strings in the JSON reports, escaped as JSON requires.
 */
#include <stdio.h>

#include "decoder.h"

void json_string(FILE *out, const char *s)
{
	json_prefixed_string(out, "", s);
}

void json_prefixed_string(FILE *out, const char *prefix, const char *s)
{
	putc('"', out);
	fputs(prefix, out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			putc(c, out);
	}
	putc('"', out);
}
