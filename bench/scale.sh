#!/bin/sh
# scale.sh - pap at real-program scale: memory, profile size and the cost
# of many processes writing one profile, measured in one run against the
# plain build and gcov.
#
#   scale.sh [--quick] [--reps N] [--only "NAME..."] [--no-doc]
#
# Programs: zlib's zpipe deflating 25 MB (bench/fetch-zlib.sh), lua 5.4.7
# running bench.lua and coremark (from ../shared/realprog/, or the
# directory PAP_REALPROG names; each skipped with a message when absent),
# and from bench/suite/ interp (one activation of 10^9 blocks) and sort.
# Builds: plain gcc -O2, gcc -O2 -fprofile-arcs, pap-gcc -O2 (pap-epp,
# the default), the last run once with the file sink and once under
# pap-collector.  Runs are interleaved and rotate.  Reported, as medians:
# CPU time (user + system, the collector's included) and its overhead
# against plain, peak RSS (of the program; under the collector, the
# larger of program and collector), and the size of what the run wrote
# (pap.prof, or the .gcda files).  Every run's output must equal the
# plain build's.
#
# Then the many-process suite: a first run of sort writes the profile,
# then 31 short runs of sort (1/2000 of its work) merge into it one after
# the other; the time of the 31 is compared with the same 31 under gcov
# (which merges into its .gcda files), with the file sink and under one
# pap-collector for the whole suite; and, to tell what writing costs from
# what recording costs, with the file sink into a new profile and with
# output off (PAP_PROFILE=/dev/null).
#
# Writes the tables into doc/benchmarks.md between the scale-table
# markers.  Each run may use 8 GB of address space at most.
#
#   --quick   1 repetition at 1/8 of the work: a smoke test
#
# Environment: top_srcdir, top_builddir (default .), CC (default gcc),
# BENCH_WORK (default $top_builddir/bench/work), PAP_REALPROG.
set -eu

CC=${CC:-gcc}
reps=3
div=1
quick=no
only=""
write_doc=yes
. "${top_srcdir:-.}/bench/lib.sh"
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=yes; reps=1; div=8 ;;
	--reps) reps=$2; shift ;;
	--only) only=$2; shift ;;
	--no-doc) write_doc=no ;;
	*) bench_other_option scale.sh "$0" "$1" ;;
	esac
	shift
done

bench_setup scale.sh
runone=$work/runone
work=$work/scale
mkdir -p "$work"
collector=$builddir/collector/pap-collector
realprog=${PAP_REALPROG:-$srcdir/../shared/realprog}
jobs=2
lua_rl="" lua_rllib=""
cm_iter=$((60000 / div))
# unpack, build_coremark
here=$srcdir/testsuite/real
. "$here/lib.sh"

builds="plain gcov pap"
variants="plain gcov pap"
[ -x "$collector" ] && variants="$variants pap+c"

benches=""
if sh "$srcdir/bench/fetch-zlib.sh" "$work/zlib-src" >/dev/null 2>&1; then
	benches="$benches zlib"
else
	echo "scale.sh: zlib skipped (its source could not be fetched)"
fi
if [ -f "$realprog/lua-5.4.7.tar.gz" ] && [ -f "$realprog/bench.lua" ]; then
	benches="$benches lua"
else
	echo "scale.sh: lua skipped (no $realprog/lua-5.4.7.tar.gz or bench.lua)"
fi
if [ -f "$realprog/coremark-d5fad6b.tar.gz" ]; then
	benches="$benches coremark"
else
	echo "scale.sh: coremark skipped (no $realprog/coremark-d5fad6b.tar.gz)"
fi
benches="$benches interp sort"
[ -n "$only" ] && benches=$only

cc_of() { # BUILD: the compiler command
	case $1 in
	plain) echo "$CC" ;;
	gcov) echo "$CC -fprofile-arcs" ;;
	pap) echo "$papgcc" ;;
	esac
}

# build_one BENCH BUILD: the program in $work/bin/BUILD/BENCH/
build_one() {
	b=$1 v=$2 d=$work/bin/$2/$1
	rm -rf "$d"
	mkdir -p "$d"
	cc=$(cc_of "$v")
	case $b in
	zlib)
		z=$work/zlib-src/zlib
		(cd "$d" && $cc -O2 -w -I"$z" -o prog $(bench_zlib_files "$z")) ;;
	lua)
		unpack "$realprog/lua-5.4.7.tar.gz" "$d/src" &&
		(cd "$d/src" && make -j"$jobs" CC="$cc" \
			MYCFLAGS="-std=c99 -DLUA_USE_LINUX" MYLIBS= \
			>"$d/build.log" 2>&1) &&
		ln -s src/lua "$d/prog" ;;
	coremark)
		unpack "$realprog/coremark-d5fad6b.tar.gz" "$d/src" &&
		build_coremark "$d/src" "$cc" &&
		ln -s src/coremark.exe "$d/prog" ;;
	*)
		(cd "$d" && $cc -O2 -I"$srcdir/bench/suite" -o prog \
			"$srcdir/bench/suite/$b.c" -lm -lpthread) ;;
	esac || {
		echo "scale.sh: error: cannot build $b ($v)" >&2
		exit 1
	}
}

