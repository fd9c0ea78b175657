#!/bin/sh
# callout.sh - end to end: the call sequences' outputs beyond the
# sequence itself.  TAP output.
#
# 1. k-grams of calls (--k): pap-decode's "call_kgrams" of random
#    programs (gencalls.c), flattened to "NAME... COUNT", equal the
#    windows of 1..K names that awk cuts from the oracle's sequences
#    (cygoracle.c + calls-check.c, which share nothing with pap), for
#    K = 1, 2, 3; --min-share prunes as it says.
# 2. The packed form: a loop of 10^5 calls decoded with a small
#    --max-sequence gives "packed", and its form expanded (by a parser
#    here) equals the "sequence" of the same profile decoded with a large
#    --max-sequence; "events" is the true length both times.
# 3. Recursion 60,000 deep (the runtime's shadow stack holds 65,536
#    frames): pap-decode's text, JSON and HTML reports and diff under
#    `ulimit -s 8192` (a printer recursing per level needs far more),
#    the contexts' parent chain and bounded "context".
# 4. The HTML calls page: linked from the index, names escaped, under
#    2 MB however deep the tree.
# Skipped, saying why, when the plugin has no calls mode or python3 is
# missing.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
cc=${CC:-gcc}
e2e=$top_srcdir/testsuite/e2e
pap_flags="-fplugin-arg-pap-calls -finstrument-functions"
nseeds=${PAP_CALLOUT_SEEDS:-3}

$cc -O2 -c -o cygoracle.o "$e2e/cygoracle.c" &&
$cc -O2 -o calls-check "$e2e/calls-check.c" &&
$cc -O2 -o gencalls "$e2e/gencalls.c" || {
	echo "Bail out! cannot build the oracle, its checker or gencalls"
	exit 1
}

why=
echo 'int main(void) { return 0; }' >one.c
if ! command -v python3 >/dev/null 2>&1; then
	why="python3 is not installed: cannot read the JSON report"
elif ! (export PAP_PLUGIN_ARGS="$pap_flags"; "$papgcc" -o one one.c) \
	>one.log 2>&1; then
	why="the plugin has no calls mode"
fi
if [ -n "$why" ]; then
	skip "call k-grams, packed form, deep contexts, html: $why"
	echo "1..$n"
	tap_done
	exit
fi

# the oracle's sequences of a run, one a line (as calls.sh makes them)
oracle_seq() {
	_d=$1
	shift
	rm -rf "$_d/o"
	mkdir -p "$_d/o"
	ORACLE_DIR=$_d/o "$@" >"$_d/out" 2>"$_d/err"
	nm -n -S "$1" >"$_d/nm" &&
	"$tmp/calls-check" "$_d/nm" "$_d"/o/oracle.* 2>>"$_d/err" \
		>"$_d/oracle.seq"
}

# the oracle side: every window of 1..K consecutive names of a line
cat >kgrams.awk <<'EOF'
{
	for (i = 1; i <= NF; i++) {
		key = ""
		for (d = 0; d < K && i + d <= NF; d++) {
			key = d ? key " " $(i + d) : $i
			c[key]++
		}
	}
}
END { for (k in c) print k, c[k] }
EOF
# pap's side: call_kgrams flattened, "NAME... COUNT" (names of two
# functions alike summed); checks call_k, and with a second argument
# SHARE that every node under a root holds SHARE of its root at least
cat >kflat.py <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
k = int(sys.argv[2])
share = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
assert d["call_k"] == k, "call_k is %s" % d["call_k"]
n = {}
stack = [(x, [], x["count"]) for x in d["call_kgrams"]]
while stack:
    x, pre, root = stack.pop()
    key = pre + [x["name"]]
    assert len(key) <= k, "a window longer than k"
    assert not pre or x["count"] >= share * root, "not pruned"
    n[" ".join(key)] = n.get(" ".join(key), 0) + x["count"]
    stack.extend((c, key, root) for c in x["children"])
for key in n:
    print("%s %d" % (key, n[key]))
EOF

