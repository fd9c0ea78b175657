#!/bin/sh
# selective.sh - what selective profiling costs against full profiling:
# probe counts per strategy and run time, on the suite and zlib.
#
#   selective.sh [--reps N] [--scale /K] [--only "NAME..."] [--no-doc]
#                [--no-insns] [--no-time]
#
# For each program of bench/suite/ (and zlib, fetched by fetch-zlib.sh):
#  1. builds it with pap-gcc -O2 mode=pap-epp, runs it (at the timing
#     scale) and writes the N hottest paths of each function for N = 1 to
#     5 (pap-decode --top=N --write-spec);
#  2. builds it with each spec under each strategy psp0 to psp3 and
#     follow (pf: the paths followed as an automaton) and adds
#     up the probe sites the plugin's verbose notes give per function,
#     against pap-epp's over the same functions (the functions the spec
#     names) and over all of them.  A build that fails is reported as
#     such in the table ("ICE" when GCC crashed, "error" else);
#  3. times plain gcc -O2, gcc -O2 -fprofile-arcs, pap-epp and the
#     selective builds with the 1 and the 5 hottest paths under psp0 to
#     psp3 and follow, interleaved as overhead.sh does (each repetition runs every
#     build of a program back to back, in a rotating order; CPU time;
#     every output must equal plain's), and reports medians, overheads,
#     their geometric means and the ratios to pap-epp's and gcov's;
#  4. counts instructions under valgrind (cachegrind, no cache model) at
#     1/400 of the work (zlib: 62,500 bytes of input), the measure that
#     the machine's load does not disturb.
# The tables go to doc/benchmarks.md between the selective-table markers.
#
#   --reps N   timed repetitions (default 3)
#   --scale /K each timed run does 1/K of the work (default /8; zlib reads
#              25/K MB); the spec is written from a run at this scale
#   --only "NAME..."  only these programs (zlib is one)
#   --no-doc   leave doc/benchmarks.md as it is
#   --no-insns, --no-time  skip the instruction counts, the timed runs
# About 16 minutes on 2 shared cores (most of it pap-decode writing specs
# of whole activations, and valgrind).
#
# Environment: top_srcdir, top_builddir (default .), CC (default gcc),
# BENCH_WORK (default $top_builddir/bench/work).
set -eu

CC=${CC:-gcc}
reps=3
scale=/8
only=""
write_doc=yes
insns=yes
timing=yes

. "${top_srcdir:-.}/bench/lib.sh"
while [ $# -gt 0 ]; do
	case $1 in
	--reps) reps=$2; shift ;;
	--scale) scale=$2; shift ;;
	--only) only=$2; shift ;;
	--no-doc) write_doc=no ;;
	--no-insns) insns=no ;;
	--no-time) timing=no ;;
	*) bench_other_option selective.sh "$0" "$1" ;;
	esac
	shift
done

bench_setup selective.sh
work=$work/selective
mkdir -p "$work"
cp "$(dirname "$work")/runone" "$work/runone"
decode=$builddir/decoder/pap-decode
export LC_ALL=C

