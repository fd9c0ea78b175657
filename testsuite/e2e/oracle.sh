#!/bin/sh
# oracle.sh - end to end: random C programs built with pap-gcc at -O0 and
# -O2 in every mode (with GCC's IR checks after every pass, -fchecking)
# must print what the plain build prints, the paths
# pap-decode reports must equal, as a multiset per function, the paths an
# independent tracer (-fplugin-arg-pap-trace) saw, and the program's own
# functions must have the same paths at -O0 and -O2.  TAP output.
# PAP_E2E_PROGRAMS sets how many programs (default 10); PAP_KEEP=1 keeps
# the work directory.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
papgcc=$top_builddir/plugin/pap-gcc
decode=$top_builddir/decoder/pap-decode
nprog=${PAP_E2E_PROGRAMS:-10}
tmp=$(mktemp -d) || exit 1
trap '[ -n "${PAP_KEEP:-}" ] || rm -rf "$tmp"' EXIT
cc=${CC:-gcc}

# aggregate_trace, block_totals, trace_forms
. "$top_srcdir/testsuite/e2e/tracelib.sh"

$cc -O2 -o "$tmp/genprog" "$top_srcdir/testsuite/e2e/genprog.c" || {
	echo "Bail out! cannot build genprog"; exit 1; }
echo "1..$((nprog * 9))"
n=0
fails=0
total_acts=0
total_cut=0
for seed in $(seq 1 "$nprog"); do
	src=$tmp/p$seed.c
	"$tmp/genprog" "$seed" 5 >"$src"
	$cc -O2 -w -o "$tmp/plain" "$src" -lpthread
	"$tmp/plain" "$seed" >"$tmp/plain.out"
	echo "status $?" >>"$tmp/plain.out"
	for opt in -O0 -O2; do
		for mode in pap-epp pap epp; do
			n=$((n + 1))
			d=$tmp/run-$seed$opt-$mode
			mkdir -p "$d"
			what="program $seed $opt $mode"
			if ! (cd "$d" && PAP_PLUGIN_ARGS="-fplugin-arg-pap-trace -fplugin-arg-pap-mode=$mode" \
			      "$OLDPWD/$papgcc" $opt -w -fchecking -o prog "$src") >"$d/cc.log" 2>&1; then
				echo "not ok $n - $what: compile failed"
				sed 's/^/# /' "$d/cc.log"
				fails=$((fails + 1)); continue
			fi
			(cd "$d" && ./prog "$seed" >out; echo "status $?" >>out)
			if ! cmp -s "$tmp/plain.out" "$d/out"; then
				echo "not ok $n - $what: output differs from the plain build"
				fails=$((fails + 1)); continue
			fi
			if ! "$decode" --format=paths "$d/pap.prof" >"$d/decoded.raw" 2>"$d/decode.err"; then
				echo "not ok $n - $what: pap-decode failed"
				sed 's/^/# /' "$d/decode.err"
				fails=$((fails + 1)); continue
			fi
			trace_forms $mode "$d"
			acts=$(wc -l <"$d/pap.trace")
			cut=$(awk '$2 == 0' "$d/pap.trace" | wc -l)
			if cmp -s "$d/decoded" "$d/traced"; then
				echo "ok $n - $what: $acts activations ($cut cut by longjmp), decoded = traced"
				total_acts=$((total_acts + acts))
				total_cut=$((total_cut + cut))
			else
				echo "not ok $n - $what: decoded paths differ from the trace"
				diff "$d/decoded" "$d/traced" | head -5 | sed 's/^/# /'
				fails=$((fails + 1))
			fi
		done
	done
	for mode in pap-epp pap epp; do
		n=$((n + 1))
		for opt in -O0 -O2; do
			grep -E '^(f[0-9]+(_body)?|main|worker) ' \
				"$tmp/run-$seed$opt-$mode/decoded" >"$tmp/own$opt"
		done
		if [ -s "$tmp/own-O0" ] && cmp -s "$tmp/own-O0" "$tmp/own-O2"; then
			echo "ok $n - program $seed $mode: same paths at -O0 and -O2"
		else
			echo "not ok $n - program $seed $mode: -O0 and -O2 paths differ"
			diff "$tmp/own-O0" "$tmp/own-O2" | head -4 | sed 's/^/# /'
			fails=$((fails + 1))
		fi
	done
done
echo "# $total_acts activations compared, $total_cut of them cut short by longjmp"
[ $total_cut -gt 0 ] || { echo "# no longjmp was taken: the generator lost a feature"; fails=$((fails + 1)); }
[ $fails -eq 0 ]
