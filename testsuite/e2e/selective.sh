#!/bin/sh
# selective.sh - selective path profiling end to end (spec=, psp=).
# selective.c (loops, branches, a switch, recursion, two threads) is built
# in full and run on input A; a path spec is made of its hottest paths
# (pap-decode --write-spec) plus paths it never took (taken on input B
# only).  Rebuilt with that spec for each strategy at -O0 and -O2 and run
# on A, the program must print and exit as the plain build does, and
# each path of interest's count must equal its count in the full run's
# --format=paths (0 when absent), the oracle, which shares no code with
# the selective plan; each function's activations must equal the full
# run's.  Bad specs must give errors naming FILE:LINE.  TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
src=$top_srcdir/testsuite/e2e/selective.c
A=60
B=3000

gcc -O2 -w -pthread "$src" -o plain ||
	{ echo "Bail out! plain build failed"; exit 1; }
./plain $A >plain.out
plain_rc=$?

# the full build, and its paths on A and on B
mkdir full && cd full || exit 1
"$papgcc" -O0 -w -pthread "$src" -o prog ||
	{ echo "Bail out! full build failed"; exit 1; }
./prog $B >/dev/null
"$decode" --top=0 --write-spec=../b.spec pap.prof >/dev/null &&
rm -f pap.prof && { ./prog $A >/dev/null; true; } &&
"$decode" --top=0 --format=paths pap.prof >../a.paths &&
"$decode" --top=3 --write-spec=../a.spec pap.prof >/dev/null ||
	{ echo "Bail out! full run failed"; exit 1; }
cd .. || exit 1

. "$top_srcdir/testsuite/e2e/selspec.sh"
# the spec: A's 3 hottest paths of each function, and up to 2 of each
# function's paths that only B took
awk "$spec_key"'
     NR == FNR { if ($1 == "path") seen[key()] = 1; print; next }
     $1 == "path" { k = key(); split(k, f, " ")
	if (!(k in seen) && added[f[1]]++ < 2) print }' a.spec b.spec >all.spec
# spp takes paths without a back edge: no block twice
sel_acyclic all.spec >spp.spec
# activations: "FUNCTION TOTAL" of the full run on A
sel_full_acts a.paths >a.acts

nnever=$(sel_expect a.paths all.spec | awk '$2 == 0' | wc -l)
nspp=$(grep -c '^path' spp.spec)
echo "1..26"
if [ "$nnever" -ge 4 ] && [ "$nspp" -ge 4 ]; then
	ok "spec: $(grep -c '^path' all.spec) paths, $nnever never taken on A, $nspp acyclic"
else
	not_ok "spec: $nnever never-taken paths, $nspp acyclic ones"
fi

for opt in -O0 -O2; do
	for s in spp 0 1 2 3 follow; do
		d=b$opt$s
		spec=$tmp/all.spec
		[ "$s" = spp ] && spec=$tmp/spp.spec
		mkdir "$d"
		what="$opt psp=$s"
		if ! (cd "$d" && "$papgcc" $opt -w -pthread \
		      -fplugin-arg-pap-spec="$spec" -fplugin-arg-pap-psp=$s \
		      "$src" -o prog) >"$d/cc.log" 2>&1; then
			not_ok "$what: build"
			diag "$d/cc.log"
			continue
		fi
		(cd "$d" && ./prog $A >out; echo $? >rc)
		if ! cmp -s plain.out "$d/out" ||
		   [ "$(cat "$d/rc")" != "$plain_rc" ]; then
			not_ok "$what: output or status differs from plain"
			continue
		fi
		sel_decode "$d" "$what" || continue
		# "LINE COUNT" per path of interest, by spec line
		sel_got "$d" >"$d/got"
		sel_expect a.paths "$spec" | sort -n >"$d/want"
		sel_acts "$d" >"$d/acts"
		# early ends by technique: "T1 T2 T3", summed
		early=$(awk '/ended early/ { gsub("[,)]", "");
				a += $7; b += $9; c += $11 }
			     END { print a + 0, b + 0, c + 0 }' "$d/sel.txt")
		# which a strategy may use (doc/algorithms.md), each of
		# which this input must exercise
		case $s in
		spp|2) techs="0 0 1" ;;
		0) techs="1 0 0" ;;
		1) techs="0 1 0" ;;
		3|follow) techs="0 1 1" ;;
		esac
		if sel_counts_bad "$d" "$what" 3; then
			:
		elif [ "$(echo $early | awk '{ print ($1 > 0), ($2 > 0), ($3 > 0) }')" != "$techs" ]; then
			not_ok "$what: early ends (T1 T2 T3: $early) not of the strategy's techniques ($techs)"
		else
			ok "$what: $(wc -l <"$d/want") counts exact, early ends T1 T2 T3: $early"
		fi
	done
