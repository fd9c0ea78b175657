#!/bin/sh
# loopcount.sh - loops that keep their count in a register
# (-fplugin-arg-pap-loop-count=register, the default): in epp they add
# their count where they end (loopcount.cc), in pap and pap-epp they
# fold their iterations there all at once (loopfold.cc).  Against the
# same program counting or folding every iteration (loop-count=memory)
# and against the tracer.  loopcount.c holds loops of every shape; built
# at -O1, -O2 and -O3 in epp, pap and pap-epp, each build must print
# what the plain build prints, and decode to exactly the paths of the
# memory build; the register builds' block totals (epp) and whole paths
# (pap-epp) must equal the tracer's (the tracer's calls do not stop a
# loop from counting in a register); under a collector, with counters in
# its segment or without any, the same as in memory; and so must random
# programs from csmith, whose inlined helpers make many call-free loops.
# The register builds must report enough loops changed that no check
# passes for want of one, and the right ones.  TAP output.
set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
papgcc=$top_builddir/plugin/pap-gcc
decode=$top_builddir/decoder/pap-decode
src=$top_srcdir/testsuite/e2e/loopcount.c
tmp=$(mktemp -d) || exit 1
trap '[ -n "${PAP_KEEP:-}" ] || rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
inputs="0 1 2 7 50 1000"

# aggregate_trace, block_totals, trace_forms
. "$top_srcdir/testsuite/e2e/tracelib.sh"

# run BUILD-DIR: every input into one profile; prints the outputs
run() {
	(cd "$1" && rm -f pap.prof pap.trace &&
	 for i in $inputs; do ./prog "$i"; done)
}

gcc -O2 -w "$src" -o plain || { echo "Bail out! plain build failed"; exit 1; }
mkdir p && cp plain p/prog && run p >plain.out

echo "1..22"
n=0
fails=0
fail() {
	echo "not ok $n - $1"
	fails=$((fails + 1))
}

for opt in -O1 -O2 -O3; do
	for mode in epp pap pap-epp; do
		n=$((n + 1))
		what="$opt $mode"
		ok=1
		for lc in register memory; do
			d=$lc$opt$mode
			mkdir "$d"
			if ! (cd "$d" && "$papgcc" $opt -w \
			      -fplugin-arg-pap-mode=$mode \
			      -fplugin-arg-pap-loop-count=$lc \
			      -fplugin-arg-pap-verbose "$src" -o prog) \
			      >"$d/cc.log" 2>&1; then
				fail "$what: $lc build failed"; ok=0; break
			fi
			run "$d" >"$d/out"
			if ! cmp -s plain.out "$d/out"; then
				fail "$what: $lc build's output differs"; ok=0; break
			fi
			if ! "$decode" --format=paths "$d/pap.prof" 2>"$d/err" |
			     sort >"$d/paths" || [ -s "$d/err" ]; then
				fail "$what: $lc profile does not decode"; ok=0; break
			fi
		done
		[ $ok = 1 ] || continue
		r=register$opt$mode
		m=memory$opt$mode
		kept=$(sed -n 's/.* \([0-9]*\) loop\(s fold where they end\| counts kept in registers\).*/\1/p' \
			"$r/cc.log" | awk '{ a += $1 } END { print a + 0 }')
		if grep -q "kept in registers\|fold where they end" "$m/cc.log"; then
			fail "$what: loop-count=memory kept a count in a register"
		elif [ "$kept" -lt 9 ]; then
			fail "$what: only $kept loops kept their count in a register"
		elif ! cmp -s "$r/paths" "$m/paths"; then
			fail "$what: paths differ from loop-count=memory"
			diff "$r/paths" "$m/paths" | head -6 | sed 's/^/# /'
		else
			echo "ok $n - $what: $kept loops counted in registers, $(wc -l <"$r/paths") paths as counted in memory"
		fi
	done
done

