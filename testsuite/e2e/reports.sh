#!/bin/sh
# reports.sh - pap-decode's reports and profile tools on real profiles:
# the k-IPF against a brute-force k-gram counter over the Ball-Larus
# stream, annotated source against the independent tracer, merge
# (associative, commutative, stale builds refused), diff, coverage,
# filters, path spec files, graphviz output, and bad input of every kind
# answered with an error naming the file.  TAP output.
set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
papgcc=$top_builddir/plugin/pap-gcc
decode=$top_builddir/decoder/pap-decode
src=$top_srcdir/testsuite/e2e/reports.c
tmp=$(mktemp -d) || exit 1
[ -n "${PAP_KEEP_TMP:-}" ] && echo "# $tmp" || trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
. "$top_srcdir/testsuite/tap.sh"
check() { if (eval "$2"); then ok "$1"; else not_ok "$1"; fi; }

# k-grams of the Ball-Larus stream ("FN COUNT ID...") up to length K,
# counted by brute force: "FN ID.ID... COUNT", sorted
kgrams() {
	awk -v k="$1" '{ for (p = 3; p <= NF; p++) { g = $p
		for (m = 1; m <= k && p + m - 1 <= NF; m++) {
			if (m > 1) g = g "." $(p + m - 1)
			c[$1 " " g] += $2 } } }
	     END { for (x in c) print x, c[x] }' "$2" | sort
}
# the k-IPF text tree as "FN ID.ID... COUNT", sorted
forest_grams() {
	awk '/-iteration path forest of / { fn = $0
		sub(/.*path forest of /, "", fn); sub(/ .*/, "", fn); next }
	     /^ *BL [0-9]+: / && fn != "" { match($0, /^ */)
		d = RLENGTH / 2; id = $2; sub(/:$/, "", id); cnt = $3
		sub(/,$/, "", cnt); s[d] = id; g = s[1]
		for (i = 2; i <= d; i++) g = g "." s[i]
		print fn, g, cnt; next }
	     { fn = fn }' "$1" | sort
}

echo "1..40"

# one build with the tracer, in each mode, runs twice with other inputs
for mode in pap-epp pap; do
	mkdir -p $mode && (cd $mode &&
	PAP_PLUGIN_ARGS="-fplugin-arg-pap-trace -fplugin-arg-pap-mode=$mode" \
		"$papgcc" -O0 -o prog "$src" && ./prog 20 >/dev/null &&
		mv pap.prof a.prof && mv pap.trace a.trace &&
		./prog 31 >/dev/null && mv pap.prof b.prof &&
		mv pap.trace b.trace && ./prog 7 >/dev/null &&
		mv pap.prof c.prof) || { echo "Bail out! cannot build or run"; exit 1; }
done
cd pap-epp || exit 1

# --- k-iteration path forests ---
"$decode" --format=bl a.prof >bl || not_ok "Ball-Larus stream"
for k in 1 2 4; do
	"$decode" --no-source --k $k a.prof >tree.$k &&
	forest_grams tree.$k >got.$k && kgrams $k bl >want.$k
	check "k=$k: the k-IPF equals a brute-force k-gram count ($(wc -l <want.$k) grams)" \
		'[ -s want.$k ] && cmp -s got.$k want.$k'
done
"$decode" --format=bl ../pap/a.prof >bl.pap
check "the Ball-Larus ids mean the same in modes pap and pap-epp" \
	'sort bl >s1 && sort bl.pap >s2 && cmp -s s1 s2'
