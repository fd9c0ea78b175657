#!/bin/sh
# toprun.sh - the first --top paths of a run of long paths of one count.
# Twelve distinct paths of spin, each of more than 10^7 blocks, all of
# count 1 and agreeing on their first blocks: the text and JSON reports
# choose the first --top of them without ordering the whole run, and
# what they show must be the start of the order --top=0 gives, where
# every path is ordered.  Then the acyclic paths the text report counts
# (gathered while decoding, a stretch between fold edges split once)
# against the distinct ids of --format=bl, which splits every path
# anew: on spin's long paths and on a generated profile of short ones,
# most without repeats.  TAP output.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
papgcc=$(cd "$top_builddir/plugin" && pwd)/pap-gcc
decode=$(cd "$top_builddir/decoder" && pwd)/pap-decode
gen=$(cd "$top_builddir/bench" && pwd)/gen_profile
src=$(cd "$top_srcdir/testsuite/e2e" && pwd)/toprun.c
. "$top_srcdir/testsuite/tap.sh"
iters=3400000	# 3 blocks an iteration: more than 10^7 blocks a path
tmp=$(mktemp -d) || exit 1
[ -n "${PAP_KEEP_TMP:-}" ] && echo "# $tmp" || trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
check() { if (eval "$2"); then ok "$1"; else not_ok "$1"; fi; }

echo "1..5"
if ! "$papgcc" -O1 -o toprun "$src" || ! ./toprun $iters >/dev/null; then
	for i in 1 2 3 4 5; do not_ok "build and run toprun"; done
	exit 0
fi
# the path lines of spin in a text report
spin_paths() { awk '/^spin / { on = 1; next } /^$/ { on = 0 }
	on && / blocks: / { print }'; }
# JSON: the compact forms of spin's paths, in order
json_spin() { tr '\n' ' ' | sed 's/{"name": /\n/g' | grep '^"spin"' |
	grep -o '"blocks_packed": "[^"]*"'; }
"$decode" --no-source --top=0 pap.prof >all.txt
spin_paths <all.txt >all.spin
check "spin: 12 distinct paths of count 1, each of more than 10^7 blocks" \
	'grep -q "^spin (.*): 12 activations, 12 distinct paths" all.txt &&
	 [ $(wc -l <all.spin) -eq 12 ] &&
	 [ $(awk "\$1 == 1 && \$3 > 10000000" all.spin | wc -l) -eq 12 ]'
"$decode" --format=json --top=0 pap.prof | json_spin | sed -n 1,4p >jall
# the profile as text, its records in three orders: as written, reversed
# and rotated, so that the first paths are not the first records
"$decode" print pap.prof >p.txt
grep '^p spin:' p.txt >recs
{ sed -n 1,2p p.txt; cat recs; tail -n 1 p.txt; } >order1.prof
{ sed -n 1,2p p.txt; sed '1!G;h;$!d' recs; tail -n 1 p.txt; } >order2.prof
{ sed -n 1,2p p.txt; sed -n '6,$p' recs; sed -n 1,5p recs
  tail -n 1 p.txt; } >order3.prof
text_ok=1 json_ok=1
for o in 1 2 3; do
	"$decode" --no-source --top=0 order$o.prof | spin_paths >o$o.all
	cmp -s o$o.all all.spin || text_ok=0
	for k in 1 3 5; do
		"$decode" --no-source --top=$k order$o.prof | spin_paths >o$o.top
		sed -n "1,${k}p" all.spin | cmp -s - o$o.top || text_ok=0
	done
	"$decode" --format=json --top=4 order$o.prof | json_spin >o$o.j4
	[ $(wc -l <o$o.j4) -eq 4 ] && cmp -s jall o$o.j4 || json_ok=0
done
check "text: --top=1, 3 and 5 show the first paths of --top=0's order, the records in any order" \
	'[ $text_ok = 1 ] && ! cmp -s order1.prof order2.prof'
check "json: --top=4 shows the first 4 paths of --top=0's order, the records in any order" \
	'[ $json_ok = 1 ]'
# distinct_bl FUNCTION PROFILE: the distinct ids of --format=bl's lines
distinct_bl() { "$decode" --format=bl --top=0 "$2" |
	awk -v f="$1" '$1 == f { for (i = 3; i <= NF; i++)
		if ($i ~ /^[0-9]+$/) s[$i] = 1 }
		END { n = 0; for (k in s) n++; print n }'; }
# taken FUNCTION PROFILE: the text report's acyclic paths taken
taken() { "$decode" --no-source "$2" |
	sed -n "s/^$1 (.*acyclic paths \([0-9]*\) of .*/\1/p"; }
check "spin: the acyclic paths taken are the distinct ids of --format=bl" \
	'a=$(taken spin pap.prof) && [ -n "$a" ] && [ "$a" -gt 1 ] &&
	 [ "$a" = "$(distinct_bl spin pap.prof)" ]'
mkdir gen
if "$gen" paths 3000 gen >/dev/null 2>&1; then
	check "generated, 3000 short paths: the acyclic paths taken are the distinct ids of --format=bl" \
		'a=$(taken bench gen/bench.prof) && [ -n "$a" ] &&
		 [ "$a" -gt 1 ] && [ "$a" = "$(distinct_bl bench gen/bench.prof)" ]'
else
	not_ok "bench/gen_profile failed"
fi
tap_done
