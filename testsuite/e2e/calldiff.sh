#!/bin/sh
# calldiff.sh - pap-decode diff of call sequences and calling contexts:
# a program whose calls depend on its argument, run with 3 (old) and
# twice with 6 (new); what appears, disappears and changes count is
# written here from the program's source, and must be exactly what diff
# prints, biggest change first, --top bounding each section.  TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
check() { if (eval "$2"); then ok "$1"; else not_ok "$1"; fi; }

cat >d.c <<'SRC'
#include <stdio.h>
#include <stdlib.h>
static int sq(int x) { return x * x; }
static int cube(int x) { return x * x * x; }
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, s = 0;
	for (int i = 0; i < n; i++)
		s += i % 2 ? sq(i) : cube(i);
	if (n > 4)
		s += cube(n);
	printf("%d\n", s);
	return 0;
}
SRC
"$papgcc" -O1 -fplugin-arg-pap-calls d.c -o d 2>err.txt &&
	PAP_PROFILE=old.prof ./d 3 >/dev/null &&
	PAP_PROFILE=new.prof ./d 6 >/dev/null &&
	PAP_PROFILE=new.prof ./d 6 >/dev/null ||
	{ echo "Bail out! cannot build or run d.c: $(head -2 err.txt)"; exit 1; }

# from the source: 3 makes cube sq cube (line 9); 6 makes cube sq cube
# sq cube sq (line 9) then cube (line 11), twice
cat >want <<'EOF2'
call sequences that appear in new.prof:
  appears               2  main cube main sq main cube main sq main cube main sq ... (15 names)
call sequences that disappear from old.prof:
  disappears            1  main cube main sq main cube main
call sequences whose count changes most:
calling contexts that appear in new.prof:
  appears               2  main > cube (main:11)
calling contexts that disappear from old.prof:
calling contexts whose count changes most:
  grows      1 -> 6  main > sq (main:9)
  grows      2 -> 6  main > cube (main:9)
  grows      1 -> 2  main
EOF2
"$decode" diff old.prof new.prof >out 2>err
rc=$?
sed -n '/^call sequences that appear/,$p' out >got
check "diff: exit 0" '[ $rc -eq 0 ] && [ ! -s err ]'
check "diff: the call sections are the changes the source makes" \
	'cmp -s want got || { diff want got | sed "s/^/# /"; false; }'
"$decode" diff --top=1 old.prof new.prof | sed -n '/^calling contexts whose/,$p' >top1
check "diff --top=1: one change per section, the biggest" \
	'[ $(wc -l <top1) -eq 2 ] && grep -q "1 -> 6  main > sq (main:9)" top1'
"$decode" diff new.prof new.prof >same
check "diff of a profile with itself: no call changes" \
	'[ $(grep -c "^  " same) -eq 0 ] && grep -q "^calling contexts whose" same'
cat >p.c <<'SRC'
int main(void) { return 0; }
SRC
"$papgcc" -O1 p.c -o p && PAP_PROFILE=p.prof ./p &&
	"$decode" diff p.prof p.prof >plain.out
check "without call sequences: no call sections" \
	'! grep -q "call sequences\|calling contexts" plain.out'
echo "1..$n"
tap_done
