#!/bin/sh
# calls.sh - end to end: call sequences (-fplugin-arg-pap-calls) against
# an oracle that shares nothing with pap.  TAP output.
#
# 1. The oracle alone (cygoracle.c + calls-check.c, GCC's
#    -finstrument-functions hooks) on hand-written programs whose
#    sequences are written here from their source (calls-hand.c).
# 2. Random programs (gencalls.c) built with the plugin's calls mode and
#    the oracle: the sequences pap-decode reports, each times its count,
#    must equal the oracle's per-thread sequences as multisets, through
#    the file sink and through pap-collector, and the program's output
#    must equal the plain build's.  Skipped, saying why, when the plugin
#    has no calls mode or the decoder no call_paths.
# PAP_CALLS_SEEDS sets how many random programs (default 10).
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
cc=${CC:-gcc}
collector=$top_builddir/collector/pap-collector
nseeds=${PAP_CALLS_SEEDS:-10}
e2e=$top_srcdir/testsuite/e2e

$cc -O2 -c -o cygoracle.o "$e2e/cygoracle.c" &&
$cc -O2 -o calls-check "$e2e/calls-check.c" &&
$cc -O2 -o gencalls "$e2e/gencalls.c" || {
	echo "Bail out! cannot build the oracle, its checker or gencalls"
	exit 1
}

# oracle_seq DIR PROG ARGS...: runs PROG with the oracle writing into DIR
# and leaves DIR/oracle.seq, the sorted per-thread sequences,
# DIR/oracle.ctx, the calling contexts by name with their calls
# ("NAME... N", sorted), and DIR/out, the program's output and status
oracle_seq() {
	_d=$1
	shift
	rm -rf "$_d/o"
	mkdir -p "$_d/o"
	ORACLE_DIR=$_d/o "$@" >"$_d/out" 2>"$_d/err"
	echo "status $?" >>"$_d/out"
	nm -n -S "$1" >"$_d/nm" &&
	"$tmp/calls-check" "$_d/nm" "$_d"/o/oracle.* 2>>"$_d/err" |
		LC_ALL=C sort >"$_d/oracle.seq"
	"$tmp/calls-check" -c "$_d/nm" "$_d"/o/oracle.* 2>>"$_d/err" |
		LC_ALL=C sort | uniq -c |
		awk '{ n = $1; $1 = ""; print substr($0, 2) " " n }' |
		LC_ALL=C sort >"$_d/oracle.ctx"
}

# 1. The oracle on hand-written programs.
cat >hand.want <<'EOF'
rec main fact fact fact fact fact main is_even is_odd is_even is_odd is_even main
qsort main sorter >cmp key cmp key cmp g sorter main
threads main
threads worker leaf worker
threads worker leaf worker
exit main a1 b2 c3 >handler leaf handler
longjmp main catcher t1 t2 catcher after catcher main leaf main
EOF
for opt in -O0 -O2; do
	if ! $cc $opt -finstrument-functions -o hand$opt "$e2e/calls-hand.c" \
	     cygoracle.o -lpthread 2>hand.log; then
		not_ok "oracle: calls-hand.c $opt does not build"
		diag hand.log
		continue
	fi
	for c in rec qsort threads exit longjmp; do
		oracle_seq "h$opt-$c" "./hand$opt" "$c"
		grep "^$c " hand.want | cut -d' ' -f2- | LC_ALL=C sort >want
		if cmp -s want "h$opt-$c/oracle.seq"; then
			ok "oracle: $c $opt: $(wc -l <want) sequences as written"
		else
			not_ok "oracle: $c $opt: differs from the source's"
			diff want "h$opt-$c/oracle.seq" | sed 's/^/# /'
			diag "h$opt-$c/err"
		fi
	done
done

# 2. pap's sequences against the oracle on random programs.  pap's build
# and the oracle's are two: the oracle's hooks run after each call, so
# that no call of its build is in tail position, while pap's keeps its
# tail calls, and pap-decode expands each chain into the returns the
# source makes.
pap_flags="-fplugin-arg-pap-calls -fplugin-arg-pap-calls-tail"
seqs_py=$top_srcdir/testsuite/e2e/calls-seqs.py
cat >ctxs.py <<'EOF'
# the calling contexts of pap-decode's JSON report by their names (the
# contexts of one chain of names through different sites are one line),
# "NAME... CALLS", one a line
import json, sys
# a context's chain from its parent's ("context" is written only near
# the roots), checked against "context" where it is written
n, chain = {}, {}
for c in json.load(open(sys.argv[1])).get("call_contexts", []):
    ch = [c["name"]] if c["parent"] is None else \
        chain[c["parent"]] + [c["name"]]
    assert c.get("context", ch) == ch, (c["context"], ch)
    chain[c["id"]] = ch
    k = " ".join(ch)
    n[k] = n.get(k, 0) + c["calls"]