"$decode" --no-source --k 3 --min-share 10 a.prof >pruned
check "--min-share 10 prunes nodes under 10% of their root, and only them" \
	'forest_grams pruned | cmp -s - got.3 2>/dev/null; forest_grams pruned >p3;
	 "$decode" --no-source --k 3 a.prof | forest_grams /dev/stdin >all3;
	 [ $(wc -l <p3) -lt $(wc -l <all3) ] &&
	 awk "NR==FNR { if (split(\$2, a, \".\") == 1) root[\$1 \" \" a[1]] = \$3; next }
	      { split(\$2, a, \".\"); r = root[\$1 \" \" a[1]]
		if (\$3 * 10 < r) bad = 1 } END { exit bad }" all3 p3 &&
	 awk "{ split(\$2, a, \".\"); if (length(a) == 1) r[\$1 \" \" a[1]] = \$3 }
	      END { for (x in r) print x }" all3 | wc -l | grep -q . &&
	 grep -q "% of parent (" pruned'
"$decode" --format=json --k 2 a.prof >k.json
if python3 "$top_srcdir/testsuite/tools/json-valid.py" \
	"$top_srcdir/doc/pap-report.schema.json" k.json >valid.log 2>&1; then
	ok "json: valid against doc/pap-report.schema.json"
elif [ $? -eq 77 ] || ! command -v python3 >/dev/null; then
	skip "json: schema validation needs python3-jsonschema"
else
	not_ok "json: not valid against doc/pap-report.schema.json"
	sed 's/^/# /' valid.log
fi
check "json: each function has a forest of bl_path/count/lines/children" \
	'grep -q "\"forest\": \[{\"bl_path\": [0-9]*, \"count\": [0-9]*, \"lines\": \[[0-9]" k.json &&
	 [ $(grep -o "\"bl_path\"" k.json | wc -l) -eq $(grep -c . want.2) ]'

# --- the text report ---
"$decode" a.prof >report.txt
check "text: functions with activations, shares, lengths and source text" \
	'grep -q "^walk (.*reports.c): 20 activations" report.txt &&
	 grep -q "^ *[0-9]* *[0-9.]*% *[0-9]* blocks:" report.txt &&
	 grep -q "| .*s += i;" report.txt && grep -q ")^[0-9]" report.txt &&
	 grep -q "^hottest paths overall" report.txt'
check "text: functions hottest first, as --format=paths adds them up; --sort=name" \
	'"$decode" --format=paths a.prof | awk "{ s[\$1] += \$2 } END { for (f in s) print s[f], f }" |
	 LC_ALL=C sort -k1,1nr -k2,2 | awk "{ print \$2 }" >want.order &&
	 grep -E "^[A-Za-z_][A-Za-z0-9_.]* \(" report.txt | cut -d" " -f1 >got.order &&
	 [ $(wc -l <want.order) -ge 3 ] && cmp -s got.order want.order &&
	 "$decode" --sort=name a.prof | grep -E "^[A-Za-z_][A-Za-z0-9_.]* \(" |
	 cut -d" " -f1 | LC_ALL=C sort -c'
check "text: each summary line's acyclic paths are coverage's" \
	'"$decode" coverage a.prof | awk "NR > 1 && !/^total/ { print \$1, \$3, \$4 }" |
	 sort >want.cov &&
	 sed -n "s/^\([^ ]*\) (.*acyclic paths \([0-9]*\) of \([0-9.e+]*\) .*/\1 \2 \3/p" report.txt |
	 sort >got.cov && [ -s got.cov ] && cmp -s got.cov want.cov'
check "text: shares of a function add up to 100%" \
	'awk "/^walk /{f=1;next} /^\$/{f=0} f && /blocks:/ { s += \$2 }
	      END { exit !(s > 99.5 && s < 100.5) }" report.txt'

# --- annotated source against the tracer ---
# the tracer's block sequences, mapped to lines through the metadata:
# "LINE PATHS" for every line some block carries (the counts are gcov's,
# checked against gcov itself in gcov.sh)
awk 'FNR == 1 { file++ }
     file == 1 && $1 == "function" { fn = $2 }
     file == 1 && $1 == "lines" { b = substr($2, 2); for (i = 3; i <= NF; i++) {
	L[fn " " b] = L[fn " " b] " " $i; known[$i] = 1 } }
     file == 2 { key = $0; if (!(key in seen)) { seen[key] = 1; new = 1 } else new = 0
	delete on
	for (i = 3; i <= NF; i++) { m = split(L[$1 " " $i], ls, " ")
		for (j = 1; j <= m; j++) { cnt[ls[j]]++
			if (new && !((ls[j]) in on)) { on[ls[j]] = 1; paths[ls[j]]++ } } } }
     END { for (l in known) print l, paths[l] + 0 }' \
	./*.papm a.trace | sort -n >want.ann
"$decode" --format=annotate a.prof >ann
awk -F: '$1 ~ /^ *[0-9#]/ && $2 !~ /Source/ { split($1, a, " ")
	print a[3], a[2] }' ann | sort -n >got.ann
check "annotate: every line's distinct paths equal the tracer's" \
	'[ -s want.ann ] && cmp -s got.ann want.ann'