echo "scale.sh: building$benches as $builds"
for b in $benches; do
	for v in $builds; do
		build_one "$b" "$v"
	done
done
head -c $((25000000 / div)) "$work/zlib-src/zlib.in" >"$work/zlib.in" 2>/dev/null || true

# the arguments of a run of BENCH
args_of() {
	case $1 in
	zlib) ;;
	lua) echo "$realprog/bench.lua $((12 / div))" ;;
	coremark) echo "0x0 0x0 0x66 $cm_iter 7 1 2000" ;;
	interp) echo "/$((div * 4))" ;;
	*) echo "/$div" ;;
	esac
}

# bytes written by a run: the profile, or every .gcda under the build
written() { # VARIANT BENCH DIR
	case $1 in
	gcov) find "$work/bin/gcov/$2" -name '*.gcda' -exec cat {} + | wc -c ;;
	pap*) if [ -f "$3/pap.prof" ]; then wc -c <"$3/pap.prof"; else echo 0; fi ;;
	*) echo 0 ;;
	esac
}

# run_one BENCH VARIANT: appends "BENCH VARIANT REP WALL RSS CPU BYTES"
run_one() {
	b=$1 v=$2 bv=${2%+c}
	dir=$work/run/$v/$b
	rm -rf "$dir"
	mkdir -p "$dir"
	find "$work/bin/$bv/$b" -name '*.gcda' -delete
	# shellcheck disable=SC2046
	set -- "$work/bin/$bv/$b/prog" $(args_of "$b")
	[ "$v" = pap+c ] && set -- "$collector" -o "$dir/pap.prof" -- "$@"
	in=/dev/null
	[ "$b" = zlib ] && in=$work/zlib.in
	t=$(cd "$dir" && PAP_PROFILE=$dir/pap.prof "$runone" -i "$in" \
		-m 8192 "$dir/out" "$@") || {
		echo "scale.sh: error: $b ($v) failed" >&2
		exit 1
	}
	# what must equal the plain build's: coremark's results, not its
	# timings (nor its complaint that a run took under 10 s, which a
	# slower build does not make)
	if [ "$b" = coremark ]; then
		grep -E 'crc|ERROR|^Iterations +:' "$dir/out" |
			grep -v 'Must execute for at least 10 secs' \
			>"$dir/cmp" || true
	else
		cp "$dir/out" "$dir/cmp"
	fi
	if [ "$v" = plain ]; then
		cp "$dir/cmp" "$work/expect.$b"
	elif ! cmp -s "$dir/cmp" "$work/expect.$b"; then
		echo "scale.sh: error: $b ($v) printed other output than plain" >&2
		exit 1
	fi
	echo "$b $v $rep $t $(written "$v" "$b" "$dir")" >>"$results"
}

results=$work/results.tsv
: >"$results"
rm -rf "$work/run"
rep=1
while [ "$rep" -le "$reps" ]; do
	echo "scale.sh: repetition $rep of $reps"
	for b in $benches; do
		# rotated, but plain first in the first repetition: the
		# others compare with its output
		set -- $(bench_rotated $((rep - 1)) $variants)
		for v in "$@"; do
			run_one "$b" "$v"
		done
	done
	rep=$((rep + 1))
done

# ---------------------------------------------------------------------
# the many-process suite
# ---------------------------------------------------------------------
suite=$work/suite.tsv
: >"$suite"
many() { # VARIANT REP
	v=$1 dir=$work/many/$1
	case $v in
	pap*) bv=pap ;;
	*) bv=$v ;;
	esac
	rm -rf "$dir"
	mkdir -p "$dir"
	find "$work/bin/$bv/sort" -name '*.gcda' -delete
	prog=$work/bin/$bv/sort/prog
	prof=$dir/pap.prof
	[ "$v" = pap-off ] && prof=/dev/null
	# the first, full run: the large profile the short ones merge into
	# (gcov: its .gcda files), except for pap-new
	[ "$v" = pap-new ] ||
		(cd "$dir" && PAP_PROFILE=$prof "$prog" "/$div" >/dev/null)
	cat >"$dir/suite.sh" <<EOF
