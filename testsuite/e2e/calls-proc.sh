#!/bin/sh
# calls-proc.sh - call sequences (-fplugin-arg-pap-calls) through what a
# process does besides calling: signal handlers, fork, shared objects
# loaded with dlopen.  Each program is built with the plugin and
# -finstrument-functions, linked with the oracle (cygoracle.c, sharing
# nothing with pap), and pap-decode's sequences, each times its count,
# must equal the oracle's as multisets; the program's output must equal
# its plain build's.  -O0 and -O2.  TAP output.
#
#   procsig.c   thousands of SIGALRM/SIGPROF handlers (each able to
#               interrupt the other's) that interrupt an instrumented
#               loop: each a sequence of its own; and a raise(): inline.
#               Calls alone (mode none): an intra-procedural path that a
#               handler interrupts may be lost, and so may a record a
#               handler makes while the thread is recording one (the
#               aggregate defers it, in little room)
#   procfork.c  fork three frames deep, after a thread's sequence ended
#               in the parent: the child's sequence starts at the fork
#               ("start": "fork"), the thread's is recorded once
#   procdl.c    a library built with the calls mode, loaded with dlopen,
#               called through dlsym's pointers, calling back, closed,
#               and loaded again: its unit in the profile's UNIT records
# The file sink and pap-collector.  Last, a collector refuses the call
# kinds (CALLS, PROG, UNIT) from a producer that claims shm 2.3.
# PAP_PROC_SIGNALS sets how many handlers interrupt the loop (3000).
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
cc=${CC:-gcc}
collector=$top_builddir/collector/pap-collector
rogue=$top_builddir/testsuite/tools/pap-rogue
e2e=$top_srcdir/testsuite/e2e
src=$e2e/calls
nsig=${PAP_PROC_SIGNALS:-3000}
export TMPDIR="$tmp"

$cc -O2 -c -o cygoracle.o "$e2e/cygoracle.c" &&
$cc -O2 -o calls-check "$e2e/calls-check.c" &&
$cc -O2 -c -o sigwrap.o "$src/procsigwrap.c" || {
	echo "Bail out! cannot build the oracle or its checker"
	exit 1
}
pap_flags="-fplugin-arg-pap-calls -finstrument-functions"
export PAP_PLUGIN_ARGS="$pap_flags"

seqs_py=$top_srcdir/testsuite/e2e/calls-seqs.py

# run DIR NMARGS CMD...: runs CMD in DIR with the oracle writing there,
# leaves DIR/out (output and status), DIR/oracle.seq (the oracle's
# sequences, sorted; NMARGS: calls-check's nm arguments, relative to
# DIR) and DIR/pap.json (pap-decode's report of DIR/pap.prof)
run() {
	_d=$1 _nm=$2
	shift 2
	rm -rf "$_d/o"
	mkdir -p "$_d/o"
	(cd "$_d" && ORACLE_DIR=$PWD/o "$@" >out 2>err
	 echo "status $?" >>out
	 # shellcheck disable=SC2086
	 "$tmp/calls-check" $_nm o/oracle.* 2>>err |
		LC_ALL=C sort >oracle.seq
	 "$decode" --format=json --top=0 --max-sequence=100000000 \
		pap.prof >pap.json 2>>err)
}

# same WHAT DIR PLAINOUT: DIR's output is PLAINOUT's and its sequences
# the oracle's
same() {
	if ! cmp -s "$3" "$2/out"; then
		not_ok "$1: output differs from the plain build's"
		diff "$3" "$2/out" | head -5 | sed 's/^/# /'
		diag "$2/err" 5
	elif python3 "$seqs_py" "$2/pap.json" | LC_ALL=C sort |
	     cmp -s - "$2/oracle.seq"; then
		ok "$1: $(wc -l <"$2/oracle.seq") sequences, $(wc -w <"$2/oracle.seq") names, equal to the oracle's"
	else
		not_ok "$1: sequences differ from the oracle's"
		python3 "$seqs_py" "$2/pap.json" | LC_ALL=C sort |
			diff - "$2/oracle.seq" | cut -c1-200 | head -6 |
			sed 's/^/# /'
		diag "$2/err" 5
	fi
}