for k in n:
    print("%s %d" % (k, n[k]))
EOF
why=
echo 'int main(void) { return 0; }' >one.c
if ! command -v python3 >/dev/null 2>&1; then
	why="python3 is not installed: cannot read the JSON report"
elif ! (export PAP_PLUGIN_ARGS="$pap_flags"; "$papgcc" -o one one.c) \
	>one.log 2>&1; then
	why="the plugin has no calls mode yet ($(head -1 one.log | cut -c1-60))"
elif ! ./one || ! "$decode" print pap.prof 2>/dev/null |
	grep -q '^c %calls:'; then
	why="the runtime records no call sequence yet"
elif ! "$decode" --format=json pap.prof 2>/dev/null | grep -q call_paths
then
	why="pap-decode reports no call_paths"
fi
rm -f pap.prof
if [ -n "$why" ]; then
	for seed in $(seq 1 "$nseeds"); do
		for opt in -O0 -O2; do
			skip "program $seed $opt: $why"
			skip "program $seed $opt: completeness: $why"
			skip "program $seed $opt: contexts: $why"
			skip "program $seed $opt: collector: $why"
		done
	done
	echo "1..$n"
	tap_done
	exit
fi

# pap_seqs JSON: the sequences of pap-decode's JSON report, sorted
pap_seqs() { python3 "$seqs_py" "$1" | LC_ALL=C sort; }
# pap_ctxs JSON: its calling contexts by name, sorted
pap_ctxs() { python3 ctxs.py "$1" | LC_ALL=C sort; }

