#!/bin/sh
# callslong.sh - end to end: a thread of more than 10^8 calls in a
# periodic pattern (calls/periodic.c) decoded from its packed record
# without expanding it: under a memory limit that the events expanded
# would pass (10^8 calls are 4 x 10^8 events of 16 bytes), its number
# of events and its calling contexts must be those written here from the
# program's source, by formula.  On a small run, the sequence and the
# contexts must be the -finstrument-functions oracle's (cygoracle.c),
# and still the oracle's contexts when the sequence is too long to
# expand (over 10^7 events), and its k-grams (--k) those of the oracle's
# sequence, windows counted here one by one.  TAP output.
# PAP_CALLSLONG_N sets the iterations of the long run (default
# 20000000: 5N + 11 calls).
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
cc=${CC:-gcc}
e2e=$top_srcdir/testsuite/e2e
src=$e2e/calls/periodic.c
nbig=${PAP_CALLSLONG_N:-20000000}
flags="-fplugin-arg-pap-calls"

cat >ctxs.py <<'PY'
# "NAME... CALLS" per context chain of a pap-decode JSON report
import json, sys
n, chain = {}, {}
for c in json.load(open(sys.argv[1])).get("call_contexts", []):
    ch = [c["name"]] if c["parent"] is None else \
        chain[c["parent"]] + [c["name"]]
    chain[c["id"]] = ch
    k = " ".join(ch)
    n[k] = n.get(k, 0) + c["calls"]
for k in n:
    print("%s %d" % (k, n[k]))
PY
cat >kgrams.py <<'PY'
# "WINDOW COUNT" per window: of a pap-decode JSON report's call_kgrams
# (argv[1] = "pap"), or counted from the oracle's sequence on stdin
import json, sys
k = int(sys.argv[2])
n = {}
if sys.argv[1] == "pap":
    def walk(nodes, pre):
        for x in nodes:
            key = pre + [x["name"]]
            n[" ".join(key)] = n.get(" ".join(key), 0) + x["count"]
            walk(x["children"], key)
    walk(json.load(open(sys.argv[3]))["call_kgrams"], [])
else:
    for line in sys.stdin:
        s = line.split()
        for i in range(len(s)):
            for d in range(1, k + 1):
                if i + d <= len(s):
                    key = " ".join(s[i:i + d])
                    n[key] = n.get(key, 0) + 1
for key in n:
    print("%s %d" % (key, n[key]))
PY
cat >unpack.py <<'PY'
# the sequence a call_path's "packed" form stands for, one line
import json, re, sys
c = json.load(open(sys.argv[1]))["call_paths"][0]["packed"]
toks = re.findall(r"\(|\)\^\d+|\d+", c["form"])
def parse(i):
    out = []
    while i < len(toks):
        t = toks[i]
        if t == "(":
            sub, i = parse(i + 1)
            out.append(sub)
        elif t.startswith(")^"):
            return (out, int(t[2:])), i + 1
        else:
            out.append(c["pieces"][int(t)])
            i += 1
    return out, i
def expand(x, acc):
    for y in x:
        if isinstance(y, tuple):
            for _ in range(y[1]):
                expand(y[0], acc)
        else:
            acc.extend(y)
seq = []
expand(parse(0)[0], seq)
print(" ".join(seq))
PY
cat >total.py <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["call_paths"]
print(len(c), c[0].get("events_total"), c[0]["events"])
PY

why=
if ! command -v python3 >/dev/null 2>&1; then
	why="python3 is not installed"
elif ! (export PAP_PLUGIN_ARGS="$flags"; "$papgcc" -O2 -o prog "$src") \
	>cc.log 2>&1; then
	why="the plugin has no calls mode ($(head -1 cc.log | cut -c1-60))"
fi
if [ -n "$why" ]; then
	skip "long run: $why"
	skip "long run: contexts: $why"
	skip "small run: sequence: $why"
	skip "small run: contexts: $why"
	skip "small run, not expanded: contexts: $why"
	skip "small run, not expanded: k-grams: $why"
	skip "small run, not expanded: packed form: $why"
	skip "small run, not expanded: diff: $why"
	echo "1..$n"
	tap_done
	exit
fi

# 1. The long run, decoded under 200 MB of address space.
# AddressSanitizer reserves terabytes of address space for its shadow, so
# a sanitized pap-decode runs without the limit: the results are checked
# all the same, the bound only in plain builds
limit="ulimit -v 200000"
under="under ulimit -v 200000"
if ldd "$decode" 2>/dev/null | grep -q libasan; then
	limit=:
	under="no address space limit (pap-decode built with AddressSanitizer)"
fi
it=$nbig
./prog "$it" >big.out
($limit; exec timeout 600 "$decode" --format=json --top=0 \
	pap.prof) >big.json 2>big.err
rc=$?
# events: 4 per call of an instrumented function (call, entry, exit,
# return), main's outside entry and exit, and a call and a return for
# each of strtoul and printf
calls=$((5 * it + 10))
want="1 $((4 * calls + 2 + 4)) None"
got=$(python3 total.py big.json 2>/dev/null)
if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then
	ok "long run: $((calls + 1)) calls decoded packed, $under: $got"