# 1. k-grams against the oracle
for seed in $(seq 1 "$nseeds"); do
	g=gen$seed
	mkdir -p "$g"
	srcs=$(./gencalls "$seed" "$g") || { not_ok "gencalls $seed"; continue; }
	# shellcheck disable=SC2086
	if ! (export PAP_PLUGIN_ARGS="$pap_flags"
	      "$papgcc" -O0 -w -pthread -o "$g/prog" $srcs cygoracle.o) \
	     >"$g/cc.log" 2>&1; then
		not_ok "program $seed: does not build"
		diag "$g/cc.log"
		continue
	fi
	(cd "$g" && oracle_seq . ./prog "$seed")
	for k in 1 2 3; do
		what="program $seed: call $k-grams"
		if ! "$decode" --format=json --top=0 --k=$k "$g/pap.prof" \
		     >"$g/k$k.json" 2>"$g/k$k.err"; then
			not_ok "$what: pap-decode failed"
			diag "$g/k$k.err"
			continue
		fi
		awk -v K=$k -f kgrams.awk "$g/oracle.seq" | LC_ALL=C sort \
			>"$g/want$k"
		python3 kflat.py "$g/k$k.json" $k 2>"$g/flat$k.err" |
			LC_ALL=C sort >"$g/got$k"
		if [ -s "$g/want$k" ] && cmp -s "$g/want$k" "$g/got$k"; then
			ok "$what: $(wc -l <"$g/want$k") windows, the oracle's counts"
		else
			not_ok "$what: differ from the oracle's windows"
			diff "$g/want$k" "$g/got$k" | head -6 | cut -c1-200 |
				sed 's/^/# /'
			diag "$g/flat$k.err"
		fi
	done
	# pruning: nodes under 30% of their root left out, roots kept
	"$decode" --format=json --top=0 --k=3 --min-share=30 "$g/pap.prof" \
		>"$g/p.json" 2>/dev/null
	python3 kflat.py "$g/p.json" 3 0.3 2>"$g/p.err" >"$g/p.flat"
	if [ ! -s "$g/p.err" ] &&
	   [ "$(awk 'NF == 2' "$g/p.flat" | LC_ALL=C sort)" = \
	     "$(awk 'NF == 2' "$g/want1" | LC_ALL=C sort)" ] &&
	   [ "$(wc -l <"$g/p.flat")" -lt "$(wc -l <"$g/want3")" ]; then
		ok "program $seed: --min-share=30 prunes the 3-grams, roots kept"
	else
		not_ok "program $seed: --min-share=30 does not prune as said"
		diag "$g/p.err"
	fi
done
# the text report's section
if "$decode" --top=0 --k=2 gen1/pap.prof >k.txt 2>k.err &&
   grep -q '^call 2-grams (windows of 1 to 2 ' k.txt &&
   grep -q "^ *[0-9][0-9]*  main\$" k.txt; then
	ok "text: a call 2-grams section with main's root"
else
	not_ok "text: no call 2-grams section"
	diag k.txt 5
fi

# 2. the packed form of a long sequence
cat >loop.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>

static int __attribute__((noinline)) f(int x) { return x * 3 + 1; }
static int __attribute__((noinline)) g(int x) { return x ^ 5; }
static int __attribute__((noinline)) h(int x) { return g(x) + f(x); }

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, i, s = 0;

	for (i = 0; i < n; i++) {
		s += f((int)i);
		if (i % 3 == 0)
			s += g((int)i);
		if (i % 1000 == 7)
			s += h((int)i);
	}
	printf("%ld\n", s);
	return 0;
}
EOF
cat >expand.py <<'EOF'
# the sequence of a packed form: pieces in place of their numbers,
# " ( ... )^N" expanded
import json, sys
def expand(p):
    pieces, toks = p["pieces"], p["form"].split()
    out, stack = [], [[]]
    for t in toks:
        if t == "(":
            stack.append([])
        elif t.startswith(")^"):
            body = stack.pop()
            stack[-1].extend(body * int(t[2:]))
        else:
            stack[-1].extend(pieces[int(t)])
    assert len(stack) == 1, "unbalanced form"
    return stack[0]
