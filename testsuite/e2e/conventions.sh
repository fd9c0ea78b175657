#!/bin/sh
# conventions.sh - what every pap tool does alike: a usage error is one
# line and "Try 'TOOL --help' for more information." with exit status 2;
# output that cannot be written makes the exit status non-zero; counts
# saturate at 2^64-1 with a warning; messages count in the singular and
# plural; pkg-config describes the runtime.  TAP output.
set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
papgcc=$top_builddir/plugin/pap-gcc
decode=$top_builddir/decoder/pap-decode
plan=$top_builddir/decoder/pap-plan
coll=$top_builddir/collector/pap-collector
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
. "$top_srcdir/testsuite/tap.sh"
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
# usage_error TOOL-NAME COMMAND...: exit 2, two lines, the second the hint
usage_error() {
	name=$1
	shift
	"$@" >out 2>err
	st=$?
	[ $st -eq 2 ] && [ "$(wc -l <err)" -eq 2 ] && [ ! -s out ] &&
		[ "$(sed -n 2p err)" = "Try '$name --help' for more information." ]
}

echo "1..19"

check "pap-decode: an unknown option" \
	'usage_error pap-decode "$decode" --no-such-option x.prof'
check "pap-decode: no profile" 'usage_error pap-decode "$decode"'
check "pap-decode: a bad option value" \
	'usage_error pap-decode "$decode" --format=nonesuch x.prof'
check "pap-decode diff: one profile only" \
	'usage_error pap-decode "$decode" diff x.prof'
check "pap-decode merge: no profile" 'usage_error pap-decode "$decode" merge'
check "pap-decode print: an unknown option" \
	'usage_error pap-decode "$decode" print --bad x.prof'
check "pap-plan: an unknown option and a bad mode" \
	'usage_error pap-plan "$plan" --bad && usage_error pap-plan "$plan" -m fast x.cfg'
check "pap-collector: an unknown option and no -o" \
	'usage_error pap-collector "$coll" --bad -- true && usage_error pap-collector "$coll" -- true'

cat >p.c <<'C'
#include <stdio.h>
static int f(int n) { return n > 3 ? n * 2 : n; }
int main(void) { printf("%d\n", f(5)); return 0; }
C
if ! "$papgcc" -O2 -o p p.c || ! ./p >/dev/null; then
	echo "Bail out! cannot build with pap-gcc"
	exit 1
fi
if [ -w /dev/full ]; then
	"$decode" diff pap.prof pap.prof >/dev/full 2>err
	r1=$?
	"$decode" print pap.prof >/dev/full 2>/dev/null
	r2=$?
	"$decode" --format=json pap.prof >/dev/full 2>/dev/null
	r3=$?
	"$plan" "$top_srcdir/examples/fig2.cfg" >/dev/full 2>/dev/null
	r4=$?
	check "output to a full disk: exit 1 from diff, print, a report, pap-plan" \
		'[ $r1 -eq 1 ] && [ $r2 -eq 1 ] && [ $r3 -eq 1 ] && [ $r4 -eq 1 ] && grep -q "standard output: No space left on device" err'
	# --help and --version of every tool: their text lost is an error too
	r=0
	for t in "$decode" "$plan" "$coll"; do
		for o in --help --version; do
			"$t" $o >/dev/full 2>/dev/null && r=1
		done
	done
	check "--help and --version to a full disk: exit non-zero, every tool" \
		'[ $r -eq 0 ]'
else
	skip "write errors (no /dev/full)"
	skip "--help and --version write errors (no /dev/full)"
fi

# counts that would pass 2^64-1 stop there, said: main ran once here; a
# text copy claims 2^64-6 runs, and three merged copies would wrap
max=18446744073709551615
"$decode" print pap.prof |
	awk '$1 == "p" && $2 ~ /^main:/ { $4 = "18446744073709551610" } { print }' >big.txt
