#!/bin/sh
# longloop.sh - one activation of 10^7 loop iterations, in every mode,
# decodes exactly: thousands of breakpoints.  Exact traces at N = 3000 and
# 6000 fix each block's count as a linear function of N (the loop has
# period 3); the decoded 10^7-iteration path must have exactly those
# counts and the same first and last blocks.  The profile holds them
# packed: a handful of repeats.  TAP output.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
papgcc=$(cd "$top_builddir/plugin" && pwd)/pap-gcc
decode=$(cd "$top_builddir/decoder" && pwd)/pap-decode
src=$(cd "$top_srcdir/testsuite/e2e" && pwd)/longloop.c
big=10002000	# >= 10^7, and N - 3000 a multiple of 3000
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# per-block counts of spin from trace lines "spin COMPLETE BLOCK..."
trace_hist() { awk '$1 == "spin" { for (i = 3; i <= NF; i++) c[$i]++ }
	END { for (b in c) print b, c[b] }' | sort -n; }
# the same from pap-decode
decoded_hist() { "$decode" --format=blocks pap.prof |
	awk '$1 == "spin" { print $2, $3 }' | sort -n; }

echo "1..3"
n=0
for mode in pap-epp pap epp; do
	n=$((n + 1))
	PAP_PLUGIN_ARGS="-fplugin-arg-pap-trace -fplugin-arg-pap-mode=$mode" \
		"$papgcc" -O2 -o traced "$src" &&
	PAP_PLUGIN_ARGS="-fplugin-arg-pap-mode=$mode" \
		"$papgcc" -O2 -o fast "$src" || { echo "not ok $n - $mode: build"; continue; }
	for k in 3000 6000; do
		rm -f pap.prof pap.trace
		./traced $k >/dev/null
		trace_hist <pap.trace >h$k
		decoded_hist >d$k
	done
	rm -f pap.prof
	./fast $big >out.big
	# breakpoints as written (a repeat, site 4294967294, is one) and as
	# they stand for (a repeat's length is r's low 32 bits)
	"$decode" print pap.prof >big.txt
	packed=$(awk '$1 == "p" && $2 ~ /^spin:/ { s += $6 } END { print s + 0 }' big.txt)
	bps=$(awk '$1 == "p" && $2 ~ /^spin:/ { for (i = 7; i < NF; i += 2)
		s += $i == 4294967294 ? $(i + 1) % 4294967296 : 1 }
		END { print s + 0 }' big.txt)
	decoded_hist >dbig
	awk -v N=$big 'NR == FNR { a[$1] = $2; next }
		{ printf "%s %d\n", $1, a[$1] + (N - 3000) / 3000 * ($2 - a[$1]) }' \
		h3000 h6000 >expected
	if ! cmp -s h3000 d3000 || ! cmp -s h6000 d6000; then
		echo "not ok $n - $mode: small runs differ from their traces"
	elif ! cmp -s expected dbig; then
		echo "not ok $n - $mode: 10^7 iterations decode to other counts"
		diff expected dbig | head -4 | sed 's/^/# /'
	elif [ $mode != epp ] && [ "$bps" -lt 1000 ]; then
		echo "not ok $n - $mode: only $bps breakpoints"
	else
		blocks=$(awk '{ s += $2 } END { print s }' dbig)
		echo "ok $n - $mode: $blocks blocks decoded exactly, $bps breakpoints ($packed as written)"
	fi
done
