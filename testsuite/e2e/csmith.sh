#!/bin/sh
# csmith.sh - differential testing on random programs from csmith: each
# program built with pap-gcc at -O0, -O2 and -O3 must compile (with
# GCC's IR checks after every pass, -fchecking), print the
# same checksum and exit with the same status as the plain gcc -O2 build,
# and its profile must decode.  PAP_CSMITH_PROGRAMS (default 200; 40 in
# a build with --enable-sanitizers, where only the decoder differs from
# the plain build's: the plugin and the runtime are built plain) and
# PAP_CSMITH_SEED (default 1) choose the programs; `make soak` runs many
# more.  Programs whose plain build runs over 2 s are replaced by the next
# seed.  TAP output, one line per program.
set -u
if [ "${1:-}" = one ]; then
	# one program: $2 seed, $3 work dir; prints one result line
	seed=$2
	d=$3/$seed
	inc=/usr/include/csmith
	mkdir -p "$d" && cd "$d" || exit 1
	csmith --seed "$seed" --max-funcs 4 --max-block-depth 4 >p.c 2>/dev/null ||
		{ echo "$seed skip csmith failed"; exit 0; }
	gcc -O2 -w -I$inc p.c -o plain 2>/dev/null || { echo "$seed skip plain gcc failed"; exit 0; }
	timeout 2 ./plain >plain.out 2>&1
	st=$?
	[ $st -eq 124 ] && { echo "$seed skip slow"; exit 0; }
	# -O2 may delete a loop that -O0 runs for seconds; the instrumented
	# -O0 build must then fit its time limit as well
	gcc -O0 -w -I$inc p.c -o plain0 2>/dev/null &&
		timeout 2 ./plain0 >/dev/null 2>&1
	[ $? -eq 124 ] && { echo "$seed skip slow"; exit 0; }
	for opt in -O0 -O2 -O3; do
		rm -f pap.prof
		if ! "$PAPGCC" $opt -w -fchecking -I$inc p.c -o inst 2>cc.err; then
			echo "$seed fail $opt: compile failed: $(head -c 200 cc.err | tr '\n' ' ')"
			exit 0
		fi
		timeout 60 ./inst >inst.out 2>&1
		ist=$?
		if [ $ist -ne $st ] || ! cmp -s plain.out inst.out; then
			echo "$seed fail $opt: output or status differs ($st vs $ist)"
			exit 0
		fi
		if ! "$DECODE" --format=paths pap.prof >/dev/null 2>dec.err; then
			echo "$seed fail $opt: decode failed: $(head -c 200 dec.err | tr '\n' ' ')"
			exit 0
		fi
	done
	acts=$("$DECODE" --format=paths pap.prof | awk '{ s += $2 } END { print s + 0 }')
	echo "$seed ok $acts"
	rm -rf "$d"
	exit 0
fi

top_builddir=$(cd "${top_builddir:-.}" && pwd)
PAPGCC=$top_builddir/plugin/pap-gcc
DECODE=$top_builddir/decoder/pap-decode
export PAPGCC DECODE
want=200
[ "${PAP_TEST_SANITIZED:-no}" = yes ] && want=40
want=${PAP_CSMITH_PROGRAMS:-$want}
seed=${PAP_CSMITH_SEED:-1}
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
if ! command -v csmith >/dev/null || [ ! -f /usr/include/csmith/csmith.h ]; then
	echo "1..0 # SKIP csmith or libcsmith-dev not installed (scripts/install-deps.sh)"
	exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "1..$want"
n=0
fails=0
acts=0
skipped=0
first=$seed
while [ $n -lt "$want" ]; do
	if [ $((seed - first)) -gt $((want * 3 + 20)) ]; then
		echo "Bail out! only $n usable programs in $((seed - first)) seeds"
		exit 1
	fi
	batch=$(( (want - n) * 11 / 10 + 2 ))
	seq "$seed" $((seed + batch - 1)) |
		xargs -P 2 -I{} sh "$self" one {} "$tmp" >"$tmp/results"
	seed=$((seed + batch))
	while read -r s status rest; do
		[ $n -lt "$want" ] || break
		case $status in
		skip) skipped=$((skipped + 1)) ;;
		ok)
			n=$((n + 1)); acts=$((acts + rest))
			echo "ok $n - csmith seed $s: -O0 -O2 -O3 match plain gcc, $rest activations decoded" ;;
		*)
			n=$((n + 1)); fails=$((fails + 1))
			echo "not ok $n - csmith seed $s: $rest"
			cp "$tmp/$s/p.c" "${TMPDIR:-/tmp}/pap-csmith-fail-$s.c" 2>/dev/null &&
				echo "# kept as ${TMPDIR:-/tmp}/pap-csmith-fail-$s.c" ;;
		esac
	done <"$tmp/results"
done
echo "# $n programs ($skipped slow or unbuildable seeds replaced), $acts activations decoded, $fails mismatches"
[ $fails -eq 0 ]
