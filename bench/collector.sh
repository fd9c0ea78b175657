#!/bin/sh
# collector.sh - `make bench-collector`: records per second from 1, 2 and
# 8 producer threads into one collector with deduplication (8 distinct
# paths), the producer's cost per record, records lost, and the
# collector's peak memory; and one producer paced at PACE records/s
# (20M).  Rows marked "ring" run the collector with --slots 0, so that
# every record goes through the ring; "Dk" rows make D thousand distinct
# paths, too many for the slots, so that most records evict another
# from its slot.  Each figure is the median of RUNS runs (5);
# N records per run (20M); LONG=N adds one run of N records from one
# thread, for flat memory.  The file sink's cost per record is measured
# too, for the ratio.
set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
coll=$top_builddir/collector/pap-collector
prod=$top_builddir/bench/bench_producer
runs=${RUNS:-5}
n=${N:-20000000}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export TMPDIR="$tmp"
unset PAP_COLLECTOR PAP_COLLECTOR_LOSSY
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
now() { date +%s.%N; }

# one run: THREADS RECORDS [DISTINCT [RATE]] -> "rate ns lost rss cpu-ns";
# the collector's options in $copts
one() {
	rm -f "$tmp/b.prof"
	t0=$(now)
	"$coll" -v $copts -o "$tmp/b.prof" -- "$prod" "$1" "$(($2 / $1))" \
		${3:-8} ${4:-} >"$tmp/out" 2>"$tmp/err"
	t1=$(now)
	ns=$(sed -n 's/.* \([0-9.]*\) ns\/record/\1/p' "$tmp/out")
	cpu=$(sed -n 's/.* \([0-9.]*\) cpu-ns\/record.*/\1/p' "$tmp/out")
	recs=$(sed -n 's/.*), \([0-9]*\) records,.*/\1/p' "$tmp/err")
	lost=$(sed -n 's/.*; lost \([0-9]*\):.*/\1/p' "$tmp/err")
	rss=$(sed -n 's/.*peak RSS \([0-9]*\) KiB/\1/p' "$tmp/err")
	echo "$(echo "$recs $t0 $t1" | awk '{ printf "%.1f", $1 / ($3 - $2) / 1e6 }') $ns $lost $rss $cpu"
}

echo "records per run: $n, distinct paths: 8 unless said, runs: $runs (medians)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
copts=
printf "%-16s %12s %12s %12s %10s %12s\n" producers "Mrecords/s" "wall ns/rec" "cpu ns/rec" lost "RSS KiB"
# the last row: one producer paced at PACE records/s (20M), so that its
# CPU time is a record's cost at that rate, not waits for the collector
pace=${PACE:-20000000}
for p in 1 2 8 "1@$pace" 1,100k 1,ring 8,ring "1@$pace,ring"; do
	: >"$tmp/runs"
	i=0
	case $p in
	*ring) copts="--slots 0" ;;
	*) copts= ;;
	esac
	while [ $i -lt "$runs" ]; do
		case $p in
		*@*) one 1 "$n" 8 "$pace" ;;
		*100k) one 1 "$n" 100000 ;;
		*) one "${p%,ring}" "$n" ;;
		esac >>"$tmp/runs"
		i=$((i + 1))
	done
	printf "%-16s %12s %12s %12s %10s %12s\n" "$p" \
		"$(cut -d' ' -f1 "$tmp/runs" | median)" \
		"$(cut -d' ' -f2 "$tmp/runs" | median)" \
		"$(cut -d' ' -f5 "$tmp/runs" | median)" \
		"$(cut -d' ' -f3 "$tmp/runs" | sort -g | tail -1)" \
		"$(cut -d' ' -f4 "$tmp/runs" | median)"
done
: >"$tmp/fs"
i=0
while [ $i -lt "$runs" ]; do
	(cd "$tmp" && PAP_PROFILE="$tmp/f.prof" "$prod" 1 "$n" 8) |
		sed -n 's/.* \([0-9.]*\) cpu-ns\/record.*/\1/p' >>"$tmp/fs"
	i=$((i + 1))
done
echo "file sink, 1 thread: $(median <"$tmp/fs") cpu ns/record (median)"
copts=
if [ -n "${LONG:-}" ]; then
	echo "long run, 1 producer, $LONG records:"
	one 1 "$LONG" | awk '{ printf "  %s Mrecords/s, %s wall ns/record, %s cpu ns/record, %s lost, peak RSS %s KiB\n", $1, $2, $5, $3, $4 }'
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
