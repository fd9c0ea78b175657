#!/bin/sh
# calls.sh - what recording call sequences costs (-fplugin-arg-pap-calls),
# against the plain build, gcov, and -finstrument-functions with empty
# hooks, measured in one run.
#
#   calls.sh [--quick] [--reps N] [--only "NAME..."] [--no-doc] [--insns]
#
# Builds every program of bench/suite/ (and zlib, fetched by
# fetch-zlib.sh) as: plain gcc -O2; gcov (-fprofile-arcs); cyg
# (-finstrument-functions, hooks that do nothing, bench/cyghooks.c);
# calls (pap-gcc -fplugin-arg-pap-calls -fplugin-arg-pap-mode=none:
# calls alone); calls+pap-epp (calls with the default intra-procedural
# mode); pap-epp.  Runs are interleaved, each repetition in a rotated
# order; time is CPU time; every run's output must equal the plain
# build's.  Reports medians: overhead against plain and the ratio of
# calls' overhead to cyg's (the target: at most 1), geometric means, and
# with --insns instructions under valgrind at 1/400 of the work.  Writes
# the table into doc/benchmarks.md between the calls-table markers.
#
#   --quick   3 repetitions of 1/8 of the work each
#
# Environment: top_srcdir, top_builddir (default .), CC (default gcc),
# BENCH_WORK (default $top_builddir/bench/work).
set -eu

CC=${CC:-gcc}
reps=5
scale=""
quick=no
only=""
write_doc=yes
insns=no

. "${top_srcdir:-.}/bench/lib.sh"
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=yes; reps=3; scale=/8 ;;
	--reps) reps=$2; shift ;;
	--only) only=$2; shift ;;
	--no-doc) write_doc=no ;;
	--insns) insns=yes ;;
	*) bench_other_option calls.sh "$0" "$1" ;;
	esac
	shift
done

bench_setup calls.sh
base=$work		# runone and zlib, shared with overhead.sh
work=$base/calls
mkdir -p "$work"
builds="plain gcov cyg calls calls+pap-epp pap-epp"
benches=$(bench_programs calls.sh "$base/zlib")
[ -n "$only" ] && benches=$only
"$CC" -O2 -c "$srcdir/bench/cyghooks.c" -o "$work/cyghooks.o"

# build_one BENCH BUILD: the binary $work/bin/BUILD/BENCH
build_one() {
	b=$1 v=$2
	out=$work/bin/$v/$b
	mkdir -p "$work/bin/$v"
	case $v in
	plain) set -- "$CC" -O2 ;;
	gcov) set -- "$CC" -O2 -fprofile-arcs
		[ "$b" = threads ] && set -- "$@" -fprofile-update=atomic ;;
	cyg) set -- "$CC" -O2 -finstrument-functions "$work/cyghooks.o" ;;
	calls) set -- "$papgcc" -O2 -fplugin-arg-pap-calls \
			-fplugin-arg-pap-mode=none ;;
	calls+pap-epp) set -- "$papgcc" -O2 -fplugin-arg-pap-calls ;;
	pap-epp) set -- "$papgcc" -O2 ;;
	esac
	bench_build calls.sh "$b" "$base/zlib" "$out" "$@"
}

echo "calls.sh: building$benches as $builds"
for b in $benches; do
	for v in $builds; do
		build_one "$b" "$v"
	done
done

# run_one BENCH BUILD OUTFILE: prints "WALL RSS_KB CPU"
run_one() {
	b=$1 v=$2 o=$3
	bin=$work/bin/$v/$b
	dir=$work/run/$v/$b
	mkdir -p "$dir"
	rm -f "$dir"/pap.prof* "$work/bin/$v"/*.gcda
	if [ "$b" = zlib ]; then
		in=$base/zlib/zlib.in
		[ -n "$scale" ] && in=$base/zlib/zlib.in.quick
		[ -f "$in" ] || head -c 3000000 "$base/zlib/zlib.in" > "$in"
		set -- -i "$in" "$o" "$bin"
	else
		set -- "$o" "$bin" $scale
	fi
	(cd "$dir" && PAP_PROFILE=$dir/pap.prof "$base/runone" -m 4096 "$@") || {
		echo "calls.sh: error: $b ($v) failed" >&2
		exit 1
	}
}

results=$work/results.tsv
: > "$results"
rm -rf "$work/run"
mkdir -p "$work/run"
rep=1
while [ "$rep" -le "$reps" ]; do
	echo "calls.sh: repetition $rep of $reps"
	for b in $benches; do
		set -- $(bench_rotated $((rep - 1)) $builds)
		for v in "$@"; do
			out=$work/run/$v.$b.out
			t=$(run_one "$b" "$v" "$out")
			echo "$b $v $rep $t" >> "$results"
		done
		for v in $builds; do
			cmp -s "$work/run/$v.$b.out" "$work/run/plain.$b.out" || {
				echo "calls.sh: error: $b ($v) printed other" \
				     "output than the plain build" >&2
				exit 1
			}
		done
	done
	rep=$((rep + 1))
done

insfile=$work/insns.tsv
: > "$insfile"
if [ $insns = yes ] && command -v valgrind >/dev/null; then
	echo "calls.sh: counting instructions under valgrind"
	for b in $benches; do
		for v in $builds; do
			dir=$work/run/$v/$b
			rm -f "$dir"/pap.prof*
			if [ "$b" = zlib ]; then
				head -c 62500 "$base/zlib/zlib.in" > "$work/zlib.in.insns"
				set -- "$work/bin/$v/$b"
				exec 3< "$work/zlib.in.insns"
			else
				set -- "$work/bin/$v/$b" /400
				exec 3< /dev/null
			fi
			n=$(cd "$dir" && PAP_PROFILE=$dir/pap.prof valgrind \
				--tool=cachegrind --cache-sim=no \
				--cachegrind-out-file=/dev/null "$@" <&3 2>&1 \
				>/dev/null | sed -n 's/.*I *refs: *//p' | tr -d ,)
			exec 3<&-
			echo "$b $v $n" >> "$insfile"
		done
	done
elif [ $insns = yes ]; then
	echo "calls.sh: no valgrind: instruction counts skipped"
fi

table=$work/table.md
awk -v builds="$builds" -v quick="$quick" -v reps="$reps" \
    -v insfile="$insfile" -f "$srcdir/bench/median.awk" \
    -f "$srcdir/bench/calls.awk" "$results" > "$table"
cat "$table"
if [ $write_doc = yes ]; then
	bench_splice calls-table "$table"
	echo "calls.sh: wrote $doc"
fi
