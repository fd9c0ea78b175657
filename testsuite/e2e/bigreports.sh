#!/bin/sh
# bigreports.sh - the reports people read, on generated profiles: bounded
# by default (10 paths a function, a long path shown by its head, core and
# tail), hottest first against the --format=paths listing, the JSON's
# compact form of every path against the path expanded, every JSON
# report valid against doc/pap-report.schema.json, and a profile of 10^6
# distinct paths reported under an address-space limit.  TAP output.
set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
decode=$top_builddir/decoder/pap-decode
gen=$top_builddir/bench/gen_profile
schema=$top_srcdir/doc/pap-report.schema.json
valid=$top_srcdir/testsuite/tools/json-valid.py
tmp=$(mktemp -d) || exit 1
[ -n "${PAP_KEEP_TMP:-}" ] && echo "# $tmp" || trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
. "$top_srcdir/testsuite/tap.sh"
check() { if (eval "$2"); then ok "$1"; else not_ok "$1"; fi; }
vlimit=524288	# KB of address space for the 10^6 paths
hang=1200	# seconds: a guard against a hang, not a timing assertion

# expand: each line's ( ... )^N groups written out, numbers only
expand() {
	awk '{ m = 0
	       for (i = 1; i <= NF; i++) {
		if ($i == "(") { st[++sp] = m; continue }
		if ($i ~ /^\)\^/) { r = substr($i, 3) + 0; s = st[sp--]; e = m
			for (k = 1; k < r; k++)
				for (j = s + 1; j <= e; j++) o[++m] = o[j]
			continue }
		o[++m] = $i }
	       line = ""; for (j = 1; j <= m; j++) line = line " " o[j]
	       print line }'
}
# json_paths FILE: per path, "PACKED|IDS" (IDS empty without "blocks")
json_paths() {
	grep '"blocks_packed"' "$1" | sed 's/.*"blocks_packed": "\([^"]*\)".*/\1/' >packed.$$
	grep '"blocks_packed"' "$1" | awk '{ s = ""; t = $0
		while (match(t, /"id": [0-9]+/)) {
			s = s " " substr(t, RSTART + 6, RLENGTH - 6)
			t = substr(t, RSTART + RLENGTH) }
		print s }' >ids.$$
}

mkdir paths bps big
"$gen" paths 20000 paths >/dev/null 2>&1 &&
	"$gen" bps 200000 bps >/dev/null 2>&1 &&
	"$gen" paths 1000000 big >/dev/null 2>&1 ||
	{ echo "Bail out! bench/gen_profile failed"; exit 1; }

# --- the text report, bounded, hottest first ---
"$decode" --format=paths paths/bench.prof >all.paths
"$decode" --no-source paths/bench.prof >text
distinct=$(wc -l <all.paths)
check "text: 10 paths by default, then how many more ($((distinct - 10)))" \
	'[ $(grep -c " blocks: " text) -eq 10 ] &&
	 grep -q "^  \.\.\. $((distinct - 10)) more paths" text &&
	 grep -q "^bench (bench.c): [0-9]* activations, $distinct distinct paths" text'
check "text: the 10 shown are the hottest of --format=paths, hottest first" \
	'awk "{ print \$2 }" all.paths | sort -rn | head -10 >want.top &&
	 awk "/ blocks: / { print \$1 }" text | sed -n 1,10p >got.top &&
	 cmp -s want.top got.top && sort -rn got.top | cmp -s - got.top'
# every path has count 1: the order is all ties, broken by the blocks;
# what --top shows must be the start of the order --top=0 gives
"$decode" --no-source --top=0 paths/bench.prof | grep " blocks: " |
	sed -n 1,7p >top0.7
"$decode" --no-source --top=7 paths/bench.prof | grep " blocks: " >top7
check "text: --top=7 shows the first 7 paths of --top=0, ties in order" \
	'[ $(wc -l <top7) -eq 7 ] && cmp -s top0.7 top7 &&
	 [ $(awk "{ print \$2 }" all.paths | sort -u | wc -l) -eq 1 ]'
# the paths printed whole (at most 100 marks), each against its blocks
"$decode" --no-source --top=0 paths/bench.prof | awk "/ blocks: /" |
	sed "s/.* blocks://; s/\[[0-9,]*\]//g" >text.all
