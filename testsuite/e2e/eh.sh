#!/bin/sh
# eh.sh - exceptions and nonlocal gotos, end to end, at -O0 and -O2 in
# every mode: a C file built with -fexceptions whose cleanup variables run
# while C++ exceptions unwind through it (eh.c), a C++ file with try/catch,
# nested try, rethrow, destructors, a throw from a loop and recursion
# through a throw (eh.cc), and nested functions that jump to their
# parent's labels (nlgoto.c).  The instrumented programs must print what
# the plain ones print, and the decoded paths must equal the tracer's
# (pap, pap-epp: as multisets per function; epp: block totals), and be the
# same at -O0 and -O2.  TAP output.
#
# Two exceptions, both GCC's doing, not pap's:
#  - in mode epp, an activation that a nonlocal goto or an exception
#    abandons (nlgoto.c's walk, eh.cc's spin) has counted the acyclic
#    paths of its finished loop iterations, while the tracer forgets the
#    whole activation: those two are left out of the epp comparison;
#  - GCC lowers a C cleanup (try/finally) before the CFG exists, with one
#    shared copy of the cleanup at -O0 and one copy per exit when
#    optimizing: eh.c's functions with cleanups have different CFGs, so
#    only eh.cc's functions are compared across -O levels.
set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
papgcc=$top_builddir/plugin/pap-gcc
decode=$top_builddir/decoder/pap-decode
e2e=$top_srcdir/testsuite/e2e
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# aggregate_trace, block_totals
. "$e2e/tracelib.sh"

# build NAME OPT: the program NAME (eh or nlgoto) into ./NAME, with
# PAP_PLUGIN_ARGS as set by the caller
build() {
	case $1 in
	eh)	"$papgcc" $2 -fexceptions -w -c "$e2e/eh.c" -o eh-c.o &&
		PAP_CC=g++ "$papgcc" $2 -w "$e2e/eh.cc" eh-c.o -o eh ;;
	nlgoto)	"$papgcc" $2 -w "$e2e/nlgoto.c" -o nlgoto ;;
	esac
}

gcc -O2 -fexceptions -w -c "$e2e/eh.c" -o plain-eh-c.o &&
	g++ -O2 -w "$e2e/eh.cc" plain-eh-c.o -o plain-eh &&
	gcc -O2 -w "$e2e/nlgoto.c" -o plain-nlgoto 2>/dev/null || {
	echo "Bail out! cannot build the plain programs"; exit 1; }
for prog in eh nlgoto; do
	./plain-$prog 300 >plain-$prog.out
	echo "status $?" >>plain-$prog.out
done

abandoned='^(walk|_ZL4spini) '
echo "1..19"
n=0
fails=0
for prog in eh nlgoto; do
	for opt in -O0 -O2; do
		for mode in pap-epp pap epp; do
			n=$((n + 1))
			d=$prog$opt-$mode
			what="$prog $opt $mode"
			mkdir "$d" && cd "$d" || exit 1
			if ! PAP_PLUGIN_ARGS="-fplugin-arg-pap-trace -fplugin-arg-pap-mode=$mode -fplugin-arg-pap-verbose" \
			     build $prog $opt >cc.log 2>&1; then
				echo "not ok $n - $what: compile failed"
				sed 's/^/# /' cc.log
				fails=$((fails + 1)); cd ..; continue
			fi
			./$prog 300 >out 2>err
			echo "status $?" >>out
			if ! cmp -s ../plain-$prog.out out; then
				echo "not ok $n - $what: output differs from the plain build"
				fails=$((fails + 1)); cd ..; continue
			fi
			if grep 'not instrumented' cc.log | sed 's/^/# /' | grep .; then
				echo "not ok $n - $what: functions left uninstrumented"
				fails=$((fails + 1)); cd ..; continue
			fi
			if ! "$decode" --format=paths pap.prof >decoded.raw 2>decode.err; then
				echo "not ok $n - $what: pap-decode failed"
				sed 's/^/# /' decode.err
				fails=$((fails + 1)); cd ..; continue
			fi
			if [ $mode = epp ]; then
				block_totals decoded.raw 4 | grep -Ev "$abandoned" >decoded
				block_totals pap.trace 3 | grep -Ev "$abandoned" >traced
			else
				sort decoded.raw >decoded
				aggregate_trace pap.trace >traced
			fi
			acts=$(wc -l <pap.trace)
			cut=$(awk '$2 == 0' pap.trace | wc -l)
			if cmp -s decoded traced; then
				echo "ok $n - $what: $acts activations ($cut cut short), decoded = traced"
			else
				echo "not ok $n - $what: decoded paths differ from the trace"
				diff decoded traced | head -5 | sed 's/^/# /'
				fails=$((fails + 1))
			fi
			cd ..
		done
	done
	for mode in pap-epp pap epp; do
		n=$((n + 1))
		for opt in -O0 -O2; do
			if [ $prog = eh ]; then
				grep -E '^(_Z|main |cxx_)' $prog$opt-$mode/decoded
			else
				cat $prog$opt-$mode/decoded
			fi >$prog$opt-$mode/own
		done
		if [ -s $prog-O0-$mode/own ] &&
		   cmp -s $prog-O0-$mode/own $prog-O2-$mode/own; then
			echo "ok $n - $prog $mode: same paths at -O0 and -O2"
		else
			echo "not ok $n - $prog $mode: -O0 and -O2 paths differ"
			fails=$((fails + 1))
		fi
	done
done
# nonlocal gotos against the program's own count: each goto cuts one path
# of search (incomplete) and resumes one (at a nonlocal label)
n=$((n + 1))
jumps=$(sed -n 's/^jumps //p' plain-nlgoto.out)
"$decode" --format=json --top=0 nlgoto-O2-pap-epp/pap.prof | awk -v jumps="$jumps" '
	/"name": / { f = /"name": "search"/; next }
	!f || !/"count": / { next }
	{ count = $0; sub(/.*"count": /, "", count); count += 0 }
	/"complete": false/ { cut += count }
	/"resumed": true/ { resumed += count }
	END { printf "# %d gotos, %d paths cut, %d resumed\n", jumps, cut, resumed
	      exit !(jumps > 0 && cut == jumps && resumed == jumps) }' >count.log
if [ $? -eq 0 ]; then
	echo "ok $n - nlgoto: $jumps gotos cut $jumps paths of search and resumed $jumps"
else
	echo "not ok $n - nlgoto: cut and resumed paths do not match the gotos"
	cat count.log
	fails=$((fails + 1))
fi
[ $fails -eq 0 ]