# against the tracer: in epp block totals of the acyclic paths, in
# pap-epp whole paths, each activation's blocks (both as oracle.sh)
for mode in epp pap-epp; do
	if [ $mode = epp ]; then
		note="kept in registers" did="count loops in registers"
	else
		note="fold where they end" did="fold loops where they end"
	fi
	for opt in -O1 -O2 -O3; do
		n=$((n + 1))
		d=trace-$mode$opt
		what="$opt $mode traced"
		mkdir "$d"
		if ! (cd "$d" && PAP_PLUGIN_ARGS="-fplugin-arg-pap-trace -fplugin-arg-pap-mode=$mode -fplugin-arg-pap-verbose" \
		      "$papgcc" $opt -w "$src" -o prog) >"$d/cc.log" 2>&1; then
			fail "$what: build failed"; continue
		fi
		run "$d" >"$d/out"
		kept=$(grep -c "$note" "$d/cc.log")
		"$decode" --format=paths "$d/pap.prof" >"$d/decoded.raw"
		trace_forms $mode "$d"
		if ! cmp -s plain.out "$d/out"; then
			fail "$what: output differs"
		elif [ "$kept" -lt 5 ]; then
			fail "$what: only $kept functions $did"
		elif ! cmp -s "$d/decoded" "$d/traced"; then
			fail "$what: decoded paths differ from the trace"
			diff "$d/decoded" "$d/traced" | head -6 | sed 's/^/# /'
		else
			echo "ok $n - $what: $kept functions $did, decoded = traced ($(wc -l <"$d/traced") lines)"
		fi
	done
done

# under a collector: counters in the shared segment, and with --slots 0
# none at all, so that every count goes through the runtime's
# __pap_tally_add
collector=$top_builddir/collector/pap-collector
for slots in 64 0; do
	n=$((n + 1))
	d=register-O2epp
	(cd "$d" && "$collector" --slots $slots -o c$slots.prof -- \
		sh -c 'for i in '"$inputs"'; do ./prog $i; done' >c.out 2>c.err)
	if ! cmp -s plain.out "$d/c.out"; then
		fail "collector --slots $slots: output differs"
	elif ! "$decode" --format=paths "$d/c$slots.prof" | sort >"$d/c.paths" ||
	     ! cmp -s "$d/c.paths" memory-O2epp/paths; then
		fail "collector --slots $slots: paths differ from loop-count=memory"
		diff "$d/c.paths" memory-O2epp/paths | head -6 | sed 's/^/# /'
	else
		echo "ok $n - -O2 epp under pap-collector --slots $slots: paths as counted in memory"
	fi
done

# which_loops MODE NOTE WANT NOT SAYS: in the -O2 register build of MODE,
# the functions whose verbose notes say "COUNT NOTE": each line "NAME
# COUNT" of WANT must be there, no NAME matching NOT (an ERE) may be
which_loops() {
	n=$((n + 1))
	sed -n "s/.*pap: [^a-z_]*\([a-z_]*\)[^:]*: \([0-9]*\) $2.*/\1 \2/p" \
		register-O2$1/cc.log | sort >which-$1
	missing=$(echo "$3" | while read -r f c; do
		grep -qx "$f $c" which-$1 || echo "$f"; done)
	wrong=$(grep -E "^($4) " which-$1 | cut -d' ' -f1)
	if [ -n "$missing$wrong" ]; then
		fail "-O2 $1: missing from \"$2\": ${missing:-none}; there but must not be: ${wrong:-none}"
		sed 's/^/# /' which-$1
	else
		echo "ok $n - -O2 $1: $5"
	fi
}
which_loops epp "loop counts kept in registers" "chase 1
calls 1
dowhile 1
exits 1
first_at 1
gotoloop 1
nested 1
straight 1
twoloops 2
twoways 1" "branchy|forever|withjmp|plain_call" \
	"the one-path call-free loops count in registers; branchy, switch, setjmp, call and asm loops in memory"
# in pap-epp, the one-exit ones of those
which_loops pap-epp "loops fold where they end" "chase 1
calls 1
dowhile 1
gotoloop 1
straight 1
twoloops 2
twoways 1" "branchy|forever|withjmp|plain_call|exits|first_at|nested" \
	"the one-path, one-exit call-free loops fold where they end; branchy, switch, setjmp, call, asm and many-exit loops fold each iteration"

# random programs: csmith's loops after inlining, epp and pap-epp at -O2
# and -O3, register against memory (PAP_LOOPCOUNT_PROGRAMS, default 30;
# 8 under --enable-sanitizers, whose plugin and runtime are the plain
# build's)
n=$((n + 1))
inc=/usr/include/csmith
if ! command -v csmith >/dev/null || [ ! -f $inc/csmith.h ]; then
	echo "ok $n # SKIP csmith or libcsmith-dev not installed"
