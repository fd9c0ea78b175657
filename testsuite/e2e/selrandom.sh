#!/bin/sh
# selrandom.sh - selective profiling on programs nobody chose the specs
# of: bench/suite's programs, genprog's random programs (threads,
# recursion, setjmp, computed goto) and, when csmith is installed,
# csmith's.  Each is built in full and run; random subsets of the paths
# it took (pap-decode --write-spec), with a few it took only on another
# input (never taken: count 0), are its specs.  Rebuilt at -O2 with
# a spec for each strategy (spp with the spec's acyclic paths; genprog's
# at -O0 too), run on
# the same input, it must print and exit as the plain build does, and
# each path of interest's count, and each function's activations, must
# equal the full run's (awk over --format=paths: the oracle); in a
# program that longjmps, activations may exceed the full run's by no
# more than those that ended early (one jumped over after its early end
# counts in the selective build only).
# PAP_SELRANDOM_GENPROG (default 6) genprog and PAP_SELRANDOM_CSMITH
# (default 6; 2 each under --enable-sanitizers, whose plugin and runtime
# are the plain build's) csmith programs from seed PAP_SELRANDOM_SEED
# (default 1).
# TAP output, one line per program.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
. "$top_srcdir/testsuite/e2e/selspec.sh"
suite=$top_srcdir/bench/suite
inc=/usr/include/csmith
nrandom=6
[ "${PAP_TEST_SANITIZED:-no}" = yes ] && nrandom=2
ngenprog=${PAP_SELRANDOM_GENPROG:-$nrandom}
ncsmith=${PAP_SELRANDOM_CSMITH:-$nrandom}
seed=${PAP_SELRANDOM_SEED:-1}
opts=-O2

# spec_subset SEED: up to 12 paths of the spec on stdin (of those
# written in under 2000 bytes) drawn at random, at least one, with the
# header
spec_subset() {
	awk -v seed="$1" 'BEGIN { srand(seed) }
	     $1 != "path" { print; next }
	     length($0) < 2000 { p[n++] = $0 }
	     END { k = n < 12 ? n : 12
		   for (i = 0; i < k; i++) {
			j = i + int(rand() * (n - i)); t = p[i]
			p[i] = p[j]; p[j] = t; print p[i] } }'
}

# untaken SEED OTHER: up to 3 paths of spec OTHER drawn at random that
# are not in the spec on stdin (by their blocks), after it
untaken() {
	awk "$spec_key"' BEGIN { srand('"$1"') }
	     NR == FNR { print; if ($1 == "path") seen[key()] = 1; next }
	     $1 == "path" && length($0) < 2000 && !(key() in seen) {
		p[n++] = $0 }
	     END { for (i = 0; i < n && i < 3; i++) {
			j = i + int(rand() * (n - i)); t = p[i]
			p[i] = p[j]; p[j] = t; print p[i] } }' - "$2"
}

