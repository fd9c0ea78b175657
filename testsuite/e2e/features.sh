#!/bin/sh
# features.sh - a program with a 300-case switch, VLAs, alloca, nested
# functions, computed goto and setjmp/longjmp, built with pap-gcc at -O0
# and -O2 in every mode: same output as the plain build, and (pap, pap-epp)
# decoded paths equal to the tracer's; a C++ file that must build and
# run as with plain g++; counting in place against through the runtime,
# and functions of many paths (manypaths.c).  TAP output.
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
echo "1..14"
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
# setjmp/longjmp against the program's own logic: catcher(i) calls
# thrower(i), which longjmps back for i % 4 == 3; each such activation is
# a path cut at the thrower call plus a path resumed at the setjmp that
# returns r * 10, and every other one a single complete path.
n=$((n + 1))
jumps=$(awk 'BEGIN { for (i = 0; i < 400; i++) c += i % 4 == 3; print c }')
ret=$(grep -n 'return r \* 10;' "$src" | cut -d: -f1)
call=$(grep -n '^	thrower(x);' "$src" | cut -d: -f1)
rm -f pap.prof
"$papgcc" -O2 -w "$src" -o sj && ./sj 400 >/dev/null &&
"$decode" --format=json --top=0 pap.prof | awk -v jumps="$jumps" -v ret="$ret" \
	-v call="$call" -v calls=400 '
	/"name": / { f = /"name": "catcher"/; next }
	!f { next }
	{ count = $0; sub(/.*"count": /, "", count); count += 0 }
	/"resumed": true/ && /"complete": true/ && index($0, "[" ret "]") {
		resumed += count; next }
	/"resumed": false/ && /"complete": false/ &&
	    $0 ~ ("[[ ]" call "\\]}\\]}") { cut += count; next }
	/"resumed": false/ && /"complete": true/ { whole += count; next }
	{ other += count }
	END { printf "# %d resumed, %d cut, %d whole, %d other\n",
		     resumed, cut, whole, other
	      exit !(resumed == jumps && cut == jumps &&
		     whole == calls - jumps && other == 0) }' >sj.log
if [ $? -eq 0 ]; then
	echo "ok $n - setjmp/longjmp: $jumps activations cut at the longjmping call and resumed at setjmp"
else
	echo "not ok $n - setjmp/longjmp paths do not match the program's logic"
	cat sj.log
	fails=$((fails + 1))
fi
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
# counting in place (tally) against calling the runtime for every record:
# the same profile, in each mode, at -O2; and -fPIC code (TLS out of
# reach) still builds and counts through calls
for mode in pap-epp pap epp; do
	n=$((n + 1))
	rm -f pap.prof t0.prof
	if PAP_PLUGIN_ARGS="-fplugin-arg-pap-mode=$mode -fplugin-arg-pap-tally=0" \
	   "$papgcc" -O2 -w "$src" -o t0 && ./t0 400 >/dev/null &&
	   mv pap.prof t0.prof &&
	   PAP_PLUGIN_ARGS="-fplugin-arg-pap-mode=$mode" \
	   "$papgcc" -O2 -w -save-temps=obj "$src" -o t1 && ./t1 400 >/dev/null &&
	   grep -q "addq	\$1, (" t1-features.s &&
	   [ "$("$decode" print t0.prof | sed 's/:[^ ]*//' | sort)" = "$("$decode" print pap.prof | sed 's/:[^ ]*//' | sort)" ]; then
		echo "ok $n - $mode: counted in place, the profile of tally=0"
	else
		echo "not ok $n - $mode: counting in place changes the profile"
		fails=$((fails + 1))
	fi
done
# more paths than counters used to go up to: paths13's 8192 counted in
# place (the count's thunk is handed 8192 values), paths15's 32768
# through the runtime; each path as often as manypaths.c's main takes it
n=$((n + 1))
rm -f pap.prof
if PAP_PLUGIN_ARGS="-fplugin-arg-pap-mode=epp" "$papgcc" -O2 -w \
	-save-temps=obj "$top_srcdir/testsuite/e2e/manypaths.c" -o many &&
   ./many >/dev/null && grep -q 'pushq	\$8192$' many-manypaths.s &&
   "$decode" --format=paths pap.prof >many.paths &&
   [ "$(awk '$1 == "paths13" && $2 == 3 && $3 == 1' many.paths |
	sort -u | wc -l)" -eq 8192 ] &&
   [ "$(grep -c '^paths13 ' many.paths)" -eq 8192 ] &&
   [ "$(awk '$1 == "paths15" && $2 == 1 && $3 == 1' many.paths |
	sort -u | wc -l)" -eq 32768 ] &&
   [ "$(grep -c '^paths15 ' many.paths)" -eq 32768 ]; then
	echo "ok $n - epp: 8192 paths counted in place and 32768 through the runtime, each as often as taken"
else
	echo "not ok $n - epp: a function of 8192 or 32768 paths miscounted"
	fails=$((fails + 1))
fi
n=$((n + 1))
rm -f pap.prof
if PAP_PLUGIN_ARGS="-fplugin-arg-pap-mode=epp" "$papgcc" -O2 -w -fPIC \
	-save-temps=obj "$src" -o tpic && ./tpic 400 >/dev/null &&
   ! grep -q "pap_tally" tpic-features.s && "$decode" pap.prof >/dev/null; then
	echo "ok $n - -fPIC: no counters in TLS, records through calls"
else
	echo "not ok $n - -fPIC build with tallies"
	fails=$((fails + 1))
fi
n=$((n + 1))
if ! PAP_PLUGIN_ARGS="-fplugin-arg-pap-tally=lots" "$papgcc" -O2 -w -c \
	"$src" -o bad.o 2>bad.err &&
   grep -q "fplugin-arg-pap-tally=lots.*not a number from 0 to 65536" bad.err; then
	echo "ok $n - a bad tally=N is an error naming the option"
else
	echo "not ok $n - a bad tally=N"
	cat bad.err
	fails=$((fails + 1))
fi
[ $fails -eq 0 ]