why=
echo 'int main(void) { return 0; }' >one.c
if ! command -v python3 >/dev/null 2>&1; then
	why="python3 is not installed: cannot read the JSON report"
elif ! "$papgcc" -o one one.c >one.log 2>&1; then
	why="the plugin has no calls mode ($(head -1 one.log | cut -c1-60))"
fi
if [ -n "$why" ]; then
	skip "$why"
	echo "1..$n"
	exit 0
fi

for opt in -O0 -O2; do
	# signals
	d=sig$opt
	mkdir -p "$d"
	if ! $cc $opt -o "$d/plain" "$src/procsig.c" sigwrap.o cygoracle.o \
	     >"$d/cc.log" 2>&1 ||
	   ! "$papgcc" $opt -fchecking -fplugin-arg-pap-mode=none \
		-o "$d/prog" "$src/procsig.c" sigwrap.o cygoracle.o \
		>>"$d/cc.log" 2>&1; then
		not_ok "signals $opt: does not build"
		diag "$d/cc.log"
		continue
	fi
	(cd "$d" && ./plain "$nsig" >plain.out 2>plain.err
	 echo "status $?" >>plain.out)
	nm -n -S "$d/prog" >"$d/nm"
	run "$d" nm ./prog "$nsig"
	same "signals $opt" "$d" "$d/plain.out"
	hs=$(grep -c '^handler_[bl]' "$d/oracle.seq")
	if [ "$hs" -ge "$nsig" ] &&
	   grep -q '^main .* inline_handler >handler_body ' "$d/oracle.seq"
	then
		ok "signals $opt: $hs handlers' own sequences ($(sed -n 's/^nested //p' "$d/err") nested in another), one inline"
	else
		not_ok "signals $opt: $hs handlers' own sequences (want $nsig), or none inline"
	fi
	mkdir -p "$d/coll"
	nm -n -S "$d/prog" >"$d/coll/nm"
	run "$d/coll" nm "$collector" -o pap.prof -- ../prog "$nsig"
	same "signals $opt: collector" "$d/coll" "$d/plain.out"

	# fork
	d=fork$opt
	mkdir -p "$d"
	if ! $cc $opt -pthread -o "$d/plain" "$src/procfork.c" cygoracle.o \
	     >"$d/cc.log" 2>&1 ||
	   ! "$papgcc" $opt -fchecking -pthread -o "$d/prog" \
		"$src/procfork.c" cygoracle.o >>"$d/cc.log" 2>&1; then
		not_ok "fork $opt: does not build"
		diag "$d/cc.log"
		continue
	fi
	(cd "$d" && ./plain >plain.out; echo "status $?" >>plain.out)
	nm -n -S "$d/prog" >"$d/nm"
	run "$d" nm ./prog
	same "fork $opt" "$d" "$d/plain.out"
	starts=$(python3 -c 'import json,sys
print(" ".join("%s:%s" % (c.get("start", "-"), c["sequence"][0])
               for c in json.load(open(sys.argv[1]))["call_paths"]))' \
		"$d/pap.json" | tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' ')
	if [ "$starts" = "-:main -:worker fork:f3 " ] &&
	   "$decode" --top=0 "$d/pap.prof" 2>/dev/null |
	   grep -q '^sequence .*, starts in a forked child$'; then
		ok "fork $opt: the child's sequence starts at f3's fork; the thread's is recorded once"
	else
		not_ok "fork $opt: sequences start as '$starts', not '-:main -:worker fork:f3'"
	fi
	mkdir -p "$d/coll"
	nm -n -S "$d/prog" >"$d/coll/nm"
	run "$d/coll" nm "$collector" -o pap.prof -- ../prog
	same "fork $opt: collector" "$d/coll" "$d/plain.out"

	# dlopen
	d=dl$opt
	mkdir -p "$d"
	if ! $cc $opt -shared -fPIC -o "$d/libplain.so" "$src/procdlib.c" \
	     >"$d/cc.log" 2>&1 ||
	   ! $cc $opt -o "$d/plain" "$src/procdl.c" cygoracle.o -ldl \
	     >>"$d/cc.log" 2>&1 ||
	   ! (cd "$d" && "$papgcc" $opt -fchecking -shared -fPIC \
		-o libproc.so "$src/procdlib.c" &&
	      "$papgcc" $opt -fchecking -o prog "$src/procdl.c" \
		"$tmp/cygoracle.o" -ldl) >>"$d/cc.log" 2>&1; then
		not_ok "dlopen $opt: does not build"
		diag "$d/cc.log"
		continue
	fi
	nm -n -S "$d/prog" >"$d/nm"
	nm -n -S "$d/libproc.so" >"$d/libnm"
	for times in once twice; do
		e=$d/$times
		mkdir -p "$e/coll"
		cp "$d/nm" "$d/libnm" "$e"
		cp "$d/nm" "$d/libnm" "$e/coll"
		(cd "$d" && ./plain "$PWD/libplain.so" \
			$([ $times = twice ] && echo again) >"$times.plain"
		 echo "status $?" >>"$times.plain")
		sed 's/libplain/libproc/' "$d/$times.plain" >"$e/plain.out"
		run "$e" "-l libnm nm" ../prog "$PWD/$d/libproc.so" \
			$([ $times = twice ] && echo again)
		same "dlopen $opt $times" "$e" "$e/plain.out"
		if "$decode" print "$e/pap.prof" 2>/dev/null |
		   grep -q '^u %unit:[0-9a-f]*:.*libproc.so-procdlib.papm ' &&
		   "$decode" print "$e/pap.prof" 2>/dev/null |
		   grep -q '^u %unit:[0-9a-f]*:.*prog-procdl.papm '; then
			ok "dlopen $opt $times: UNIT records name the program's unit and the library's"
		else
			not_ok "dlopen $opt $times: no UNIT record for the library or the program"
		fi
		run "$e/coll" "-l libnm nm" "$collector" -o pap.prof -- \
			../../prog "$PWD/$d/libproc.so" \
			$([ $times = twice ] && echo again)
		same "dlopen $opt $times: collector" "$e/coll" "$e/plain.out"
	done
done

# a producer of shm 2.3 cannot send the kinds of 2.4; one of 2.4 can
for v in 23 24; do
	sock="$tmp/pap-collector-$(id -u)/c$v"
	"$collector" -o "c$v.prof" --name "c$v" >/dev/null 2>"c$v.err" &
	cpid=$!
	i=0
	while [ ! -e "$sock" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i + 1)); done
	PAP_COLLECTOR=$sock "$rogue" "calls$v" >"r$v.out" 2>&1
	kill -TERM $cpid
	wait $cpid
	"$decode" print "c$v.prof" >"c$v.txt" 2>&1
done
if grep -q '^p plain:' c23.txt && ! grep -q '^[cgu] ' c23.txt &&
   grep -q 'lost 3: .* 3 rejected' c23.err &&
   [ "$(grep -c '^[cgu] %' c24.txt)" -eq 3 ] && grep -q '^p plain:' c24.txt
then
	ok "collector: a 2.3 producer's CALLS, PROG and UNIT records rejected, its path kept; a 2.4 producer's kept"
else
	not_ok "collector: the call kinds of a 2.3 producer not rejected, or a 2.4 producer's not kept"
	diag c23.txt 5
	diag c23.err 3
	diag r23.out 2
	diag c24.txt 5
	diag r24.out 2
fi
echo "1..$n"
tap_done