expand <text.all | paste -d"|" text.all - >text.exp
cut -d" " -f4- all.paths | sed "s/^/ /" | paste -d"|" text.exp - >pairs
check "text: a path of at most 100 marks, its groups expanded, is its blocks" \
	'[ $(wc -l <pairs) -eq $distinct ] &&
	 awk -F"|" "\$1 !~ / \.\.\./ { n++; if (\$2 != \$3) bad = 1 }
		   \$1 ~ / \.\.\./ { m++; if (split(\$1, t, \" \") > 400) bad = 1 }
		   END { print \"# \" n \" whole, \" m \" bounded\"; exit bad || !n || !m }" pairs'
check "--top=3 --min-count --min-share: each format shows the same paths" \
	'"$decode" --format=paths --top=3 paths/bench.prof | cut -d" " -f4- |
	 sed "s/^/ /" >p3 && "$decode" --format=json --top=3 paths/bench.prof >j3.json &&
	 json_paths j3.json && expand <packed.$$ | cmp -s - p3 &&
	 [ $(wc -l <p3) -eq 3 ] &&
	 c=$(awk "{ print \$2 }" all.paths | sort -rn | sed -n 5p) &&
	 "$decode" --format=paths --min-count=$c paths/bench.prof >pc &&
	 [ $(wc -l <pc) -eq $(awk -v c=$c "\$2 >= c" all.paths | wc -l) ] &&
	 "$decode" --no-source --top=0 --min-count=$c paths/bench.prof |
	   grep -c " blocks: " | grep -qx $(wc -l <pc) &&
	 "$decode" --format=paths --min-share=100 paths/bench.prof | wc -l | grep -qx 0'
check "bl: --top, --min-count and --min-share select the paths of --format=paths" \
	'"$decode" --format=bl --top=3 paths/bench.prof | cut -d" " -f1,2 >b3 &&
	 "$decode" --format=paths --top=3 paths/bench.prof | cut -d" " -f1,2 |
	   cmp -s - b3 && [ $(wc -l <b3) -eq 3 ] &&
	 c=$(awk "{ print \$2 }" all.paths | sort -rn | sed -n 7p) &&
	 "$decode" --format=bl --top=0 --min-count=$c paths/bench.prof |
	   wc -l | grep -qx $(awk -v c=$c "\$2 >= c" all.paths | wc -l) &&
	 "$decode" --format=bl --min-share=100 paths/bench.prof | wc -l | grep -qx 0'
check "blocks, lcov, coverage: a note that they count every path" \
	'"$decode" --format=lcov --top=3 paths/bench.prof 2>&1 >/dev/null |
	   grep -q "note: lcov counts every path" &&
	 "$decode" coverage --min-count=2 paths/bench.prof 2>&1 >/dev/null |
	   grep -q "note: coverage counts every path" &&
	 ! "$decode" --format=bl --top=3 paths/bench.prof 2>&1 >/dev/null |
	   grep -q "counts every path"'

"$decode" --format=paths bps/bench.prof >long.paths
"$decode" bps/bench.prof >long.text
check "text: a long path is its head, core and tail, '...' between, with its length" \
	'awk "/ blocks: / { if (NF > 400 || index(\$0, \" ...\") == 0) bad = 1; n++ }
	      END { exit bad || !n }" long.text &&
	 awk "{ print NF - 3 }" long.paths | sort -n | tail -1 >want.len &&
	 awk "/ blocks: / { print \$3 }" long.text | sort -n | tail -1 | cmp -s - want.len &&
	 [ $(wc -l <long.text) -lt 2000 ]'

# --- JSON: compact form against the expanded path ---
"$decode" --format=json --top=0 paths/bench.prof >all.json
json_paths all.json
check "json: every path's blocks_packed expands to its blocks and to --format=paths" \
	'expand <packed.$$ >exp && cmp -s exp ids.$$ &&
	 cut -d" " -f4- all.paths | sed "s/^/ /" | cmp -s - exp'
"$decode" --format=json --top=0 bps/bench.prof >long.json
json_paths long.json
check "json: paths over 1000 blocks have blocks_packed only, over 10^4 marks cut" \
	'! grep -q "\"blocks\": \[" long.json &&
	 [ $(grep -c "\"packed_cut\": true" long.json) -eq $(grep -c " \.\.\." packed.$$) ] &&
	 [ $(grep -c " \.\.\." packed.$$) -gt 0 ] &&
	 awk "{ if (NF > 400) bad = 1 } END { exit bad }" packed.$$'
"$decode" --format=json --top=0 --json-blocks bps/bench.prof >longf.json
json_paths longf.json
check "json: with --json-blocks every blocks_packed is whole, expanding to the path" \
	'! grep -q "packed_cut" longf.json && expand <packed.$$ >lexp &&
	 cut -d" " -f4- long.paths | sed "s/^/ /" | cmp -s - lexp'
"$decode" --format=json --top=5 --json-blocks bps/bench.prof >forced.json
json_paths forced.json
check "json: --json-blocks gives every path its blocks; --top 5 shows 5" \
	'[ $(wc -l <ids.$$) -eq 5 ] && expand <packed.$$ | cmp -s - ids.$$'
"$decode" --format=json paths/bench.prof >default.json
"$decode" --format=json --k=2 paths/bench.prof >k.json
check "json: 10 paths by default, what was left out, format_version 3, lost" \
	'[ $(grep -c "\"blocks_packed\"" default.json) -eq 10 ] &&
	 grep -q "\"paths_left_out\": $((distinct - 10))," default.json &&
	 grep -q "^{\"format_version\": 3, \"pap_version\": \"[0-9]" default.json &&
	 grep -q "\"lost\": 0" default.json'
if command -v python3 >/dev/null 2>&1; then
	python3 "$valid" "$schema" all.json long.json forced.json default.json \
		j3.json k.json >valid.log 2>&1
	rc=$?
else
	echo "no python3" >valid.log
	rc=77
fi
if [ $rc -eq 77 ]; then
	skip "json: schema validation needs python3-jsonschema ($(cat valid.log))"
elif [ $rc -eq 0 ]; then
	ok "json: every report valid against doc/pap-report.schema.json"
else
	not_ok "json: a report is not valid against the schema"
	diag valid.log
fi

# --- HTML: pages of bounded size, loaded by a browser ---
"$decode" --html=hp paths/bench.prof 2>err.hp &&
	"$decode" --html=hb bps/bench.prof 2>err.hb
check "html: every page under 2 MB, the index in four orders, 25 paths a page" \
	'[ $(ls hp/*.html hb/*.html | wc -l) -eq 10 ] &&
	 for p in hp/*.html hb/*.html; do [ $(wc -c <"$p") -le 2097152 ] || exit 1; done &&
	 for o in "" -paths -name -coverage; do [ -s hb/index$o.html ] || exit 1; done &&
	 [ $(grep -o "<span class=\"bar\"" hp/f0.html | wc -l) -eq 25 ] &&
	 grep -q "colder paths are left out" hp/f0.html && grep -q "&hellip;" hb/f0.html'
if command -v chromium >/dev/null 2>&1; then
	timeout 300 chromium --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$tmp/chromium" --dump-dom "file://$tmp/hb/f0.html" \
		>hb.dom 2>/dev/null
	check "html: chromium loads the largest page whole (paths, forest, source)" \
		'grep -q "Hottest paths" hb.dom && grep -q "path forest" hb.dom &&
		 grep -q "id=\"source\"" hb.dom && grep -q "</main>" hb.dom'
else
	skip "html: chromium is not installed"
fi

# --- 10^6 distinct paths under an address-space limit ---
limit="ulimit -v $vlimit"
under="ulimit -v $vlimit"
if ldd "$decode" 2>/dev/null | grep -q libasan; then
	limit=:
	under="no address space limit (pap-decode built with AddressSanitizer)"
fi
( $limit
  timeout $hang "$decode" big/bench.prof >big.text 2>err.text &&
  timeout $hang "$decode" --format=json big/bench.prof >big.json 2>err.json &&
  timeout $hang "$decode" coverage big/bench.prof >big.cov 2>err.cov )
rc=$?
if [ $rc -ne 0 ]; then
	not_ok "10^6 paths: pap-decode fails under $under (status $rc)"
	cat err.text err.json err.cov 2>/dev/null | head -4 | sed 's/^/# /'
else
	d=$(grep "^bench " big.text | sed 's/.*activations, \([0-9]*\) distinct.*/\1/')
	if [ "${d:-0}" -gt 990000 ] && [ $(grep -c " blocks: " big.text) -eq 10 ] &&
	   grep -q "\"paths_left_out\": $((d - 10))," big.json &&
	   grep -q "^bench  *$d " big.cov; then
		ok "10^6 paths: text, json and coverage under $under, 10 paths shown of $d"
	else
		not_ok "10^6 paths: the reports under $under are not what was recorded"
		head -3 big.text big.cov | sed 's/^/# /'
	fi
fi
echo "1..$n"
tap_done