done

# merging: two selective profiles add up; a selective and a full one
# are refused
d=b-O02
if "$decode" merge -o m.prof $d/pap.prof $d/pap.prof 2>m.err &&
   "$decode" --format=selective m.prof >m.txt 2>>m.err; then
	awk '/^ +[0-9]+  / { n = split($2, w, ":"); print w[n], $1 }' m.txt |
		sort -n >m.got
	awk '{ print $1, 2 * $2 }' $d/want >m.want
	if cmp -s m.want m.got; then
		ok "merged selective profiles: counts add up"
	else
		not_ok "merged selective profiles: counts add up"
	fi
else
	not_ok "merging selective profiles"
	diag m.err
fi
# diff: each path of interest taken doubles, against the oracle's counts
"$decode" diff --top=1000 $d/pap.prof m.prof >m.diff 2>&1
awk '$2 > 0' $d/want >m.diffwant
if awk '/^  .*: [0-9]+ -> [0-9]+$/ { n = split($2, w, ":")
		print w[n - 1], ($5 == 2 * $3) ? $3 : "not doubled" }' m.diff |
   sort -n | cmp -s - m.diffwant; then
	ok "diff of selective profiles: $(wc -l <m.diffwant) paths of interest double"
else
	not_ok "diff of selective profiles: the paths of interest's counts"
	diag m.diff
fi
if "$decode" merge -o m2.prof full/pap.prof $d/pap.prof 2>m2.err; then
	not_ok "merging a selective and a full profile is refused"
elif grep -q "selective build's profile and .* a full build's" m2.err; then
	ok "merging a selective and a full profile is refused"
else
	not_ok "the refusal to merge says why"
	diag m2.err
fi

# the main reports carry the counts: JSON (read by python, valid
# against the schema), coverage (paths taken) and the HTML index, each
# against the oracle's counts of one build
d=b-O22
# json_counts FORMAT WHAT ASSERT: pap-decode --format=FORMAT's paths of
# interest (python, after the python statement ASSERT on the report r)
# against the oracle's counts, and the report valid against the schema
json_counts() {
	"$decode" --format=$1 $d/pap.prof >$d/$1.json 2>$d/$1.err
	if python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
'"$3"'
for f in r["selective"]:
    for p in f["paths"]:
        print(p["spec"].rsplit(":", 1)[1], p["count"])' $d/$1.json 2>&1 |
	   sort -n | cmp -s - $d/want; then
		python3 "$top_srcdir/testsuite/tools/json-valid.py" \
			"$top_srcdir/doc/pap-report.schema.json" $d/$1.json \
			>$d/valid.log 2>&1
		case $? in
		0) ok "$2, valid against the schema" ;;
		77) ok "$2 (schema not checked: no python3-jsonschema)" ;;
		*)
			not_ok "$2: not valid against the schema"
			diag $d/valid.log ;;
		esac
	else
		not_ok "$2"
		diag $d/$1.err
	fi
}
json_counts json "json report: each path of interest's count" ""
# --format=selective-json: the same counts, the stamp every JSON output
# carries (format_version, pap_version, lost)
json_counts selective-json \
	"selective-json: the counts, format_version, pap_version, lost" \
	'assert r["format_version"] == 3 and r["pap_version"] and r["lost"] == 0'
"$decode" coverage $d/pap.prof >$d/cov.txt 2>&1
taken=$(awk '$2 > 0' $d/want | wc -l)
if awk -v all="$(wc -l <$d/want)" -v taken="$taken" '
	/^selective function/ { on = 1; next }
	on && $1 == "total" { found = ($2 == all && $3 == taken) }
	END { exit !found }' $d/cov.txt; then
	ok "coverage: $taken of $(wc -l <$d/want) paths of interest taken"
else
	not_ok "coverage: paths of interest taken"
	diag $d/cov.txt
fi
"$decode" --html=$d/html $d/pap.prof 2>$d/html.err
if grep -q "<h2>Paths of interest</h2>" $d/html/index.html &&
   grep -o '<td class="muted">[^<]*</td><td class="n">[0-9]*</td></tr>' \
	$d/html/index.html |
   sed 's/.*:\([0-9]*\)<\/td><td class="n">\([0-9]*\)<.*/\1 \2/' |
   sort -n | cmp -s - $d/want; then
	ok "html index: each path of interest's count"