small, large = (json.load(open(f))["call_paths"] for f in sys.argv[1:3])
assert len(small) == len(large) == 1
s, l = small[0], large[0]
assert "sequence" not in s and "packed_cut" not in s, "not packed whole"
assert "packed" not in l and s["events"] == l["events"] > 200000
seq = expand(s["packed"])
assert seq == l["sequence"], "expanded %d names, full %d" % (len(seq), len(l["sequence"]))
assert len(json.dumps(s["packed"])) < 2000, "the form does not compress"
print(len(seq))
EOF
if (export PAP_PLUGIN_ARGS=-fplugin-arg-pap-calls
    "$papgcc" -O2 -o loop loop.c) >loop.log 2>&1 && ./loop >/dev/null; then
	"$decode" --format=json --max-sequence=100 pap.prof >small.json \
		2>small.err
	"$decode" --format=json --max-sequence=10000000 pap.prof \
		>large.json 2>large.err
	if names=$(python3 expand.py small.json large.json 2>expand.err); then
		ok "packed: 10^5 calls, the form expanded is the $names names of the full sequence"
	else
		not_ok "packed: the form expanded is not the full sequence"
		diag expand.err
	fi
	if python3 "$top_srcdir/testsuite/tools/json-valid.py" \
		"$top_srcdir/doc/pap-report.schema.json" small.json large.json \
		gen1/k3.json >valid.log 2>&1; then
		ok "json: packed and call_kgrams valid against the schema"
	elif [ $? -eq 77 ]; then
		skip "json: schema validation needs python3-jsonschema"
	else
		not_ok "json: packed or call_kgrams not valid against the schema"
		diag valid.log
	fi
else
	not_ok "packed: loop.c does not build or run"
	diag loop.log
fi

# 3. deep recursion: the reports with an 8 MB stack
cat >deep.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>

static long __attribute__((noinline)) down(long n)
{
	if (n == 0)
		return 0;
	return 1 + down(n - 1) * 0 + (n & 1);
}

int main(int argc, char **argv)
{
	printf("%ld\n", down(argc > 1 ? atol(argv[1]) : 60000));
	return 0;
}
EOF
cat >deepck.py <<'EOF'
# the contexts of a chain 60,000 deep: each one's parent the one above
# it, depth one more, "context" written up to depth 64 and equal to the
# names along the parents
import json, sys
d = json.load(open(sys.argv[1]))
c = d["call_contexts"]
by = {x["id"]: x for x in c}
assert len(c) == 60002 and d["call_contexts_left_out"] == 0, len(c)
for x in c:
    if x["parent"] is None:
        chain = [x["name"]]
        assert x["depth"] == 1
    else:
        p = by[x["parent"]]
        assert x["depth"] == p["depth"] + 1
        chain = p["_chain"] + [x["name"]] if x["depth"] <= 65 else None
    x["_chain"] = chain
    assert ("context" in x) == (x["depth"] <= 64), x["depth"]
    if "context" in x:
        assert x["context"] == chain, (x["context"], chain)
assert max(x["depth"] for x in c) == 60002
EOF
mkdir -p deep
if (export PAP_PLUGIN_ARGS=-fplugin-arg-pap-calls
    "$papgcc" -O0 -o deep/deep deep.c) >deep.log 2>&1 &&
   (cd deep && ulimit -s unlimited 2>/dev/null; ./deep 60000) >/dev/null
