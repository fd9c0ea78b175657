#!/bin/sh
# htmlbounds.sh - the HTML report's bounds, on a program built to pass
# them: a function of more than 300 blocks is not drawn and its page says
# so; one of more than 150 edges is drawn with its counts beside the
# edges (xlabel), said, and a smaller one with them as labels; past
# 25,000 edges in all, the colder functions' graphs are not drawn, said,
# the hottest first (whether dot is installed or not); a function of 20,000 source lines has its listing cut so that the
# page stays under 2 MB, and says so; a path of more breakpoints than the
# k-IPF's bound (bench/gen_profile) has its forest not built, said.  The
# graphs drawn by the report's one run of dot are each the one
# --format=svg draws for that function alone (its counts from the old
# separate passes).  TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
gen=$top_builddir/bench/gen_profile
check() { if (eval "$2"); then ok "$1"; else not_ok "$1"; fi; }

# switch_fn NAME N M: a function of a switch of N cases, case k adding
# k * M and some bits of its argument
switch_fn() {
	echo "static void $1(int x)"
	echo '{'
	echo '	switch (x) {'
	k=0
	while [ $k -lt $2 ]; do
		echo "	case $k: acc += $k * $3 + (x & $((k % 7 + 1))); break;"
		k=$((k + 1))
	done
	echo '	default: acc--;'
	echo '	}'
	echo '}'
}
# sw: one case a line, 400 of them (more than 300 blocks at -O0);
# longsrc: 20,000 lines, a branch every 50; small, tiny, main: drawn;
# spin: one path of more than 10^7 blocks; mid: more than 150 edges
{
	echo 'volatile long acc;'
	switch_fn sw 400 3
	switch_fn mid 90 5
	echo 'static long longsrc(long s)'
	echo '{'
	awk 'BEGIN { for (i = 0; i < 20000; i++)
		if (i % 50 == 49)
			print "\tif (s & 1)\n\t\tacc++;"
		else
			printf "\ts = s * 3 + %d; /* a line long enough to weigh on the page, %d */\n", i % 11, i }'
	echo '	return s;'
	echo '}'
	echo 'static int tiny(int i) { return i & 1 ? i * 3 + 1 : i / 2; }'
	echo 'static void spin(long n)'
	echo '{'
	echo '	long i;'
	echo '	for (i = 0; i < n; i++) {'
	echo '		if (i % 3)'
	echo '			acc += i;'
	echo '		else'
	echo '			acc -= 1;'
	echo '	}'
	echo '}'
	echo 'static int small(int i)'
	echo '{'
	echo '	int n = 0;'
	echo '	while (i > 1) {'
	echo '		i = tiny(i);'
	echo '		n++;'
	echo '	}'
	echo '	return n;'
	echo '}'
	echo 'int main(void)'
	echo '{'
	echo '	int i;'
	echo '	for (i = 0; i < 1000; i++)'
	echo '		sw(i % 450);'
	echo '	for (i = 0; i < 1000; i++)'
	echo '		mid(i % 100);'
	echo '	for (i = 1; i < 40; i++)'
	echo '		acc += small(i);'
	echo '	acc += longsrc(acc);'
	echo '	spin(4000000);'
	echo '	return 0;'
	echo '}'
} >big.c
"$papgcc" -O0 -o big big.c && ./big && mv pap.prof big.prof ||
	{ echo "Bail out! cannot build or run the generated program"; exit 1; }
mkdir bps && "$gen" bps 600000 bps >/dev/null 2>&1 ||
	{ echo "Bail out! bench/gen_profile failed"; exit 1; }

"$decode" --html=h big.prof 2>err.h
"$decode" --html=hb bps/bench.prof 2>err.hb
# page NAME: the page of function NAME (its <h1>)
page() { grep -l "<h1>$1</h1>" h/f*.html; }

check "html: every page under 2 MB" \
	'[ $(ls h/*.html hb/*.html | wc -l) -ge 9 ] &&
	 for p in h/*.html hb/*.html; do [ $(wc -c <"$p") -le 2097152 ] || exit 1; done'
check "html: a graph of more than 300 blocks is not drawn, said" \
	'p=$(page sw) && ! grep -q "<svg" $p &&
	 grep -q "no picture: the graph has [0-9]* blocks, more than the 300 drawn here" $p'
check "html: the source of a function past a page's size is cut, said" \
	'p=$(page longsrc) && grep -q "s = s \* 3 + 1; /\* a line long enough to weigh on the page, 1 \*/" $p &&
	 grep -q "left out: a page holds 2 MB" $p && grep -q "</main>" $p'
check "html: a forest past the bound of its paths' blocks is not built, said" \
	'grep -q "path forest" hb/f0.html && ! grep -q "class=\"id\">BL " hb/f0.html &&
	 grep -q "not built here: its paths have [0-9]* blocks and [0-9]* packed breakpoints" hb/f0.html'
check "html: a forest within the bounds is built" \
	'p=$(page small) && grep -q "class=\"id\">BL " $p'

