# tracelib.sh - what the end-to-end tests compare against the tracer
# (-fplugin-arg-pap-trace), sourced by oracle.sh, eh.sh, loopcount.sh
# and tailcall.sh.

# aggregate_trace TRACE: trace lines "FN COMPLETE B..." as decoded paths
# are printed, "FN COUNT COMPLETE B...", sorted
aggregate_trace() {
	sort "$1" | uniq -c | awk '{ n = $1; fn = $2; $1 = ""; $2 = "";
		sub(/^  /, ""); print fn, n, $0 }' | sort
}

# block_totals FILE FIRST: per function and block, how often it was
# entered, sorted; FILE's blocks start at field FIRST: 4 for decoded
# paths ("FN COUNT COMPLETE B...", counted COUNT times), 3 for trace
# lines ("FN COMPLETE B...", once each)
block_totals() {
	awk -v first="$2" '{ for (i = first; i <= NF; i++) c[$1" "$i] += (first == 4 ? $2 : 1) }
	     END { for (k in c) print k, c[k] }' "$1" | sort
}

# trace_forms MODE DIR: DIR/decoded and DIR/traced from DIR/decoded.raw
# and DIR/pap.trace, in the form MODE's paths compare in: block totals
# in epp (its paths are acyclic pieces), whole paths otherwise
trace_forms() {
	if [ "$1" = epp ]; then
		block_totals "$2/decoded.raw" 4 >"$2/decoded"
		block_totals "$2/pap.trace" 3 >"$2/traced"
	else
		sort "$2/decoded.raw" >"$2/decoded"
		aggregate_trace "$2/pap.trace" >"$2/traced"
	fi
}