else
	want=30
	[ "${PAP_TEST_SANITIZED:-no}" = yes ] && want=8
	want=${PAP_LOOPCOUNT_PROGRAMS:-$want}
	done_=0 withloops=0 withfolds=0 bad=
	seed=500
	while [ $done_ -lt "$want" ] && [ -z "$bad" ]; do
		[ $seed -lt $((500 + 10 * want)) ] ||
			{ bad="csmith gave too few usable programs"; break; }
		seed=$((seed + 1))
		d=cs$seed
		mkdir $d
		csmith --seed $seed --max-funcs 4 --max-block-depth 4 >$d/p.c 2>/dev/null &&
			gcc -O2 -w -I$inc $d/p.c -o $d/plain 2>/dev/null || continue
		timeout 2 $d/plain >$d/plain.out 2>&1
		st=$?
		[ $st -eq 124 ] && continue
		opt=-O2
		[ $((seed % 2)) -eq 0 ] && opt=-O3
		for mode in epp pap-epp; do
			for lc in register memory; do
				b=$d/$mode-$lc
				mkdir $b
				(cd $b && "$papgcc" $opt -w -I$inc -fplugin-arg-pap-mode=$mode \
					-fplugin-arg-pap-loop-count=$lc -fplugin-arg-pap-verbose \
					../p.c -o prog >cc.log 2>&1 && rm -f pap.prof &&
				 { timeout 60 ./prog >out 2>&1; echo "$?" >st; } &&
				 "$decode" --format=paths pap.prof | sort >paths) ||
					bad="seed $seed $opt $mode $lc: build, run or decode failed"
				[ -n "$bad" ] && break
				[ "$(cat $b/st)" = $st ] && cmp -s $d/plain.out $b/out ||
					{ bad="seed $seed $opt $mode $lc: output differs"; break; }
			done
			[ -n "$bad" ] && break
			cmp -s $d/$mode-register/paths $d/$mode-memory/paths ||
				{ bad="seed $seed $opt $mode: paths differ from loop-count=memory"; break; }
		done
		[ -n "$bad" ] && break
		grep -q "kept in registers" $d/epp-register/cc.log &&
			withloops=$((withloops + 1))
		grep -q "fold where they end" $d/pap-epp-register/cc.log &&
			withfolds=$((withfolds + 1))
		done_=$((done_ + 1))
		rm -rf $d
	done
	if [ -n "$bad" ]; then
		fail "csmith: $bad"
	elif [ $withloops -lt $((done_ / 4)) ] || [ $withfolds -lt $((done_ / 4)) ]; then
		fail "csmith: of $done_ programs, only $withloops had a loop counting in a register in epp and $withfolds one folding where it ends in pap-epp"
	else
		echo "ok $n - csmith: $done_ programs in epp and pap-epp at -O2/-O3 print what plain prints and decode as with loop-count=memory ($withloops with loops counting in registers in epp, $withfolds with loops folding where they end in pap-epp)"
	fi
fi

# GCC's garbage collector at every chance: the runtime's declarations
# that the loop pass uses long after they were made must survive it;
# and GCC's checks of the IR after every pass (-fchecking), which a
# pass leaving an SSA name without a definition fails
n=$((n + 1))
gc_ok=1
for mode in epp pap-epp; do
	mkdir gc-$mode
	if ! (cd gc-$mode && "$papgcc" -O2 -w -fchecking -fplugin-arg-pap-mode=$mode \
	      --param ggc-min-expand=0 --param ggc-min-heapsize=0 \
	      "$src" -o prog) >gc-$mode/cc.log 2>&1; then
		fail "$mode with the collector at every pass: build failed: $(grep -m1 -o 'internal compiler error.*\|error:.*' gc-$mode/cc.log)"
		gc_ok=0; break
	fi
	if ! run gc-$mode | cmp -s plain.out -; then
		fail "$mode with the collector at every pass: output differs"
		gc_ok=0; break
	fi
done
[ $gc_ok = 1 ] &&
	echo "ok $n - epp and pap-epp build with GCC's collector run and its IR checked at every pass"

n=$((n + 1))
if "$papgcc" -fplugin-arg-pap-loop-count=sometimes -c "$src" -o x.o 2>err; then
	fail "loop-count=sometimes accepted"
elif ! grep -q "loop-count=sometimes.*unknown value (use register or memory)" err; then
	fail "loop-count=sometimes: unclear error: $(head -c 200 err)"
else
	echo "ok $n - loop-count=sometimes is refused: $(grep -o 'error:.*' err | head -1)"
fi
[ $fails -eq 0 ]
