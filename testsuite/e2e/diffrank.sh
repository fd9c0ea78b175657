#!/bin/sh
# diffrank.sh - pap-decode diff ranks changes by size: a pair of profiles
# built from one generated set of paths with counts chosen here, some
# paths only in the old one, some only in the new; the shares and the
# order of each section are computed here from those counts, and diff
# must list exactly the first --top of each, greatest change first, with
# --min-count and --min-share applied.  Counts are distinct, so a line's
# count names its path.  TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
gen=$top_builddir/bench/gen_profile
check() { if (eval "$2"); then ok "$1"; else not_ok "$1"; fi; }

"$gen" paths 12000 . >/dev/null 2>&1 && "$decode" print bench.prof >all.txt ||
	{ echo "Bail out! bench/gen_profile failed"; exit 1; }

# old.prof and new.prof: path i gets counts from a fixed pseudo-random
# sequence, i added so that no two are equal; one path in 8 is only in
# the old profile, one in 8 only in the new.  tie.prof is new.prof with
# the paths only in it all as frequent, and more than any other.
awk -v old=old.prof -v new=new.prof -v tie=tie.prof -v counts=counts '
	function rnd() { seed = (seed * 16807) % 2147483647
			 return int(seed / 16) }
	BEGIN { seed = 7 }
	$1 == "p" { i++; r = rnd() % 8
		a = r == 0 ? 0 : (rnd() % 100000) * 4096 + i
		b = r == 1 ? 0 : (rnd() % 100000) * 4096 + i
		print a, b >counts
		if (a) { $4 = a; o[++no] = $0 }
		if (b) { $4 = b; w[++nw] = $0; $4 = a ? b : 500000000
			 t[nw] = $0 } }
	END { print "pap-profile 6" >old
	      for (k = 1; k <= no; k++) print o[k] >old
	      print "e", no >old
	      print "pap-profile 6" >new
	      for (k = 1; k <= nw; k++) print w[k] >new
	      print "e", nw >new
	      print "pap-profile 6" >tie
	      for (k = 1; k <= nw; k++) print t[k] >tie
	      print "e", nw >tie }' all.txt

# want TOP MINCOUNT MINSHARE(%): per section ("appears", "disappears",
# "changes") the counts diff shows, in order, from the counts alone
want() {
	awk -v top="$1" -v mc="$2" -v pct="$3" '
		BEGIN { ms = pct / 100 }
		{ a[NR] = $1; b[NR] = $2; A += $1; B += $2 }
		END { for (i = 1; i <= NR; i++) {
			sa = a[i] / A; sb = b[i] / B
			if (!a[i] && b[i] >= mc && sb >= ms)
				printf "1 %.17g appears %d\n", sb, b[i]
			else if (!b[i] && a[i] >= mc && sa >= ms)
				printf "2 %.17g disappears %d\n", sa, a[i]
			else if (a[i] && b[i] && sb != sa &&
				 (sa >= ms || sb >= ms))
				printf("3 %.17g changes %d\n",
				       (sb > sa ? sb - sa : sa - sb), b[i]) } }' \
		counts |
	sort -k1,1n -k2,2gr |
	awk -v top="$1" '{ if ($1 != s) { s = $1; k = 0 }
			   if (!top || ++k <= top) print $3, $4 }'
}
# got ARGS...: the same as diff of old.prof and new.prof shows them
got() {
	"$decode" diff "$@" old.prof new.prof |
	awk '/^  appears / { print "appears", $6 }
	     /^  disappears / { print "disappears", $6 }
	     /^  (grows|shrinks) / { print "changes", $6 }'
}

want 10 0 0 >w10
got >g10
check "the 10 greatest changes of each section, greatest first, by default" \
	'[ $(wc -l <w10) -eq 30 ] && cmp -s w10 g10'
want 3 0 0 >w3
got --top=3 >g3
check "--top=3: only the 3 greatest of each section" \
	'[ $(wc -l <w3) -eq 9 ] && cmp -s w3 g3'
want 0 0 0 >w0
got --top=0 >g0
check "--top=0: every change, in order ($(wc -l <w0) of them)" \
	'[ $(wc -l <w0) -gt 2000 ] && cmp -s w0 g0'
want 0 200000000 0 >wc
got --top=0 --min-count 200000000 >gc
check "--min-count: paths that appear or disappear less often are left out" \
	'[ $(wc -l <wc) -gt 9000 ] && [ $(wc -l <wc) -lt $(wc -l <w0) ] &&
	 cmp -s wc gc'
# --min-count at the count of a path that appears, and at that of one
# that disappears: those paths are kept
mca=$(awk '!$1 { print $2 }' counts | sort -n | sed -n 100p)
mcd=$(awk '!$2 { print $1 }' counts | sort -n | sed -n 100p)
want 0 "$mca" 0 >wca
got --top=0 --min-count "$mca" >gca
want 0 "$mcd" 0 >wcd
got --top=0 --min-count "$mcd" >gcd
check "--min-count N keeps the paths that appear or disappear exactly N times" \
	'grep -qx "appears $mca" wca && grep -qx "disappears $mcd" wcd &&
	 cmp -s wca gca && cmp -s wcd gcd'
want 0 0 0.01 >ws
got --top=0 --min-share 0.01 >gs
check "--min-share: changes of paths below it on both sides are left out" \
	'[ $(wc -l <ws) -gt 1000 ] && [ $(wc -l <ws) -lt $(wc -l <w0) ] &&
	 cmp -s ws gs'
want 4 0 0.01 >ws4
got --top=4 --min-share 0.01 >gs4
check "--min-share with --top=4" '[ $(wc -l <ws4) -eq 12 ] && cmp -s ws4 gs4'
# equal changes in the order of their keys, the function's name and
# its blocks' numbers, as C strings: the first 10 of the paths that
# appear as often, the blocks --format=paths lists
"$decode" --format=paths tie.prof |
	awk '$2 == 500000000 { k = $1; for (i = 4; i <= NF; i++) k = k " " $i
			       print k }' | LC_ALL=C sort | head -10 |
	awk '{ s = NF - 1 " blocks:"
	       for (i = 2; i <= NF && i <= 25; i++) s = s " " $i
	       print s (NF > 25 ? " ..." : "") }' >wt
"$decode" diff old.prof tie.prof | sed -n 's/^  appears .* x //p' >gt
check "equal changes in the order of their paths' keys, among many ties" \
	'[ $(wc -l <wt) -eq 10 ] && cmp -s wt gt'
check "diff of a profile with itself lists no path" \
	'[ $("$decode" diff new.prof new.prof | grep -c "^  ") -eq 0 ]'
echo "1..$n"
tap_done
