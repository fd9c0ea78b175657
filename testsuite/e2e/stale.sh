#!/bin/sh
# stale.sh - a program rebuilt and run again into the same profile, as
# gcov treats it: the newer build's records replace the older build's
# (doc/formats.md, "Stale builds"); pap-decode --drop-stale and merge
# --drop-stale for files that already mix builds.  The oracle is how
# many times each build ran.  TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
# activations of FUNCTION in PROFILE [OPTION]
acts() { "$decode" --format=paths ${3:-} "$2" 2>/dev/null |
	awk -v f="$1" '$1 == f { s += $2 } END { print s + 0 }'; }
# the distinct checksums of FUNCTION in PROFILE
sums() { "$decode" print "$2" | awk -v f="$1" '$1 == "p" || $1 == "b" {
	split($2, k, ":"); if (k[1] == f) print k[2] }' | sort -u; }

echo "1..13"

# build 1 and build 2 of one program: f changes, main does not
cat >p1.c <<'C'
#include <stdio.h>
static int f(int n)
{
	int s = 0, i;

	for (i = 0; i < n; i++)
		s += i & 1 ? i : -i;
	return s;
}
int main(void) { printf("%d\n", f(9)); return 0; }
C
sed 's/i & 1 ? i : -i/i % 3 ? (i > 4 ? -i : i) : 2/' p1.c >p2.c
# build BUILD: prog from p.c, a copy of pBUILD.c (one metadata file)
build() { cp "p$1.c" p.c && "$papgcc" -O2 -o prog p.c; }
if ! build 1; then
	echo "Bail out! cannot build with pap-gcc"
	exit 1
fi
# each build's own profile, and its checksum of f; pap.prof gets two runs
# of build 1, then (appended) one of build 2
PAP_PROFILE=only1.prof ./prog >/dev/null && ./prog >/dev/null &&
	./prog >/dev/null
build 2 && PAP_PROFILE=only2.prof ./prog >/dev/null && ./prog >/dev/null
sum1=$(sums f only1.prof)
sum2=$(sums f only2.prof)
check "the two builds give f two checksums, main one" \
	'[ -n "$sum1" ] && [ -n "$sum2" ] && [ "$sum1" != "$sum2" ] && [ "$(sums main only1.prof)" = "$(sums main only2.prof)" ]'

"$decode" --format=paths pap.prof >paths.txt 2>err
st=$?
check "after a rebuild the profile still decodes" '[ $st -eq 0 ]'
check "... f counts the new build's one run, main all three" \
	'[ "$(acts f pap.prof)" -eq 1 ] && [ "$(acts main pap.prof)" -eq 3 ]'
check "... with a one-line note" \
	'[ "$(grep -c "note: 1 record of 1 function from an older build left out" err)" -eq 1 ] && [ "$(wc -l <err)" -eq 1 ]'
"$decode" compact pap.prof 2>/dev/null
check "compacted, the older build's records are gone from the file" \
	'[ "$(sums f pap.prof)" = "$sum2" ] && [ "$(acts main pap.prof)" -eq 3 ]'

# a profile that must be rewritten (text) gets the older records replaced
# by the process that merges
build 1 && PAP_PROFILE=t.prof ./prog >/dev/null
"$decode" merge --text -o t.txt t.prof && rm t.prof
build 2 && PAP_PROFILE=t.txt ./prog >/dev/null 2>err
check "a process rewriting the file replaces the older build's records, saying so" \
	'[ "$(sums f t.txt)" = "$sum2" ] && [ "$(acts f t.txt)" -eq 1 ] && [ "$(acts main t.txt)" -eq 2 ] && grep -q "^pap: note: t.txt: 1 record of 1 function from an older build replaced by this build'"'"'s" err'

# a file that already mixes builds in one segment (as older pap's
# compaction left them): the order is lost, the metadata decides
{ echo "pap-profile 1"; "$decode" print pap.prof | sed '1d;/^e /d'
  build 1 && PAP_PROFILE=old.prof ./prog >/dev/null &&
  "$decode" print old.prof | sed '1d;/^e /d'; } >mixed.txt
build 2
"$decode" --format=paths mixed.txt >/dev/null 2>err
st=$?
check "a file mixing builds in one segment fails to decode, naming --drop-stale" \
	'[ $st -eq 1 ] && grep -q "does not match the metadata.*--drop-stale" err'
"$decode" --format=paths --drop-stale mixed.txt >/dev/null 2>err
st=$?
check "... --drop-stale decodes it, leaving out the older build's f, with a note" \
	'[ $st -eq 0 ] && [ "$(acts f mixed.txt --drop-stale)" -eq 1 ] && [ "$(acts main mixed.txt --drop-stale)" -eq 4 ] && grep -q "note: mixed.txt: 1 record of 1 function left out" err'

# merge: different builds refused, unless --drop-stale (later is newer)
"$decode" merge -o m.prof only1.prof only2.prof 2>err
check "merge refuses profiles of different builds" \
	'[ $? -eq 1 ] && [ ! -e m.prof ] && grep -q "different builds" err'
"$decode" merge --drop-stale -o m.prof only1.prof only2.prof 2>err
check "merge --drop-stale keeps the later profile's build, with a note" \
	'[ $? -eq 0 ] && [ "$(sums f m.prof)" = "$sum2" ] && [ "$(acts main m.prof)" -eq 2 ] && grep -q "note: 1 record of 1 function from an older build left out" err'
"$decode" merge --drop-stale -o m2.prof only2.prof only1.prof 2>/dev/null
check "... whichever order they come in" \
	'[ "$(sums f m2.prof)" = "$sum1" ]'
"$decode" merge --drop-stale -o m3.prof mixed.txt 2>err
check "... and refuses a tie it cannot decide (one segment)" \
	'[ $? -eq 1 ] && [ ! -e m3.prof ] && grep -q "different builds" err'

# the same function name in two metadata files is two functions
mkdir other && cp p1.c other/p.c && (cd other && "$papgcc" -O2 -o p p.c &&
	PAP_PROFILE=../two.prof ./p >/dev/null)
PAP_PROFILE=two.prof ./prog >/dev/null
check "one name in two metadata files: both kept" \
	'[ "$("$decode" print two.prof | grep -c "^p f:")" -eq 2 ]'

tap_done