then
	(ulimit -s 8192
	 "$decode" --top=0 deep/pap.prof >deep/t.txt 2>deep/t.err; echo $? \
		>deep/t.rc
	 "$decode" --format=json deep/pap.prof >deep/j.json 2>deep/j.err
	 echo $? >deep/j.rc
	 "$decode" --html=deep/h deep/pap.prof >/dev/null 2>deep/h.err
	 echo $? >deep/h.rc)
	if [ "$(cat deep/t.rc)" = 0 ] &&
	   grep -q '^calling contexts: 60002 distinct' deep/t.txt &&
	   grep -q '^ *1  *\[depth 60002\] down  (down:[0-9]*)$' deep/t.txt
	then
		ok "deep: text report under ulimit -s 8192, 60002 contexts"
	else
		not_ok "deep: text report failed (status $(cat deep/t.rc))"
		diag deep/t.err
	fi
	if [ "$(cat deep/j.rc)" = 0 ] &&
	   python3 deepck.py deep/j.json 2>deep/ck.err; then
		ok "deep: JSON under ulimit -s 8192: parents, depths, bounded context"
	else
		not_ok "deep: JSON report failed (status $(cat deep/j.rc))"
		diag deep/ck.err
		diag deep/j.err
	fi
	# diff keys each context by its chain: made from the parent's, in
	# linear time; its text shows the last calls of a deep chain
	mkdir -p deep/b
	(cd deep/b && ulimit -s unlimited 2>/dev/null; ../deep 59990) \
		>/dev/null
	deep2=$(cd deep && ulimit -s 8192 && timeout 120 "$decode" diff \
		--top=1 pap.prof b/pap.prof 2>diff.err; echo "status $?")
	# the deep contexts that disappear: their last 8 calls shown
	shown=$(echo "$deep2" | grep '^  disappears .* \.\.\. (depth 59[0-9]*) > ' |
		head -1 | grep -o 'down (down:[0-9]*)' | wc -l)
	if [ "${deep2##*status }" = 0 ] && [ "$shown" -eq 8 ]; then
		ok "deep: diff of two deep profiles: a deep context shows its last 8 calls"
	else
		not_ok "deep: diff failed (${deep2##*status }) or showed $shown calls of a chain, not 8"
		diag deep/diff.err
	fi
	sz=$(wc -c <deep/h/calls.html 2>/dev/null || echo 0)
	if [ "$(cat deep/h.rc)" = 0 ] && [ "$sz" -gt 100000 ] &&
	   [ "$sz" -lt 2097152 ] &&
	   grep -q 'more lines left out: a page holds 2 MB' deep/h/calls.html
	then
		ok "html: the calls page of the deep run is cut under 2 MB ($sz bytes)"
	else
		not_ok "html: deep calls page: status $(cat deep/h.rc), $sz bytes"
		diag deep/h.err
	fi
else
	not_ok "deep: deep.c does not build or run"
	diag deep.log
fi

# 4. the HTML calls page of a random program: linked, escaped
"$decode" --html=h --k=2 gen1/pap.prof >/dev/null 2>h.err
if grep -q 'href="calls.html"' h/index.html 2>/dev/null &&
   grep -q '^call 2-grams' h/calls.html 2>/dev/null ||
   grep -q '<h2>call 2-grams' h/calls.html 2>/dev/null; then
	ok "html: calls.html linked from the index, with the 2-grams"
else
	not_ok "html: no calls page, no link, or no k-grams"
	diag h.err
fi
# between the tags, no raw < or >: entries from outside are &gt;name
if sed -e 's/<[a-z/!][^<>]*>//g' h/calls.html | grep -q '[<>]'; then
	not_ok "html: calls.html has a raw < or > outside its tags"
	sed -e 's/<[a-z/!][^<>]*>//g' h/calls.html | grep '[<>]' | head -3 |
		sed 's/^/# /'
elif grep -q '&gt;' h/calls.html; then
	ok "html: calls.html escapes the names and arrows"
else
	not_ok "html: calls.html shows no escaped arrow"
fi
# the page as a browser reads it: its sections' headings and text, put
# back as text, are the text report's call sections
cat >dom.py <<'EOF'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(self):
        super().__init__()
        self.out, self.tag = [], None
    def handle_starttag(self, tag, attrs):
        if tag in ("h2", "pre"):
            self.tag = tag
            self.out.append("\n" if tag == "h2" else "")
    def handle_endtag(self, tag):
        if tag == "h2":
            self.out.append("\n")
        self.tag = None
    def handle_data(self, data):
        if self.tag:
            self.out.append(data)
p = P()
p.feed(open(sys.argv[1]).read())
text = open(sys.argv[2]).read()
got = "".join(p.out)
assert got.startswith("\ncall sequences: "), got[:80]
assert got in text, "not the text report's sections"
EOF
if command -v chromium >/dev/null 2>&1; then
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--disable-quic --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$tmp/chromium" --dump-dom "file://$tmp/h/calls.html" \
		>calls.dom 2>/dev/null
	"$decode" --k=2 gen1/pap.prof >calls.txt 2>/dev/null
	if python3 dom.py calls.dom calls.txt 2>dom.err; then
		ok "html: chromium reads calls.html as the text report's call sections"
	else
		not_ok "html: chromium's calls.html differs from the text report"
		diag dom.err
	fi
else
	skip "html: chromium is not installed"
fi
echo "1..$n"
tap_done
