# the calling contexts of pap-decode's JSON report by their names (sites
# of one caller apart are one line), "NAME... CALLS", one a line
import json, sys
n = {}
for c in json.load(open(sys.argv[1])).get("call_contexts", []):
    k = " ".join(c["context"])
    n[k] = n.get(k, 0) + c["calls"]
for k in n:
    print("%s %d" % (k, n[k]))
EOF""")
s=s.replace("""			skip "program $seed $opt: completeness: $why"
""","""			skip "program $seed $opt: completeness: $why"
			skip "program $seed $opt: contexts: $why"
""")
s=s.replace("""# pap_seqs JSON: the sequences of pap-decode's JSON report, sorted
pap_seqs() { python3 seqs.py "$1" | LC_ALL=C sort; }""","""# pap_seqs JSON: the sequences of pap-decode's JSON report, sorted
pap_seqs() { python3 seqs.py "$1" | LC_ALL=C sort; }
# pap_ctxs JSON: its calling contexts by name, sorted
pap_ctxs() { python3 ctxs.py "$1" | LC_ALL=C sort; }""")
s=s.replace("""		# exit() deep leaves main's frames open: one incomplete sequence""","""		if pap_ctxs "$d/pap.json" | cmp -s - "$d/oracle.ctx"; then
			ok "$what: contexts: $(wc -l <"$d/oracle.ctx") distinct, with the oracle's counts"
		else
			not_ok "$what: contexts: differ from the oracle's"
			pap_ctxs "$d/pap.json" | diff - "$d/oracle.ctx" |
				cut -c1-300 | head -6 | sed 's/^/# /'
		fi
		# exit() deep leaves main's frames open: one incomplete sequence""")
open(p,'w').write(s)
