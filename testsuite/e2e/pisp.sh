#!/bin/sh
# pisp.sh - end to end: call sequences of interest
# (-fplugin-arg-pap-calls-spec=FILE, pap-decode --calls-spec=FILE).  TAP.
#
# Each program is built three ways, all with GCC's -finstrument-functions
# oracle (cygoracle.c, sharing nothing with pap): plain (the oracle only),
# with every function's call probes, and with the probes of the spec's
# functions only.  For each run, the count pap-decode gives each sequence
# of interest in the selective build must equal the number of the
# oracle's per-thread sequences equal to it, and the count of that
# sequence among the full build's decoded call_paths; the selective
# build's output must be the plain build's.  The specs hold sequences
# that occur (the most and least frequent of the oracle's), and ones
# that do not (a run's first function alone, and one with a thread's
# functions but a call too many), and specs of single functions or of
# the least frequent sequence alone, which the other threads leave; the threads that left
# must include those the oracle says ran a function no sequence names (the
# automaton drops others too).  pisp-leave.c's threads leave mid-way in
# functions the spec names: the counts and the threads left are known by
# its construction; with paths of interest inside worker and a as well
# (in the calls-spec file, or a spec=FILE beside it), their counts and the
# sequences' are the full build's.  Units built with different specs are
# refused.  pisp-loop.c's main and workers leave in the middle of long
# loops of their own activations, which go on in their copies: the
# output is the plain build's, the counts the oracle's and the full
# build's, and under valgrind the rounds after cost less than half of
# what the probes cost; pisp-signal.c's thread leaves inside a signal
# handler, and is counted with nothing lost; pisp-fork.c's child of a
# thread that left stays off the sequences.  Then the spec errors:
# syntax refused by the plugin with FILE:LINE and no program made, an
# unknown function refused by check-spec against the metadata.
# PAP_PISP_SEEDS sets how many random programs (default 3).
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
cc=${CC:-gcc}
nseeds=${PAP_PISP_SEEDS:-3}
e2e=$top_srcdir/testsuite/e2e

if ! command -v python3 >/dev/null 2>&1; then
	skip "python3 is not installed: cannot read the JSON report"
	echo "1..$n"
	tap_done
	exit
fi
$cc -O2 -c -o cygoracle.o "$e2e/cygoracle.c" &&
$cc -O2 -o calls-check "$e2e/calls-check.c" &&
$cc -O2 -o gencalls "$e2e/gencalls.c" || {
	echo "Bail out! cannot build the oracle, its checker or gencalls"
	exit 1
}

# run DIR PROG ARGS...: PROG run in DIR under the oracle: DIR/out (its
# output and status), DIR/oracle.seq (the per-thread sequences, sorted)
run() {
	_d=$1
	shift
	rm -rf "$_d"
	mkdir -p "$_d/o"
	(cd "$_d" && ORACLE_DIR=o "$@" >out 2>err; echo "status $?" >>out)
	nm -n -S "$1" >"$_d/nm" &&
	"$tmp/calls-check" "$_d/nm" "$_d"/o/oracle.* 2>>"$_d/err" |
		LC_ALL=C sort >"$_d/oracle.seq"
}

# the spec of a run's oracle sequences: its most and least frequent, its
# first function alone, the first sequence with its first call twice
cat >mkspec.py <<'EOF'
import sys
least = sys.argv[1] == "--least"   # only the least frequent, and never
seqs = {}
for f in sys.argv[1 + least:]:
    for l in open(f):
        l = l.split()
        if l:
            seqs[" ".join(l)] = seqs.get(" ".join(l), 0) + 1
print("pap-spec 2.1")
if seqs:
    order = sorted(seqs, key=lambda s: (-seqs[s], s))
    want = [order[0], order[-1], order[0].split()[0]]
    if least:
        want = [order[-1]]
    first = want[0].split()
    if len(first) > 1:
        want.append(" ".join(first[:2] + first[1:]))
    done = set()
    for s in want:
        if s not in done:
            print("calls " + s)
            done.add(s)
EOF
# oracle counts: "COUNT SEQUENCE" for each calls line of SPEC in ORACLE.SEQ
cat >want.py <<'EOF'
import re, sys
def expand(words):
    # a calls line's names, its "( ... )^N" written out
    out, stack = [], []
    for t in re.findall(r"\(|\)\^\d+|[^\s()]+", " ".join(words)):
        if t == "(":
            stack.append(len(out))
        elif t.startswith(")^"):
            start = stack.pop()
            out[start:] = out[start:] * int(t[2:])
        else:
            out.append(t)
    return " ".join(out)
