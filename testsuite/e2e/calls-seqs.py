# calls-seqs.py JSON: the call sequences of a pap-decode --format=json
# report, each as many times as its count, one a line (the form the
# -finstrument-functions oracle's checker prints), for calls.sh and
# calls-proc.sh.
import json, sys
for c in json.load(open(sys.argv[1])).get("call_paths", []):
    if c.get("truncated"):
        print("TRUNCATED %s events" % c["events"])
        continue
    line = " ".join(c["sequence"])
    for i in range(c["count"]):
        print(line)