# edges NAME: the edges of NAME's graph as --format=dot gives them
edges() { "$decode" --format=dot --function "^$1\$" big.prof | grep -- "->"; }
# NAME's graph has more than 150 edges: its counts are external labels,
# the page says so; those into EXIT add up to its 1000 calls
check "html: a graph of more than 150 edges has its counts beside them, said" \
	'edges mid >mid.e && [ $(wc -l <mid.e) -gt 150 ] &&
	 ! grep -q " label=" mid.e &&
	 exit=$("$decode" --format=dot --function "^mid\$" big.prof |
		sed -n "s/^ *\(n[0-9]*\) \[label=\"EXIT\".*/\1/p") &&
	 [ "$(grep -- "-> $exit " mid.e | sed -n "s/.* xlabel=\"\([0-9]*\).*/\1/p" |
	      awk "{ s += \$1 } END { print s }")" = 1000 ] &&
	 p=$(page mid) && grep -q "<svg" $p &&
	 grep -q "Counts beside the edges, placed once the graph is laid out: it has more than 150 edges" $p'
check "html: a graph of at most 150 edges has its counts as labels, no note" \
	'edges small >small.e && [ $(wc -l <small.e) -le 150 ] &&
	 grep -q " label=\"[0-9]" small.e && ! grep -q "xlabel=\"[0-9]" small.e &&
	 p=$(page small) && grep -q "<svg" $p && ! grep -q "Counts beside" $p'

# many: 99 functions of 140 cases (284 edges each) and f0 of one block,
# fK called 3K+2 times, main once: past 25,000 edges the coldest are not
# drawn.  Expected: hottest first, each drawn if its --format=dot edges
# fit in what the hotter left (f0 does, after colder ones that did
# not); graphviz left out of PATH, it is not needed
awk 'BEGIN { print "volatile long acc;"
	print "static void f0(int x)\n{\n\tacc += x;\n}"
	for (f = 1; f < 100; f++) {
		printf "static void f%d(int x)\n{\n\tswitch (x) {\n", f
		for (k = 0; k < 140; k++)
			printf "\tcase %d: acc += %d; break;\n", k, k * 3 + f
		print "\tdefault: acc--;\n\t}\n}"
	}
	printf "static void (*const fs[])(int) = {"
	for (f = 0; f < 100; f++)
		printf " f%d,", f
	print " };\nint main(void)\n{\n\tint f, i;"
	print "\tfor (f = 0; f < 100; f++)"
	print "\t\tfor (i = 0; i < 3 * f + 2; i++)\n\t\t\tfs[f](i % 150);"
	print "\treturn 0;\n}" }' >many.c
mkdir many && (cd many && "$papgcc" -O0 -o many ../many.c && ./many) ||
	{ echo "Bail out! cannot build or run the generated program"; exit 1; }
mkdir nodot
PATH=$PWD/nodot "$decode" --html=hm many/pap.prof 2>err.hm
"$decode" --format=dot many/pap.prof |
	awk '/^digraph/ { f = $2; gsub(/"/, "", f) } / -> / { e[f]++ }
	     END { for (f in e) print (f == "main" ? 1 : 3 * substr(f, 2) + 2), f, e[f] }' |
	sort -rn | awk '{ if (u + $3 <= 25000) u += $3; else print $2 }' | sort >cut.want
for p in hm/f*.html; do
	grep -q "no picture: a report.s pictures draw 25000 edges at most, the hottest functions. first, and this graph.s [0-9]* do not fit" $p &&
		sed -n "s/.*<h1>\(.*\)<\/h1>.*/\1/p" $p
done | sort >cut.got
check "html: past 25,000 edges in all, the coldest graphs are not drawn, said" \
	'[ $(wc -l <cut.want) -ge 10 ] && ! grep -qx f0 cut.want &&
	 cmp -s cut.want cut.got &&
	 [ $(grep -l "not installed" hm/f*.html | wc -l) -eq $((101 - $(wc -l <cut.want))) ]'

# spin's one path, of 1.6*10^7 blocks, is printed from its form: its
# source lines and loops on its page are the text report's
"$decode" big.prof 2>/dev/null |
	awk '/^spin \(/ { s = 1; next } s && /^$/ { exit }
	     s && / blocks: / { b = 1; next }
	     s && b { if ($1 == "(" || $1 == "...") print $1
		      else if ($1 ~ /^\)\^/) print $1
		      else if ($2 == "|") print $1 }' >spin.text
grep -o '<td class="path">.*' $(page spin) | head -1 |
	sed 's/<span title="[^"]*">\([0-9]*\)<\/span>/\n\1\n/g;
	     s/<span class="rep">(<\/span>/\n(\n/g;
	     s/<span class="rep">)<sup>\([0-9]*\)<\/sup><\/span>/\n)^\1\n/g;
	     s/<span class="rep">&hellip;<\/span>/\n...\n/g' |
	grep -E '^([0-9]+|\(|\)\^[0-9]+|\.\.\.)$' >spin.html
check "html: a long path's lines and loops are the text report's" \
	'[ $(wc -l <spin.text) -gt 20 ] && grep -q "^)^" spin.text &&
	 cmp -s spin.text spin.html'

# each drawn page's SVG is what --format=svg draws of that function alone
if command -v dot >/dev/null 2>&1; then
	check "html: each graph drawn is its own function's, as --format=svg draws it" \
		'n=0
		 for f in small tiny main mid; do
			"$decode" --format=svg --function "^$f\$" big.prof |
				sed -n "/^<svg/,/^<\/svg>/p" >alone.svg &&
			sed "/<div class=\"cfg\">/s/.*<svg/<svg/" $(page $f) |
				sed -n "/^<svg/,/^<\/svg>/p" >page.svg &&
			[ -s alone.svg ] && cmp -s alone.svg page.svg || exit 1
			n=$((n + 1))
		 done; [ $n -eq 4 ]'
else
	skip "html: graphs drawn # graphviz not installed"
fi
echo "1..$n"
tap_done