def spec(f):
    for l in open(f):
        l = l.split("#")[0].split()
        if l[:1] == ["calls"]:
            yield expand(w for w in l[1:] if "=" not in w)
if __name__ == "__main__":
    seqs = [" ".join(l.split()) for l in open(sys.argv[2])]
    for s in spec(sys.argv[1]):
        print(seqs.count(s), s)
EOF
# pap's counts: from --calls-spec's calls_of_interest (got), or from the
# full build's call_paths for the same sequences (full)
cat >got.py <<'EOF'
import json, sys
from want import spec
j = json.load(open(sys.argv[2]))
if sys.argv[1] == "got":
    for c in j["calls_of_interest"]:
        print(c["count"], " ".join(c["sequence"]))
else:
    paths = j.get("call_paths", [])
    for s in spec(sys.argv[3]):
        print(sum(c["count"] for c in paths
                  if " ".join(c["sequence"]) == s), s)
EOF

# threads that must leave: those whose oracle sequence begins with a
# function of the spec (its entry probe runs) and has one not in it (it
# leaves there, if not before); a thread that begins outside the spec's
# functions never runs their probes (they jump to their copies) and makes
# no record
cat >left.py <<'EOF'
import sys
from want import spec
names = set(w.lstrip(">") for s in spec(sys.argv[1]) for w in s.split())
left = 0
for l in open(sys.argv[2]):
    fns = set(w.lstrip(">") for w in l.split())
    if l.split() and l.split()[0] in names and fns - names:
        left += 1
print(left)
EOF

# build WHAT OUT FLAGS SRCS...: OUT built with pap-gcc and PAP_PLUGIN_ARGS
# FLAGS (the oracle linked in); 0 or a failure said
build() {
	_w=$1 _o=$2 _f=$3
	shift 3
	# shellcheck disable=SC2086
	if (export PAP_PLUGIN_ARGS="$_f"
	    "$papgcc" $opt -w -pthread -o "$_o" "$@" cygoracle.o) \
	    >"$_o.log" 2>&1; then
		return 0
	fi
	not_ok "$_w: does not build"
	diag "$_o.log"
	return 1
}

# check WHAT SPEC DIR FULLDIR PLAINDIR: the selective run in DIR against
# the oracle and the full run in FULLDIR, output against PLAINDIR's
check() {
	_w=$1 _s=$2 _d=$3 _fd=$4 _pd=$5
	if ! cmp -s "$_pd/out" "$_d/out"; then
		not_ok "$_w: output differs from the plain build's"
		diff "$_pd/out" "$_d/out" | head -5 | sed 's/^/# /'
		return
	fi
	if ! "$decode" --format=json --top=0 --calls-spec="$_s" \
	     "$_d/pap.prof" >"$_d/pap.json" 2>"$_d/decode.err"; then
		not_ok "$_w: pap-decode failed"
		diag "$_d/decode.err"
		return
	fi
	python3 want.py "$_s" "$_d/oracle.seq" >"$_d/want"
	python3 got.py got "$_d/pap.json" >"$_d/got"
	python3 got.py full "$_fd/pap.json" "$_s" >"$_d/full"
	_l=$(python3 left.py "$_s" "$_d/oracle.seq")
	_gl=$(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["calls_left"])' "$_d/pap.json")
	# the automaton drops more (threads in named functions that no
	# sequence can go on with): at least those
	if [ "$_gl" -lt "$_l" ]; then
		not_ok "$_w: $_gl threads left the sequences, the oracle says at least $_l"
		return
	fi
	left=$((left + _l))
	# the text report says the same counts
	"$decode" --top=0 --calls-spec="$_s" "$_d/pap.prof" 2>/dev/null |
		sed -n '/^call sequences of interest/,$p' |
		sed -n 's/^  count \([0-9]*\), line [0-9]*: /\1 /p' >"$_d/text"
	if ! cmp -s "$_d/text" "$_d/want"; then
		not_ok "$_w: the text report's counts differ"
		diff "$_d/want" "$_d/text" | head -5 | sed 's/^/# /'
		return
	fi
	if cmp -s "$_d/want" "$_d/got" && cmp -s "$_d/want" "$_d/full"; then
		ok "$_w: $(awk '{ printf "%s%s", s, $1; s = "," }' \
			"$_d/want") for $(wc -l <"$_d/want") sequences, as the oracle and the full build"
		never=$((never + $(grep -c '^0 ' "$_d/want")))
		seen=$((seen + $(grep -vc '^0 ' "$_d/want")))
	else
		not_ok "$_w: counts differ (oracle / selective / full)"
		paste -d'|' "$_d/want" "$_d/got" "$_d/full" | cut -c1-200 |
			head -8 | sed 's/^/# /'
	fi
}

