# lib.sh - what the benchmark scripts of bench/ share; sourced.
#
# bench_setup NAME: resolves srcdir, builddir and work (absolute; from
# top_srcdir, top_builddir, BENCH_WORK), sets papgcc and doc, checks that
# pap-gcc is built and builds $work/runone.  NAME prefixes messages.
# bench_rotated K WORD...: the words rotated left by K modulo their
# number, so that repetition K runs a different one first.
# bench_zlib_files DIR: the files of zlib's source tree DIR (fetched by
# bench/fetch-zlib.sh) that make the zpipe benchmark, one per line: the
# library's sources, then examples/zpipe.c.
# bench_median: bench/median.awk's text, to begin an inline awk program
# with (set by bench_setup).
# bench_programs NAME ZLIBDIR: the benchmark programs: bench/suite's,
# then zlib when bench/fetch-zlib.sh can lay it out in ZLIBDIR (else a
# note naming NAME says it is skipped).
# bench_other_option NAME SCRIPT OPTION: an option the script NAME does
# not parse itself: -h/--help prints SCRIPT's opening comment and exits
# 0; anything else is an error (exit 2).
# bench_build NAME BENCH ZLIBDIR OUT CMD...: compiles benchmark BENCH (a
# program of bench/suite, or zlib's zpipe from ZLIBDIR) with the compiler
# command CMD... into OUT, in OUT's directory; on failure says so
# (NAME prefixes the message) and exits 1.
# bench_splice MARKER TABLE: replaces what lies between the lines
# "<!-- MARKER begin -->" and "<!-- MARKER end -->" of $doc with TABLE.

bench_abs() { (cd "$1" && pwd); }

bench_other_option() {
	case $3 in
	-h|--help) sed -n '2,/^set -eu/p' "$2" | sed '$d; s/^# \{0,1\}//'
		exit 0 ;;
	*) echo "$1: error: unknown option '$3'" >&2; exit 2 ;;
	esac
}

bench_setup() {
	bench_name=$1
	srcdir=$(bench_abs "${top_srcdir:-.}")
	builddir=$(bench_abs "${top_builddir:-.}")
	work=${BENCH_WORK:-$builddir/bench/work}
	mkdir -p "$work"
	work=$(bench_abs "$work")
	papgcc=$builddir/plugin/pap-gcc
	doc=$srcdir/doc/benchmarks.md
	if [ ! -x "$papgcc" ]; then
		echo "$bench_name: error: $papgcc not built" >&2
		exit 1
	fi
	"$CC" -O2 -o "$work/runone" "$srcdir/bench/runone.c"
	bench_median=$(cat "$srcdir/bench/median.awk")
}

bench_programs() {
	for f in "$srcdir"/bench/suite/*.c; do
		printf ' %s' "$(basename "$f" .c)"
	done
	if sh "$srcdir/bench/fetch-zlib.sh" "$2" >&2; then
		printf ' zlib'
	else
		echo "$1: zlib skipped (its source could not be fetched)" >&2
	fi
}

bench_rotated() {
	k=$1
	shift
	k=$((k % $#))
	while [ "$k" -gt 0 ]; do
		first=$1
		shift
		set -- "$@" "$first"
		k=$((k - 1))
	done
	echo "$@"
}

bench_build() {
	_name=$1 _b=$2 _z=$3 _out=$4
	shift 4
	if [ "$_b" = zlib ]; then
		set -- "$@" -w -I"$_z/zlib" $(bench_zlib_files "$_z/zlib")
	else
		set -- "$@" -I"$srcdir/bench/suite" "$srcdir/bench/suite/$_b.c"
	fi
	(cd "$(dirname "$_out")" && "$@" -o "$_out" -lm -lpthread) || {
		echo "$_name: error: cannot build $_b ($(basename "$(dirname "$_out")"))" >&2
		exit 1
	}
}

bench_zlib_files() {
	for u in adler32 compress crc32 deflate infback inffast inflate \
		 inftrees trees uncompr zutil; do
		echo "$1/$u.c"
	done
	echo "$1/examples/zpipe.c"
}

bench_splice() {
	if ! grep -q "^<!-- $1 begin -->" "$doc"; then
		echo "$bench_name: error: $doc has no $1 markers" >&2
		exit 1
	fi
	awk -v table="$2" -v begin="<!-- $1 begin -->" -v end="<!-- $1 end -->" '
		$0 == begin {
			print; while ((getline l < table) > 0) print l; skip = 1; next
		}
		$0 == end { skip = 0 }
		!skip' "$doc" > "$doc.tmp"
	mv "$doc.tmp" "$doc"
}