check "annotate: source text beside the counts" \
	'grep -q "^ *20 *[0-9]* *[0-9]*:static long walk(int n)" ann ||
	 grep -q ":	for (i = 0; i < n; i++) {" ann'

# --- merge ---
"$decode" merge a.prof b.prof c.prof >m1 && "$decode" merge c.prof b.prof a.prof >m2 &&
	"$decode" merge -o ab a.prof b.prof && "$decode" merge ab c.prof >m3 &&
	"$decode" merge b.prof c.prof >bc && "$decode" merge a.prof bc >m4
check "merge is commutative and associative (byte-identical results)" \
	'cmp -s m1 m2 && cmp -s m1 m3 && cmp -s m1 m4'
check "merge adds activations" \
	'for f in walk classify main; do
	   s=0; for p in a.prof b.prof c.prof; do
	     s=$((s + $("$decode" --format=paths --function "^$f\$" $p | awk "{s+=\$2} END {print s+0}")))
	   done
	   [ "$s" -eq "$("$decode" --format=paths --function "^$f\$" m1 | awk "{s+=\$2} END {print s+0}")" ] || exit 1
	 done; true'
"$decode" merge --text a.prof b.prof c.prof >m1.txt
check "merge --text writes the merge as text, as print of the binary merge does" \
	'head -1 m1.txt | grep -q "^pap-profile 6\$" && "$decode" print m1 | cmp -s - m1.txt'
"$decode" print a.prof | sed 's/^\(p walk:\)[0-9a-f]*/\10123456789abcdef/' >stale.prof
check "merge refuses one function with two checksums, naming it" \
	'! "$decode" merge -o out b.prof stale.prof 2>err && [ ! -e out ] &&
	 grep -q "stale.prof: function walk has checksum 0123456789abcdef" err'

# --- diff ---
"$decode" --format=paths a.prof | sort >pa
"$decode" --format=paths b.prof | sort >pb
"$decode" diff --top 100000 a.prof b.prof >d
check "diff: paths that appear are exactly those only in the new profile" \
	'[ $(grep -c "^  appears " d) -eq $(awk "{ \$2 = \"\"; print }" pa pa pb | sort | uniq -u | wc -l) ]'
check "diff: paths that disappear are exactly those only in the old profile" \
	'[ $(grep -c "^  disappears " d) -eq $(awk "{ \$2 = \"\"; print }" pa pb pb | sort | uniq -u | wc -l) ]'
check "diff: --top=0 lists every change, as a larger --top does; 10 by default" \
	'"$decode" diff --top=0 a.prof b.prof | cmp -s - d &&
	 [ $(grep -Ec "^  (grows|shrinks) " d) -gt 10 ] &&
	 "$decode" diff a.prof b.prof >d10 &&
	 [ $(grep -Ec "^  (grows|shrinks) " d10) -eq 10 ]'
check "diff of a profile with itself lists nothing" \
	'"$decode" diff a.prof a.prof >same && [ $(grep -c "^  " same) -eq 0 ]'

# --- coverage, filters, spec ---
"$decode" coverage a.prof >cov
check "coverage: distinct whole and acyclic paths against the graph's" \
	'awk "\$1 == \"walk\" { exit !(\$2 == $(grep -c "^walk " pa) && \$3 <= \$4 && \$4 > 1) }" cov'
check "--function keeps only matching functions" \
	'"$decode" --format=paths --function "^cl" a.prof | awk "\$1 != \"classify\" { exit 1 }" &&
	 [ -n "$("$decode" --format=paths --function "^cl" a.prof)" ]'
check "--top 2 and --min-count 3" \
	'[ $("$decode" --format=paths --top 2 a.prof | grep -c "^walk ") -eq 2 ] &&
	 "$decode" --format=paths --min-count 3 a.prof | awk "\$2 < 3 { exit 1 }"'
"$decode" --top 2 --write-spec=spec a.prof >/dev/null
check "--write-spec: pap-spec 2, the paths shown, with checksums" \
	'head -1 spec | grep -qx "pap-spec 2" &&
	 [ $(grep -c "^path walk checksum=[0-9a-f]\{16\} count=[0-9]* " spec) -eq 2 ] &&
	 "$decode" --format=paths --top 2 a.prof | awk "{ \$2 = \$3 = \"\"; print }" |
	   tr -s " " | sort >t1 &&
	 "$decode" check-spec spec | cut -d" " -f2- | sort | cmp -s - t1'