never=0
seen=0
left=0
# 1. The hand-written programs (recursion, qsort callbacks, threads, exit
# deep in calls, longjmp), -O0 and -O2.
modes="rec qsort threads exit longjmp"
for opt in -O0 -O2; do
	h=hand$opt
	mkdir -p "$h"
	$cc $opt -finstrument-functions -pthread -o "$h/plain" \
		"$e2e/calls-hand.c" cygoracle.o || {
		not_ok "calls-hand.c $opt: the plain build fails"
		continue
	}
	build "calls-hand.c $opt full" "$h/full" \
	      "-fplugin-arg-pap-calls -finstrument-functions" \
	      "$e2e/calls-hand.c" || continue
	for m in $modes; do
		run "$h/plain-$m" "$(pwd)/$h/plain" "$m"
		run "$h/full-$m" "$(pwd)/$h/full" "$m"
		"$decode" --format=json --top=0 "$h/full-$m/pap.prof" \
			>"$h/full-$m/pap.json" 2>"$h/full-$m/decode.err"
	done
	# spec a: each run's sequences; spec b: single functions
	for m in $modes; do
		python3 mkspec.py "$h/plain-$m/oracle.seq" | tail -n +2
	done | LC_ALL=C sort -u | sed '1i pap-spec 2.1' >"$h/a.spec"
	printf 'pap-spec 2.1\ncalls main\ncalls worker\ncalls main ( sorter )^2\n' \
		>"$h/b.spec"
	for s in a b; do
		build "calls-hand.c $opt spec $s" "$h/sel-$s" \
		      "-fplugin-arg-pap-calls -fplugin-arg-pap-calls-spec=$h/$s.spec -finstrument-functions" \
		      "$e2e/calls-hand.c" || continue
		for m in $modes; do
			run "$h/sel-$s-$m" "$(pwd)/$h/sel-$s" "$m"
			check "calls-hand.c $opt spec $s $m" "$h/$s.spec" \
			      "$h/sel-$s-$m" "$h/full-$m" "$h/plain-$m"
		done
	done
	# --write-spec: the calls lines, each count= times, are the
	# oracle's sequences, and check-spec takes them
	for m in rec threads; do
		d=$h/full-$m
		w="calls-hand.c $opt $m: --write-spec"
		if ! "$decode" --top=0 --write-spec="$d/w.spec" \
		     "$d/pap.prof" >/dev/null 2>"$d/w.err"; then
			not_ok "$w failed"
			diag "$d/w.err"
			continue
		fi
		python3 - "$d/w.spec" >"$d/w.seq" <<'EOF'
import sys
from want import expand
for l in open(sys.argv[1]):
    l = l.split()
    if l[:1] == ["calls"]:
        n = [int(w[6:]) for w in l if w.startswith("count=")][0]
        for i in range(n):
            print(expand(w for w in l[1:] if "=" not in w))
