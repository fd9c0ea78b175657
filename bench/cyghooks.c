/* SPDX-License-Identifier: MIT */
/*
 * cyghooks.c - empty -finstrument-functions hooks: what a function
 * tracer costs at the least, the yardstick of bench/calls.sh.  Compiled
 * without -finstrument-functions.
 */
void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}