# --- graphviz ---
"$decode" --format=dot --function "^walk$" a.prof >walk.dot
check "dot: the CFG with flow-weighted edges and the hottest path marked" \
	'grep -q "^digraph \"walk\"" walk.dot && grep -q "penwidth=" walk.dot &&
	 grep -q "xlabel=\"#1\"" walk.dot'
if command -v dot >/dev/null 2>&1; then
	check "dot: graphviz renders it; --format=svg and png draw one function" \
		'dot -Tsvg walk.dot >walk.svg && grep -q "<svg" walk.svg &&
		 "$decode" --format=svg --function "^walk\$" a.prof >walk2.svg && grep -q "<svg" walk2.svg &&
		 "$decode" --format=png --function "^walk\$" a.prof >walk.png && head -c 4 walk.png | grep -q PNG &&
		 ! "$decode" --format=svg a.prof >/dev/null 2>err && grep -q "3 match" err'
else
	ok "dot: graphviz renders it as SVG # SKIP graphviz not installed"
fi

# --- the HTML report, loaded by a browser ---
"$decode" --html=html a.prof 2>html.err
rc=$?
check "html: written without a complaint" \
	'[ $rc -eq 0 ] && [ ! -s html.err ] && [ -s html/index.html ]'
if command -v chromium >/dev/null 2>&1; then
	browse() {
		timeout 120 chromium --headless --no-sandbox --disable-gpu \
			--disable-quic --no-first-run --disable-background-networking \
			--disable-component-update --disable-sync \
			--user-data-dir="$tmp/chromium" --dump-dom "file://$1" 2>/dev/null
	}
	browse "$PWD/html/index.html" >index.dom
	page=$(grep -o 'href="f[0-9]*.html">walk<' index.dom | sed 's/href="\([^"]*\)".*/\1/')
	check "html: the index lists functions by activity, with links" \
		'grep -q "Functions by activity" index.dom && [ -n "$page" ] &&
		 awk "/<td class=\"n\">/ && !x { x = 1 } END { exit !x }" index.dom &&
		 grep -o "\">[a-z]*</a></td>" index.dom | sed "s/[^a-z]*\([a-z]*\).*/\1/" >order &&
		 awk "{ a[\$1] += \$2 } END { for (f in a) print a[f], f }" pa |
		   sort -k1,1nr -k2 | awk "{ print \$2 }" | cmp -s - order'
	browse "$PWD/html/$page" >walk.dom
	check "html: a function page has its CFG picture, paths, k-IPF and source" \
		'grep -q "<svg" walk.dom && grep -q "Hottest paths" walk.dom &&
		 grep -q "3-iteration path forest" walk.dom && grep -q "% of parent (" walk.dom &&
		 grep -q "s += i;" walk.dom &&
		 [ $(grep -o "<tr><td class=\"n\">[0-9]*</td><td class=\"n\">[0-9]*</td><td class=\"n\"><span class=\"bar\"" walk.dom | wc -l) -eq $(grep -c "^walk " pa) ]'
else
	ok "html: the index lists functions by activity # SKIP chromium not installed"
	ok "html: a function page has its parts # SKIP chromium not installed"
fi

# --- bad input ---
"$decode" print a.prof >a.txt
# cut short by one byte: the last line still parses, its newline is gone
head -c $(($(wc -c <a.txt) - 1)) a.txt >trunc.prof
printf 'pap-profile 1\np walk:zz 1 1 1 0\n' >badkey.prof
head -c 300 /dev/urandom >random.prof
printf 'pap-profile 9\n' >version.prof
for f in trunc badkey random version; do
	"$decode" $f.prof >/dev/null 2>err.$f; echo $? >rc.$f
done
check "decode: truncated, corrupt, random and future profiles: exit 1, error naming the file" \
	'for f in trunc random version; do [ $(cat rc.$f) -eq 1 ] &&
	   grep -q "$f.prof:[0-9]*:* error:" err.$f || exit 1; done;
	 [ $(cat rc.badkey) -eq 1 ] && grep -q "error:" err.badkey &&
	 grep -q "^trunc.prof:[0-9]*: error: the last line has no newline" err.trunc &&
	 grep -q "version .9. is not supported (this pap reads" err.version'
