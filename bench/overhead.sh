#!/bin/sh
# overhead.sh - pap's run-time overhead against the plain build and gcov,
# measured in one run.
#
#   overhead.sh [--quick] [--reps N] [--only "NAME..."] [--no-doc]
#               [--insns | --insns-only] [--cap FACTOR]
#
# Builds every program of bench/suite/ (and zlib, fetched by
# fetch-zlib.sh) as plain gcc -O2, gcc -O2 -fprofile-arcs (with
# -fprofile-update=atomic for the threaded one) and pap-gcc -O2 in modes
# epp, pap and pap-epp; when collector/pap-collector exists, the pap
# builds run once more streaming to it.  Runs are interleaved: each
# repetition runs every build of a program back to back, in an order that
# rotates.  Time is CPU time (user + system of the program and, with
# the collector, of the collector too): the machine's other jobs disturb
# it least.  Every run's output must equal the plain build's (the
# instrumented program computes what the plain one does), else the
# harness fails.  Reports medians: overhead against plain, its ratio to
# gcov's, the geometric mean and the worst case, peak RSS; writes the
# table into doc/benchmarks.md (between the overhead-table markers) and
# the plot doc/bench-overhead.png (with gnuplot, when installed).
#
#   --quick   3 repetitions of 1/8 of the work each: a smoke test, a few
#             minutes; its table is marked as such
#   --insns   also count instructions under valgrind (cachegrind, no
#             cache model) at 1/400 of the work: a measure that the
#             machine's load does not disturb
#   --insns-only  only the instruction counts (no timing; no doc update)
#   --cap F   stop a run after F times the plain build's first run (at
#             least 5 s; default 20): the table then shows a lower bound
#             (">") and later repetitions skip that build
#
# Each run may use 4 GB of address space at most: a long activation in
# pap's modes keeps every breakpoint until it ends.
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
cap=20

. "${top_srcdir:-.}/bench/lib.sh"
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=yes; reps=3; scale=/8 ;;
	--reps) reps=$2; shift ;;
	--only) only=$2; shift ;;
	--no-doc) write_doc=no ;;
	--insns) insns=yes ;;
	--insns-only) insns=yes; reps=0; write_doc=no ;;
	--cap) cap=$2; shift ;;
	*) bench_other_option overhead.sh "$0" "$1" ;;
	esac
	shift
done

bench_setup overhead.sh
collector=$builddir/collector/pap-collector
plot=$srcdir/doc/bench-overhead.png

builds="plain gcov epp pap pap-epp"
variants=$builds
if [ -x "$collector" ]; then
	variants="$variants epp+c pap+c pap-epp+c"
else
	echo "overhead.sh: no $collector: the with-collector columns are skipped"
fi

benches=$(bench_programs overhead.sh "$work/zlib")
if [ -n "$only" ]; then
	benches=$only
fi

# build_one BENCH BUILD: the binary $work/bin/BUILD/BENCH
build_one() {
	b=$1 v=$2
	out=$work/bin/$v/$b
	mkdir -p "$work/bin/$v"
	case $v in
	plain) set -- "$CC" -O2 ;;
	gcov) set -- "$CC" -O2 -fprofile-arcs
		[ "$b" = threads ] && set -- "$@" -fprofile-update=atomic ;;
	*) set -- "$papgcc" -O2 -fplugin-arg-pap-mode="$v" ;;
	esac
	bench_build overhead.sh "$b" "$work/zlib" "$out" "$@"
}

echo "overhead.sh: building$benches as $builds"
for b in $benches; do
	for v in $builds; do
		build_one "$b" "$v"
	done
done

# the build a variant runs, and whether it streams to the collector
build_of() { echo "${1%+c}"; }