names=0
for seed in $(seq 1 "$nseeds"); do
	g=gen$seed
	mkdir -p "$g"
	srcs=$(./gencalls "$seed" "$g") || { not_ok "gencalls $seed"; continue; }
	# shellcheck disable=SC2086
	$cc -O2 -w -o "$g/plain" $srcs -lpthread
	(cd "$g" && ./plain "$seed" >plain.out; echo "status $?" >>plain.out)
	for opt in -O0 -O2; do
		d=$g/run$opt
		mkdir -p "$d"
		what="program $seed $opt"
		# shellcheck disable=SC2086
		if ! (export PAP_PLUGIN_ARGS="$pap_flags"
		      "$papgcc" $opt -w -fchecking -pthread -o "$d/prog" \
			      $srcs) >"$d/cc.log" 2>&1 ||
		   ! $cc $opt -w -finstrument-functions -pthread \
			-o "$d/oracle" $srcs cygoracle.o >>"$d/cc.log" 2>&1
		then
			not_ok "$what: does not build"
			diag "$d/cc.log"
			continue
		fi
		(cd "$d" && oracle_seq . ./oracle "$seed")
		(cd "$d" && ./prog "$seed" >pap.out 2>pap.err
		 echo "status $?" >>pap.out)
		if ! cmp -s "$g/plain.out" "$d/out" ||
		   ! cmp -s "$g/plain.out" "$d/pap.out"; then
			not_ok "$what: output differs from the plain build's"
			diff "$g/plain.out" "$d/out" | head -5 | sed 's/^/# /'
			diff "$g/plain.out" "$d/pap.out" | head -5 |
				sed 's/^/# /'
			continue
		fi
		if ! "$decode" --format=json --top=0 "$d/pap.prof" \
		     >"$d/pap.json" 2>"$d/decode.err"; then
			not_ok "$what: pap-decode failed"
			diag "$d/decode.err"
			continue
		fi
		nw=$(wc -w <"$d/oracle.seq")
		if pap_seqs "$d/pap.json" | cmp -s - "$d/oracle.seq"; then
			ok "$what: $(wc -l <"$d/oracle.seq") sequences, $nw names, equal to the oracle's"
			names=$((names + nw))
		else
			not_ok "$what: sequences differ from the oracle's"
			pap_seqs "$d/pap.json" | diff - "$d/oracle.seq" |
				cut -c1-300 | head -6 | sed 's/^/# /'
		fi
		if pap_ctxs "$d/pap.json" | cmp -s - "$d/oracle.ctx"; then
			ok "$what: contexts: $(wc -l <"$d/oracle.ctx") distinct, with the oracle's counts"
		else
			not_ok "$what: contexts: differ from the oracle's"
			pap_ctxs "$d/pap.json" | diff - "$d/oracle.ctx" |
				cut -c1-300 | head -6 | sed 's/^/# /'
		fi
		# exit() deep leaves main's frames open: one incomplete sequence
		grep -q '^exit ' "$d/out" && want=1 || want=0
		got=$(python3 -c 'import json,sys
print(sum(c["count"] for c in json.load(open(sys.argv[1]))["call_paths"]
          if not c["complete"]))' "$d/pap.json")
		if [ "$got" = "$want" ]; then
			ok "$what: $want incomplete sequence(s), as the exit says"
		else
			not_ok "$what: $got incomplete sequences, not $want"
		fi
		# the same run through the collector
		c=$d/coll
		mkdir -p "$c"
		(cd "$c" && "$collector" -o pap.prof -- ../prog "$seed" \
			>out 2>err; echo "status $?" >>out)
		if ! cmp -s "$g/plain.out" "$c/out"; then
			not_ok "$what: collector: output differs from the plain build's"
			diff "$g/plain.out" "$c/out" | head -5 | sed 's/^/# /'
		elif ! "$decode" --format=json --top=0 "$c/pap.prof" \
		     >"$c/pap.json" 2>"$c/decode.err"; then
			not_ok "$what: collector: pap-decode failed"
			diag "$c/decode.err"
		elif pap_seqs "$c/pap.json" | cmp -s - "$d/oracle.seq"; then
			ok "$what: collector: the same sequences"
		else
			not_ok "$what: collector: sequences differ from the oracle's"
		fi
	done
done
note "$names names compared with the oracle's"
# the generator's hard cases were taken (over the default 10 seeds)
resumes=$(cat gen*/run*/o/oracle.* 2>/dev/null | grep -c '^R ')
exits=$(cat gen*/plain.out | grep -c '^exit ')
threads=$(ls gen*/run*/o | grep -c '^oracle\.[0-9]*\.[1-9]')
note "$resumes longjmps taken, $exits programs exited deep, $threads more threads"
if [ "$nseeds" -ge 10 ]; then
	if [ "$resumes" -gt 0 ] && [ "$exits" -gt 0 ] && [ "$threads" -gt 0 ]
	then
		ok "the programs took longjmps, exited deep and ran threads"
	else
		not_ok "the generator lost a hard case (longjmps $resumes, exits $exits, threads $threads)"
	fi
fi

# tail calls: sites in the metadata, calls taken (the text report's
# "(tail)" lines)
tails=$(cat gen*/run-O2/*.papm 2>/dev/null | grep -c '^site .* tail ')
taken=$(for p in gen*/run-O2/pap.prof; do
	"$decode" --top=0 "$p" 2>/dev/null; done | grep -c '(tail)')
note "$tails tail sites in the programs' metadata, $taken tail calls in their reports"
if [ "$nseeds" -ge 10 ]; then
	if [ "$tails" -gt 0 ] && [ "$taken" -gt 0 ]; then
		ok "the programs have tail sites and took tail calls"
	else
		not_ok "the generator lost tail calls (sites $tails, taken $taken)"
	fi
fi

# 3. The reports around the sequences, on the first program's -O0 run.
d=gen1/run-O0
if [ -f "$d/pap.prof" ]; then
	# the text report: the section, and main's call of f0 at its line
	line=$(grep -n 'total += f0(seed' gen1/u0.c | cut -d: -f1)
	"$decode" --top=0 "$d/pap.prof" >text.out 2>text.err
	if grep -q '^call sequences: ' text.out &&
	   grep -q "^    main:$line -> f0\$" text.out; then
		ok "text report: call sequences, main:$line -> f0 as in u0.c"
	else
		not_ok "text report: no call sequences or no main:$line -> f0"
		diag text.out
	fi
	# --top bounds the sequences shown, --max-sequence their events: over
	# it, the sequence is packed, and the form expanded is the sequence
	"$decode" --format=json --top=1 "$d/pap.prof" >full.json 2>full.err
	ev=$(python3 -c 'import json,sys
print(json.load(open(sys.argv[1]))["call_paths"][0]["events"])' full.json)
	"$decode" --format=json --top=1 --max-sequence=$((ev / 2)) \
		"$d/pap.prof" >half.json 2>half.err
	"$decode" --format=json --top=1 --max-sequence=$((ev / 8)) \
		"$d/pap.prof" >eighth.json 2>eighth.err
	if python3 - full.json half.json eighth.json "$ev" <<'EOF'
import json, sys
full, half, eighth = (json.load(open(f))["call_paths"] for f in sys.argv[1:4])
ev = int(sys.argv[4])
assert len(full) == len(half) == len(eighth) == 1
f = full[0]
assert "truncated" not in f and "packed" not in f and f["events"] == ev
for p in half[0], eighth[0]:
    assert "sequence" not in p and "packed_cut" not in p
    assert p["events"] == ev
    out, stack = [], [[]]
    for t in p["packed"]["form"].split():
        if t == "(":
            stack.append([])
        elif t.startswith(")^"):
            body = stack.pop()
            stack[-1].extend(body * int(t[2:]))
        else:
            stack[-1].extend(p["packed"]["pieces"][int(t)])
    assert stack[0] == f["sequence"]
EOF
	then
		ok "json: --top=1; over --max-sequence, a packed form that expands to the sequence"
	else
		not_ok "json: --top or --max-sequence not honoured"
		diag half.json 3
	fi
	# a damaged record: named, and the rest of the report still there
	"$decode" print "$d/pap.prof" |
		awk '$1 == "c" { $5 = $5 + 1 } { print }' >damaged.prof
	"$decode" --format=json damaged.prof >damaged.json 2>damaged.err
	if grep -q "^pap-decode: damaged.prof: calls record 1: " damaged.err &&
	   grep -q '"functions": \[' damaged.json &&
	   python3 -c 'import json,sys; json.load(open(sys.argv[1]))' \
		damaged.json; then
		ok "a damaged calls record is named; the report still prints"
	else
		not_ok "a damaged calls record: no named error or no report"
		diag damaged.err
	fi
	# the reports with call_paths follow the schema
	if python3 "$top_srcdir/testsuite/tools/json-valid.py" \
		"$top_srcdir/doc/pap-report.schema.json" "$d/pap.json" \
		half.json eighth.json damaged.json >valid.log 2>&1; then
		ok "json: call_paths valid against doc/pap-report.schema.json"
	elif [ $? -eq 77 ]; then
		skip "json: schema validation needs python3-jsonschema"
	else
		not_ok "json: call_paths not valid against the schema"
		diag valid.log
	fi
else
	not_ok "program 1 -O0 made no profile: the reports were not checked"
fi
# 4. Tail calls (calls/tail.c): a tail-recursive loop, mutual tail
# recursion, tail calls into libc, from a qsort comparator and along a
# chain f -> g -> h, against the oracle's separate build, calls alone and
# with pap-epp.
for opt in -O0 -O2; do
	for mode in none pap-epp; do
		d=tail$opt-$mode
		what="tail.c $opt $mode"
		mkdir -p "$d"
		if ! (export PAP_PLUGIN_ARGS="$pap_flags -fplugin-arg-pap-mode=$mode"
		      "$papgcc" $opt -fchecking -o "$d/prog" \
			      "$e2e/calls/tail.c") >"$d/cc.log" 2>&1 ||
		   ! $cc $opt -finstrument-functions -o "$d/oracle" \
			"$e2e/calls/tail.c" cygoracle.o >>"$d/cc.log" 2>&1; then
			not_ok "$what: does not build"
			diag "$d/cc.log"
			continue
		fi
		(cd "$d" && oracle_seq . ./oracle 7 &&
		 ./prog 7 >pap.out 2>pap.err; echo "status $?" >>pap.out)
		if ! cmp -s "$d/out" "$d/pap.out"; then
			not_ok "$what: output differs from the oracle build's"
			continue
		fi
		if ! "$decode" --format=json --top=0 "$d/pap.prof" \
		     >"$d/pap.json" 2>"$d/decode.err"; then
			not_ok "$what: pap-decode failed"
			diag "$d/decode.err"
		elif pap_seqs "$d/pap.json" | cmp -s - "$d/oracle.seq"; then
			ok "$what: $(wc -w <"$d/oracle.seq") names, equal to the oracle's"
		else
			not_ok "$what: sequences differ from the oracle's"
			pap_seqs "$d/pap.json" | diff - "$d/oracle.seq" |
				cut -c1-300 | head -6 | sed 's/^/# /'
		fi
	done
done
echo "1..$n"
tap_done