else
	not_ok "html index: the paths of interest's counts"
	diag $d/html.err
fi

# errors name the spec's FILE:LINE
# refused WHAT SPEC PATTERN [OPTION...]: a compile with SPEC fails and
# its messages match PATTERN
refused() {
	what=$1 spec=$2 pat=$3
	shift 3
	if "$papgcc" -O0 -w -pthread -fplugin-arg-pap-spec="$spec" "$@" \
		-c "$src" -o x.o >cc.log 2>&1; then
		not_ok "$what: accepted"
	elif grep -q "$pat" cc.log; then
		ok "$what"
	else
		not_ok "$what: not said so"
		diag cc.log
	fi
}
mkdir err && cd err || exit 1
sed 's/^\(path scan checksum=[0-9a-f]* count=[0-9]*\) .*/\1 1 999/' \
	../all.spec >bad.spec
line=$(grep -n '^path scan .* 999$' bad.spec | head -1 | cut -d: -f1)
refused "a bad block is refused naming bad.spec:$line" "$tmp/err/bad.spec" \
	"bad.spec:$line: .*scan.* no block 999"
refused "spp refuses a path with a back edge, naming its spec line" \
	"$tmp/all.spec" "all.spec:[0-9]*: .*back edge" -fplugin-arg-pap-psp=spp
# a spec of another build of the function
sed 's/^\(path walk checksum=\)[0-9a-f]*/\10123456789abcdef/' \
	../all.spec >old.spec
line=$(grep -n '^path walk' old.spec | head -1 | cut -d: -f1)
refused "a spec of a changed function is refused naming old.spec:$line" \
	"$tmp/err/old.spec" "old.spec:$line: .*walk.* has changed"
# what cannot be copied falls back, and a unit without a spec's
# function says so, under verbose
printf 'int other(int x) { return x ? 1 : 2; }\n' >other.c
"$papgcc" -O0 -w -pthread -fplugin-arg-pap-spec=$tmp/all.spec \
	-fplugin-arg-pap-verbose -c "$src" -o x.o >v.log 2>&1
if grep -q "guarded.*no uninstrumented copy (setjmp" v.log; then
	ok "a function with setjmp falls back (verbose says so)"
else
	not_ok "a function with setjmp falls back (verbose says so)"
	diag v.log
fi
"$papgcc" -O0 -w -fplugin-arg-pap-spec=$tmp/all.spec \
	-fplugin-arg-pap-verbose -c other.c -o o.o >o.log 2>&1
if [ $? -eq 0 ] && grep -q "all.spec:[0-9]*: function .scan. is not defined in this unit" o.log; then
	ok "a unit without the spec's functions builds, with a note"
else
	not_ok "a unit without the spec's functions builds, with a note"
	diag o.log
fi
# paths by source lines: each of classify's paths on A written as the
# lines the metadata gives its blocks (consecutive equal ones once, in
# awk); built with them, each counts what the full run counted
cd "$tmp" || exit 1
awk 'FNR == NR { if ($1 == "function") f = $2
		 if ($1 == "lines" && f == "classify") {
			b = substr($2, 2); l[b] = ""
			for (i = 3; i <= NF; i++) l[b] = l[b] " " $i }
		 next }
     $1 == "classify" && $3 == 1 { out = ""; last = ""
	for (i = 4; i <= NF; i++) { n = split(l[$i], v, " ")
		for (j = 1; j <= n; j++) if (v[j] != last) {
			out = out " " v[j]; last = v[j] } }
	print "lines classify" out " # " $2 }' full/*.papm a.paths >lines.body
{ echo "pap-spec 2"; sed 's/ # .*//' lines.body; } >lines.spec
sed 's/.* # //' lines.body >lines.want
mkdir bylines && cd bylines || exit 1
if ! "$papgcc" -O2 -w -pthread -fplugin-arg-pap-spec="$tmp/lines.spec" \
	"$src" -o prog >cc.log 2>&1; then
	not_ok "paths by source lines: build"
	diag cc.log
else
	./prog $A >/dev/null 2>&1
	"$decode" --format=selective pap.prof 2>&1 |
		awk '/^function / { f = $2 } f == "classify" && /lines.spec:/ {
			print $1 }' >got
	if [ "$(wc -l <"$tmp/lines.want")" -ge 2 ] &&
	   cmp -s got "$tmp/lines.want"; then
		ok "$(wc -l <got) paths of classify by source lines count as in the full run"
	else
		not_ok "paths by source lines: counts differ from the full run's"
		diff got "$tmp/lines.want" | head -5 | sed 's/^/# /'
	fi
fi
tap_done
