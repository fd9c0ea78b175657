#!/bin/sh
# tailcall.sh - paths that end in a call in tail position (tailcall.c).
# In every mode at -O2, with GCC's IR checks after every pass
# (-fchecking): the instrumented program recurses a million deep
# in tail position within a 1 MB stack, as the plain build does, because
# GCC can still turn those calls into jumps, and prints the same (errno
# too, after a failed connect to a collector); the decoded counts of
# count_down's, is_even's, is_odd's, spin's and walk's paths are what
# the program's arithmetic says, at -O0 too; and at -O0 and -O2 with the
# tracer, the
# decoded paths equal the traced ones (block totals in epp).  With call
# sequences and calls-tail at -O2 the program runs a million deep in
# the same stack too, and its sequence decodes; at a small depth it is
# the -O0 build's (where GCC makes no jumps).  The default calls build
# runs `tailcall N self` (self tail recursion, a self tail call beside an
# ordinary call) 10^7 deep in a 1 MiB stack at -O2, calls-tail that and
# `tailcall N tail` (mutual tail recursion, a tail call through a
# pointer), and at a small depth, at -O0 and -O2, each decodes to the
# sequence the source makes, which awk writes here from the program's
# arithmetic.  TAP output.
set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
papgcc=$top_builddir/plugin/pap-gcc
decode=$top_builddir/decoder/pap-decode
src=$top_srcdir/testsuite/e2e/tailcall.c
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# aggregate_trace, block_totals, trace_forms
. "$top_srcdir/testsuite/e2e/tracelib.sh"

deep=1000000
small=3000
gcc -O2 -w "$src" -o plain || { echo "Bail out! cannot build tailcall.c"; exit 1; }
./plain $small >plain.small
echo "1..24"
n=0
fails=0
if ! (ulimit -s 1024 && ./plain $deep >plain.deep); then
	echo "Bail out! the plain build needs more than 1 MB of stack: GCC made no jumps"
	exit 1
fi

# expect FN COUNTS: the sorted counts of FN's complete paths in decoded.raw
expect() {
	got=$(awk -v fn="$1" '$1 == fn && $3 == 1 { print $2 }' decoded.raw |
	      sort -n | tr '\n' ' ')
	[ "$got" = "$2 " ] || { echo "# $1: paths counted $got, expected $2"; return 1; }
}

# counts N: decoded.raw's path counts are what tailcall N computes.
# count_down(N) takes its three paths 1, N/3 and N - N/3 times;
# is_even(N) and is_even(N + 1) between them call is_even N + 1 times
# and is_odd N times before one of each ends the chain; spin (N a
# multiple of 4) loops 0 to 3 times N/4 times each, and 0 times once
# more at the end (in epp, whose paths end at the loop's back edge:
# entry to exit N/4 + 1 times, and 3N/4 times each entry to back edge,
# back edge to back edge, back edge to exit); no path is left
# incomplete but report's
counts() {
	q=$(($1 / 4))
	if [ "$2" = epp ]; then
		spin="1 $q $((3 * q)) $((3 * q)) $((3 * q))"
	else
		spin="1 $q $q $q $q"
	fi
	expect count_down "1 $(($1 / 3)) $(($1 - $1 / 3))" &&
	expect is_even "1 $(($1 + 1))" &&
	expect is_odd "1 $1" &&
	expect spin "$spin" &&
	expect walk "1 $1" &&
	expect finish "1" &&
	! awk '$3 == 0 && $1 != "report"' decoded.raw | grep -q .
}

for mode in epp pap pap-epp; do
	n=$((n + 1))
	rm -f pap.prof
	if ! "$papgcc" -O2 -w -fchecking -fplugin-arg-pap-mode=$mode "$src" -o inst 2>cc.err; then
		echo "not ok $n - -O2 $mode: compile failed"; sed 's/^/# /' cc.err
		fails=$((fails + 1)); continue
	fi
	# a collector that is not there: the runtime's failed connect
	# must not show in errno
	if ! (ulimit -s 1024 && PAP_COLLECTOR=$tmp/no-collector ./inst $deep >inst.deep) ||
	   ! cmp -s plain.deep inst.deep; then
		echo "not ok $n - -O2 $mode: $deep calls deep in tail position do not run as the plain build does in 1 MB of stack"
		fails=$((fails + 1)); continue
	fi
	"$decode" --format=paths pap.prof >decoded.raw 2>decode.err &&
	counts $deep $mode
	if [ $? -eq 0 ]; then
		echo "ok $n - -O2 $mode: $deep calls deep in tail position run in 1 MB of stack, path counts as computed"
	else
		echo "not ok $n - -O2 $mode: decoded path counts differ from the program's"
		fails=$((fails + 1))
	fi
