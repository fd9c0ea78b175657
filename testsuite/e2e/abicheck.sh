#!/bin/sh
# abicheck.sh - versions: every translation unit with instrumented code
# tells the runtime which ABI version it was built for (pap/abi.h,
# __pap_abi); an object built for another version is named once and
# nothing is recorded, the program's own output and status unchanged.
# An object of another pap is stood in for by a unit that makes the call
# an older or newer pap's constructor would.  A profile's header names
# the pap that wrote it (format versions 6 on); version 4 files are
# still read, and rewritten in the newest by the next writer.  TAP
# output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
# the ABI version of this pap, from its header: the oracle
abi=$(sed -n 's/^#define PAP_ABI_VERSION \([0-9]*\)$/\1/p' \
	"$top_srcdir/include/pap/abi.h")
# the binary profile's format version, from its header
fmt=$(sed -n 's/^#define PAP_PROFILE_VERSION_BIN \([0-9]*\)$/\1/p' \
	"$top_srcdir/libcore/profdata.h")

echo "1..7"

cat >p.c <<'C'
#include <stdio.h>
static int f(int n) { return n > 3 ? n * 2 : n; }
int main(void) { printf("%d\n", f(5)); return 4; }
C
# a unit whose constructor claims ABI VERSION, as another pap's would
other() {
	cat >"other$1.c" <<C
#include <stdint.h>
void __pap_abi(uint32_t version, const char *key);
static const char key[] = "g:0123456789abcdef:other.papm";
__attribute__((constructor(101))) static void announce(void)
{
	__pap_abi($1, key);
}
C
	gcc -O2 -c "other$1.c" -o "other$1.o"
}
if ! "$papgcc" -O2 -c p.c || ! other $((abi - 1)) || ! other $((abi + 1)) ||
   ! other "$abi"; then
	echo "Bail out! cannot build"
	exit 1
fi
"$papgcc" -o good p.o && ./good >out 2>err
st=$?
check "this pap's objects pass the check: a profile, no message" \
	'[ $st -eq 4 ] && [ "$(cat out)" = 10 ] && [ ! -s err ] && "$decode" --format=paths pap.prof | grep -q "^f 1 "'
rm -f pap.prof
"$papgcc" -o same p.o "other$abi.o" && ./same >/dev/null 2>err
check "a unit announcing ABI $abi is accepted" '[ ! -s err ] && [ -f pap.prof ]'
rm -f pap.prof
"$papgcc" -o old p.o "other$((abi - 1)).o" && ./old >out 2>err
st=$?
check "an object built for ABI $((abi - 1)): refused, named once, nothing written" \
	"[ \$st -eq 4 ] && [ \"\$(cat out)\" = 10 ] && [ ! -e pap.prof ] && [ \"\$(wc -l <err)\" -eq 1 ] && grep -q \"^pap: error: .*/old: built for pap's runtime ABI $((abi - 1)), but this libpaprt has ABI $abi\" err"
"$papgcc" -o new p.o "other$((abi + 1)).o" &&
	PAP_PROFILE=n.prof ./new >out 2>err
st=$?
check "an object built for ABI $((abi + 1)) too" \
	"[ \$st -eq 4 ] && [ ! -e n.prof ] && grep -q \"new: built for pap's runtime ABI $((abi + 1))\" err"
# through a collector: nothing handed over either
PAP_PROFILE=c.prof "$top_builddir/collector/pap-collector" -o c.prof -- ./old \
	>out 2>err
st=$?
check "under pap-collector: nothing collected, the command's status" \
	'[ $st -eq 4 ] && ! "$decode" --format=paths c.prof 2>/dev/null | grep -q .'

# the header: format version 5, then pap's version (little-endian
# major << 16 | minor << 8 | patch), from pap-decode --version: the oracle
"$papgcc" -o good p.o && rm -f pap.prof && ./good >/dev/null
ver=$("$decode" --version | sed -n 's/^pap-decode (pap) \([0-9]*\)\.\([0-9]*\)\.\([0-9]*\).*/\3 \2 \1 0/p')
check "a profile's header: format $fmt, pap $("$decode" --version | cut -d' ' -f3), the file's length committed" \
	'[ "$(od -An -tu1 -j8 -N8 pap.prof | tr -s " " | sed "s/^ //")" = "$fmt 0 0 0 $ver" ] &&
	 [ "$(od -An -tu8 --endian=little -j16 -N8 pap.prof | tr -d " ")" -eq "$(wc -c <pap.prof)" ]'
# the same file as version 4 wrote it (flags 0 there, no committed
# length): read, and rewritten in the newest version with the new
# run's records
{ head -c 8 pap.prof; printf '\004\000\000\000\000\000\000\000'
  tail -c +25 pap.prof; } >v4.prof && mv v4.prof pap.prof
"$decode" --format=paths pap.prof >paths4 2>err4
./good >/dev/null 2>err
check "a version 4 profile is read, and rewritten as version $fmt by the next run" \
	'[ ! -s err4 ] && grep -q "^f 1 " paths4 && [ ! -s err ] &&
	 "$decode" --format=paths pap.prof | grep -q "^f 2 " && [ "$(od -An -tu1 -j8 -N1 pap.prof | tr -d " ")" = "$fmt" ]'

tap_done