head -n 2 a.txt >cutline.prof
check "decode: a text profile cut where a line ends is refused: its end line is missing" \
	'[ "$(wc -l <a.txt)" -gt 3 ] && ! "$decode" cutline.prof >/dev/null 2>err &&
	 grep -q "^cutline.prof:3: error: the profile ends without its end line" err &&
	 ! "$decode" merge -o cm.prof a.prof cutline.prof 2>err && [ ! -e cm.prof ] &&
	 grep -q "cutline.prof:3: error:" err'
check "decode: a stale profile is refused, naming the function" \
	'! "$decode" stale.prof >/dev/null 2>err && grep -q "function walk: the profile.s checksum" err'
cp a.prof flipped.prof
printf 'Z' | dd of=flipped.prof bs=1 seek=60 conv=notrunc 2>/dev/null
check "decode: a version 4 profile damaged inside is an error naming the file and byte" \
	'! "$decode" flipped.prof >/dev/null 2>err && grep -q "^flipped.prof: error: byte [0-9]*: " err'
check "merge and diff: corrupt input is an error naming the file" \
	'! "$decode" merge a.prof random.prof >/dev/null 2>err && grep -q "random.prof:" err &&
	 ! "$decode" diff a.prof trunc.prof >/dev/null 2>err && grep -q "trunc.prof:" err'
mkdir -p badmeta && cp a.prof badmeta/ &&
	sed 's|:[^: ]*\.papm| |' a.txt >badmeta/a.prof &&
	# cut inside the second function, whatever the paths' lengths
	cut=$(grep -b "^function " ./*.papm | sed -n "2s/:.*//p") &&
	head -c $((cut + 20)) ./*.papm >badmeta/x.papm
check "decode: truncated metadata is an error naming the file" \
	'! "$decode" badmeta/a.prof >/dev/null 2>err && grep -q "x.papm:[0-9]*: error:" err'
check "options: bad numbers and regular expressions are errors" \
	'! "$decode" --k 0 a.prof 2>/dev/null && ! "$decode" --top x a.prof 2>/dev/null &&
	 ! "$decode" --min-share 200 a.prof 2>/dev/null &&
	 ! "$decode" --function "(" a.prof 2>/dev/null'
{ sed '/^e /d' a.txt; echo 'l 7'; } | sed '1s/.*/pap-profile 2/' >lost.prof
check "decode: records reported lost are said, with their number" \
	'"$decode" lost.prof >/dev/null 2>err && grep -q "lost.prof: 7 records were reported lost" err &&
	 "$decode" a.prof >/dev/null 2>err && ! grep -q "reported lost" err'

# --- the README's example, as pap-decode prints it now ---
mkdir -p "$tmp/readme/examples" && cd "$tmp/readme" &&
	cp "$top_srcdir/examples/collatz.c" examples/ &&
	"$papgcc" -O2 examples/collatz.c -o collatz && ./collatz 12 >/dev/null &&
	"$decode" pap.prof >report 2>err ||
	not_ok "README example: cannot build, run or decode examples/collatz.c"
# the example block after "The report leads with", "[...]" where it cuts
awk '/^The report leads with/ { want = 1 } want && /^```$/ { if (in_ex) exit
	in_ex = 1; next } in_ex && $0 != "[...]"' "$top_srcdir/README.md" >readme.ex
check "README: every line of its example report is in the report, in order" \
	'[ $(wc -l <readme.ex) -gt 5 ] &&
	 awk "NR == FNR { w[++n] = \$0; next } i < n && \$0 == w[i + 1] { i++ }
	      END { exit i != n }" readme.ex report'
# the README's call-sequence example, through the collector as it says
rm -f calls.prof
"$papgcc" -O2 -fplugin-arg-pap-calls examples/collatz.c -o collatz &&
	"$top_builddir/collector/pap-collector" -o calls.prof --report=text \
		-- ./collatz 12 >calls.report 2>err ||
	not_ok "README calls example: cannot build, run or report"
awk '/^The call report follows/ { want = 1 } want && /^```$/ { if (in_ex) exit
	in_ex = 1; next } in_ex' "$top_srcdir/README.md" >readme.calls
check "README: its call-sequence example is the report's, line for line" \
	'[ $(wc -l <readme.calls) -gt 8 ] &&
	 awk "NR == FNR { w[++n] = \$0; next } i < n && \$0 == w[i + 1] { i++ }
	      END { exit i != n }" readme.calls calls.report &&
	 grep -q "^calling contexts: 2 distinct" calls.report'
cd "$tmp" || exit 1

tap_done
