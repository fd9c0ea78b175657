#!/bin/sh
# segsum.sh - the reports that show a function's first paths read the
# others only from their segments, each distinct segment decoded once
# (decoder/segsum.c), and coverage reads all but one so; what they say
# of the function must be what the full decoding of every path says.
# segsum.c's work makes thousands of
# distinct paths without repeats, cut into pieces inside acyclic paths
# (the inner loop's entry and exit), so that the Ball-Larus ids cross
# pieces and segments.  Oracles: the same report with --top=0, which
# decodes every path whole; --format=bl, which splits every path anew;
# the plain build's output.  A record made corrupt must be left out as
# the full decoding leaves it out, ids and all.  In pap-epp (the default)
# and pap, at -O1 and -O2.  TAP.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
papgcc=$(cd "$top_builddir/plugin" && pwd)/pap-gcc
decode=$(cd "$top_builddir/decoder" && pwd)/pap-decode
src=$(cd "$top_srcdir/testsuite/e2e" && pwd)/segsum.c
. "$top_srcdir/testsuite/tap.sh"
tmp=$(mktemp -d) || exit 1
[ -n "${PAP_KEEP_TMP:-}" ] && echo "# $tmp" || trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
check() { if (eval "$2"); then ok "$1"; else not_ok "$1"; fi; }

# summary PROFILE [OPTION]...: the text report's summary line of each function
summary() { p=$1; shift; "$decode" --no-source "$@" "$p" 2>/dev/null |
	grep '^[a-z_]* (.*): .* distinct paths'; }
# paths PROFILE N [OPTION]...: the first N path lines of work
paths() { p=$1 k=$2; shift 2; "$decode" --no-source "$@" "$p" 2>/dev/null |
	awk -v k="$k" '/^[a-z_]* \(/ { on = $1 == "work" }
		on && /^ +[0-9]+ +[0-9.]+% / && k-- > 0'; }
# jsum PROFILE [OPTION]...: work's counts in the JSON report
jsum() { p=$1; shift; "$decode" --format=json "$@" "$p" 2>/dev/null |
	tr '{' '\n' | grep '"name": "work"' |
	sed 's/.*\("activations": [0-9]*\).*\("distinct_paths": [0-9]*\).*\("acyclic_taken": [0-9]*\).*/\1 \2 \3/'; }
# taken PROFILE [OPTION]...: work's acyclic paths taken, text report
taken() { p=$1; shift; summary "$p" "$@" |
	sed -n 's/^work (.*acyclic paths \([0-9]*\) of .*/\1/p'; }
# cov PROFILE: work's distinct paths and acyclic paths taken, as
# coverage gives them
cov() { "$decode" coverage "$1" 2>/dev/null | awk '$1 == "work" { print $2, $3 }'; }
# full PROFILE: the same from the text report's summary with --top=0
full() { summary "$1" --top=0 | sed -n \
	's/^work (.*, \([0-9]*\) distinct paths,.*acyclic paths \([0-9]*\) of .*/\1 \2/p'; }
# distinct_bl PROFILE: the distinct ids of work's lines of --format=bl
distinct_bl() { "$decode" --format=bl --top=0 "$1" |
	awk '$1 == "work" { for (i = 3; i <= NF; i++)
		if ($i ~ /^[0-9]+$/) s[$i] = 1 }
		END { n = 0; for (k in s) n++; print n }'; }

gcc -O1 -o plain "$src" && ./plain > want.out || exit 1
echo "1..16"
for cfg in "pap-epp -O1" "pap-epp -O2" "pap -O1" "pap -O2"; do
	set -- $cfg
	mode=$1 opt=$2 d=$1$2
	mkdir $d && cd $d || exit 1
	if ! PAP_PLUGIN_ARGS="-fplugin-arg-pap-mode=$mode" "$papgcc" $opt \
	     -o ss "$src" || ! ./ss > got.out || ! cmp -s got.out ../want.out; then
		for i in 1 2 3 4; do
			not_ok "$d: segsum runs as the plain build does"
		done
		cd .. && continue
	fi
	mv pap.prof full.prof
	check "$d: work's paths are many, some with breakpoints" \
		'"$decode" print full.prof | awk '\''$1 == "p" && $2 ~ /^work:/ {
			n++; if ($6 > 0) b++ } END { exit !(n > 1000 && b > 100) }'\'''
	check "$d: the summaries, first paths and coverage are those of the full decoding" \
		'summary full.prof > a && summary full.prof --top=0 > b &&
		 [ -s a ] && cmp -s a b &&
		 summary full.prof --top=1 > c && cmp -s a c &&
		 paths full.prof 10 > a && paths full.prof 10 --top=0 > b &&
		 [ $(wc -l < a) -eq 10 ] && cmp -s a b &&
		 jsum full.prof > a && jsum full.prof --top=0 > b &&
		 grep -q acyclic_taken a && cmp -s a b &&
		 cov full.prof > a && full full.prof > b && [ -s b ] &&
		 cmp -s a b'
	check "$d: the acyclic paths taken are the distinct ids of --format=bl" \
		'a=$(taken full.prof) && [ -n "$a" ] && [ "$a" -gt 1 ] &&
		 [ "$a" = "$(distinct_bl full.prof)" ]'
	# activation 1234 alone takes the rare branch: its record, made
	# corrupt (its second breakpoint's site moved on), has ids no other
	# record has, and must not count them
	./ss 1 1234 > /dev/null && mv pap.prof one.prof &&
	rec=$("$decode" print one.prof | grep '^p work:' | cut -d' ' -f2-)
	"$decode" print full.prof > p.txt
	awk -v r="p $rec" '$0 == r { $9 = $9 + 1 } { print }' p.txt > bad.txt
	awk -v r="p $rec" '$0 == r { next } $1 == "e" { $2 = $2 - 1 } { print }' \
		p.txt > without.txt
	check "$d: a corrupt record is left out, its ids with it" \
		'[ -n "$rec" ] && ! cmp -s p.txt bad.txt &&
		 "$decode" --no-source bad.txt 2>err >/dev/null;
		 grep -q "work: a record cannot be decoded" err &&
		 summary bad.txt > a && summary bad.txt --top=0 > b &&
		 [ -s a ] && cmp -s a b &&
		 summary without.txt --top=0 > c && cmp -s a c &&
		 [ "$(taken bad.txt)" -lt "$(taken full.prof)" ]'
	cd ..
done
tap_done
