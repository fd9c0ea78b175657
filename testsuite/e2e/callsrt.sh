#!/bin/sh
# callsrt.sh - the runtime's call sequences end to end, with probes
# written by hand (callsrt.c, as the plugin will emit them): the profile
# written at exit, through the file sink and through pap-collector,
# holds the program's UNIT and PROG records and one CALLS record per
# thread that decodes to the calls the program made (callsrt-check.c);
# identical runs count each record twice; exit() deep in the stack cuts
# the main thread's sequence short.  TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
coll=$top_builddir/collector/pap-collector
prog=$top_builddir/testsuite/e2e/callsrt
checker=$top_builddir/testsuite/e2e/callsrt-check
unset PAP_COLLECTOR PAP_PROFILE PAP_TEST_KILL PAP_COLLECTOR_LOSSY
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }

echo "1..9"

"$prog" && mv pap.prof one.prof
check "file sink: units, program and both threads' sequences, decoded" \
	'"$checker" one.prof 1 >check1.txt 2>&1 || { cat check1.txt; false; }'
"$prog" && "$prog" && mv pap.prof two.prof
check "file sink, two runs: every record counted twice" \
	'"$checker" two.prof 2 >check2.txt 2>&1 || { cat check2.txt; false; }'
"$decode" print one.prof >one.txt
check "the text profile is version 7, with c, g and u lines" \
	'head -1 one.txt | grep -qx "pap-profile 7" &&
	 [ $(grep -c "^c %calls:" one.txt) -eq 2 ] &&
	 [ $(grep -c "^g %prog:" one.txt) -eq 1 ] &&
	 [ $(grep -c "^u %unit:" one.txt) -eq 2 ]'
"$coll" -o coll.prof -- "$prog"
check "pap-collector: the same records, decoded" \
	'"$checker" coll.prof 1 >check3.txt 2>&1 || { cat check3.txt; false; }'
check "... the same profile as the file sink's" \
	'"$decode" print coll.prof | cmp -s - one.txt'
"$coll" -o coll2.prof -- sh -c '"$1" && "$1"' sh "$prog"
check "pap-collector, two runs: every record counted twice" \
	'"$checker" coll2.prof 2 >check4.txt 2>&1 || { cat check4.txt; false; }'
"$prog" exit && mv pap.prof exit.prof
check "exit() two frames deep: main's sequence cut short, with its frames" \
	'"$checker" exit.prof 1 exit >check5.txt 2>&1 || { cat check5.txt; false; }'
"$decode" merge -o merged.prof one.prof one.prof
check "pap-decode merge: every record counted twice" \
	'"$checker" merged.prof 2 >check6.txt 2>&1 || { cat check6.txt; false; }'
# another program (another PROGSUM) merges beside it, not as a rebuild
sum=$(sed -n 's/^g %prog:\([0-9a-f]*\) .*/\1/p' one.txt)
sed "s/$sum/0123456789abcdef/" one.txt >other.txt
"$decode" merge --text -o both.txt one.prof other.txt 2>merge.err
check "pap-decode merge: two programs' records side by side" \
	'[ ! -s merge.err ] && [ $(grep -c "^c %calls:" both.txt) -eq 4 ] &&
	 [ $(grep -c "^g %prog:" both.txt) -eq 2 ] &&
	 [ $(grep -c "^u %unit:" both.txt) -eq 2 ] &&
	 grep -q "^u %unit:.* 2 0\$" both.txt'
