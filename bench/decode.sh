#!/bin/sh
# decode.sh - pap-decode's speed on generated profiles: the median of 3
# runs of each report, for 10^6 distinct paths and for 10^7 breakpoints
# (override with PATHS=N BPS=N).  Usage: decode.sh BUILDDIR
set -eu
b=$(cd "${1:-.}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | sed -n 2p; }
run3() {	# seconds of "$@", median of 3
	for i in 1 2 3; do
		s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N)
		awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f\n", e - s }'
	done | median
}
for kind in paths bps; do
	n=$([ $kind = paths ] && echo "${PATHS:-1000000}" || echo "${BPS:-10000000}")
	mkdir -p "$tmp/$kind"
	"$b/bench/gen_profile" $kind "$n" "$tmp/$kind"
	prof=$tmp/$kind/bench.prof
	echo "== $kind: $(wc -c <"$prof") bytes of profile"
	echo "   --format=paths   $(run3 "$b/decoder/pap-decode" --format=paths "$prof") s"
	echo "   text --top 10    $(run3 "$b/decoder/pap-decode" --top 10 "$prof") s"
	echo "   --k 4 --top 1    $(run3 "$b/decoder/pap-decode" --k 4 --top 1 --no-source "$prof") s"
	echo "   merge with itself $(run3 "$b/decoder/pap-decode" merge "$prof" "$prof") s"
done
