/* Until the runtime registers units: a weak __pap_cunit that a runtime
 * defining it replaces at link time. */
__attribute__((weak)) void __pap_cunit(const void *unit)
{
	(void)unit;
}