EOF
		if head -1 "$d/w.spec" | grep -qx 'pap-spec 2.1' &&
		   LC_ALL=C sort "$d/w.seq" | cmp -s - "$d/oracle.seq" &&
		   "$decode" check-spec --meta="$h/full-calls-hand.papm" \
			"$d/w.spec" >"$d/w.check" 2>&1; then
			ok "$w: $(wc -l <"$d/w.seq") sequences, the oracle's, checked"
		else
			not_ok "$w: not the oracle's sequences, or refused"
			diag "$d/w.spec" 5
			diag "$d/w.check" 5
		fi
	done
	# threads under spec b: the workers left at their first call and
	# made no record; the full build recorded them
	d=$h/sel-b-threads
	if [ -f "$d/pap.json" ]; then
		got=$(python3 -c 'import json,sys
print(sum(c["count"] for c in json.load(open(sys.argv[1])).get("call_paths", [])))' "$d/pap.json")
		all=$(python3 -c 'import json,sys
print(sum(c["count"] for c in json.load(open(sys.argv[1])).get("call_paths", [])))' "$h/full-threads/pap.json")
		if [ "$got" -lt "$all" ]; then
			ok "calls-hand.c $opt threads, spec b: $got of $all sequences recorded, the others left"
		else
			not_ok "calls-hand.c $opt threads, spec b: $got sequences recorded, the full build $all"
		fi
	fi
done

# 2. Random programs (gencalls.c: loops of calls, recursion, indirect
# calls, threads, longjmp, exit).
for seed in $(seq 1 "$nseeds"); do
	g=gen$seed
	mkdir -p "$g"
	srcs=$(./gencalls "$seed" "$g") || { not_ok "gencalls $seed"; continue; }
	for opt in -O0 -O2; do
		w="program $seed $opt"
		# shellcheck disable=SC2086
		$cc $opt -w -finstrument-functions -pthread -o "$g/plain$opt" \
			$srcs cygoracle.o || {
			not_ok "$w: the plain build fails"
			continue
		}
		# shellcheck disable=SC2086
		build "$w full" "$g/full$opt" \
		      "-fplugin-arg-pap-calls -finstrument-functions" $srcs ||
			continue
		run "$g/plain$opt.d" "$(pwd)/$g/plain$opt" "$seed"
		run "$g/full$opt.d" "$(pwd)/$g/full$opt" "$seed"
		"$decode" --format=json --top=0 "$g/full$opt.d/pap.prof" \
			>"$g/full$opt.d/pap.json" 2>"$g/full$opt.d/decode.err"
		# spec 1: as the hand program's; spec 2: the least
		# frequent sequence alone, which other threads leave
		python3 mkspec.py "$g/plain$opt.d/oracle.seq" >"$g/1$opt.spec"
		python3 mkspec.py --least "$g/plain$opt.d/oracle.seq" \
			>"$g/2$opt.spec"
		for k in 1 2; do
			# shellcheck disable=SC2086
			build "$w spec $k" "$g/sel$k$opt" \
			      "-fplugin-arg-pap-calls -fplugin-arg-pap-calls-spec=$g/$k$opt.spec -finstrument-functions" \
			      $srcs || continue
			run "$g/sel$k$opt.d" "$(pwd)/$g/sel$k$opt" "$seed"
			check "$w spec $k" "$g/$k$opt.spec" "$g/sel$k$opt.d" \
			      "$g/full$opt.d" "$g/plain$opt.d"
		done
	done
done
note "$seen sequences of interest seen, $never never, $left threads left them"
if [ "$seen" -gt 0 ] && [ "$never" -gt 0 ] && [ "$left" -gt 0 ]; then
	ok "the specs had sequences seen and never seen, and threads that left"
else
	not_ok "a case was lost: $seen seen, $never never, $left threads left"
fi

# 2b. Threads that leave mid-way in functions the spec names
# (pisp-leave.c: 3m workers, m on the sequence, 2m leaving, main on its
# own sequence), -O0 and -O2: counts and threads left by construction,
# the full build's counts the same, the output the plain build's.
printf 'pap-spec 2.1\ncalls main\ncalls worker a worker b worker\n' >leave.spec
for opt in -O0 -O2; do
	d=leave$opt
	mkdir -p "$d"
	w="pisp-leave.c $opt"
	$cc $opt -pthread -o "$d/plain" "$e2e/pisp-leave.c" || {
		not_ok "$w: the plain build fails"
		continue
	}
	build "$w full" "$d/full" "-fplugin-arg-pap-calls" \
	      "$e2e/pisp-leave.c" || continue
	build "$w spec" "$d/sel" \
	      "-fplugin-arg-pap-calls -fplugin-arg-pap-calls-spec=leave.spec" \
	      "$e2e/pisp-leave.c" || continue
	m=7
	for b in plain full sel; do
		rm -rf "$d/$b.d"
		mkdir -p "$d/$b.d"
		(cd "$d/$b.d" && "../$b" $((3 * m)) >out 2>err;
		 echo "status $?" >>out)
	done
	printf '%s\n' "1 main" "$m worker a worker b worker" >"$d/want"
	for b in full sel; do
		"$decode" --format=json --top=0 --calls-spec=leave.spec \
			"$d/$b.d/pap.prof" >"$d/$b.json" 2>"$d/$b.err"
		python3 got.py got "$d/$b.json" >"$d/$b.got"
	done
	gl=$(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["calls_left"])' "$d/sel.json")
	if ! cmp -s "$d/plain.d/out" "$d/sel.d/out"; then
		not_ok "$w: output differs from the plain build's"
	elif cmp -s "$d/want" "$d/sel.got" && cmp -s "$d/want" "$d/full.got" &&
	     [ "$gl" = $((2 * m)) ]; then
		ok "$w: $m of $((3 * m)) workers on the sequence, $gl left mid-way, as built"
	else
		not_ok "$w: counts or threads left differ ($gl left, want $((2 * m)))"
		paste -d'|' "$d/want" "$d/sel.got" "$d/full.got" | sed 's/^/# /'
	fi
done

# 2d. Paths of interest inside functions with the call sequences (PSP
# inside): a path of worker's, from the full build's --write-spec, in the
# calls-spec file itself, or in a spec=FILE beside it; its count and the
# sequences' counts must be the full build's (default mode, every
# function), the output the plain build's.
for opt in -O0 -O2; do
	d=leave$opt
	[ -f "$d/full.d/pap.prof" ] || continue
	"$decode" --top=0 --function='^worker$' --write-spec="$d/w.spec" \
		"$d/full.d/pap.prof" >/dev/null 2>&1
	p=$(sed -n 's/^path worker [^ ]* [^ ]* //p' "$d/w.spec" | sed -n 2p)
	if [ -z "$p" ]; then
		not_ok "pisp-leave.c $opt: no second path of worker written"
		continue
	fi
	# and a's path: a runs in threads that left too, and counts there
	"$decode" --top=0 --function='^a$' --write-spec="$d/wa.spec" \
		"$d/full.d/pap.prof" >/dev/null 2>&1
	pa=$(sed -n 's/^path a [^ ]* [^ ]* //p' "$d/wa.spec" | sed -n 1p)
	printf 'pap-spec 2.1\npath worker %s\npath a %s\n' "$p" "$pa" >"$d/p.spec"
	cat leave.spec >"$d/both.spec"
	printf 'path worker %s\npath a %s\n' "$p" "$pa" >>"$d/both.spec"
	for how in one two; do
		w="pisp-leave.c $opt: paths of worker and a with the sequences, spec in $how file(s)"
		if [ $how = one ]; then
			f="-fplugin-arg-pap-calls -fplugin-arg-pap-calls-spec=$d/both.spec"
		else
			f="-fplugin-arg-pap-calls -fplugin-arg-pap-calls-spec=leave.spec -fplugin-arg-pap-spec=$d/p.spec"
		fi
		build "$w" "$d/psp-$how" "$f" "$e2e/pisp-leave.c" || continue
		rm -rf "$d/psp-$how.d"
		mkdir -p "$d/psp-$how.d"
		(cd "$d/psp-$how.d" && "../psp-$how" $((3 * m)) >out 2>err;
		 echo "status $?" >>out)
		for b in full psp-$how; do
			"$decode" --format=json --top=0 --calls-spec=leave.spec \
				"$d/$b.d/pap.prof" >"$d/$b.pj" 2>/dev/null
			python3 - "$d/$b.pj" "$p" "$pa" >"$d/$b.pc" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
# the selective build reports each path of interest (one a function
# here) under "selective", the full build every path by its blocks
sel = {f["function"]: f for f in j.get("selective", [])}
for fn, p in (("worker", sys.argv[2]), ("a", sys.argv[3])):
    if fn in sel:
        n = sum(q["count"] for q in sel[fn]["paths"])
    else:
        n = sum(q["count"] for f in j["functions"] if f["name"] == fn
                for q in f["paths"]
                if q["blocks_packed"].split() == p.split())
    print("path", fn, n)
for c in j["calls_of_interest"]:
    print(c["count"], " ".join(c["sequence"]))
EOF
		done
		if ! cmp -s "$d/plain.d/out" "$d/psp-$how.d/out"; then
			not_ok "$w: output differs from the plain build's"
		elif cmp -s "$d/full.pc" "$d/psp-$how.pc" &&
		     ! grep -q '^path .* 0$' "$d/full.pc"; then
			ok "$w: $(tr '\n' ',' <"$d/full.pc" | cut -c1-80) as the full build"
		else
			not_ok "$w: counts differ (full | selective)"
			paste -d'|' "$d/full.pc" "$d/psp-$how.pc" | sed 's/^/# /'
		fi
	done
done

# 2c. Units built with different specs (or one without calls-spec) make
# a program that says so when it starts and records no call sequence.
printf 'pap-spec 2.1\ncalls main\n' >other.spec
echo 'int other(int x) { return x + 1; }' >other.c
for o in other nospec; do
	w="units of different specs ($o)"
	if [ $o = other ]; then
		f="-fplugin-arg-pap-calls -fplugin-arg-pap-calls-spec=other.spec"
	else
		f="-fplugin-arg-pap-calls"
	fi
	rm -rf "mix-$o"
	mkdir -p "mix-$o"
	if ! (PAP_PLUGIN_ARGS="-fplugin-arg-pap-calls -fplugin-arg-pap-calls-spec=leave.spec" \
	      "$papgcc" -O1 -c -o "mix-$o/a.o" "$e2e/pisp-leave.c" &&
	      PAP_PLUGIN_ARGS="$f" "$papgcc" -O1 -c -o "mix-$o/b.o" other.c &&
	      "$papgcc" -pthread -o "mix-$o/prog" "mix-$o/a.o" "mix-$o/b.o") \
	     >"mix-$o/log" 2>&1; then
		not_ok "$w: does not build"
		diag "mix-$o/log"
		continue
	fi
	(cd "mix-$o" && ./prog 6 >out 2>err)
	nrec=$("$decode" --format=json --top=0 "mix-$o/pap.prof" 2>/dev/null |
		python3 -c 'import json,sys
print(sum(c["count"] for c in json.load(sys.stdin).get("call_paths", [])))' 2>/dev/null)
	if grep -q "pap: error: .*: built with .*another unit with .*same -fplugin-arg-pap-calls-spec; no call sequences are recorded" "mix-$o/err" &&
	   [ "${nrec:-x}" = 0 ]; then
		ok "$w: refused at run time, nothing recorded"
	else
		not_ok "$w: not refused (${nrec:-?} sequences recorded)"
		diag "mix-$o/err"
	fi
done

# 2e. Threads that leave in the middle of long loops of their own
# activation (pisp-loop.c): main in its first round, the kind 1 workers
# in their third, inside a nested loop; -O0 and -O2, with each
# function's paths (epp) and without (none).  Each activation moves to
# its copy after the call in which its thread left, its locals, the
# call's result and the loops' state going on there: the output must be
# the plain build's, the counts of the sequences of interest the
# oracle's and the full build's, and the threads left main and the
# kind 1 workers, by construction.
printf 'pap-spec 2.1\ncalls main step main\ncalls worker step worker step worker step worker other worker\ncalls worker a worker\n' \
	>loop.spec
for opt in -O0 -O2; do
	l=loop$opt
	mkdir -p "$l"
	$cc $opt -finstrument-functions -pthread -o "$l/plain" \
		"$e2e/pisp-loop.c" cygoracle.o || {
		not_ok "pisp-loop.c $opt: the plain build fails"
		continue
	}
	run "$l/plain.d" "$(pwd)/$l/plain" 3000 6
	for mode in epp none; do
		w="pisp-loop.c $opt mode=$mode"
		f="-fplugin-arg-pap-mode=$mode -finstrument-functions"
		build "$w full" "$l/full-$mode" "-fplugin-arg-pap-calls $f" \
		      "$e2e/pisp-loop.c" || continue
		build "$w spec" "$l/sel-$mode" \
		      "-fplugin-arg-pap-calls -fplugin-arg-pap-calls-spec=loop.spec $f" \
		      "$e2e/pisp-loop.c" || continue
		run "$l/full-$mode.d" "$(pwd)/$l/full-$mode" 3000 6
		run "$l/sel-$mode.d" "$(pwd)/$l/sel-$mode" 3000 6
		"$decode" --format=json --top=0 "$l/full-$mode.d/pap.prof" \
			>"$l/full-$mode.d/pap.json" 2>"$l/full-$mode.d/decode.err"
		check "$w" loop.spec "$l/sel-$mode.d" "$l/full-$mode.d" \
		      "$l/plain.d"
		gl=$(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["calls_left"])' "$l/sel-$mode.d/pap.json" 2>/dev/null)
		if [ "$gl" = 4 ]; then
			ok "$w: main and the 3 kind 1 workers left, as built"
		else
			not_ok "$w: ${gl:-no} threads left, want 4"
		fi
	done
done

# 2f. The activations that moved cost what their copies cost: under
# valgrind (when installed), -O2, mode=none, main alone for 10^5 rounds
# after it left, the instructions over the plain build's are at most
# half the full build's (the copies pay a load and a branch at each
# entry and after each call; an activation that kept its probes to its
# end made them about 3/4).  A bound on work done, not on time.
if command -v valgrind >/dev/null 2>&1; then
	l=loop-insns
	mkdir -p "$l"
	if $cc -O2 -pthread -o "$l/plain" "$e2e/pisp-loop.c" &&
	   (export PAP_PLUGIN_ARGS="-fplugin-arg-pap-calls -fplugin-arg-pap-mode=none"
	    "$papgcc" -O2 -pthread -o "$l/full" "$e2e/pisp-loop.c" &&
	    PAP_PLUGIN_ARGS="$PAP_PLUGIN_ARGS -fplugin-arg-pap-calls-spec=loop.spec" \
	    "$papgcc" -O2 -pthread -o "$l/sel" "$e2e/pisp-loop.c") \
	    >"$l/build.log" 2>&1; then
		for b in plain full sel; do
			mkdir -p "$l/$b.d"
			(cd "$l/$b.d" && valgrind --tool=callgrind \
				--callgrind-out-file=/dev/null "../$b" 100000 0 \
				>out 2>err)
		done
		i_plain=$(sed -n 's/.*Collected : *//p' "$l/plain.d/err")
		i_full=$(sed -n 's/.*Collected : *//p' "$l/full.d/err")
		i_sel=$(sed -n 's/.*Collected : *//p' "$l/sel.d/err")
		if [ -z "$i_plain" ] || [ -z "$i_full" ] || [ -z "$i_sel" ] ||
		   ! cmp -s "$l/plain.d/out" "$l/sel.d/out"; then
			not_ok "pisp-loop.c under valgrind: no count, or the output differs"
			diag "$l/sel.d/err"
		elif [ $((2 * (i_sel - i_plain))) -le $((i_full - i_plain)) ]; then
			ok "pisp-loop.c: $i_plain instructions plain, $i_full with every probe, $i_sel with the spec: main's loop left its probes"
		else
			not_ok "pisp-loop.c: $i_sel instructions with the spec, over half-way from plain's $i_plain to the full build's $i_full"
		fi
	else
		not_ok "pisp-loop.c: the valgrind builds fail"
		diag "$l/build.log"
	fi
else
	skip "valgrind is not installed: the cost of the moved activations is not counted"
fi

# 2g. A thread that leaves inside a signal handler (pisp-signal.c):
# the handler's activation moves to its copy and returns without its
# exit probe, main's after its next call; the thread is counted as one
# that left, and nothing of it is recorded or counted lost.
for opt in -O0 -O2; do
	d=signal$opt
	w="pisp-signal.c $opt"
	mkdir -p "$d/plain.d" "$d/sel.d"
	printf 'pap-spec 2.1\ncalls main h more h main\n' >"$d/s.spec"
	if ! $cc $opt -o "$d/plain" "$e2e/pisp-signal.c" ||
	   ! (PAP_PLUGIN_ARGS="-fplugin-arg-pap-calls -fplugin-arg-pap-calls-spec=$d/s.spec" \
	      "$papgcc" $opt -o "$d/sel" "$e2e/pisp-signal.c") >"$d/build.log" 2>&1; then
		not_ok "$w: does not build"
		diag "$d/build.log"
		continue
	fi
	for b in plain sel; do
		(cd "$d/$b.d" && "../$b" >out 2>err; echo "status $?" >>out)
	done
	"$decode" --format=json --top=0 --calls-spec="$d/s.spec" \
		"$d/sel.d/pap.prof" >"$d/sel.json" 2>"$d/decode.err"
	got=$(python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))
print(j["calls_left"], j["lost"], j["calls_recorded"])' "$d/sel.json" 2>/dev/null)
	if ! cmp -s "$d/plain.d/out" "$d/sel.d/out"; then
		not_ok "$w: output differs from the plain build's"
	elif [ "$got" = "1 0 0" ] && ! [ -s "$d/sel.d/err" ]; then
		ok "$w: the thread left in the handler, counted, nothing lost"
	else
		not_ok "$w: left, lost, recorded: ${got:-?} (want 1 0 0)"
		diag "$d/sel.d/err"
	fi
done

# 2h. A thread that left forks (pisp-fork.c): the child goes on in the
# copy its parent's main moved to, so it stays off the sequences too:
# two threads left, nothing recorded (a child back on them would record
# its calls from the copy as entries from outside), where the full build
# records the two sequences.
for opt in -O0 -O2; do
	d=fork$opt
	w="pisp-fork.c $opt"
	mkdir -p "$d/plain.d" "$d/sel.d" "$d/full.d"
	printf 'pap-spec 2.1\ncalls main f main\n' >"$d/s.spec"
	if ! $cc $opt -o "$d/plain" "$e2e/pisp-fork.c" ||
	   ! (PAP_PLUGIN_ARGS="-fplugin-arg-pap-calls -fplugin-arg-pap-calls-spec=$d/s.spec" \
	      "$papgcc" $opt -o "$d/sel" "$e2e/pisp-fork.c" &&
	      PAP_PLUGIN_ARGS="-fplugin-arg-pap-calls" \
	      "$papgcc" $opt -o "$d/full" "$e2e/pisp-fork.c") >"$d/build.log" 2>&1; then
		not_ok "$w: does not build"
		diag "$d/build.log"
		continue
	fi
	for b in plain sel full; do
		(cd "$d/$b.d" && "../$b" >out 2>err; echo "status $?" >>out)
	done
	for b in sel full; do
		"$decode" --format=json --top=0 --calls-spec="$d/s.spec" \
			"$d/$b.d/pap.prof" >"$d/$b.json" 2>"$d/$b.err"
	done
	got=$(python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))
print(j["calls_left"], j["lost"], j["calls_recorded"])' "$d/sel.json" 2>/dev/null)
	full=$(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["calls_recorded"])' "$d/full.json" 2>/dev/null)
	if ! cmp -s "$d/plain.d/out" "$d/sel.d/out"; then
		not_ok "$w: output differs from the plain build's"
	elif [ "$got" = "2 0 0" ] && [ "$full" = 2 ]; then
		ok "$w: parent and child left, nothing recorded (the full build: 2 sequences)"
	else
		not_ok "$w: left, lost, recorded: ${got:-?} (want 2 0 0), the full build ${full:-?} (want 2)"
	fi
done

# 3. Spec errors.
opt=-O0
cat >bad.spec <<'EOF'
pap-spec 2.1
calls main ( f
calls >main f
calls main f-g
EOF
rm -f bad
if (export PAP_PLUGIN_ARGS="-fplugin-arg-pap-calls -fplugin-arg-pap-calls-spec=bad.spec"
    "$papgcc" -O0 -w -pthread -o bad "$e2e/calls-hand.c") >bad.log 2>&1; then
	not_ok "a bad spec: the build went on"
elif [ -e bad ]; then
	not_ok "a bad spec: a program was made"
elif grep -q "bad.spec:2: error: '(' not closed" bad.log &&
     grep -q "bad.spec:3: error: a call sequence starts at a thread's first entry" bad.log &&
     grep -q "bad.spec:4: error: bad function name 'f-g'" bad.log; then
	ok "a bad spec: each error named at its line, nothing built"
else
	not_ok "a bad spec: the errors are not named"
	diag bad.log
fi
if (export PAP_PLUGIN_ARGS="-fplugin-arg-pap-calls-spec=hand-O0/b.spec"
    "$papgcc" -O0 -w -pthread -o bad "$e2e/calls-hand.c") >bad2.log 2>&1
then
	not_ok "calls-spec without calls: the build went on"
elif grep -q "calls-spec.* needs .*calls" bad2.log; then
	ok "calls-spec without calls: refused"
else
	not_ok "calls-spec without calls: no message"
	diag bad2.log
fi
printf 'pap-spec 2.1\ncalls main worker\ncalls main nosuchfn main\n' \
	>unknown.spec
if [ -f hand-O0/full-calls-hand.papm ]; then
	if "$decode" check-spec --meta=hand-O0/full-calls-hand.papm unknown.spec \
	   >unk.out 2>unk.err; then
		not_ok "check-spec: an unknown function passed"
	elif grep -q "^unknown.spec:3: error: unknown function nosuchfn" \
	     unk.err && ! grep -q "unknown.spec:2" unk.err; then
		ok "check-spec: the unknown function named at its line"
	else
		not_ok "check-spec: the unknown function not named"
		diag unk.err
	fi
	if "$decode" check-spec --meta=hand-O0/full-calls-hand.papm hand-O0/b.spec \
	   >good.out 2>good.err &&
	   grep -q "^hand-O0/b.spec:4 calls main sorter sorter\$" good.out; then
		ok "check-spec: a good spec's sequences printed, repeats written out"
	else
		not_ok "check-spec: a good spec refused or misprinted"
		diag good.err
		diag good.out
	fi
fi
echo "1..$n"
tap_done
