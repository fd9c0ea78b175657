# tracelib.sh - what the end-to-end tests compare against the tracer
# (-fplugin-arg-pap-trace), sourced by oracle.sh, eh.sh and loopcount.sh.

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
