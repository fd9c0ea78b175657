#!/bin/sh
# calls.sh - end to end: call sequences (-fplugin-arg-pap-calls) against
# an oracle that shares nothing with pap.  TAP output.
#
# 1. The oracle alone (cygoracle.c + calls-check.c, GCC's
#    -finstrument-functions hooks) on hand-written programs whose
#    sequences are written here from their source (calls-hand.c).
# 2. Random programs (gencalls.c) built with the plugin's calls mode and
#    the oracle: the sequences pap-decode reports, each times its count,
#    must equal the oracle's per-thread sequences as multisets, through
#    the file sink and through pap-collector, and the program's output
#    must equal the plain build's.  Skipped, saying why, when the plugin
#    has no calls mode or the decoder no call_paths.
# PAP_CALLS_SEEDS sets how many random programs (default 10).
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
cc=${CC:-gcc}
collector=$top_builddir/collector/pap-collector
nseeds=${PAP_CALLS_SEEDS:-10}
e2e=$top_srcdir/testsuite/e2e

$cc -O2 -c -o cygoracle.o "$e2e/cygoracle.c" &&
$cc -O2 -o calls-check "$e2e/calls-check.c" &&
$cc -O2 -o gencalls "$e2e/gencalls.c" || {
	echo "Bail out! cannot build the oracle, its checker or gencalls"
	exit 1
}

# oracle_seq DIR PROG ARGS...: runs PROG with the oracle writing into DIR
# and leaves DIR/oracle.seq, the sorted per-thread sequences, and
# DIR/out, the program's output and status
oracle_seq() {
	_d=$1
	shift
	rm -rf "$_d/o"
	mkdir -p "$_d/o"
	ORACLE_DIR=$_d/o "$@" >"$_d/out" 2>"$_d/err"
	echo "status $?" >>"$_d/out"
	nm -n -S "$1" >"$_d/nm" &&
	./calls-check "$_d/nm" "$_d"/o/oracle.* 2>>"$_d/err" |
		LC_ALL=C sort >"$_d/oracle.seq"
}

# 1. The oracle on hand-written programs.
cat >hand.want <<'EOF'
rec main fact fact fact fact fact main is_even is_odd is_even is_odd is_even main
qsort main sorter >cmp key cmp key cmp g sorter main
threads main
threads worker leaf worker
threads worker leaf worker
exit main a1 b2 c3 >handler leaf handler
longjmp main catcher t1 t2 catcher after catcher main leaf main
EOF
for opt in -O0 -O2; do
	if ! $cc $opt -finstrument-functions -o hand$opt "$e2e/calls-hand.c" \
	     cygoracle.o -lpthread 2>hand.log; then
		not_ok "oracle: calls-hand.c $opt does not build"
		diag hand.log
		continue
	fi
	for c in rec qsort threads exit longjmp; do
		oracle_seq "h$opt-$c" "./hand$opt" "$c"
		grep "^$c " hand.want | cut -d' ' -f2- | LC_ALL=C sort >want
		if cmp -s want "h$opt-$c/oracle.seq"; then
			ok "oracle: $c $opt: $(wc -l <want) sequences as written"
		else
			not_ok "oracle: $c $opt: differs from the source's"
			diff want "h$opt-$c/oracle.seq" | sed 's/^/# /'
			diag "h$opt-$c/err"
		fi
	done
done

tap_done