done
# -O0: no jumps, the same paths
for mode in epp pap pap-epp; do
	n=$((n + 1))
	rm -f pap.prof
	if "$papgcc" -O0 -w -fplugin-arg-pap-mode=$mode "$src" -o inst0 2>cc.err &&
	   ./inst0 $small >inst.small && cmp -s plain.small inst.small &&
	   "$decode" --format=paths pap.prof >decoded.raw 2>decode.err &&
	   counts $small $mode; then
		echo "ok $n - -O0 $mode: path counts as computed"
	else
		echo "not ok $n - -O0 $mode: output or decoded path counts differ from the program's"
		fails=$((fails + 1))
	fi
done
for opt in -O0 -O2; do
	for mode in epp pap pap-epp; do
		n=$((n + 1))
		rm -f pap.prof pap.trace
		if ! PAP_PLUGIN_ARGS="-fplugin-arg-pap-trace -fplugin-arg-pap-mode=$mode" \
		     "$papgcc" $opt -w "$src" -o traced 2>cc.err; then
			echo "not ok $n - $opt $mode traced: compile failed"
			fails=$((fails + 1)); continue
		fi
		./traced $small >inst.small
		if ! cmp -s plain.small inst.small; then
			echo "not ok $n - $opt $mode traced: output differs"
			fails=$((fails + 1)); continue
		fi
		"$decode" --format=paths pap.prof >decoded.raw
		trace_forms $mode .
		if [ -s decoded ] && cmp -s decoded traced; then
			echo "ok $n - $opt $mode traced: $(wc -l <pap.trace) activations, decoded = traced"
		else
			echo "not ok $n - $opt $mode traced: decoded paths differ from the trace"
			diff decoded traced | head -5 | sed 's/^/# /'
			fails=$((fails + 1))
		fi
	done
done
# call sequences with calls-tail (calls.sh checks them against the
# -finstrument-functions oracle): tail calls stay jumps at -O2
ctail="-fplugin-arg-pap-calls -fplugin-arg-pap-calls-tail"
for mode in none pap-epp; do
	n=$((n + 1))
	rm -f pap.prof
	if ! "$papgcc" -O2 -w $ctail -fplugin-arg-pap-mode=$mode "$src" \
	     -o cinst 2>cc.err ||
	   ! "$papgcc" -O0 -w $ctail -fplugin-arg-pap-mode=$mode "$src" \
	     -o cinst0 2>>cc.err; then
		echo "not ok $n - calls-tail $mode: compile failed"
		sed 's/^/# /' cc.err
		fails=$((fails + 1)); continue
	fi
	if ! (ulimit -s 1024 && ./cinst $deep >inst.deep) ||
	   ! cmp -s plain.deep inst.deep ||
	   ! "$decode" --format=json pap.prof >deep.json 2>decode.err ||
	   ! grep -q '"call_paths"' deep.json; then
		echo "not ok $n - -O2 calls-tail $mode: $deep calls deep in tail position do not run in 1 MB of stack and decode"
		sed 's/^/# /' decode.err
		fails=$((fails + 1)); continue
	fi
	seqs=
	for b in cinst cinst0; do
		rm -f pap.prof
		./$b $small >inst.small && cmp -s plain.small inst.small &&
		"$decode" --format=json pap.prof >$b.json 2>decode.err &&
		sed -n '/"call_paths"/,$p' $b.json >$b.seq && [ -s $b.seq ] ||
		seqs=bad
	done
	if [ -z "$seqs" ] && cmp -s cinst.seq cinst0.seq; then
		echo "ok $n - calls-tail $mode: $deep deep in 1 MB of stack at -O2; its sequences at $small are -O0's"
	else
		echo "not ok $n - calls-tail $mode: output or call sequences at $small differ between -O2 and -O0"
		fails=$((fails + 1))
	fi
