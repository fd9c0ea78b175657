#!/bin/sh
# compare-builds.sh - does a change leave pap's results alone?  Builds the
# same programs with two pap builds, runs them, decodes their profiles in
# every report format, and compares byte for byte.
#
#   compare-builds.sh [--quick] [--work DIR] OLD_BUILDDIR NEW_BUILDDIR
#
# OLD_BUILDDIR and NEW_BUILDDIR are configured and built pap trees (for
# instance one of the commit before a change, one of the change).  The
# programs: the bundled example, the end-to-end test programs, every
# program of bench/suite/ (at 1/100 of its work; 1/1000 with --quick) and
# zlib's zpipe (fetched by bench/fetch-zlib.sh, skipped with a message
# when it cannot be), each compiled at -O0 and -O2 in the modes epp, pap
# and pap-epp.  Both builds compile in the same directory, one after the
# other, so the metadata paths the function keys carry are the same.
# Compared: the metadata files, the profile written at exit (as text,
# through pap-decode print when the build has it, sorted: the order of
# records is not part of the format), and pap-decode's text,
# json (with --k=2), paths, blocks, bl, dot, annotate and coverage
# outputs and its HTML directory.  Prints one line per program and mode,
# and exits 1 when any output differs (the differing files are listed and
# kept under the work directory, default ./compare-work).
set -eu

quick=no
work=compare-work
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=yes ;;
	--work) work=$2; shift ;;
	-h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0 ;;
	-*) echo "compare-builds.sh: error: unknown option '$1'" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
if [ $# -ne 2 ]; then
	echo "usage: compare-builds.sh [--quick] [--work DIR] OLD_BUILDDIR NEW_BUILDDIR" >&2
	exit 2
fi
srcdir=$(cd "$(dirname "$0")/.." && pwd)
old=$(cd "$1" && pwd)
new=$(cd "$2" && pwd)
for b in "$old" "$new"; do
	if [ ! -x "$b/plugin/pap-gcc" ] || [ ! -x "$b/decoder/pap-decode" ]; then
		echo "compare-builds.sh: error: $b: no built pap-gcc and pap-decode" >&2
		exit 2
	fi
done
mkdir -p "$work"
work=$(cd "$work" && pwd)
scale=/100
[ $quick = yes ] && scale=/1000

# the programs, one per line: NAME|ARGUMENTS|SOURCES (zlib reads stdin)
progs=$work/programs
: >"$progs"
e2e=$srcdir/testsuite/e2e
echo "collatz|300|$srcdir/examples/collatz.c" >>"$progs"
echo "features|400|$e2e/features.c" >>"$progs"
echo "reports|20|$e2e/reports.c" >>"$progs"
echo "longloop|100000|$e2e/longloop.c" >>"$progs"
echo "tailcall|1000|$e2e/tailcall.c" >>"$progs"
echo "loopcount|50|$e2e/loopcount.c" >>"$progs"
echo "nlgoto|300|$e2e/nlgoto.c" >>"$progs"
echo "manypaths||$e2e/manypaths.c" >>"$progs"
echo "cworkload|threads 50 20|$e2e/cworkload.c" >>"$progs"
# generated programs, as the oracle test makes them
${CC:-gcc} -O2 -o "$work/genprog" "$e2e/genprog.c"
for seed in 1 2 3; do
	"$work/genprog" $seed 5 >"$work/gen$seed.c"
	echo "gen$seed|$seed|$work/gen$seed.c" >>"$progs"
done
for f in "$srcdir"/bench/suite/*.c; do
	echo "$(basename "$f" .c)|$scale|$f" >>"$progs"
done
if sh "$srcdir/bench/fetch-zlib.sh" "$work/zlib" >/dev/null 2>&1; then
	z=$work/zlib/zlib
	set -- "$z/examples/zpipe.c"
	for u in adler32 compress crc32 deflate infback inffast inflate \
		 inftrees trees uncompr zutil; do
		set -- "$@" "$z/$u.c"
	done
	echo "zlib||-w -I$z $*" >>"$progs"
	head -c 1000000 "$work/zlib/zlib.in" >"$work/zlib.in"
else
	echo "# zlib skipped: bench/fetch-zlib.sh could not fetch it"
fi

# one side: compile, run, decode into $dir/$side
one_side() { # SIDE BUILDDIR NAME ARGS MODE OPT SOURCES...
	side=$1 b=$2 name=$3 args=$4 mode=$5 opt=$6
	shift 6
	out=$dir/$side
	rm -rf "$dir/run" "$out"
	mkdir -p "$dir/run" "$out"
	(
		cd "$dir/run"
		"$b/plugin/pap-gcc" -fplugin-arg-pap-mode="$mode" $opt -pthread \
			-o prog "$@" -lm >"$out/cc.out" 2>&1 ||
			echo "compile failed" >>"$out/cc.out"
		# the compiler's temporary file names differ from run to run
		sed 's|/tmp/cc[A-Za-z0-9]*\.o|TMP.o|g' "$out/cc.out" >"$out/cc.log"
		rm -f "$out/cc.out"
		if [ "$name" = zlib ]; then
			PAP_PROFILE=pap.prof ./prog <"$work/zlib.in" >"$out/stdout" 2>&1 || true
		else
			# shellcheck disable=SC2086
			PAP_PROFILE=pap.prof ./prog $args >"$out/stdout" 2>&1 || true
		fi
		cat *.papm >"$out/meta" 2>/dev/null || true
		d=$b/decoder/pap-decode
		# as text: pap-decode print where the build has it (the
		# binary profile, version 4), else the text file itself
		[ -f pap.prof ] && { "$d" print pap.prof 2>/dev/null ||
			cat pap.prof; } | sort >"$out/profile"
		for f in text paths blocks bl dot annotate; do
			"$d" --format=$f pap.prof >"$out/$f" 2>&1 || echo "exit $?" >>"$out/$f"
		done
		"$d" --format=json --k=2 pap.prof >"$out/json" 2>&1 || echo "exit $?" >>"$out/json"
		"$d" coverage pap.prof >"$out/coverage" 2>&1 || echo "exit $?" >>"$out/coverage"
		"$d" --html="$out/html" pap.prof >"$out/html.log" 2>&1 || echo "exit $?" >>"$out/html.log"
	)
}

bad=0
runs=0
while IFS='|' read -r name args srcs; do
	for opt in -O0 -O2; do
		for mode in epp pap pap-epp; do
			dir=$work/$name$opt-$mode
			# shellcheck disable=SC2086
			one_side old "$old" "$name" "$args" "$mode" "$opt" $srcs
			# shellcheck disable=SC2086
			one_side new "$new" "$name" "$args" "$mode" "$opt" $srcs
			runs=$((runs + 1))
			files=$(find "$dir/old" -type f | wc -l)
			if diff -r "$dir/old" "$dir/new" >"$dir/diff" 2>&1; then
				if grep -q 'compile failed' "$dir/old/cc.log"; then
					echo "FAILED $name $opt $mode: does not compile," \
					     "see $dir/old/cc.log"
					bad=$((bad + 1))
				else
					echo "same $name $opt $mode: $files files," \
					     "$(wc -l <"$dir/old/paths") path lines"
					rm -rf "$dir"
				fi
			else
				bad=$((bad + 1))
				echo "DIFFERENT $name $opt $mode: see $dir/diff"
				head -n 5 "$dir/diff" | sed 's/^/    /'
			fi
		done
	done
done <"$progs"
echo "$runs program builds compared, $bad differ or fail"
[ $bad -eq 0 ]
