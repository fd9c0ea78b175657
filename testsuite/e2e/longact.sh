#!/bin/sh
# longact.sh - long activations cost what their packing cannot fold, not
# their length.  The runtime hands an open activation's breakpoints to
# its packer once the breakpoint stack is full, so: (1) longact.c's long
# activations (nested, abandoned by longjmp, inside a signal handler, in
# threads) decode exactly as the tracer saw them, in modes pap-epp and
# pap; (2) with a profiling timer whose handler runs instrumented code at
# any moment, every decoded path is one the tracer saw, and the traced
# activations missing from the profile are exactly those it reports
# lost; (3) bench/suite/interp.c at full work, one activation of 1.43
# billion blocks and 46 million breakpoints, runs under a 64 MB address
# space limit with nothing lost (an activation holding its breakpoints
# unpacked needs 1.1 GB), and at 1/400 of the work decodes as traced.
# TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
. "$top_srcdir/testsuite/e2e/tracelib.sh"
unset PAP_COLLECTOR PAP_PROFILE
src=$top_srcdir/testsuite/e2e/longact.c
interp=$top_srcdir/bench/suite/interp.c
# records reported lost in a profile
lost() { "$decode" print "$1" | sed -n 's/^l //p' | awk '{ s += $1 } END { print s + 0 }'; }

echo "1..5"
gcc -O2 -pthread -o plain "$src" && ./plain 100000 >plain.out || exit 1
for mode in pap-epp pap; do
	d=$tmp/$mode
	mkdir -p "$d"
	if ! (cd "$d" && PAP_PLUGIN_ARGS="-fplugin-arg-pap-trace -fplugin-arg-pap-mode=$mode" \
	      "$papgcc" -O2 -pthread -o prog "$src") >"$d/cc.log" 2>&1; then
		not_ok "$mode: compile"
		diag "$d/cc.log"
		continue
	fi
	(cd "$d" && ./prog 100000 >out)
	if ! cmp -s plain.out "$d/out"; then
		not_ok "$mode: output differs from the plain build"
	elif ! "$decode" --format=paths "$d/pap.prof" >"$d/decoded.raw" 2>"$d/decode.err"; then
		not_ok "$mode: pap-decode failed"
		diag "$d/decode.err"
	else
		trace_forms $mode "$d"
		"$decode" print "$d/pap.prof" >"$d/pap.txt"
		bps=$(awk '$1 == "p" { for (i = 7; i < NF; i += 2)
			s += $i == 4294967294 ? $(i + 1) % 4294967296 : 1 }
			END { print s + 0 }' "$d/pap.txt")
		if ! cmp -s "$d/decoded" "$d/traced"; then
			not_ok "$mode: decoded paths differ from the trace"
			diff "$d/decoded" "$d/traced" | head -5 | sed 's/^/# /'
		elif [ "$(lost "$d/pap.prof")" != 0 ] || [ "$bps" -lt 20000 ]; then
			not_ok "$mode: $(lost "$d/pap.prof") lost, $bps breakpoints"
		else
			ok "$mode: $(wc -l <"$d/pap.trace") activations, $bps breakpoints, decoded = traced"
		fi
	fi
done

# (2) a timer's handler at any moment (the tracer is not safe in a
# handler, so the oracle is test 1's trace and the program's count H of
# handlers run): every path decoded outside the handlers (and main,
# whose path the argument changes) is one test 1 traced, as often at
# most; the handlers' own paths (on_prof, and work
# from it) number H at most; and what was decoded plus what is reported
# lost is exactly test 1's activations plus 2H
d=$tmp/timer
mkdir -p "$d"
(cd "$d" && "$papgcc" -O2 -pthread -o prog "$src" &&
	timeout 120 ./prog 100000 timer >out 2>err) >"$d/cc.log" 2>&1
h=$(sed -n 's/^handlers //p' "$d/err")
if ! cmp -s plain.out "$d/out" || [ -z "$h" ]; then
	not_ok "timer: output differs from the plain build"
	diag "$d/cc.log"
	diag "$d/err"
