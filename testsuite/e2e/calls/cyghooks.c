/* -finstrument-functions' hooks, compiled without it: count calls. */
#include <stdio.h>

static unsigned long cyg_enters, cyg_exits;

__attribute__((no_instrument_function)) void
__cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
	cyg_enters++;
}

__attribute__((no_instrument_function)) void
__cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
	cyg_exits++;
}
