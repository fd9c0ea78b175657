#!/bin/sh
# features.sh - a program with a 300-case switch, VLAs, alloca, nested
# functions, computed goto and setjmp/longjmp, built with pap-gcc at -O0
# and -O2 in every mode: same output as the plain build, and (pap, pap-epp)
# decoded paths equal to the tracer's; and a C++ file that must build and
# run as with plain g++.  TAP output.
set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
papgcc=$top_builddir/plugin/pap-gcc
decode=$top_builddir/decoder/pap-decode
src=$top_srcdir/testsuite/e2e/features.c
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
gcc -O2 -w "$src" -o plain && ./plain 400 >plain.out
echo "1..7"
n=0
fails=0
for opt in -O0 -O2; do
	for mode in pap-epp pap epp; do
		n=$((n + 1))
		rm -f pap.prof pap.trace
		if ! PAP_PLUGIN_ARGS="-fplugin-arg-pap-trace -fplugin-arg-pap-mode=$mode" \
		     "$papgcc" $opt -w "$src" -o inst 2>cc.err; then
			echo "not ok $n - $opt $mode: compile failed"; fails=$((fails + 1)); continue
		fi
		./inst 400 >inst.out
		if ! cmp -s plain.out inst.out; then
			echo "not ok $n - $opt $mode: output differs"; fails=$((fails + 1)); continue
		fi
		if [ $mode = epp ]; then
			"$decode" pap.prof >/dev/null &&
				echo "ok $n - $opt $mode: same output, profile decodes" ||
				{ echo "not ok $n - $opt $mode: decode failed"; fails=$((fails + 1)); }
			continue
		fi
		"$decode" --format=paths pap.prof | sort >decoded
		sort pap.trace | uniq -c | awk '{ n = $1; fn = $2; $1 = ""; $2 = "";
			sub(/^  /, ""); print fn, n, $0 }' | sort >traced
		if cmp -s decoded traced; then
			echo "ok $n - $opt $mode: same output, $(wc -l <decoded) distinct paths decoded = traced"
		else
			echo "not ok $n - $opt $mode: decoded paths differ from the trace"
			fails=$((fails + 1))
		fi
	done
done
n=$((n + 1))
cxx=$top_srcdir/testsuite/e2e/cxx.cc
rm -f pap.prof
if g++ -O2 -w "$cxx" -o cxx-plain && ./cxx-plain >cxx-plain.out &&
   PAP_CC=g++ "$papgcc" -O2 -w "$cxx" -o cxx-inst && ./cxx-inst >cxx-inst.out &&
   cmp -s cxx-plain.out cxx-inst.out && "$decode" pap.prof >/dev/null; then
	echo "ok $n - a C++ file (templates, exceptions, virtual calls) builds and runs as with plain g++"
else
	echo "not ok $n - a C++ file through the plugin"
	fails=$((fails + 1))
fi
[ $fails -eq 0 ]