done
# the default calls build keeps a function's tail calls of itself;
# calls-tail keeps every tail call
selfdeep=10000000
selfsmall=7
# want_seq self|tail N: the names of `tailcall N self|tail`'s sequence,
# one a line: a chain of N + 1 entries returns through its N tail
# callers
want_seq() {
	awk -v what="$1" -v n="$2" 'BEGIN {
		print "main"
		if (what == "self") {
			for (i = 0; i <= 2 * n; i++) print "count_down"
			print "main"
			for (m = n; m >= 0; m--) {
				print "mixed"
				if (m > 0 && m % 3 == 0) { print "leaf"; print "mixed" }
			}
			for (i = 0; i < n; i++) print "mixed"
			print "main"
			exit
		}
		for (i = 0; i <= n; i++) print (i % 2 ? "is_odd" : "is_even")
		for (i = n - 1; i >= 0; i--) print (i % 2 ? "is_odd" : "is_even")
		print "main"
		for (i = 0; i <= 2 * n; i++) print "by_ptr"
		print "main"
	}'
}
# json_seq FILE: the one sequence of a JSON report, one name a line
json_seq() {
	sed -n 's/.*"sequence": \[\(.*\)\]}.*/\1/p' "$1" | tr -d '" ' | tr , '\n'
}
for what in self tail; do
	./plain $selfdeep $what >plain.$what || { echo "Bail out! tailcall N $what"; exit 1; }
	want_seq $what $selfsmall >$what.want
done
# CASES FLAGS MODE OPT: builds with calls and FLAGS, runs each case
# $selfdeep deep in 1 MiB of stack at -O2, and at $selfsmall compares
# the decoded sequence with the source's
check_cases() {
	cases=$1 flags=$2 mode=$3 opt=$4
	n=$((n + 1))
	what="calls $flags $mode $opt ($cases)"
	if ! "$papgcc" $opt -w -fplugin-arg-pap-calls $flags \
	     -fplugin-arg-pap-mode=$mode "$src" -o dself 2>cc.err; then
		echo "not ok $n - $what: compile failed"
		sed 's/^/# /' cc.err
		fails=$((fails + 1)); return
	fi
	for c in $cases; do
		rm -f pap.prof
		if [ $opt = -O2 ] &&
		   { ! (ulimit -s 1024 && ./dself $selfdeep $c >dself.out) ||
		     ! cmp -s plain.$c dself.out ||
		     ! "$decode" --format=json pap.prof >deep.json 2>decode.err ||
		     ! grep -q '"complete": true' deep.json; }; then
			echo "not ok $n - $what: $c $selfdeep deep in tail position does not run in 1 MiB of stack as the plain build does, or does not decode"
			sed 's/^/# /' decode.err
			fails=$((fails + 1)); return
		fi
		rm -f pap.prof
		if ! ./dself $selfsmall $c >/dev/null ||
		   ! "$decode" --format=json pap.prof >small.json 2>decode.err ||
		   ! json_seq small.json >$c.got || ! cmp -s $c.want $c.got; then
			echo "not ok $n - $what: the $c sequence at $selfsmall is not the source's"
			diff $c.want $c.got | head -5 | sed 's/^/# /'
			fails=$((fails + 1)); return
		fi
	done
	echo "ok $n - $what: $([ $opt = -O2 ] && echo "$selfdeep deep in 1 MiB of stack; ")sequences at $selfsmall are the source's"
}
for mode in none pap-epp; do
	for opt in -O2 -O0; do
		check_cases self "" $mode $opt
		check_cases "self tail" -fplugin-arg-pap-calls-tail $mode $opt
	done
done
# calls-notail: a function's tail calls of itself are calls again, and
# the same $selfdeep overflow the 1 MiB stack
n=$((n + 1))
if "$papgcc" -O2 -w -fplugin-arg-pap-calls -fplugin-arg-pap-calls-notail \
     -fplugin-arg-pap-mode=none "$src" -o nself 2>cc.err &&
   ./nself $selfsmall self >/dev/null &&
   ! (ulimit -s 1024 && ./nself $selfdeep self >/dev/null 2>&1); then
	echo "ok $n - calls-notail: tail calls are calls again ($selfdeep deep overflows 1 MiB)"
else
	echo "not ok $n - calls-notail: still runs $selfdeep deep in 1 MiB of stack, or fails to build"
	fails=$((fails + 1))
fi
# the self tail sites are there
n=$((n + 1))
if cat *.papm 2>/dev/null | grep -q ' selftail '; then
	echo "ok $n - the metadata has self tail sites"
else
	echo "not ok $n - no self tail site in the metadata"
	fails=$((fails + 1))
fi
[ $fails -eq 0 ]