else
	not_ok "long run: status $rc, got '$got', want '$want'"
	diag big.err
fi
{
	echo "main 1"
	echo "main a $it"
	echo "main a leaf $((2 * it))"
	echo "main b $it"
	echo "main b leaf $it"
	echo "main c 1"
	echo "main c leaf 3"
	f="main"
	for i in 1 2 3 4 5 6; do
		f="$f fact"
		echo "$f 1"
	done
} | LC_ALL=C sort >big.want
python3 ctxs.py big.json 2>/dev/null | LC_ALL=C sort >big.ctx
if cmp -s big.ctx big.want; then
	ok "long run: contexts: $(wc -l <big.want) with the counts of the source"
else
	not_ok "long run: contexts differ from the source's"
	diff big.ctx big.want | head -10 | sed 's/^/# /'
fi

# 2. A small run against the oracle.
$cc -O2 -c -o cygoracle.o "$e2e/cygoracle.c" &&
$cc -O2 -o calls-check "$e2e/calls-check.c" &&
$cc -O2 -finstrument-functions -o oracle "$src" cygoracle.o || {
	echo "Bail out! cannot build the oracle"
	exit 1
}
rm -rf o pap.prof
mkdir o
ORACLE_DIR=o ./oracle 1000 >small.out
./prog 1000 >>small.out
nm -n -S oracle >nm
./calls-check nm o/oracle.* | LC_ALL=C sort >oracle.seq
./calls-check -c nm o/oracle.* | LC_ALL=C sort | uniq -c |
	awk '{ n = $1; $1 = ""; print substr($0, 2) " " n }' |
	LC_ALL=C sort >oracle.ctx
"$decode" --format=json --top=0 pap.prof >small.json 2>small.err
python3 "$e2e/calls-seqs.py" small.json | LC_ALL=C sort >pap.seq
if [ -s oracle.seq ] && cmp -s pap.seq oracle.seq; then
	ok "small run: sequence of $(wc -w <oracle.seq) names is the oracle's"
else
	not_ok "small run: sequence differs from the oracle's"
	diag small.err
fi
python3 ctxs.py small.json | LC_ALL=C sort >pap.ctx
if [ -s oracle.ctx ] && cmp -s pap.ctx oracle.ctx; then
	ok "small run: contexts are the oracle's"
else
	not_ok "small run: contexts differ from the oracle's"
	diff pap.ctx oracle.ctx | head -10 | sed 's/^/# /'
fi
# too long to expand: over 10^7 events (the bound at the default
# --max-sequence), 20 per iteration
it=500001
rm -f pap.prof o/*
ORACLE_DIR=o ./oracle "$it" >/dev/null
./prog "$it" >/dev/null
./calls-check -c nm o/oracle.* | LC_ALL=C sort | uniq -c |
	awk '{ n = $1; $1 = ""; print substr($0, 2) " " n }' |
	LC_ALL=C sort >oracle.ctx
./calls-check nm o/oracle.* >oracle.seq
"$decode" --format=json --top=0 --k=4 pap.prof >over.json 2>over.err
python3 ctxs.py over.json | LC_ALL=C sort >pap.ctx
if grep -q '"truncated": true' over.json && [ -s oracle.ctx ] &&
   cmp -s pap.ctx oracle.ctx; then
	ok "small run, not expanded: contexts are the oracle's"
else
	not_ok "small run, not expanded: contexts differ from the oracle's"
	diff pap.ctx oracle.ctx | head -10 | sed 's/^/# /'
fi
python3 kgrams.py pap 4 over.json | LC_ALL=C sort >pap.kg
python3 kgrams.py oracle 4 <oracle.seq | LC_ALL=C sort >oracle.kg
if [ -s oracle.kg ] && cmp -s pap.kg oracle.kg; then
	ok "small run, not expanded: $(wc -l <oracle.kg) k-grams (k = 4) with the oracle's counts"
else
	not_ok "small run, not expanded: k-grams differ from the oracle's"
	diff pap.kg oracle.kg | head -10 | sed 's/^/# /'
fi
python3 unpack.py over.json >pap.seq 2>unpack.err
if [ -s oracle.seq ] && cmp -s pap.seq oracle.seq; then
	ok "small run, not expanded: packed form of $(wc -w <oracle.seq) names is the oracle's sequence"
else
	not_ok "small run, not expanded: packed form is not the oracle's sequence"
	diag unpack.err
fi
# diff against a run of 2 more iterations: both too long to expand;
# names: 10 an iteration, 21 around them
cp pap.prof over.prof
rm -f pap.prof
./prog $((it + 2)) >/dev/null
"$decode" diff over.prof pap.prof >diff.out 2>diff.err
if grep -q "appears .*($((10 * (it + 2) + 21)) names)" diff.out &&
   grep -q "disappears .*($((10 * it + 21)) names)" diff.out &&
   grep -q "grows *$it -> $((it + 2))  main > a (main:" diff.out &&
   grep -q "grows *$it -> $((it + 2))  main > b (main:[0-9]*) > leaf" \
	diff.out; then
	ok "small run, not expanded: diff of sequences and contexts"
else
	not_ok "small run, not expanded: diff"
	diag diff.out
fi
echo "1..$n"
tap_done
