#!/bin/sh
# blpieces.sh - the acyclic paths the text report counts, against the
# distinct ids of --format=bl, on records with repeats: the report
# gathers a record's ids from its form piece by piece, each piece read
# from a state of the numbering read before costing a lookup, and
# --format=bl splits every path anew.  blpieces.c's loops inside a loop
# make pieces that end at loop entries and exits, inside an acyclic
# path, so that a piece's state matters; in pap-epp and in pap.  Its
# jumps() makes short paths, split whole, whose stretches between back
# edges recur after either of two back edges into one head.  TAP.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
papgcc=$(cd "$top_builddir/plugin" && pwd)/pap-gcc
decode=$(cd "$top_builddir/decoder" && pwd)/pap-decode
src=$(cd "$top_srcdir/testsuite/e2e" && pwd)/blpieces.c
. "$top_srcdir/testsuite/tap.sh"
tmp=$(mktemp -d) || exit 1
[ -n "${PAP_KEEP_TMP:-}" ] && echo "# $tmp" || trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
check() { if (eval "$2"); then ok "$1"; else not_ok "$1"; fi; }

# distinct_bl PROFILE [FN]: the distinct ids of FN's (work's) lines of
# --format=bl
distinct_bl() { "$decode" --format=bl --top=0 "$1" |
	awk -v fn="${2:-work}" '$1 == fn { for (i = 3; i <= NF; i++)
		if ($i ~ /^[0-9]+$/) s[$i] = 1 }
		END { n = 0; for (k in s) n++; print n }'; }
# taken PROFILE [FN]: the text report's acyclic paths taken of FN (work)
taken() { "$decode" --no-source "$1" |
	sed -n "s/^${2:-work} (.*acyclic paths \([0-9]*\) of .*/\1/p"; }

echo "1..6"
for mode in pap-epp pap; do
	mkdir $mode && cd $mode || exit 1
	if ! PAP_PLUGIN_ARGS="-fplugin-arg-pap-mode=$mode" "$papgcc" -O1 \
	     -o blp "$src" || ! ./blp 4 >/dev/null; then
		not_ok "$mode: build and run blpieces"
		not_ok "$mode: build and run blpieces"
		not_ok "$mode: build and run blpieces"
		cd .. && continue
	fi
	# a breakpoint of site 4294967294 is a repeat (doc/formats.md)
	check "$mode: some of work's records hold a repeat" \
		'[ $("$decode" print pap.prof | grep "^p work:" |
		     grep -c " 4294967294 ") -ge 3 ]'
	check "$mode: the acyclic paths taken are the distinct ids of --format=bl" \
		'a=$(taken pap.prof) && [ -n "$a" ] && [ "$a" -gt 1 ] &&
		 [ "$a" = "$(distinct_bl pap.prof)" ]'
	# jumps' paths hold no repeat: each split whole, each stretch
	# between back edges noted once, by the back edge before it too
	check "$mode: jumps: the acyclic paths taken are the distinct ids of --format=bl" \
		'! "$decode" print pap.prof | grep "^p jumps:" | grep -q " 4294967294 " &&
		 a=$(taken pap.prof jumps) && [ -n "$a" ] && [ "$a" -gt 4 ] &&
		 [ "$a" = "$(distinct_bl pap.prof jumps)" ]'
	cd ..
done
tap_done
