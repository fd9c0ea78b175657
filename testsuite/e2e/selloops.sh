#!/bin/sh
# selloops.sh - strategy follow's counted loops end to end.  A loop whose
# iterations are all alike counts them and replays the count where it
# ends (plugin/selective.cc, doc/algorithms.md "Counted loops").
# selloops.c is built in full and run on input A; the spec is A's 3
# hottest paths of each function plus up to 3 paths only input B takes
# (trip counts one short or one long, other inner counts).  Built with
# that spec under follow (and psp3, its fallback) at -O0 and -O2 and run
# on A, the program must print what plain prints, each path of
# interest's count must equal the full run's (0 when absent), the oracle,
# and each function's activations too; at -O2 follow must count loops,
# and follow must give mixed() and wide() (branches with no pattern) flat
# automata, of 1- and 2-byte codes, with 2 paths of interest each (not
# with 4).
# TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
src=$top_srcdir/testsuite/e2e/selloops.c
A=200
B=1400

gcc -O2 -w "$src" -o plain ||
	{ echo "Bail out! plain build failed"; exit 1; }
./plain $A >plain.out

mkdir full && cd full || exit 1
"$papgcc" -O0 -w "$src" -o prog ||
	{ echo "Bail out! full build failed"; exit 1; }
./prog $B >/dev/null
"$decode" --top=0 --write-spec=../b.spec pap.prof >/dev/null &&
rm -f pap.prof && ./prog $A >/dev/null &&
"$decode" --top=0 --format=paths pap.prof >../a.paths &&
"$decode" --top=2 --write-spec=../a2.spec pap.prof >/dev/null &&
"$decode" --top=1 --write-spec=../a1.spec pap.prof >/dev/null ||
	{ echo "Bail out! full run failed"; exit 1; }
cd .. || exit 1

. "$top_srcdir/testsuite/e2e/selspec.sh"
# SPEC A-SPEC N: A's paths and up to N of each function's that only B
# took (the automaton holds at most 64 positions: two specs, so that
# every function has one in some build)
spec() {
	awk "$spec_key"'
	     NR == FNR { if ($1 == "path") seen[key()] = 1; print; next }
	     $1 == "path" { k = key(); split(k, f, " ")
		if (!(k in seen) && added[f[1]]++ < n) print }' n=$3 \
		"$2" b.spec >"$1"
}
spec all.spec a2.spec 2
spec one.spec a1.spec 1
sel_full_acts a.paths >a.acts

nnever=$(cat all.spec one.spec | sel_expect a.paths - | awk '$2 == 0' | wc -l)
echo "1..6"
if [ "$nnever" -ge 6 ]; then
	ok "spec: $(grep -c '^path' all.spec) paths, $nnever never taken on A"
else
	not_ok "spec: only $nnever never-taken paths"
fi

for run in "-O0 follow all" "-O2 follow all" "-O2 3 all" "-O0 follow one" \
	   "-O2 follow one"; do
	set -- $run
	opt=$1 s=$2 sp=$3 min=5 nflat=0
	# one.spec's 2 paths of mixed and of wide are flat, all.spec's 4
	# too many (PAP_SEL_FLAT_PATHS)
	[ $sp = one ] && min=7 nflat=2
	d=b$opt$s$sp
	what="$opt psp=$s $sp.spec"
	mkdir "$d"
	if ! (cd "$d" && "$papgcc" $opt -w \
	      -fplugin-arg-pap-spec="$tmp/$sp.spec" \
	      -fplugin-arg-pap-psp=$s -fplugin-arg-pap-verbose \
	      "$src" -o prog) >"$d/cc.log" 2>&1; then
		not_ok "$what: build"
		diag "$d/cc.log"
		continue
	fi
	counted=$(sed -n 's/.*follow: \([0-9]*\) loops counted.*/\1/p' \
		  "$d/cc.log" | awk '{ n += $1 } END { print n + 0 }')
	flat=$(grep -c 'mixed.*: follow: flat.* of 1-byte' "$d/cc.log")
	flat=$((flat + $(grep -c 'wide.*: follow: flat.* of 2-byte' "$d/cc.log")))
	(cd "$d" && ./prog $A >out)
	if ! cmp -s plain.out "$d/out"; then
		not_ok "$what: output differs from plain"
		continue
	fi
	sel_decode "$d" "$what" || continue
	sel_got "$d" >"$d/got"
	sel_expect a.paths $sp.spec | sort -n >"$d/want"
	sel_acts "$d" >"$d/acts"
	if sel_counts_bad "$d" "$what" 6; then
		:
	elif [ $s = follow ] && [ $opt = -O2 ] && [ "$counted" -lt $min ]; then
		not_ok "$what: only $counted loops counted"
	elif [ $s = follow ] && [ "$flat" != $nflat ]; then
		not_ok "$what: $flat flat automata, not $nflat (mixed, wide)"
	else
		nw=$(wc -l <"$d/want")
		ok "$what: $nw counts exact, $counted loops counted, $flat flat"
	fi
done
