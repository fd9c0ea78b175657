#!/bin/sh
# terminate.sh - what an activation that ends early costs: bench/terminate.c
# built plain, with gcov (-fprofile-arcs), with full pap-epp and with a
# spec naming only a path no timed run takes (its rare branch, written
# by pap-decode --write-spec from a run that takes it) under psp0 to
# psp3.  Every activation then leaves the paths of interest on its first
# edge, counts an early end and runs the body's uninstrumented copy.
#
#   terminate.sh [--reps N] [--no-doc] [--no-insns]
#
# Two activation lengths, 1000 and 10 loop iterations, the same total
# work (2e8 iterations).  Runs are interleaved (each repetition runs every
# build back to back, in a rotating order; CPU time; every output must
# equal plain's); the table gives medians and the overhead against plain,
# and instructions under valgrind (cachegrind, no cache model) at 1/100
# of the work, the measure that the machine's load does not disturb.
# The table goes to doc/benchmarks.md between the terminate-table markers.
#
#   --reps N    timed repetitions (default 5)
#   --no-doc    leave doc/benchmarks.md as it is
#   --no-insns  skip the instruction counts
#
# Environment: top_srcdir, top_builddir (default .), CC (default gcc),
# BENCH_WORK (default $top_builddir/bench/work).
set -eu

CC=${CC:-gcc}
reps=5
write_doc=yes
insns=yes
. "${top_srcdir:-.}/bench/lib.sh"
while [ $# -gt 0 ]; do
	case $1 in
	--reps) reps=$2; shift ;;
	--no-doc) write_doc=no ;;
	--no-insns) insns=no ;;
	*) bench_other_option terminate.sh "$0" "$1" ;;
	esac
	shift
done

bench_setup terminate.sh
runone=$work/runone
work=$work/terminate
rm -rf "$work"
mkdir -p "$work"
decode=$builddir/decoder/pap-decode
src=$srcdir/bench/terminate.c
export LC_ALL=C
cd "$work"

build() {
	out=$1
	shift
	"$@" -I"$srcdir/bench" "$src" -o "$out" >"$out.log" 2>&1 || {
		echo "terminate.sh: error: cannot build $out:" >&2
		cat "$out.log" >&2
		exit 1
	}
}
build full "$papgcc" -O2
./full 1 0 rare >/dev/null
"$decode" --function '^work$' --write-spec=rare.spec pap.prof >/dev/null
grep -q '^path work ' rare.spec || {
	echo "terminate.sh: error: no path of work in rare.spec" >&2
	exit 1
}
build plain "$CC" -O2
build gcov "$CC" -O2 -fprofile-arcs
build pap-epp "$papgcc" -O2 -fplugin-arg-pap-mode=pap-epp
for s in 0 1 2 3; do
	build psp$s "$papgcc" -O2 -fplugin-arg-pap-spec="$work/rare.spec" \
		-fplugin-arg-pap-psp=$s
done
builds="plain gcov pap-epp psp0 psp1 psp2 psp3"

# run BUILD N: "N BUILD CPU-SECONDS" of one run into times, its output
# checked
run() {
	rm -f pap.prof* ./*.gcda
	t=$("$runone" "out.$1" "./$1" /1 "$2" | awk '{ print $3 }')
	if [ -z "$t" ] || ! cmp -s "out.$1" "out.plain.$2"; then
		echo "terminate.sh: error: $1 failed or printed another result" >&2
		exit 1
	fi
	echo "$2 $1 $t" >> times
}
: > times
for n in 1000 10; do
	./plain /1 "$n" > "out.plain.$n"
	for r in $(seq 1 "$reps"); do
		for b in $(bench_rotated "$r" $builds); do
			run "$b" "$n"
		done
	done
done
: > insns
if [ "$insns" = yes ] && command -v valgrind >/dev/null; then
	for n in 1000 10; do
		for b in $builds; do
			rm -f pap.prof* ./*.gcda
			valgrind --tool=cachegrind --cache-sim=no \
				--cachegrind-out-file=/dev/null "./$b" /100 "$n" \
				2>&1 >/dev/null | awk -v n="$n" -v b="$b" \
				'/I *refs:/ { gsub(",", "", $NF); print n, b, $NF }' >> insns
		done
	done
fi

# the table: per length, each build's median CPU time, its overhead,
# its instructions and their ratio to plain's
table=$work/table.md
awk -v reps="$reps" -v builds="$builds" "$bench_median"'
	FILENAME == "insns" { ins[$1 " " $2] = $3; next }
	{ t[$1 " " $2] = t[$1 " " $2] " " $3
	  if (!($1 in seen)) { seen[$1] = 1; len[++nl] = $1 } }
	END {
		print "| iterations per activation | build | CPU s (median of " reps ") | overhead | instructions (1/100) | vs plain |"
		print "|---:|---|---:|---:|---:|---:|"
		nb = split(builds, b, " ")
		for (i = 1; i <= nl * nb; i++) {
			k = len[int((i - 1) / nb) + 1] " " b[(i - 1) % nb + 1]
			split(k, f, " "); m = median(t[k])
			p = median(t[f[1] " plain"])
			pi = (f[1] " plain") in ins ? ins[f[1] " plain"] : 0
			printf "| %s | %s | %.3f | %+.0f%% | %s | %s |\n", f[1], f[2], m,
				(m / p - 1) * 100, (k in ins) ? ins[k] : "-",
				(k in ins) && pi ? sprintf("%.2fx", ins[k] / pi) : "-"
		}
	}' insns times > "$table"
cat "$table"
if [ "$write_doc" = yes ]; then
	bench_splice terminate-table "$table"
	echo "terminate.sh: table written to $doc"
fi
