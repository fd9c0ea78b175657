#!/bin/sh
# decode.sh - pap-decode's speed and memory on generated profiles: the
# median of 3 runs of each report, for 10^6 distinct paths and for 10^8
# breakpoints (override with PATHS=N BPS=N), against the targets of
# doc/benchmarks.md (each default report in 5 s and 256 MB, | head in 1 s,
# HTML in 10 s with no page over 2 MB).  Then the same default reports
# on the profiles of real programs that `make bench-scale` left in
# BUILDDIR/bench/work/scale/run/pap/*/pap.prof (lua, zlib, coremark,
# interp, sort), or on those PROFILES="NAME=FILE ..." names.
# Usage: decode.sh BUILDDIR
set -eu
b=$(cd "${1:-.}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x /usr/bin/time ] || { echo "decode.sh: needs /usr/bin/time" >&2; exit 1; }
# "WALL CPU RSS" of "$@": CPU is user + system (which a shared machine
# does not inflate), RSS the peak resident set; each the median of 3 runs
run3() {
	for i in 1 2 3; do
		/usr/bin/time -f "%e %U %S %M" -o "$tmp/time" "$@" >/dev/null
		tail -1 "$tmp/time"
	done | awk '{ w[NR] = $1; c[NR] = $2 + $3; m[NR] = $4 }
		function med(a, x, y, z) { x = a[1]; y = a[2]; z = a[3]
			if ((x <= y && y <= z) || (z <= y && y <= x)) return y
			if ((y <= x && x <= z) || (z <= x && x <= y)) return x
			return z }
		END { printf "%8.2f s wall %8.2f s cpu %7.0f MB peak\n",
			med(w), med(c), med(m) / 1024 }'
}
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for kind in paths bps; do
	n=$([ $kind = paths ] && echo "${PATHS:-1000000}" || echo "${BPS:-100000000}")
	mkdir -p "$tmp/$kind"
	"$b/bench/gen_profile" $kind "$n" "$tmp/$kind"
	prof=$tmp/$kind/bench.prof
	echo "== $kind: $(wc -c <"$prof") bytes of profile"
	echo "   text (default)     $(run3 "$b/decoder/pap-decode" "$prof")"
	echo "   --format=json      $(run3 "$b/decoder/pap-decode" --format=json "$prof")"
	echo "   text | head -1     $(run3 sh -c '"$0" "$1" | head -1' "$b/decoder/pap-decode" "$prof")"
	echo "   --html             $(run3 "$b/decoder/pap-decode" --html="$tmp/html" "$prof")"
	echo "   largest HTML page  $(ls -S "$tmp/html" | head -1 | xargs -I{} wc -c "$tmp/html/{}" | awk '{ printf "%.2f MB", $1 / 1048576 }')"
	rm -rf "$tmp/html"
	echo "   --format=paths     $(run3 "$b/decoder/pap-decode" --format=paths "$prof")"
	# random 200-way arms make every run of iterations distinct: the
	# k-IPF of the breakpoint profile would be as large as the stream
	[ $kind = bps ] ||
	echo "   --k 4 --top 1      $(run3 "$b/decoder/pap-decode" --k 4 --top 1 --no-source "$prof")"
	echo "   coverage           $(run3 "$b/decoder/pap-decode" coverage "$prof")"
	echo "   merge with itself  $(run3 "$b/decoder/pap-decode" merge "$prof" "$prof")"
	rm -rf "${tmp:?}/$kind"
done
# real programs' profiles: NAME=FILE each
real=${PROFILES:-}
if [ -z "$real" ]; then
	for p in "$b"/bench/work/scale/run/pap/*/pap.prof; do
		[ -f "$p" ] || continue
		real="$real $(basename "$(dirname "$p")")=$p"
	done
fi
[ -n "$real" ] ||
	echo "== no real program's profile (make bench-scale, or PROFILES=NAME=FILE)"
for np in $real; do
	name=${np%%=*} prof=${np#*=}
	echo "== $name: $(wc -c <"$prof") bytes of profile"
	echo "   text (default)     $(run3 "$b/decoder/pap-decode" "$prof")"
	echo "   --format=json      $(run3 "$b/decoder/pap-decode" --format=json "$prof")"
	echo "   json output        $("$b/decoder/pap-decode" --format=json "$prof" 2>/dev/null | wc -c | awk '{ printf "%.2f MB", $1 / 1048576 }')"
	echo "   text | head -1     $(run3 sh -c '"$0" "$1" | head -1' "$b/decoder/pap-decode" "$prof")"
	echo "   --html             $(run3 "$b/decoder/pap-decode" --html="$tmp/html" "$prof")"
	echo "   largest HTML page  $(ls -S "$tmp/html" | head -1 | xargs -I{} wc -c "$tmp/html/{}" | awk '{ printf "%.2f MB", $1 / 1048576 }')"
	rm -rf "$tmp/html"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