elif [ ! -s "$tmp/pap-epp/traced" ]; then
	not_ok "timer: no trace from test 1 to compare with"
elif ! "$decode" --format=paths "$d/pap.prof" >"$d/decoded" 2>"$d/decode.err"; then
	not_ok "timer: pap-decode failed"
	diag "$d/decode.err"
else
	set -- $(awk -v h="$h" -v badf="$d/bad" '
	     NR == FNR { k = $1; c = $2; $1 = $2 = ""; ref[k $0] += c
		 total += c; next }
	     { k = $1; c = $2; fn = $1; $1 = $2 = ""; got += c
	       # main takes another path with the timer on
	       if (fn == "main") next
	       if (k $0 in ref && (fn != "work" || c <= ref[k $0]))
		   { if (c > ref[k $0]) { bad++; print k, c, $0 > badf } }
	       else if (fn == "on_prof" || fn == "work") handler += c
	       else { bad++; print k, c, $0 > badf } }
	     END { print bad + 0, got + 0, total + 2 * h, handler + 0 }' \
	     "$tmp/pap-epp/traced" "$d/decoded")
	lost=$(lost "$d/pap.prof")
	if [ "$1" != 0 ]; then
		not_ok "timer: $1 decoded paths that test 1 did not trace (or not as often)"
		cut -c1-300 "$d/bad" | head -3 | sed 's/^/# /'
	elif [ "$4" -gt $((2 * h)) ]; then
		not_ok "timer: $4 handler activations decoded, $h handlers ran"
	elif [ $(($2 + lost)) -ne "$3" ]; then
		not_ok "timer: $2 decoded + $lost lost, $3 made"
	else
		ok "timer: $h handlers; $2 activations decoded + $lost lost = $3 made"
	fi
fi

# (3) interp at full work under 64 MB of address space, and at 1/400
# decoded = traced
gcc -O2 -I"$top_srcdir/bench/suite" -o iplain "$interp" &&
	./iplain >iplain.out || exit 1
if ! "$papgcc" -O2 -I"$top_srcdir/bench/suite" -o interp "$interp" >cc.log 2>&1; then
	not_ok "interp: compile"
	diag cc.log
else
	rm -f pap.prof
	(ulimit -v 65536 && PAP_PROFILE=pap.prof ./interp >iout 2>ierr)
	st=$?
	if [ $st -ne 0 ] || ! cmp -s iplain.out iout; then
		not_ok "interp under ulimit -v 65536: exit $st, output as plain's"
		diag ierr
	elif ! "$decode" print pap.prof >pap.txt ||
	     [ "$(lost pap.prof)" != 0 ] || ! grep -q '^p run:' pap.txt; then
		not_ok "interp under ulimit -v 65536: $(lost pap.prof) lost, run's record $(grep -c '^p run:' pap.txt)"
	else
		bps=$(awk '$1 == "p" && $2 ~ /^run:/ { for (i = 7; i < NF; i += 2)
			s += $i == 4294967294 ? $(i + 1) % 4294967296 : 1 }
			END { print s + 0 }' pap.txt)
		ok "interp, 1.43e9 blocks in one activation, under ulimit -v 65536: nothing lost, $bps breakpoints kept"
	fi
fi
d=$tmp/interp-traced
mkdir -p "$d"
if (cd "$d" && PAP_PLUGIN_ARGS="-fplugin-arg-pap-trace" \
    "$papgcc" -O2 -I"$top_srcdir/bench/suite" -o prog "$interp" &&
    ./prog /400 >/dev/null) >"$d/cc.log" 2>&1 &&
   "$decode" --format=paths "$d/pap.prof" >"$d/decoded.raw" 2>"$d/decode.err"; then
	trace_forms pap-epp "$d"
	if cmp -s "$d/decoded" "$d/traced"; then
		ok "interp at 1/400: decoded = traced"
	else
		not_ok "interp at 1/400: decoded paths differ from the trace"
		diff "$d/decoded" "$d/traced" | head -5 | sed 's/^/# /'
	fi
else
	not_ok "interp at 1/400: build, run or decode failed"
	diag "$d/cc.log"
	diag "$d/decode.err"
fi
tap_done