# run_one BENCH VARIANT OUTFILE LIMIT: prints "WALL RSS_KB CPU", or
# "timeout" after LIMIT seconds
run_one() {
	b=$1 v=$2 o=$3 limit=$4
	shift 4
	bin=$work/bin/$(build_of "$v")/$b
	dir=$work/run/$v/$b
	mkdir -p "$dir"
	rm -f "$dir"/pap.prof* "$work/bin/$(build_of "$v")"/*.gcda
	set -- "$@" "$bin"
	[ "$b" = zlib ] || set -- "$@" $scale
	case $v in
	*+c) set -- "$collector" -o "$dir/pap.prof" -- "$@" ;;
	esac
	if [ "$b" = zlib ]; then
		in=$work/zlib/zlib.in
		[ -n "$scale" ] && in=$work/zlib/zlib.in.quick
		[ -f "$in" ] || head -c 3000000 "$work/zlib/zlib.in" > "$in"
		set -- -i "$in" "$o" "$@"
	else
		set -- "$o" "$@"
	fi
	(cd "$dir" && PAP_PROFILE=$dir/pap.prof "$work/runone" -t "$limit" -m 4096 "$@") ||
	[ $? -eq 3 ] || {
		echo "overhead.sh: error: $b ($v) failed" >&2
		exit 1
	}
}

results=$work/results.tsv
: > "$results"
rm -rf "$work/run"
mkdir -p "$work/run"
rep=1
while [ "$rep" -le "$reps" ]; do
	echo "overhead.sh: repetition $rep of $reps"
	for b in $benches; do
		# rotate the order so no build always runs first
		set -- $(bench_rotated $((rep - 1)) $variants)
		for v in "$@"; do
			out=$work/run/$v.$b.out
			[ -f "$work/run/timedout.$v.$b" ] && continue
			limit=$(cat "$work/run/limit.$b" 2>/dev/null || echo 3600)
			t=$(run_one "$b" "$v" "$out" "$limit")
			if [ "${t%% *}" = timeout ]; then
				echo "overhead.sh: $b ($v) stopped after ${limit}s"
				echo "$limit" > "$work/run/timedout.$v.$b"
				echo "$b $v $rep ${t#timeout } T" >> "$results"
				continue
			fi
			if [ "$v" = plain ]; then
				cp "$out" "$work/run/expect.$b"
				[ -f "$work/run/limit.$b" ] ||
				echo "$t" | awk -v f="$cap" '{ l = int($1 * f) + 1
					print l < 5 ? 5 : l }' > "$work/run/limit.$b"
			elif [ -f "$work/run/expect.$b" ] &&
			     ! cmp -s "$out" "$work/run/expect.$b"; then
				echo "overhead.sh: error: $b ($v) printed other" \
				     "output than the plain build" >&2
				exit 1
			fi
			echo "$b $v $rep $t" >> "$results"
		done
	done
	rep=$((rep + 1))
done
# the first repetition may have run a build before plain's output existed
[ "$reps" -gt 0 ] && for b in $benches; do
	for v in $variants; do
		[ -f "$work/run/timedout.$v.$b" ] && continue
		cmp -s "$work/run/$v.$b.out" "$work/run/expect.$b" || {
			echo "overhead.sh: error: $b ($v) printed other output" \
			     "than the plain build" >&2
			exit 1
		}
	done
done

insfile=$work/insns.tsv
: > "$insfile"
if [ $insns = yes ]; then
	if command -v valgrind >/dev/null; then
		echo "overhead.sh: counting instructions under valgrind"
		for b in $benches; do
			for v in $builds; do
				bin=$work/bin/$v/$b
				dir=$work/run/$v/$b
				mkdir -p "$dir"
				rm -f "$dir"/pap.prof*
				if [ "$b" = zlib ]; then
					head -c 62500 "$work/zlib/zlib.in" > "$work/zlib/zlib.in.insns"
					n=$(cd "$dir" && PAP_PROFILE=$dir/pap.prof valgrind \
						--tool=cachegrind --cache-sim=no \
						--cachegrind-out-file=/dev/null \
						"$bin" < "$work/zlib/zlib.in.insns" 2>&1 >/dev/null |
						sed -n 's/.*I *refs: *//p' | tr -d ,)
				else
					n=$(cd "$dir" && PAP_PROFILE=$dir/pap.prof valgrind \
						--tool=cachegrind --cache-sim=no \
						--cachegrind-out-file=/dev/null \
						"$bin" /400 2>&1 >/dev/null |
						sed -n 's/.*I *refs: *//p' | tr -d ,)
				fi
				echo "$b $v $n" >> "$insfile"
			done
		done
	else
		echo "overhead.sh: no valgrind: instruction counts skipped"
	fi
fi

# ---------------------------------------------------------------------
# summary: Markdown table, plot data
# ---------------------------------------------------------------------
table=$work/table.md
plotdata=$work/plot.dat
awk -v variants="$variants" -v quick="$quick" -v reps="$reps" \
    -v plotdata="$plotdata" -v insfile="$insfile" \
    -f "$srcdir/bench/median.awk" -f "$srcdir/bench/summarize.awk" "$results" > "$table"
cat "$table"

if [ "$reps" -eq 0 ]; then
	:	# nothing timed, nothing to plot
elif command -v gnuplot >/dev/null; then
	gnuplot -e "datafile='$plotdata'; outfile='$work/bench-overhead.png'" \
		"$srcdir/bench/overhead.gp"
else
	echo "overhead.sh: no gnuplot (Debian package gnuplot-nox): no plot"
fi

if [ $write_doc = yes ]; then
	bench_splice overhead-table "$table"
	[ -f "$work/bench-overhead.png" ] && cp "$work/bench-overhead.png" "$plot"
	echo "overhead.sh: wrote $doc${plot:+ and $plot}"
fi
