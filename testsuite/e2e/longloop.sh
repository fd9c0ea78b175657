#!/bin/sh
# longloop.sh - one activation of 10^7 loop iterations, in every mode,
# decodes exactly: thousands of breakpoints.  Exact traces at N = 3000 and
# 6000 fix each block's count as a linear function of N (the loop has
# period 3); the decoded 10^7-iteration path must have exactly those
# counts and the same first and last blocks.  The profile holds them
# packed: a handful of repeats.  TAP output.
#
# Then one activation of 1.4 * 10^9 blocks (3 * 10^8 iterations) is
# reported from its packed form under a 500 MB address-space limit on
# pap-decode (the program runs without it): its block counts against the
# traces' linear counts, its text report, and its 2-IPF against the
# Ball-Larus streams of the small runs, counted by awk and extended
# linearly.  Expanded, the path alone would take 5.6 GB of block ids.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
papgcc=$(cd "$top_builddir/plugin" && pwd)/pap-gcc
decode=$(cd "$top_builddir/decoder" && pwd)/pap-decode
src=$(cd "$top_srcdir/testsuite/e2e" && pwd)/longloop.c
. "$top_srcdir/testsuite/tap.sh"
big=10002000	# >= 10^7, and N - 3000 a multiple of 3000
huge=300000000	# 1.4 * 10^9 blocks, and N - 3000 a multiple of 3000
vlimit=500000	# KB of address space for pap-decode on the huge path
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# per-block counts of spin from trace lines "spin COMPLETE BLOCK..."
trace_hist() { awk '$1 == "spin" { for (i = 3; i <= NF; i++) c[$i]++ }
	END { for (b in c) print b, c[b] }' | sort -n; }
# the same from pap-decode
decoded_hist() { "$decode" --format=blocks pap.prof |
	awk '$1 == "spin" { print $2, $3 }' | sort -n; }

echo "1..6"
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

# ---- one activation of 1.4 * 10^9 blocks, decoded from its packed form
# 1- and 2-grams of spin's Ball-Larus stream, "ID COUNT" / "ID ID COUNT"
bl_grams() { "$decode" --format=bl pap.prof | awk '$1 == "spin" {
	for (i = 3; i <= NF; i++) { g[$i] += $2; if (i > 3) g[$(i - 1) " " $i] += $2 } }
	END { for (k in g) print k, g[k] }' | sort; }
# the same from the text report's 2-IPF of spin
kipf_grams() { awk '/iteration path forest of spin/ { on = 1; next }
	on && /^$/ { on = 0 }
	on && /^  BL / { sub(":", "", $2); sub(",", "", $3); top = $2; print $2, $3 }
	on && /^    BL / { sub(":", "", $2); sub(",", "", $3); print top, $2, $3 }' | sort; }
# "BLOCK COUNT" (or "ID ... COUNT") at N from the counts at 3000 and 6000
extend() { awk -v N="$1" 'NR == FNR { k = $1; for (i = 2; i < NF; i++) k = k " " $i
		a[k] = $NF; next }
	{ k = $1; for (i = 2; i < NF; i++) k = k " " $i
	  printf "%s %d\n", k, a[k] + (N - 3000) / 3000 * ($NF - a[k]) }' "$2" "$3" | sort; }

if PAP_PLUGIN_ARGS="-fplugin-arg-pap-mode=pap-epp" "$papgcc" -O2 -o fast "$src"; then
	for k in 3000 6000; do
		rm -f pap.prof
		./fast $k >/dev/null
		bl_grams >g$k
	done
	extend $huge g3000 g6000 >gexpected
	extend $huge h3000 h6000 >hexpected
	rm -f pap.prof
	./fast $huge >out.huge
	# AddressSanitizer reserves terabytes of address space for its
	# shadow, so a sanitized pap-decode runs without the limit: the
	# results are checked all the same, the bound only in plain builds
	limit="ulimit -v $vlimit"
	under="ulimit -v $vlimit"
	if ldd "$decode" 2>/dev/null | grep -q libasan; then
		limit=:
		under="no address space limit (pap-decode built with AddressSanitizer)"
	fi
	( $limit
	  "$decode" --format=blocks pap.prof >blocks.huge 2>err.blocks &&
	  "$decode" --no-source pap.prof >text.huge 2>err.text &&
	  "$decode" --k=2 --min-share=0 pap.prof >k2.huge 2>err.k2 )
	rc=$?
	awk '$1 == "spin" { print $2, $3 }' blocks.huge | sort >dhuge
	total=$(awk '{ s += $2 } END { printf "%d", s }' hexpected)
	if [ $rc -ne 0 ]; then
		not_ok "huge: pap-decode fails under $under"
		cat err.blocks err.text err.k2 2>/dev/null | head -4 | sed 's/^/# /'
	elif ! cmp -s hexpected dhuge; then
		not_ok "huge: 3*10^8 iterations decode to other block counts"
		diff hexpected dhuge | head -4 | sed 's/^/# /'
	else
		ok "huge: $total blocks counted exactly from the packed form under $under"
	fi
	if grep -q "^ *1 100.0% $total blocks: .*)^[0-9]" text.huge; then
		ok "huge: the text report gives the path's $total blocks, loops as (...)^N"
	else
		not_ok "huge: the text report lacks the path of $total blocks"
		grep "blocks:" text.huge | cut -c1-200 | sed 's/^/# /'
	fi
	kipf_grams <k2.huge >khuge
	if [ -s khuge ] && cmp -s gexpected khuge; then
		ok "huge: the 2-IPF counts every 1- and 2-gram of $(wc -l <khuge) exactly"
	else
		not_ok "huge: the 2-IPF differs from the Ball-Larus streams extended"
		diff gexpected khuge | head -4 | sed 's/^/# /'
	fi
else
	not_ok "huge: build"
	not_ok "huge: build"
	not_ok "huge: build"
fi
tap_done
