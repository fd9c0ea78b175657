#!/bin/sh
# spec.sh - path spec files on a real build: what --write-spec writes,
# pap-decode check-spec resolves to exactly the blocks of the profile's
# paths (the oracle: --format=paths, which does not go through the spec
# code); a path pasted from the text report and a path given by the
# source lines the metadata lists (collapsed here, in awk) resolve to
# their paths; several files merge their copies; and each kind of error
# is said as FILE:LINE: error with a nonzero exit.  TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
check() { if (eval "$2"); then ok "$1"; else not_ok "$1"; fi; }

echo "1..12"

cat >a.c <<'C'
#include <stdio.h>
#include <stdlib.h>

int helper_b(int t);

static int helper(int x)
{
	if (x & 1)
		return x * 3;
	return x / 2;
}

static int work(int n)
{
	int s = 0;
	int i = 0;

	while (i < n) {
		if (i % 3)
			s += helper(i);
		else
			s -= 1;
		i++;
	}
	return s;
}

static int pick(int c)
{
	int v = c > 1 ? helper(1) : helper(2);
	return v;
}

int main(int argc, char **argv)
{
	int k, t = 0;
	int n = argc > 1 ? atoi(argv[1]) : 5;

	for (k = 0; k < 40; k++)
		t += work(k % n);
	t += pick(argc) + helper_b(t);
	printf("%d\n", t);
	return 0;
}
C
cat >b.c <<'C'
static int helper(int x)
{
	return x + 1;
}

int helper_b(int t)
{
	return helper(t & 7);
}
C
"$papgcc" -O0 -c a.c && "$papgcc" -O0 -c b.c && "$papgcc" a.o b.o -o prog &&
	./prog >/dev/null || { echo "Bail out! cannot build or run"; exit 1; }

# the oracle: each path as "FUNCTION BLOCK...", sorted
"$decode" --format=paths pap.prof | awk '{ $2 = $3 = ""; print }' |
	tr -s ' ' | sort >want
"$decode" --top 0 --write-spec=s.spec pap.prof >/dev/null 2>err

check "--write-spec writes version 2: every path, checksum and count as fields, loops as ( ... )^N" \
	'head -1 s.spec | grep -qx "pap-spec 2" &&
	 [ $(grep -c "^path [^ ]* checksum=[0-9a-f]\{16\} count=[1-9][0-9]* [0-9]" s.spec) -eq $(wc -l <want) ] &&
	 grep -q "^path work .* ( 5 6 2 3 )^2 " s.spec && grep -q "^path main .* )^40 " s.spec'
check "--write-spec qualifies static functions of one name with their file" \
	'[ $(grep -c "^path a.c:helper " s.spec) -eq 2 ] &&
	 [ $(grep -c "^path b.c:helper " s.spec) -eq 1 ] &&
	 grep -q "^path helper_b " s.spec'
"$decode" check-spec s.spec >got 2>err
check "check-spec: each path written resolves to exactly the profile's blocks" \
	'[ -s got ] && cut -d" " -f2- got | sort | cmp -s - want' || diag err

# a path pasted from the text report: work's with a repeat, lines and all
"$decode" --no-source --top 0 --function "^work$" pap.prof |
	grep " )^2 " | head -1 >line
