#!/bin/sh
# distinct.sh - a process's memory does not grow with the distinct paths
# it makes: each thread's aggregate is appended to the profile file and
# emptied once it holds PAP_SPILL bytes (8 MB by default).  distinct.c
# makes 100,000 distinct paths of 23 breakpoints each (37 MB of records
# held whole, 160 MB of address space to write them), so: (1) it runs
# under a 64 MB address-space limit with nothing lost, every path counted
# once; (2) that profile, read back, equals the one the same run writes
# without spilling and without a limit; (3) with a spill every few
# hundred records, a smaller run decodes exactly as the tracer saw it, in
# modes pap-epp and pap; (4) a PAP_SPILL that is not a size is said once,
# and the run is unharmed.  TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
. "$top_srcdir/testsuite/e2e/tracelib.sh"
unset PAP_COLLECTOR PAP_PROFILE PAP_SPILL
src=$top_srcdir/testsuite/e2e/distinct.c
nact=100000
steps=500
# records reported lost in a profile
lost() { "$decode" print "$1" | sed -n 's/^l //p' | awk '{ s += $1 } END { print s + 0 }'; }
# walk's records: "RECORDS ACTIVATIONS BREAKPOINTS"
walks() { "$decode" print "$1" | awk '$1 == "p" && $2 ~ /^walk:/ {
	r++; c += $4; b += $6 } END { print r + 0, c + 0, b + 0 }'; }

echo "1..5"
gcc -O2 -o plain "$src" && ./plain $nact $steps >plain.out || exit 1
"$papgcc" -O2 -o prog "$src" >cc.log 2>&1 || { cat cc.log; exit 1; }

# (1) under the limit
mkdir -p limited
(cd limited && ulimit -v 65536 && ../prog $nact $steps >out 2>err)
w=$(walks limited/pap.prof)
if ! cmp -s plain.out limited/out; then
	not_ok "under 64 MB: output differs from the plain build"
	diag limited/err
elif [ "$(lost limited/pap.prof)" != 0 ] || [ "$w" != "$nact $nact $((nact * 23))" ] ||
     [ -s limited/err ]; then
	not_ok "under 64 MB: walk's records, activations, breakpoints: $w; lost $(lost limited/pap.prof)"
	diag limited/err
else
	ok "under 64 MB: $nact distinct paths, $((nact * 23)) breakpoints, nothing lost"
fi

# (2) the same run without spilling
mkdir -p whole
(cd whole && PAP_SPILL=0 ../prog $nact $steps >out 2>err)
"$decode" print limited/pap.prof | sort >limited.txt
"$decode" print whole/pap.prof | sort >whole.txt
if [ ! -s whole.txt ] || ! cmp -s limited.txt whole.txt; then
	not_ok "spilled profile differs from the unspilled one"
	diff limited.txt whole.txt | head -5 | sed 's/^/# /'
else
	ok "spilled profile ($(wc -c <limited/pap.prof) bytes) reads as the unspilled one"
fi

# (3) many spills, against the tracer
for mode in pap-epp pap; do
	d=$tmp/$mode
	mkdir -p "$d"
	if ! (cd "$d" && PAP_PLUGIN_ARGS="-fplugin-arg-pap-trace -fplugin-arg-pap-mode=$mode" \
	      "$papgcc" -O2 -o prog "$src") >"$d/cc.log" 2>&1; then
		not_ok "$mode: compile"
		diag "$d/cc.log"
		continue
	fi
	(cd "$d" && PAP_SPILL=16k ./prog 2000 $steps >out 2>err)
	segs=$(grep -c . "$d/err")
	if ! cmp -s "$d/out" "$(./plain 2000 $steps >p2000.out; echo p2000.out)"; then
		not_ok "$mode: output differs from the plain build"
	elif ! "$decode" --format=paths "$d/pap.prof" >"$d/decoded.raw" 2>"$d/decode.err"; then
		not_ok "$mode: pap-decode failed"
		diag "$d/decode.err"
	else
		trace_forms $mode "$d"
		if ! cmp -s "$d/decoded" "$d/traced"; then
			not_ok "$mode: decoded paths differ from the trace"
			diff "$d/decoded" "$d/traced" | head -5 | sed 's/^/# /'
		elif [ "$segs" != 0 ] || [ "$(lost "$d/pap.prof")" != 0 ]; then
			not_ok "$mode: messages or losses"
			diag "$d/err"
		else
			ok "$mode: 2000 activations spilled 16 KB at a time decode as traced"
		fi
	fi
done

# (4) a bad PAP_SPILL
mkdir -p bad
(cd bad && PAP_SPILL=lots ../prog 100 $steps >out 2>err)
if ! cmp -s bad/out "$(./plain 100 $steps >p100.out; echo p100.out)" ||
   [ "$(grep -c "PAP_SPILL=lots is not a number of bytes" bad/err)" != 1 ] ||
   [ "$(walks bad/pap.prof)" != "100 100 2300" ]; then
	not_ok "PAP_SPILL=lots"
	diag bad/err
else
	ok "PAP_SPILL=lots: said once, nothing else changed"
fi
tap_done