i=0
while [ \$i -lt 31 ]; do
	PAP_PROFILE=$prof "$prog" /2000 >/dev/null || exit 1
	i=\$((i + 1))
done
EOF
	set -- /bin/sh "$dir/suite.sh"
	[ "$v" = pap+c ] && set -- "$collector" -o "$prof" -- "$@"
	t=$(cd "$dir" && "$runone" -i /dev/null -m 8192 "$dir/out" "$@") || {
		echo "scale.sh: error: the many-process suite ($v) failed" >&2
		exit 1
	}
	echo "suite $v $2 $t $(written "$v" sort "$dir")" >>"$suite"
}
case " $benches " in
*" sort "*)
	echo "scale.sh: the many-process suite"
	rep=1
	while [ "$rep" -le "$reps" ]; do
		# pap-off: the same runs writing nothing, so the difference
		# is what exit and merging cost; pap-new: into a new profile,
		# so the difference is what the large one costs
		for v in $(bench_rotated $((rep - 1)) $variants pap-off \
			   pap-new); do
			many "$v" "$rep"
		done
		rep=$((rep + 1))
	done ;;
esac

# ---------------------------------------------------------------------
# tables
# ---------------------------------------------------------------------
table=$work/table.md
awk -v variants="$variants" -v quick="$quick" -v reps="$reps" "$bench_median"'
function size(b) {
	if (b >= 1048576)
		return sprintf("%.1f MB", b / 1048576)
	if (b >= 1024)
		return sprintf("%.0f KB", b / 1024)
	return b " B"
}
FNR == 1 { file++ }
file == 1 {
	if (!($1 in seen)) { seen[$1] = 1; order[++nb] = $1 }
	cpu[$1, $2] = cpu[$1, $2] " " $6; rss[$1, $2] = rss[$1, $2] " " $5
	by[$1, $2] = by[$1, $2] " " $7
}
file == 2 { scpu[$2] = scpu[$2] " " $6; swall[$2] = swall[$2] " " $4 }
END {
	nv = split(variants, v, " ")
	what = "Full run"
	if (quick == "yes")
		what = "Quick run (1/8 of the work; not for comparison)"
	printf "%s, %d repetition(s), medians.\n\n", what, reps
	printf "| program | plain CPU | gcov | pap | pap + collector | plain RSS | gcov RSS | pap RSS | pap + collector RSS | gcov data | profile | profile (collector) |\n"
	printf "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
	for (i = 1; i <= nb; i++) {
		b = order[i]
		p = median(cpu[b, "plain"])
		line = sprintf("| %s | %.2f s", b, p)
		for (k = 2; k <= 4; k++) {
			if (cpu[b, v[k]] == "") { line = line " | -"; continue }
			c = median(cpu[b, v[k]])
			line = line sprintf(" | %+.0f%%", p > 0 ? (c / p - 1) * 100 : 0)
		}
		for (k = 1; k <= 4; k++) {
			if (rss[b, v[k]] == "")
				line = line " | -"
			else
				line = line sprintf(" | %.1f MB", median(rss[b, v[k]]) / 1024)
		}
		line = line " | " size(median(by[b, "gcov"])) " | " size(median(by[b, "pap"]))
		if (by[b, "pap+c"] == "")
			line = line " | -"
		else
			line = line " | " size(median(by[b, "pap+c"]))
		print line " |"
	}
	if (scpu["gcov"] != "") {
		g = median(swall["gcov"])
		printf "\nMany processes: 31 short runs of sort merging into the profile of a first full run (wall time of the 31, and its ratio to gcov'"'"'s).\n\n"
		printf "| plain | gcov | pap, file sink | pap, collector | pap, output off | pap, into a new profile |\n|---:|---:|---:|---:|---:|---:|\n"
		line = sprintf("| %.2f s | %.2f s", median(swall["plain"]), g)
		ns = split("pap pap+c pap-off pap-new", sv, " ")
		for (k = 1; k <= ns; k++) {
			if (swall[sv[k]] == "") { line = line " | -"; continue }
			w = median(swall[sv[k]])
			line = line sprintf(" | %.2f s (%.1fx)", w, g > 0 ? w / g : 0)
		}
		print line " |"
		if (swall["pap-off"] != "")
			printf "\nWriting the profile at exit: %.1f ms a process into the large profile, %.1f ms into a new one (file sink, less the same runs with output off).\n", (median(swall["pap"]) - median(swall["pap-off"])) * 1000 / 31, (median(swall["pap-new"]) - median(swall["pap-off"])) * 1000 / 31
	}
}' "$results" "$suite" >"$table"
cat "$table"
if [ $write_doc = yes ]; then
	bench_splice scale-table "$table"
	echo "scale.sh: wrote $doc"
fi