# one NAME SEED ARG ARG2 CFLAGS...: NAME built plain and with pap from
# CFLAGS, run with ARG (and, for paths not taken with ARG, with ARG2
# unless it is empty), its selective builds on a spec drawn with SEED
# checked at each optimization level of $opts; prints "ok DETAIL",
# "skip WHY" or "fail WHY"
one() {
	name=$1 sseed=$2 arg=$3 arg2=$4
	shift 4
	longjmps=no
	for a; do
		case $a in
		*.c) grep -q longjmp "$a" && longjmps=yes ;;
		esac
	done
	mkdir "$name" && cd "$name" || return 1
	gcc -O2 -w "$@" -o plain 2>/dev/null || { echo "skip plain build failed"; return; }
	timeout 10 ./plain $arg >plain.out 2>&1
	st=$?
	[ $st -eq 124 ] && { echo "skip slow"; return; }
	mkdir full
	if ! (cd full && "$papgcc" -O2 -w "$@" -o prog) >full.log 2>&1; then
		echo "fail full build: $(head -c 200 full.log | tr '\n' ' ')"
		return
	fi
	: >b.spec
	if [ -n "$arg2" ]; then
		(cd full && timeout 60 ./prog $arg2 >/dev/null 2>&1)
		"$decode" --top=0 --write-spec=b.spec full/pap.prof >/dev/null ||
			{ echo "fail full decode ($arg2)"; return; }
		rm -f full/pap.prof
	fi
	(cd full && timeout 60 ./prog $arg >/dev/null 2>&1)
	"$decode" --top=0 --format=paths full/pap.prof >a.paths &&
	"$decode" --top=0 --write-spec=all.spec full/pap.prof >/dev/null ||
		{ echo "fail full decode"; return; }
	sel_full_acts a.paths >a.acts
	spec_subset "$sseed" <all.spec | untaken "$sseed" b.spec >r.spec
	awk 'length($0) < 2000' all.spec | sel_acyclic |
		spec_subset "$sseed" >spp.spec
	for opt in $opts; do
		for s in spp 0 1 2 3 follow; do
			d=b$opt$s
			spec=$PWD/r.spec
			[ $s = spp ] && spec=$PWD/spp.spec
			grep -q '^path' "$spec" || continue
			mkdir $d
			if ! (cd $d && "$papgcc" $opt -w -fchecking -fplugin-arg-pap-spec="$spec" \
			      -fplugin-arg-pap-psp=$s "$@" -o prog) >$d/cc.log 2>&1; then
				echo "fail $opt psp=$s build: $(grep -m1 'error' $d/cc.log)"
				return
			fi
			(cd $d && timeout 60 ./prog $arg >out 2>&1; echo $? >rc)
			if ! cmp -s plain.out $d/out || [ "$(cat $d/rc)" != $st ]; then
				echo "fail $opt psp=$s: output or status differs from plain"
				return
			fi
			"$decode" --format=selective $d/pap.prof >$d/sel.txt 2>$d/err ||
				{ echo "fail $opt psp=$s decode: $(head -1 $d/err)"; return; }
			sel_got $d >$d/got
			sel_expect a.paths "$spec" | sort -n >$d/want
			if ! cmp -s $d/want $d/got; then
				echo "fail $opt psp=$s: counts of the paths of interest: $(diff $d/want $d/got | grep '^[<>]' | head -4 | tr '\n' ' ')"
				return
			fi
			# "FUNCTION ACTIVATIONS EARLY FULL": equal, but for
			# activations that ended early and then were jumped
			# over by a longjmp, which the full build does not
			# record (doc/plugin.md)
			sel_acts_early $d >$d/acts
			if ! join $d/acts a.acts | awk -v lj=$longjmps '
				$2 < $4 || $2 > $4 + (lj == "yes" ? $3 : 0) {
					exit 1 }'; then
				echo "fail $opt psp=$s: activations"
				return
			fi
		done
	done
	echo "ok $(grep -c '^path' r.spec) paths ($(sel_expect a.paths r.spec | awk '$2 == 0' | wc -l) not taken) of $(grep -c '^path' all.spec) taken, $(grep -c '^path' spp.spec) acyclic"
}

progs="sort hash recursion regex interp"
have_csmith=0
command -v csmith >/dev/null && [ -f $inc/csmith.h ] && have_csmith=1
gcc -O2 -o genprog "$top_srcdir/testsuite/e2e/genprog.c" ||
	{ echo "Bail out! cannot build genprog"; exit 1; }
# report WHAT RESULT: one() RESULT as a TAP line
report() {
	case $2 in
	ok*) ok "$1: ${2#ok }" ;;
	skip*) skip "$1: ${2#skip }" ;;
	*) not_ok "$1: $2" ;;
	esac
}
echo "1..$(( $(echo $progs | wc -w) + ngenprog + ncsmith ))"
k=0
for p in $progs; do
	k=$((k + 1))
	report $p "$( (one $p $k 1 2 -I"$suite" "$suite/$p.c") )"
done
for g in $(seq $seed $((seed + ngenprog - 1))); do
	./genprog $g 5 >g$g.c
	report "genprog program $g" \
		"$( (opts="-O0 -O2"; one g$g $g $g $((g + 7)) "$tmp/g$g.c" -pthread) )"
done
made=0
first=$seed
while [ $made -lt "$ncsmith" ]; do
	if [ $have_csmith = 0 ]; then
		ok "csmith program # SKIP csmith or libcsmith-dev not installed"
		made=$((made + 1))
		continue
	fi
	[ $((seed - first)) -gt $((ncsmith * 4 + 20)) ] &&
		{ echo "Bail out! too few usable csmith programs"; exit 1; }
	csmith --seed $seed --max-funcs 4 --max-block-depth 4 >c$seed.c 2>/dev/null
	r=$( (one c$seed $seed "" "" -I$inc "$tmp/c$seed.c") )
	seed=$((seed + 1))
	case $r in skip*) continue ;; esac
	report "csmith seed $((seed - 1))" "$r"
	made=$((made + 1))
done
tap_done
