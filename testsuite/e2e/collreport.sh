#!/bin/sh
# collreport.sh - pap-collector --report: once the command has ended and
# the profile is written, the report printed (or written) is exactly what
# pap-decode makes of that profile with the same options; the command's
# output comes first and its exit status is kept; a report that fails
# says so, exits 125 and leaves the profile written; bad options are
# refused before anything runs.  TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
collector=$top_builddir/collector/pap-collector
check() { if (eval "$2"); then ok "$1"; else not_ok "$1"; fi; }

cat >p.c <<'SRC'
#include <stdio.h>
#include <stdlib.h>

static int walk(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += i % 3 ? i : -i;
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;

	printf("walk %d\n", walk(n));
	return argc > 2 ? atoi(argv[2]) : 0;
}
SRC
"$papgcc" -O1 p.c -o p 2>err.txt ||
	{ echo "Bail out! pap-gcc failed: $(head -3 err.txt)"; exit 1; }

"$collector" -o c.prof --report=text -- sh -c './p 3; ./p 5' >out.txt \
	2>err.txt
rc=$?
"$decode" c.prof >want.txt 2>/dev/null
check "text: the command's exit status (0)" '[ $rc -eq 0 ]'
check "text: the command's output first" \
	'[ "$(head -2 out.txt)" = "$(printf "walk 3\nwalk 4\n")" ]'
check "text: then exactly pap-decode's report of the profile" \
	'tail -n +3 out.txt | cmp -s - want.txt && [ -s want.txt ]'
check "text: it holds both runs of walk" \
	'grep -q "^walk (p.c): 2 activations" want.txt'

rm -f c.prof
"$collector" -o c.prof --report=json --report-out=r.json \
	--report-opt=--top=1 --report-opt=--function=walk -- ./p 6 7 \
	>out.txt 2>err.txt
rc=$?
"$decode" --format=json --top=1 --function=walk c.prof >want.json \
	2>/dev/null
check "json: the command's exit status (7) is kept" '[ $rc -eq 7 ]'
check "json: the report file is pap-decode's with the options passed" \
	'cmp -s r.json want.json && grep -q "\"top\": 1" r.json'
check "json: only the command's output on stdout" \
	'[ "$(cat out.txt)" = "walk 9" ]'

"$collector" -o c.prof --report=html --report-out=h -- ./p >/dev/null \
	2>err.txt
rc=$?
check "html: written into the directory given" \
	'[ $rc -eq 0 ] && [ -s h/index.html ] && grep -q walk h/index.html'

# a profile with call sequences: the html report has its calls page
cat >q.c <<'SRC'
#include <stdio.h>

static int __attribute__((noinline)) leaf(int x) { return x * 3 + 1; }

int main(void)
{
	int s = 0;

	for (int i = 0; i < 5; i++)
		s += leaf(i);
	printf("sum %d\n", s);
	return 0;
}
SRC
if PAP_PLUGIN_ARGS=-fplugin-arg-pap-calls "$papgcc" -O1 q.c -o q \
	2>err.txt; then
	"$collector" -o q.prof --report=html --report-out=hq -- ./q \
		>/dev/null 2>err.txt
	rc=$?
	check "html: a calls page for the call sequences, linked" \
		'[ $rc -eq 0 ] && grep -q "href=\"calls.html\"" hq/index.html &&
		 grep -q "^    main:[0-9]* -&gt; leaf  x 5$" hq/calls.html &&
		 grep -q "^ *5    leaf  (main:[0-9]*)$" hq/calls.html'
else
	not_ok "html: q.c does not build with the calls mode"
fi

acts() { "$decode" --format=json c.prof 2>/dev/null |
	sed -n 's/.*"name": "walk".*"activations": \([0-9]*\).*/\1/p'; }
before=$(acts)
"$collector" -o c.prof --report=text --report-opt=--no-such-option -- \
	./p >out.txt 2>err.txt
rc=$?
check "a failed report: exit 125" '[ $rc -eq 125 ]'
check "a failed report: said, and the profile is written" \
	'grep -q "the text report of .*c.prof failed.*the profile is written" \
		err.txt && [ "$(acts)" -eq $((before + 1)) ]'

PAP_DECODE=$tmp/none "$collector" -o c.prof --report=text -- ./p \
	>out.txt 2>err.txt
rc=$?
check "no decoder to run: exit 125, named" \
	'[ $rc -eq 125 ] && grep -q "none: error: cannot run" err.txt'

before=$(acts)
"$collector" -o c.prof --report=pdf -- ./p >out.txt 2>err.txt
rc=$?
check "unknown format: usage error, nothing run" \
	'[ $rc -eq 2 ] && [ ! -s out.txt ] && grep -q "unknown report format .pdf." err.txt &&
	 [ "$(acts)" -eq "$before" ]'
"$collector" -o c.prof --report-opt=--top=1 -- ./p >out.txt 2>err.txt
rc=$?
check "--report-opt without --report: usage error" \
	'[ $rc -eq 2 ] && grep -q "need --report" err.txt && [ ! -s out.txt ]'
"$collector" -o /dev/null --report=text -- ./p >out.txt 2>err.txt
rc=$?
check "--report with no profile kept: usage error" \
	'[ $rc -eq 2 ] && grep -q "needs a profile" err.txt'
echo "1..$n"
tap_done
