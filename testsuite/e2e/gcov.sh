#!/bin/sh
# gcov.sh - pap-decode counts lines as gcov does and writes what gcov's
# tools read: each program is built twice at -O0, with gcc --coverage and
# with pap-gcc, both run on the same input, and every line gcov reports
# ("-" no code, "#####" never run, or its count) must be what pap's
# --format=annotate reports for it.  Then, for one program, pap's lcov
# tracefile must hold lcov's own line and function records and render
# with genhtml, its gcov JSON must give gcov's JSON counts, and gcovr
# must read its gcov text as it reads gcov's; its branch counts must be
# those lcov takes from gcov.  The phases of gcovphases.c
# give one path whose packed form holds a piece in several items, run
# twice: its HTML page's line counts must be gcov's too, and each line
# run on each function's one path.  TAP output.
set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
papgcc=$top_builddir/plugin/pap-gcc
decode=$top_builddir/decoder/pap-decode
cc=${PAP_CC:-gcc}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
. "$top_srcdir/testsuite/tap.sh"

# PROGRAM.c and the arguments of each run
runs="gcovphases.c:3 gcovphases.c:8 gcovlines1.c:7 gcovlines1.c:12
gcovlines1.c:0 gcovlines2.c:7 gcovlines2.c:2"
# runs of gcovphases.c: each checks the HTML page too
nhtml=$(echo $runs | tr ' ' '\n' | grep -c '^gcovphases')
echo "1..$(($(echo $runs | wc -w) + nhtml + 5))"

gcov=$(command -v gcov-"$("$cc" -dumpversion)" || command -v gcov)
if [ -z "$gcov" ]; then
	for r in $runs $(seq $nhtml) 1 2 3 4 5; do
		skip "gcov not found (it comes with gcc)"
	done
	exit 0
fi

for r in $runs; do
	src=${r%%:*}
	arg=${r#*:}
	name=${src%.c}
	rm -rf g p && mkdir g p && cp "$top_srcdir/testsuite/e2e/$src" g/ &&
	cp "$top_srcdir/testsuite/e2e/$src" p/
	# gcov's counts: "LINE COUNT" for every line it lists
	(cd g && "$cc" -O0 --coverage -c "$src" -o "$name.o" &&
	 "$cc" --coverage "$name.o" -o prog && ./prog "$arg" >/dev/null &&
	 "$gcov" "$src" >/dev/null 2>&1) 2>err
	awk -F: '{ c = $1; l = $2; gsub(/ /, "", c); gsub(/ /, "", l)
		   sub(/\*$/, "", c); if (l > 0) print l, c }' \
		"g/$src.gcov" 2>/dev/null | sort -n >want
	# pap's: the same from --format=annotate
	(cd p && "$papgcc" -O0 -c "$src" -o "$name.o" &&
	 "$papgcc" "$name.o" -o prog && ./prog "$arg" >/dev/null &&
	 "$decode" --format=annotate pap.prof >ann) 2>>err
	awk -F: '$2 !~ /^Source/ { split($1, a, " "); print a[3], a[1] }' \
		p/ann 2>/dev/null | sort -n >got
	# lines in both with different counts, and lines gcov lists that
	# pap does not
	join want got | awk '$2 != $3' >diff
	join -v 1 want got >>diff
	if [ "$(wc -l <want)" -gt 20 ] && [ ! -s diff ]; then
		ok "$src $arg: each line's count is gcov's ($(wc -l <want) lines)"
	else
		not_ok "$src $arg: every line's count is gcov's"
		note "LINE GCOV PAP where they differ:"; diag diff; diag err
	fi
	[ "$name" = gcovphases ] || continue
	# the HTML page of phases(): "LINE COUNT" for each line it counts
	# (a line's count is the runs of its blocks, gcov's count when the
	# line is one block, as each of phases()' lines is)
	(cd p && "$decode" --html=h pap.prof) 2>>err
	sed -n 's/^<tr><td class="n">\([0-9]*\)<\/td><td class="n" style=[^>]*>\([0-9]*\)<\/td>.*/\1 \2/p' \
		$(grep -l '<h1>phases</h1>' p/h/f*.html) 2>>err | sort >hgot
	lo=$(head -1 hgot | cut -d' ' -f1) hi=$(tail -1 hgot | cut -d' ' -f1)
	awk -v lo="${lo:-1}" -v hi="${hi:-0}" \
		'$1 >= lo && $1 <= hi && $2 != "-" && $2 != "#####"' want >hwant
	# and on every page, each line run is on the function's one path
	sed -n 's/^<tr><td class="n">\([0-9]*\)<\/td><td class="n" style=[^>]*>[0-9]*<\/td><td class="n">\([0-9]*\)<.*/\1 \2/p' \
		p/h/f*.html 2>>err >hpaths
	if [ "$(wc -l <hwant)" -ge 10 ] && cmp -s hwant hgot &&
	   [ "$(wc -l <hpaths)" -ge 20 ] && ! grep -qv ' 1$' hpaths; then
		ok "$src $arg: its HTML pages count each line of phases() as gcov, one path a line"
	else
		not_ok "$src $arg: its HTML pages count each line of phases() as gcov, one path a line"
		note "gcov, then the page, then LINE PATHS of each page:"
		diag hwant; diag hgot; diag hpaths; diag err
	fi
