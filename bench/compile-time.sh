#!/bin/sh
# compile-time.sh - the plugin's cost on a large translation unit.
#
#   compile-time.sh [--quick] [--reps N] [--no-doc]
#
# Generates a C file of about 100,000 lines (bench/gentu.c) and compiles
# it with -c as plain gcc -O2, gcc -O2 -fprofile-arcs and pap-gcc -O2 in
# modes pap-epp (inline folds and, for comparison, fold=call), pap and
# epp, interleaved, REPS times (default 3; --quick:
# 1 run of a 20,000-line file).  Reports the median CPU time (user +
# system: gcc is single-threaded, and CPU time is what other jobs on the
# machine disturb least) and wall time, the ratio to plain -O2, the text
# size of each object and the load average before and after; writes the
# table into doc/benchmarks.md between the compile-table markers.
#
# Environment: top_srcdir, top_builddir (default .), CC (default gcc),
# BENCH_WORK (default $top_builddir/bench/work).
set -eu

CC=${CC:-gcc}
reps=3
nfuncs=2000
quick=no
write_doc=yes

. "${top_srcdir:-.}/bench/lib.sh"
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=yes; reps=1; nfuncs=400 ;;
	--reps) reps=$2; shift ;;
	--no-doc) write_doc=no ;;
	# overhead.sh's own options, which make bench passes to both
	--insns|--insns-only) ;;
	--only|--cap) shift ;;
	*) bench_other_option compile-time.sh "$0" "$1" ;;
	esac
	shift
done

bench_setup compile-time.sh
mkdir -p "$work/compile"
"$CC" -O2 -o "$work/gentu" "$srcdir/bench/gentu.c"
"$work/gentu" "$nfuncs" > "$work/compile/big.c"
lines=$(wc -l < "$work/compile/big.c")
echo "compile-time.sh: $lines lines, $reps runs of each build"

variants="plain gcov pap-epp pap-epp-call pap epp"
load_before=$(cut -d" " -f1-3 /proc/loadavg 2>/dev/null || echo "?")
results=$work/compile/results.tsv
: > "$results"
rep=1
while [ "$rep" -le "$reps" ]; do
	for v in $variants; do
		case $v in
		plain) set -- "$CC" -O2 ;;
		gcov) set -- "$CC" -O2 -fprofile-arcs ;;
		pap-epp-call) set -- "$papgcc" -O2 -fplugin-arg-pap-mode=pap-epp \
			-fplugin-arg-pap-fold=call ;;
		*) set -- "$papgcc" -O2 -fplugin-arg-pap-mode="$v" ;;
		esac
		t=$(cd "$work/compile" && "$work/runone" /dev/null "$@" -c \
			big.c -o "big.$v.o") || {
			echo "compile-time.sh: error: $v failed" >&2
			exit 1
		}
		text=$(size "$work/compile/big.$v.o" | awk 'NR == 2 { print $1 }')
		echo "$v $t $text" >> "$results"
	done
	rep=$((rep + 1))
done

load_after=$(cut -d" " -f1-3 /proc/loadavg 2>/dev/null || echo "?")
table=$work/compile/table.md
awk -v variants="$variants" -v lines="$lines" -v reps="$reps" -v quick="$quick" \
    -v load="$load_before, after: $load_after" "$bench_median"'
{ cpu[$1] = cpu[$1] " " $4; wall[$1] = wall[$1] " " $2; rss[$1] = rss[$1] " " $3
  text[$1] = $5 }
END {
	nv = split(variants, v, " ")
	base = median(cpu["plain"])
	print "| build | CPU s | x plain -O2 | wall s | peak RSS MB | text KB | x plain |"
	print "|---|---:|---:|---:|---:|---:|---:|"
	for (k = 1; k <= nv; k++) {
		c = median(cpu[v[k]])
		name = v[k] == "plain" ? "gcc -O2" : v[k] == "gcov" ? \
		       "gcc -O2 -fprofile-arcs" : v[k] == "pap-epp-call" ? \
		       "pap-gcc -O2, pap-epp, fold=call" : "pap-gcc -O2, " v[k]
		printf "| %s | %.2f | %.3f | %.2f | %.0f | %.0f | %.2f |\n", name,
		       c, c / base, median(wall[v[k]]), median(rss[v[k]]) / 1024,
		       text[v[k]] / 1024, text[v[k]] / text["plain"]
	}
	print ""
	printf "%d-line translation unit from bench/gentu.c, compiled with -c;\n", lines
	printf "load average (1, 5, 15 min) before: %s.\n", load
	printf "medians of %d interleaved runs%s.\n", reps,
	       quick == "yes" ? " (QUICK MODE: a smaller file; not for comparison)" : ""
}' "$results" > "$table"
cat "$table"

if [ $write_doc = yes ]; then
	bench_splice compile-table "$table"
	echo "compile-time.sh: wrote $doc"
fi