len=$(sed 's/.* \([0-9]*\) blocks: .*/\1/' line)
sed 's/.*blocks: //' line >pasted
printf 'pap-spec 2\n# pasted\npath work %s\n' "$(cat pasted)" >p.spec
check "a text report's path pasted (with [lines] and ( ... )^N) resolves to its blocks" \
	'grep -q "[0-9]\[[0-9,]*\] ( " pasted &&
	 "$decode" check-spec p.spec >got.p 2>err && [ $(wc -l <got.p) -eq 1 ] &&
	 grep -q "^p.spec:3 work " got.p && cut -d" " -f2- got.p >got.p2 &&
	 grep -qxF -f got.p2 want && [ $(awk "{ print NF - 1 }" got.p2) -eq $len ] &&
	 [ "$(cut -d" " -f2-5 got.p2)" = "$(sed "s/\[[0-9,]*\]//g" pasted | cut -d" " -f1-4)" ]' ||
	diag err

# several files: the pasted copy merges into s.spec's path, first place kept
check "several files: copies merged, the first place kept" \
	'"$decode" check-spec s.spec p.spec >got.m 2>err && cmp -s got got.m &&
	 "$decode" check-spec p.spec s.spec >got.r 2>err &&
	 [ $(wc -l <got.r) -eq $(wc -l <got) ] && head -1 got.r | grep -q "^p.spec:3 work "' ||
	diag err

# by source lines: each path of work and of a.c's helper given as the
# lines the metadata gives its blocks, consecutive equal ones once
lines_of() {	# FUNCTION FILE, paths "FUNCTION BLOCK..." on stdin
	awk -v fn="$1" -v src="$2" '
		FNR == NR { if ($1 == "function") f = $2
			if ($1 == "file") s = $2
			if ($1 == "lines" && f == fn && s == src) {
				b = substr($2, 2); l[b] = ""
				for (i = 3; i <= NF; i++) l[b] = l[b] " " $i }
			next }
		$1 == fn { out = ""; last = ""
			for (i = 2; i <= NF; i++) { n = split(l[$i], v, " ")
				for (j = 1; j <= n; j++) if (v[j] != last) {
					out = out " " v[j]; last = v[j] } }
			print "lines " src ":" fn out }' a.papm -
}
{ echo "pap-spec 2"; grep "^work " want | lines_of work a.c
  grep "^helper " want | grep -v "^helper 1\$" | lines_of helper a.c; } >l.spec
check "paths by their source lines resolve to the profile's paths" \
	'[ $(grep -c "^lines" l.spec) -eq 7 ] &&
	 "$decode" check-spec l.spec >got.l 2>err &&
	 cut -d" " -f2- got.l | sort >got.l2 &&
	 grep "^\(work\|helper\) " want | grep -v "^helper 1\$" |
	   sort | cmp -s - got.l2' || diag err

# errors: each with its place, nothing printed but them, exit 1
wp=$(grep "^work " want | sed 's/^work //' | awk 'NF > max { max = NF; p = $0 } END { print p }')
first=${wp%% *}
rest=${wp#* }
cat >bad.spec <<E
pap-spec 2
path nosuch 1 2
path work $first 999 $rest
path work $first $first $rest
path work $rest
path work ${wp% *}
path work checksum=0123456789abcdef $wp
path helper 1 2 4
lines work 1 2 3
lines pick 28 30 31
path work $(sed 's/\[\([0-9]*\)\]/[\1,1]/' pasted)
E
cat >bad2.spec <<'E'
pap-spec 2
path work 1 ( 6 7
path work 1 6 )^2 7
path work 1 ( 6 )^0 7
path work 1 ( 6 )^ 7
path work 1 6 ... 7
path work 1 6 x 7
frob
E
"$decode" check-spec bad.spec bad2.spec s.spec >out 2>err; rc=$?
expect() {	# LINE-PREFIX TEXT
	grep -q "^$1: error: .*$2" err || { echo "# missing: $1: $2"; return 1; }
}
check "a bad spec: exit status 1 and nothing resolved printed" \
	'[ $rc -eq 1 ] && [ ! -s out ]'
check "errors of the path against its function, each at its FILE:LINE" \
	'expect bad.spec:2 "unknown function nosuch" &&
	 expect bad.spec:3 "block 999 is not a block of work" &&
	 expect bad.spec:4 "no edge from block $first to block $first" &&
	 expect bad.spec:5 "starts at block ${rest%% *}, where no path of work starts" &&
	 expect bad.spec:6 "ends at block .*, which does not leave work" &&
	 expect bad.spec:7 "another build" &&
	 expect bad.spec:8 "ambiguous function helper: in [ab].c and [ab].c" &&
	 expect bad.spec:11 "block [0-9]* of work has lines \[[0-9,]*\], not \[[0-9,]*,1\]"' ||
	diag err 30
check "paths by lines: impossible and ambiguous ones, candidates listed" \
	'expect bad.spec:9 "impossible lines: no path of work starts with line 1" &&
	 expect bad.spec:10 "ambiguous lines: several block paths of pick have them: 1 2 4; 1 3 4"' ||
	diag err 30
check "syntax errors, repeats included, each at its FILE:LINE" \
	'expect bad2.spec:2 "not closed" && expect bad2.spec:3 "closes no" &&
	 expect bad2.spec:4 "a group is taken at least once" &&
	 expect bad2.spec:5 "bad repeat" && expect bad2.spec:6 "stands for blocks" &&
	 expect bad2.spec:7 "unexpected .x." && expect bad2.spec:8 "unknown line .frob."' ||
	diag err 30
check "every error said once, in the order of the files and their lines" \
	'[ $(grep -c ": error: " err) -eq 17 ] && cut -d: -f1,2 err >places &&
	 sort -t: -k1,1 -k2,2n places | cmp -s - places' || diag err 30
check "a version 1 spec is still checked" \
	'sum=$(sed -n "s/^path work checksum=\([0-9a-f]*\) .*/\1/p" s.spec | head -1) &&
	 printf "pap-spec 1\npath work %s 8 %s\n" "$sum" "$wp" >v1.spec &&
	 "$decode" check-spec --meta=. v1.spec >got.1 2>err &&
	 [ "$(cut -d" " -f2- got.1)" = "work $wp" ]' || diag err

tap_done
