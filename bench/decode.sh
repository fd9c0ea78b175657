#!/bin/sh
# decode.sh - pap-decode's speed on generated profiles: the median of 3
# runs of each report, for 10^6 distinct paths and for 10^7 breakpoints
# (override with PATHS=N BPS=N).  Usage: decode.sh BUILDDIR
set -eu
b=$(cd "${1:-.}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | sed -n 2p; }
# "WALL CPU" seconds of "$@" (CPU: user + system, which a shared machine
# does not inflate), the median of 3 runs by wall time
run3() {
	for i in 1 2 3; do
		s=$(date +%s.%N)
		cpu=$( ("$@" >/dev/null; times) | tail -1)
		e=$(date +%s.%N)
		echo "$cpu" | awk -v s="$s" -v e="$e" '{ split($1, u, "m")
			split($2, y, "m"); printf "%.2f s wall, %.2f s cpu\n",
			e - s, u[1] * 60 + u[2] + y[1] * 60 + y[2] }'
	done | median
}
for kind in paths bps; do
	n=$([ $kind = paths ] && echo "${PATHS:-1000000}" || echo "${BPS:-10000000}")
	mkdir -p "$tmp/$kind"
	"$b/bench/gen_profile" $kind "$n" "$tmp/$kind"
	prof=$tmp/$kind/bench.prof
	echo "== $kind: $(wc -c <"$prof") bytes of profile"
	echo "   --format=paths     $(run3 "$b/decoder/pap-decode" --format=paths "$prof")"
	echo "   text --top 10      $(run3 "$b/decoder/pap-decode" --top 10 "$prof")"
	# random 200-way arms make every run of iterations distinct: the
	# k-IPF of the breakpoint profile would be as large as the stream
	[ $kind = bps ] ||
	echo "   --k 4 --top 1      $(run3 "$b/decoder/pap-decode" --k 4 --top 1 --no-source "$prof")"
	echo "   coverage           $(run3 "$b/decoder/pap-decode" coverage "$prof")"
	echo "   merge with itself  $(run3 "$b/decoder/pap-decode" merge "$prof" "$prof")"
done