done

# the exports, from the last run's two builds (g: gcc, p: pap)
"$decode" --format=lcov p/pap.prof >p.info 2>err
"$decode" --format=gcov-json p/pap.prof >p.json 2>>err
"$decode" --format=gcov p/pap.prof >"p/$src.gcov" 2>>err
records() { grep -E "^($1):" "$2" | sort; }
if ! command -v lcov >/dev/null || ! command -v genhtml >/dev/null; then
	skip "lcov not installed (Debian package lcov)"
	skip "lcov not installed (Debian package lcov)"
	skip "genhtml not installed (Debian package lcov)"
else
	lcov --capture --rc lcov_branch_coverage=1 --directory g \
		--output-file g.info >/dev/null 2>&1
	if [ -s g.info ] && [ "$(records 'DA|FNDA' g.info | wc -l)" -gt 20 ] &&
	   records 'DA|FNDA' g.info | sed "s|$tmp/g/|$tmp/p/|" >want &&
	   records 'DA|FNDA' p.info >got && cmp -s want got &&
	   grep -q "^SF:$tmp/p/$src\$" p.info; then
		ok "--format=lcov: the DA and FNDA records lcov takes from gcov"
	else
		not_ok "--format=lcov: the DA and FNDA records lcov takes \
from gcov"
		diff want got | head -10 | sed 's/^/#   /'; diag err
	fi
	# "LINE COUNT" per branch, sorted: lcov numbers a line's branches
	# across its blocks, pap per block, and lcov writes 0 where gcov
	# and pap say never run ("-")
	brcounts() { grep '^BRDA:' "$1" |
		awk -F'[:,]' '{ print $2, ($5 == "-" ? 0 : $5) }' | sort -n; }
	brcounts g.info >want
	brcounts p.info >got
	if [ "$(wc -l <want)" -ge 20 ] && cmp -s want got; then
		ok "--format=lcov: each line's branch counts are gcov's"
	else
		not_ok "--format=lcov: each line's branch counts are gcov's"
		diff want got | head -10 | sed 's/^/#   /'; diag err
	fi
	if genhtml --output-directory html p.info >genhtml.out 2>&1 &&
	   [ -s html/index.html ] && [ -s "html/p/$src.gcov.html" ] &&
	   grep -q 'lineCov' "html/p/$src.gcov.html"; then
		ok "genhtml renders pap's lcov tracefile"
	else
		not_ok "genhtml renders pap's lcov tracefile"; diag genhtml.out
	fi
fi
if ! command -v python3 >/dev/null; then
	skip "python3 not installed: cannot read JSON"
else
	(cd g && "$gcov" --json-format "$src" >/dev/null 2>&1)
	# "line COUNT" per line and "function NAME COUNT" per function
	cat >counts.py <<'PY'
import gzip, json, sys
raw = open(sys.argv[1], 'rb').read()
d = json.loads(gzip.decompress(raw) if raw[:2] == b'\x1f\x8b' else raw)
assert d['format_version'] == '1'
for f in d['files']:
    for fn in f['functions']:
        print('function', f['file'], fn['name'], fn['execution_count'])
    for l in f['lines']:
        print('line', f['file'], l['line_number'], l['count'])
PY
	python3 counts.py "g/$name.gcov.json.gz" 2>>err | sort >want
	python3 counts.py p.json 2>>err | sort >got
	if [ "$(wc -l <want)" -gt 20 ] && cmp -s want got; then
		ok "--format=gcov-json: gcov's JSON, with gcov's counts"
	else
		not_ok "--format=gcov-json: gcov's JSON, with gcov's counts"
		diff want got | head -10 | sed 's/^/#   /'; diag err
	fi
fi
if ! command -v gcovr >/dev/null; then
	skip "gcovr not installed (Debian package gcovr)"
else
	# gcovr's summary of gcov's data and of pap's gcov text
	(cd g && gcovr --gcov-executable "$gcov" -r . 2>&1 | grep "$src") >want
	(cd p && gcovr --use-gcov-files -r . 2>&1 | grep "$src") >got
	if [ -s want ] && cmp -s want got; then
		ok "gcovr reads pap's gcov text as gcov's: $(cat got)"
	else
		not_ok "gcovr reads pap's gcov text as gcov's"
		diag want; diag got
	fi
fi
tap_done