"$decode" merge -o big.prof big.txt big.txt pap.prof 2>err
check "merge: a count past 2^64-1 saturates, with a warning" \
	'[ "$("$decode" print big.prof | awk "\$2 ~ /^main:/ { print \$4 }")" = $max ] && grep -q "warning: merge: counts reached 2^64-1" err'
"$decode" --format=paths big.prof >paths.txt 2>err
check "... and the report says so" \
	'[ "$(awk "\$1 == \"main\" { print \$2 }" paths.txt)" = $max ] && grep -q "warning: big.prof: counts reached 2^64-1 and were held there" err'
"$decode" --format=paths big.txt >/dev/null 2>err
check "no warning below 2^64-1" '[ ! -s err ]'

# singular and plural
{ "$decode" print pap.prof | sed '1d;/^e /d' | sed '1s/^/l 1\n/' | sed '1s/^/pap-profile 2\n/'; } >lost1.txt
{ "$decode" print pap.prof | sed '1d;/^e /d' | sed '1s/^/l 2\n/' | sed '1s/^/pap-profile 2\n/'; } >lost2.txt
"$decode" lost1.txt >/dev/null 2>err1
"$decode" lost2.txt >/dev/null 2>err2
check "1 record was lost, 2 records were" \
	'grep -q "lost1.txt: 1 record was reported lost when it was recorded; it is not in these paths" err1 && grep -q "lost2.txt: 2 records were reported lost when they were recorded; they are not in these paths" err2'
echo 'int main(void) { return 0; }' >q.c
"$papgcc" -O2 -o q q.c && PAP_PROFILE=q.prof ./q
"$decode" --html=report1 q.prof 2>/dev/null
"$decode" --html=report2 pap.prof 2>/dev/null
check "the HTML report: 1 function, 1 recorded path; 2 functions, 2 recorded paths" \
	'grep -q "1 function, 1 recorded path<" report1/index.html && grep -q "2 functions, 2 recorded paths<" report2/index.html'

# pkg-config
if command -v pkg-config >/dev/null; then
	libs=$(PKG_CONFIG_PATH=$top_builddir pkg-config --libs pap)
	ver=$(PKG_CONFIG_PATH=$top_builddir pkg-config --modversion pap)
	check "pap.pc: -lpaprt with its run path, pap's version" \
		'case "$libs" in *-Wl,-rpath,*-lpaprt*) true;; *) false;; esac && "$decode" --version | grep -q " $ver\$"'
else
	skip "pap.pc (no pkg-config)"
fi
# gcc -fplugin=pap.so linked with the shared runtime (pkg-config's
# -lpaprt): the runtime's variables must be reached through the GOT
cat >direct.c <<'EOF'
static int __attribute__((noinline)) f(int x) { return x * 3; }
int main(void) { return f(1) == 3 ? 0 : 1; }
EOF
rtlib=$top_builddir/librt/.libs
check "gcc -fplugin=pap.so with calls, linked with libpaprt.so: links, runs, records its calls" \
	'gcc -O2 -fplugin="$top_builddir/plugin/.libs/pap.so" -fplugin-arg-pap-calls \
		-o direct direct.c -L"$rtlib" -Wl,-rpath,"$rtlib" -lpaprt -lpthread 2>err &&
	 PAP_PROFILE=direct.prof ./direct && "$decode" --format=json direct.prof |
	 tr -d " \n" | grep -q "\"sequence\":\[\"main\",\"f\",\"main\"\]"'
# the installed documentation
check "the documentation is installed under docdir, pap.pc under pkgconfig" \
	'grep -q "^dist_doc_DATA = README.md" "$top_srcdir/Makefile.am" && grep -q "^pkgconfig_DATA = pap.pc" "$top_srcdir/Makefile.am"'
check "every doc/*.md is among them" \
	'(for f in "$top_srcdir"/doc/*.md; do grep -q "doc/${f##*/}" "$top_srcdir/Makefile.am" || exit 1; done)'

tap_done
