/* SPDX-License-Identifier: MIT */
#include "decoder.h"
int write_html(const char *dir, struct dprofile *dp, const struct ropts *o)
{
	(void)dir; (void)dp; (void)o;
	return -1;
}