benches=$(bench_programs selective.sh "$work/zlib")
[ -n "$only" ] && benches=$only
k=${scale#/}
zin=$work/zlib/zlib.in.sel
[ -f "$work/zlib/zlib.in" ] &&
	head -c $((25000000 / k)) "$work/zlib/zlib.in" > "$zin"

# compile BENCH OUT CC-AND-FLAGS...: builds, notes and errors in OUT.log
compile() {
	b=$1 out=$2
	shift 2
	if [ "$b" = zlib ]; then
		set -- "$@" -w -I"$work/zlib/zlib" \
			$(bench_zlib_files "$work/zlib/zlib")
	else
		set -- "$@" -I"$srcdir/bench/suite" "$srcdir/bench/suite/$b.c"
	fi
	mkdir -p "$(dirname "$out")"
	(cd "$(dirname "$out")" && nice -n 19 "$@" -o "$out" -lm -lpthread) \
		> "$out.log" 2>&1
}

# run BENCH BINARY OUTFILE [RUNONE-ARGS]: in the binary's directory
run() {
	b=$1 bin=$2 o=$3
	dir=$(dirname "$bin")
	rm -f "$dir"/pap.prof* "$dir"/*.gcda
	if [ "$b" = zlib ]; then
		set -- -i "$zin" "$o" "$bin"
	else
		set -- "$o" "$bin" "$scale"
	fi
	(cd "$dir" && PAP_PROFILE=$dir/pap.prof nice -n 19 \
		"$work/runone" -m 4096 "$@")
}

# probes LOG: "FUNCTION PROBES" for each verbose plan note, once a name
probes() {
	sed -n "s/.*note: pap: '\([^']*\)': \(pap-epp\|psp[0-3]\|follow\).* \([0-9][0-9]*\) probe sites.*/\1 \3/p" "$1" |
	sort -u -k1,1
}

# ---------------------------------------------------------------------
# 1-2: specs and probe counts
# ---------------------------------------------------------------------
counts=$work/probes.tsv
: > "$counts"
for b in $benches; do
	echo "selective.sh: $b: full build, spec run, selective builds"
	d=$work/bin/$b
	rm -rf "$d"
	mkdir -p "$d"
	compile "$b" "$d/pap-epp/$b" "$papgcc" -O2 -fplugin-arg-pap-mode=pap-epp \
		-fplugin-arg-pap-verbose || {
		echo "selective.sh: error: cannot build $b (pap-epp)" >&2
		exit 1
	}
	probes "$d/pap-epp/$b.log" > "$d/full.probes"
	run "$b" "$d/pap-epp/$b" "$d/spec.out" > /dev/null
	# one decode (the slow part: whole activations); the spec of the t
	# hottest is the first t paths of each function of the 5 hottest's,
	# which --write-spec lists hottest first
	"$decode" --top=5 --write-spec="$d/top5.spec" "$d/pap-epp/pap.prof" \
		> /dev/null
	for t in 1 2 3 4 5; do
		[ $t = 5 ] || awk -v t=$t '/^path /{ if (++n[$2] > t) next }
			{ print }' "$d/top5.spec" > "$d/top$t.spec"
		# the functions the spec names
		sed -n 's/^path \([^ ]*\) .*/\1/p' "$d/top$t.spec" | sort -u \
			> "$d/top$t.fns"
		for p in 0 1 2 3 f; do
			v=s${t}p$p
			psp=$p
			[ $p = f ] && psp=follow
			if PAP_PLUGIN_ARGS="-fplugin-arg-pap-spec=$d/top$t.spec -fplugin-arg-pap-psp=$psp -fplugin-arg-pap-verbose" \
			   compile "$b" "$d/$v/$b" "$papgcc" -O2; then
				sel=$(probes "$d/$v/$b.log" | awk '{ s += $2 } END { print s + 0 }')
			elif grep -q "internal compiler error" "$d/$v/$b.log"; then
				sel=ICE
				echo "selective.sh: $b ($v): GCC crashed:" \
				     "$(grep -m1 -A3 'internal compiler error' "$d/$v/$b.log" | tr '\n' ' ')"
			else
				sel=error
				echo "selective.sh: $b ($v): build failed:" \
				     "$(grep -m1 'error' "$d/$v/$b.log")"
			fi
			full=$(awk 'NR == FNR { f[$1] = 1; next }
				($1 in f) { s += $2 } END { print s + 0 }' \
				"$d/top$t.fns" "$d/full.probes")
			all=$(awk '{ s += $2 } END { print s + 0 }' "$d/full.probes")
			nf=$(wc -l < "$d/top$t.fns")
			echo "$b $t $p $nf $all $full $sel" >> "$counts"
		done
	done
done

# ---------------------------------------------------------------------
# 3: timing
# ---------------------------------------------------------------------
variants="plain gcov pap-epp s1p0 s1p1 s1p2 s1p3 s1pf s5p0 s5p1 s5p2 s5p3 s5pf"
results=$work/results.tsv
: > "$results"
# the builds of BENCH that exist (a selective build may have failed)
built() {
	for v in $variants; do
		[ -x "$work/bin/$1/$v/$1" ] && echo "$v"
	done
}
for b in $benches; do
	d=$work/bin/$b
	compile "$b" "$d/plain/$b" "$CC" -O2 || exit 1
	if [ "$b" = threads ]; then
		compile "$b" "$d/gcov/$b" "$CC" -O2 -fprofile-arcs \
			-fprofile-update=atomic || exit 1
	else
		compile "$b" "$d/gcov/$b" "$CC" -O2 -fprofile-arcs || exit 1
	fi
done
rep=1
[ $timing = yes ] || reps=0
while [ "$rep" -le "$reps" ]; do
	echo "selective.sh: repetition $rep of $reps"
	for b in $benches; do
		set -- $(bench_rotated $((rep - 1)) $(built "$b"))
		for v in "$@"; do
			out=$work/bin/$b/$v.out
			t=$(run "$b" "$work/bin/$b/$v/$b" "$out") || {
				echo "selective.sh: error: $b ($v) failed" >&2
				exit 1
			}
			echo "$b $v $rep $t" >> "$results"
		done
		for v in "$@"; do
			cmp -s "$work/bin/$b/$v.out" "$work/bin/$b/plain.out" || {
				echo "selective.sh: error: $b ($v) printed other" \
				     "output than the plain build" >&2
				exit 1
			}
		done
	done
	rep=$((rep + 1))
done

# ---------------------------------------------------------------------
# 4: instructions
# ---------------------------------------------------------------------
insfile=$work/insns.tsv
: > "$insfile"
if [ $insns = yes ] && command -v valgrind > /dev/null; then
	echo "selective.sh: counting instructions under valgrind"
	[ -f "$work/zlib/zlib.in" ] &&
		head -c 62500 "$work/zlib/zlib.in" > "$work/zlib/zlib.in.insns"
	for b in $benches; do
		for v in $(built "$b"); do
			bin=$work/bin/$b/$v/$b
			dir=$(dirname "$bin")
			rm -f "$dir"/pap.prof*
			if [ "$b" = zlib ]; then
				set -- "$bin" < "$work/zlib/zlib.in.insns"
				n=$(cd "$dir" && PAP_PROFILE=$dir/pap.prof nice -n 19 \
					valgrind --tool=cachegrind --cache-sim=no \
					--cachegrind-out-file=/dev/null "$bin" \
					< "$work/zlib/zlib.in.insns" 2>&1 > /dev/null |
					sed -n 's/.*I *refs: *//p' | tr -d ,)
			else
				n=$(cd "$dir" && PAP_PROFILE=$dir/pap.prof nice -n 19 \
					valgrind --tool=cachegrind --cache-sim=no \
					--cachegrind-out-file=/dev/null "$bin" /400 \
					2>&1 > /dev/null |
					sed -n 's/.*I *refs: *//p' | tr -d ,)
			fi
			echo "$b $v $n" >> "$insfile"
		done
	done
fi

# ---------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------
table=$work/table.md
{
echo "Probe sites: pap-epp over every function (all) and over the functions"
echo "the spec names (spec fns), against the selective build's, per strategy,"
echo "with the 1 and the 5 hottest paths of each function:"
echo
awk -f "$srcdir/bench/median.awk" -f "$srcdir/bench/selective.awk" -v part=probes "$counts"
echo
echo "Totals over all programs, 1 to 5 paths per function (probe sites, and"
echo "as a share of pap-epp's over the same functions):"
echo
awk -f "$srcdir/bench/median.awk" -f "$srcdir/bench/selective.awk" -v part=totals "$counts"
if [ "$reps" -gt 0 ]; then
	echo
	echo "Run time: medians of $reps interleaved runs at $scale of the work;"
	echo "overhead against plain's median CPU time; s1/s5: the 1 or 5 hottest"
	echo "paths per function, p0 to p3: strategy psp0 to psp3, pf: follow:"
	echo
	awk -f "$srcdir/bench/median.awk" -f "$srcdir/bench/selective.awk" -v part=time \
		-v variants="$variants" "$results"
fi
if [ -s "$insfile" ]; then
	echo
	echo "Instructions executed (valgrind, 1/400 of the work), as a ratio"
	echo "to plain:"
	echo
	awk -f "$srcdir/bench/median.awk" -f "$srcdir/bench/selective.awk" -v part=insns \
		-v variants="$variants" "$insfile"
fi
} > "$table"
cat "$table"
if [ $write_doc = yes ]; then
	bench_splice selective-table "$table"
	echo "selective.sh: wrote $doc"
fi
