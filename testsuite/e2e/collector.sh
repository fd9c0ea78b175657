#!/bin/sh
# collector.sh - pap-collector end to end: the same profile as the file
# sink; threads, fork, exec, posix_spawn, _exit and fatal signals;
# producers killed mid-record (test points, PAP_TEST_KILL); the collector
# killed and restarted; full rings, lossless and lossy; garbage in rings
# and segments; permissions and names.  Every count is checked against
# what the workload implies (cworkload.c), with
#   emitted = in the profile + reported lost, exactly.
# TAP output.
set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
papgcc=$top_builddir/plugin/pap-gcc
decode=$top_builddir/decoder/pap-decode
coll=$top_builddir/collector/pap-collector
rogue=$top_builddir/testsuite/tools/pap-rogue
tmp=$(mktemp -d) || exit 1
export TMPDIR="$tmp"
trap 'kill $(jobs -p) 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset PAP_COLLECTOR PAP_PROFILE PAP_TEST_KILL PAP_COLLECTOR_LOSSY
. "$top_srcdir/testsuite/tap.sh"
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; return 1; fi; }
# activations of work in PROFILE
acts() { "$decode" --format=paths "$1" 2>/dev/null | awk '$1 == "work" { s += $2 }
	END { print s + 0 }'; }
# activations of pick (CW_FLAT) in PROFILE
picks() { "$decode" --format=paths "$1" 2>/dev/null | awk '$1 == "pick" { s += $2 }
	END { print s + 0 }'; }
# records of every function in PROFILE
total() { "$decode" --format=paths "$1" 2>/dev/null | awk '{ s += $2 } END { print s + 0 }'; }
# records reported lost in PROFILE
lost() { "$decode" print "$1" 2>/dev/null | sed -n 's/^l //p' |
	awk '{ s += $1 } END { print s + 0 }'; }
# waits (bounded) until FILE exists
wait_for() { i=0; while [ ! -e "$1" ] && [ $i -lt 500 ]; do sleep 0.01;
	i=$((i + 1)); done; }

echo "1..75"

"$papgcc" -O2 -pthread -o w "$top_srcdir/testsuite/e2e/cworkload.c" || exit 1
# the same without tallies: records of pick() then go to slots
"$papgcc" -O2 -pthread -fplugin-arg-pap-tally=0 -o ws \
	"$top_srcdir/testsuite/e2e/cworkload.c" || exit 1

# same workload, same profile via both sinks
./w threads 4 300 && mv pap.prof file.prof
"$coll" -o coll.prof -- ./w threads 4 300
check "collector and file sink give byte-identical profiles" \
	'cmp -s file.prof coll.prof'
check "... with the 4 x 300 activations of work" \
	'[ "$(acts coll.prof)" -eq 1200 ]'

# the file sink, every record through the runtime (ws): what waits in a
# thread's batch when it ends is in the profile, nothing lost
rm -f pap.prof
./ws threads 4 300 && mv pap.prof wsfile.prof
CW_FLAT=1 ./ws threads 4 300 && mv pap.prof wsflat.prof
check "file sink without tallies: 4 threads' 1200 calls each of work and pick, none lost" \
	'[ "$(acts wsfile.prof)" -eq 1200 ] && [ "$(picks wsflat.prof)" -eq 1200 ] &&
	 [ "$(lost wsfile.prof)" -eq 0 ] && [ "$(lost wsflat.prof)" -eq 0 ]'

# exit while two threads still record: the dump leaves their batches to
# them (what waits there is reported lost), so nothing crashes or tears
cat >race.c <<'C'
#include <pthread.h>
#include <unistd.h>
static volatile unsigned sink;
static unsigned spin(unsigned x)
{
	unsigned i, s = 0;
	for (i = 0; i < (x & 63); i++) s += i % 3 ? i : x;
	return s;
}
static void *worker(void *arg)
{
	unsigned x = (unsigned)(long)arg;
	for (;;) sink += spin(x++ * 2654435761u);
	return NULL;
}
int main(void)
{
	pthread_t t;
	int i;
	for (i = 0; i < 2; i++) pthread_create(&t, NULL, worker, (void *)(long)i);
	usleep(20000);
	for (i = 0; i < 1000; i++) sink += spin((unsigned)i);
	return 0;
}
C
"$papgcc" -O2 -pthread -fplugin-arg-pap-tally=0 -o race race.c || exit 1
good=0
for i in $(seq 1 40); do
	rm -f pap.prof
	./race 2>/dev/null &&
	[ "$("$decode" --format=paths pap.prof 2>/dev/null |
	     awk '$1 == "main" { s += $2 } END { print s + 0 }')" -eq 1 ] &&
	good=$((good + 1))
done
check "exit while threads record, 40 times: every run ends well, its profile reads" \
	'[ $good -eq 40 ]'
rm -f pap.prof

# a long activation that repeats itself: packed alike by both sinks
"$papgcc" -O2 -o ll "$top_srcdir/testsuite/e2e/longloop.c" || exit 1
./ll 300000 >/dev/null && mv pap.prof llfile.prof
"$coll" -o llcoll.prof -- ./ll 300000 >/dev/null
check "a long path with repeats: the same profile via both sinks" \
	'"$decode" print llcoll.prof | grep -q " 4294967294 " && cmp -s llfile.prof llcoll.prof'

# paths that do not repeat, too long for one ring record (distinct.c: 3
# walks of 2,000,000 steps, 92,000 breakpoints each): they go through the
# ring in pieces and come out as the file sink writes them (with no
# spill: one segment, byte for byte); a producer killed after the first
# piece of the second has that path reported lost, not half-counted, and
# the first counted once
walks() { "$decode" print "$1" 2>/dev/null | awk '$1 == "p" && $2 ~ /^walk:/ {
	s += $4 } END { print s + 0 }'; }
"$papgcc" -O2 -o dl "$top_srcdir/testsuite/e2e/distinct.c" || exit 1
./dl 3 2000000 >dl.out && mv pap.prof dlfile.prof
"$coll" --spill=0 -o dlcoll.prof -- ./dl 3 2000000 >dlcoll.out
check "paths of 92,000 breakpoints in ring pieces: the same profile via both sinks" \
	'[ "$(walks dlcoll.prof)" -eq 3 ] && cmp -s dl.out dlcoll.out && cmp -s dlfile.prof dlcoll.prof'
PAP_TEST_KILL=piece:2 "$coll" -o dlkill.prof -- ./dl 3 2000000 >/dev/null 2>&1
check "killed after the first piece of a long path: that path lost, the one before counted" \
	'[ "$(walks dlkill.prof)" -eq 1 ] && [ "$(lost dlkill.prof)" -eq 1 ]'

# the collector spills what it holds to its file past --spill: 2,000
# distinct paths with a spill every 64 KB read back as the file sink's
./dl 2000 500 >/dev/null && mv pap.prof dsfile.prof
"$coll" -v --spill=64k -o dscoll.prof -- ./dl 2000 500 >/dev/null 2>dscoll.err
"$decode" print dsfile.prof | sort >dsfile.txt
"$decode" print dscoll.prof | sort >dscoll.txt
# what it held at the end: far fewer than the 2,000 walks
held=$(sed -n 's/.* records, \([0-9]*\) distinct.*/\1/p' dscoll.err)
check "--spill=64k: held $held distinct records at the end; the file reads as the file sink's profile" \
	'[ "$(walks dscoll.prof)" -eq 2000 ] && cmp -s dsfile.txt dscoll.txt &&
	 [ -n "$held" ] && [ "$held" -lt 1000 ]'

# the collector merges into an existing file, exits with the status
"$coll" -o coll.prof -- ./w threads 2 50
check "the collector merges into an existing profile" \
	'[ "$(acts coll.prof)" -eq 1300 ]'
"$coll" -o st.prof -- sh -c 'exit 3'
check "the collector exits with the command's status" '[ $? -eq 3 ]'

# process and thread life cycles
for m in "fork 200 600" "tfork 150 450" "exec 200 400" "spawn 150 450" "_exit 200 200" \
	 "abort 200 200" "churn 12 50 600"; do
	set -- $m
	rm -f p.prof
	if [ $# -eq 4 ]; then
		"$coll" -o p.prof -- ./w "$1" "$2" "$3" 2>/dev/null; want=$4
	else
		"$coll" -o p.prof -- ./w "$1" "$2" 2>/dev/null; want=$3
	fi
	check "$1: $want activations, nothing lost" \
		'[ "$(acts p.prof)" -eq $want ] && [ "$(lost p.prof)" -eq 0 ]'
done

# many processes with threads at once
rm -f p.prof
"$coll" -o p.prof -- sh -c 'for i in 1 2 3 4 5 6 7 8; do ./w threads 3 100 &
	done; wait'
check "8 processes x 3 threads: 2400 activations" \
	'[ "$(acts p.prof)" -eq 2400 ] && [ "$(lost p.prof)" -eq 0 ]'

# a producer killed mid-record and right after one (test points, which
# count the records given to the runtime: ws, which counts none in
# place); its records are counted in its segment's slots, which the
# collector reads once it is gone
for at in 1 37 150; do
	rm -f p.prof
	PAP_TEST_KILL=mid:$at "$coll" -o p.prof -- ./ws threads 1 200 \
		2>/dev/null
	# records before it: at-1 (work, or thread's own when at = 201)
	check "killed inside record $at: $((at - 1)) counted once, 1 lost" \
		'[ "$(acts p.prof)" -eq $((at - 1)) ] && [ "$(lost p.prof)" -eq 1 ]'
done
rm -f p.prof
PAP_TEST_KILL=after:80 "$coll" -o p.prof -- ./ws threads 1 200 2>/dev/null
check "killed right after record 80: 80 counted, none lost" \
	'[ "$(acts p.prof)" -eq 80 ] && [ "$(lost p.prof)" -eq 0 ]'

# the same with records of pick(), which have no breakpoints and are
# counted in slots (CW_FLAT; built without tallies, ws): through the
# ring alone (--slots 0: the
# record killed is a half-written ring record); in the default slots; and
# with one slot, so that every record takes the slot from the one before
# (pick's 10 paths take turns): killed inside the COUNT record that frees
# the slot, right after it, and in the middle of the slot's rewrite
kill_at() { # SLOTS MODE:N
	rm -f p.prof
	CW_FLAT=1 PAP_TEST_KILL=$2 "$coll" -o p.prof --slots "$1" -v -- \
		./ws threads 1 200 2>err.txt
}
kill_at 0 mid:37
check "no slots, killed inside ring record 37: 36 counted, 1 lost" \
	'[ "$(picks p.prof)" -eq 36 ] && [ "$(lost p.prof)" -eq 1 ] && grep -q "(1 died inside a ring record)" err.txt'
kill_at 1024 mid:37
check "slots, killed inside record 37: 36 counted, 1 lost" \
	'[ "$(picks p.prof)" -eq 36 ] && [ "$(lost p.prof)" -eq 1 ]'
kill_at 1024 after:80
check "slots, killed right after record 80: 80 counted, none lost" \
	'[ "$(picks p.prof)" -eq 80 ] && [ "$(lost p.prof)" -eq 0 ]'
for m in mid evict rewrite; do
	kill_at 1 $m:37
	check "one slot, killed at $m:37: 36 counted, 1 lost" \
		'[ "$(picks p.prof)" -eq 36 ] && [ "$(lost p.prof)" -eq 1 ] && grep -q " 0 rejected" err.txt'
done
kill_at 1 rewrite:1
check "one slot, killed writing the first record into it: 1 lost, not garbage" \
	'[ "$(picks p.prof)" -eq 0 ] && [ "$(lost p.prof)" -eq 1 ] && grep -q " 0 rejected" err.txt'
export CW_FLAT=1
for b in ws w; do
	rm -f p1.prof p0.prof pd.prof pap.prof
	"$coll" -o p1.prof --slots 1 -- ./$b threads 3 300
	"$coll" -o p0.prof --slots 0 -- ./$b threads 3 300
	"$coll" -o pd.prof -- ./$b threads 3 300
	./$b threads 3 300
	check "$b: one slot, no slots and 1024 give the file sink's profile" \
		'[ "$(picks pap.prof)" -eq 900 ] && cmp -s pap.prof p1.prof && cmp -s pap.prof p0.prof && cmp -s pap.prof pd.prof'
done
unset CW_FLAT
rm -f pap.prof

# a producer counting pick() in its segment's tallies (w), killed while
# it waits after 300 calls: each of them counted, none lost
rm -f p.prof go go.ready
"$coll" -o p.prof --name tallykill >/dev/null 2>&1 &
cpid=$!
wait_for "$tmp/pap-collector-$(id -u)/tallykill"
CW_FLAT=1 PAP_COLLECTOR="$tmp/pap-collector-$(id -u)/tallykill" ./w pause 300 go &
wpid=$!
wait_for go.ready
kill -KILL $wpid
wait $wpid 2>/dev/null
kill -TERM $cpid
wait $cpid
check "tallies: a producer SIGKILLed after 300 calls: 300 counted, none lost" \
	'[ "$(picks p.prof)" -eq 300 ] && [ "$(lost p.prof)" -eq 0 ]'


# the collector killed, and a new one started under the same name
rm -f k.prof go
"$coll" -o k.prof --name kill >sock.txt &
cpid=$!
wait_for "$tmp/pap-collector-$(id -u)/kill"
export PAP_COLLECTOR="$tmp/pap-collector-$(id -u)/kill"
export PAP_PROFILE="$tmp/k.prof"
./w pause 300 go 2>/dev/null &
wpid=$!
sleep 0.3
kill -KILL $cpid
wait $cpid 2>/dev/null
touch go
wait $wpid
# main, 2 x run, 600 x work
check "collector killed: producer finishes; profile + lost = 603 records" \
	'[ $(( $(total k.prof) + $(lost k.prof) )) -eq 603 ] && [ "$(acts k.prof)" -ge 300 ]'
"$coll" -o k.prof --name kill >/dev/null &
cpid=$!
sleep 0.2
./w threads 2 100
kill -TERM $cpid
wait $cpid
# and main, threads, 2 x thread, 2 x run, 200 x work
check "a restarted collector collects new producers into the same file" \
	'[ $(( $(total k.prof) + $(lost k.prof) )) -eq 809 ]'
unset PAP_COLLECTOR PAP_PROFILE

# full rings: the collector is stopped once the producer is
# connected (go.ready), so its 64-word ring fills
# full_ring NAME LOSSY [SLOTS [BUILD]]: collector NAME (--lossy if LOSSY
# is 1), producer BUILD (w) "pause 400 go"
full_ring() {
	rm -f f.prof fs.prof go go.ready
	if [ "$2" = 1 ]; then lossy=--lossy; else lossy=--ring-words=64; fi
	"$coll" -o f.prof --name "$1" --ring-words 64 --slots "${3:-0}" \
		$lossy >/dev/null 2>&1 &
	cpid=$!
	wait_for "$tmp/pap-collector-$(id -u)/$1"
	PAP_COLLECTOR="$tmp/pap-collector-$(id -u)/$1" PAP_PROFILE="$tmp/fs.prof" \
		PAP_COLLECTOR_LOSSY=$2 ./${4:-w} pause 400 go 2>/dev/null &
	wpid=$!
	wait_for go.ready
	sleep 0.1
	kill -STOP $cpid
	touch go
}
# lossless: what the ring refused reaches the file sink (fs.prof)
full_ring full 0
wait $wpid
kill -CONT $cpid
kill -TERM $cpid
wait $cpid
check "lossless: a full ring keeps records in the process, none lost" \
	'[ $(( $(acts f.prof) + $(acts fs.prof) )) -eq 800 ] && [ "$(acts fs.prof)" -gt 0 ] && [ $(( $(lost f.prof) + $(lost fs.prof) )) -eq 0 ]'
# lossy: dropped and counted (800 x work, 2 x run, main)
full_ring lossy 1
wait $wpid
kill -CONT $cpid
kill -TERM $cpid
wait $cpid
check "lossy: drops are counted exactly (profile + lost = 803, lost > 0)" \
	'[ $(( $(total f.prof) + $(total fs.prof) + $(lost f.prof) + $(lost fs.prof) )) -eq 803 ] && [ "$(lost f.prof)" -gt 0 ]'
# kill_held NAME SLOTS: the producer killed while its collector is
# stopped, once it has made all its records; then the collector stops
kill_held() {
	rm -f go.held
	touch go.hold
	full_ring "$1" 0 "$2" "${3:-w}"
	wait_for go.held
	kill -KILL $wpid
	wait $wpid 2>/dev/null
	kill -CONT $cpid
	kill -TERM $cpid
	wait $cpid
	rm -f go.hold
}
# killed while holding: reported lost (800 x work, 2 x run before)
kill_held held 0
check "killed while holding records: they are reported lost (802 emitted)" \
	'[ $(( $(total f.prof) + $(lost f.prof) )) -eq 802 ] && [ "$(lost f.prof)" -gt 300 ] && [ ! -e fs.prof ]'
# the same with slots: what they counted survives the kill (two of pick's
# 10 records may share a slot, as the function string's address decides:
# their COUNT records then fill the stopped ring, and what it refuses is
# kept in the process and lost with it)
export CW_FLAT=1
for b in ws w; do
	kill_held slots$b 1024 $b
	check "$b: killed with its ring stopped: the 800 activations counted in place survive" \
		'[ $(( $(picks f.prof) + $(lost f.prof) )) -ge 800 ] && [ "$(lost f.prof)" -lt 200 ] && [ $(( $(total f.prof) + $(lost f.prof) )) -eq 802 ] && [ ! -e fs.prof ]'
done
unset CW_FLAT

# the collector stopped (TERM) or killed while a producer that counts in
# slots waits halfway: stopped, it takes the slots' 300 and tells the
# producer, which keeps only what it counts later; killed, it took nothing
# from the slots, and the producer keeps all of it (what it had drained is
# reported lost: the first call of run, and COUNT records of picks whose
# slots collide, which the address of the function string decides;
# main + 2 x run + 600 x pick)
for run in TERM:ws KILL:ws TERM:w KILL:w; do
	sig=${run%:*} b=${run#*:}
	rm -f t.prof go go.ready
	"$coll" -o t.prof --name "stop$sig" >/dev/null 2>&1 &
	cpid=$!
	wait_for "$tmp/pap-collector-$(id -u)/stop$sig"
	CW_FLAT=1 PAP_COLLECTOR="$tmp/pap-collector-$(id -u)/stop$sig" \
		PAP_PROFILE="$tmp/t.prof" ./$b pause 300 go &
	wpid=$!
	wait_for go.ready
	# killed, the collector loses unreported a batch it drained but has
	# not yet counted as pending (producers.c says so: never twice); that
	# window is not this test's, so it is given time to drain first
	[ $sig = KILL ] && sleep 1
	kill -$sig $cpid
	wait $cpid 2>/dev/null
	touch go
	wait $wpid
	if [ $sig = TERM ]; then want=600; else want=$((600 - $(lost t.prof))); fi
	check "$b: collector ${sig}ed halfway: the 600 counted in place counted once" \
		'[ "$(picks t.prof)" -ge $want ] && [ "$(picks t.prof)" -le 600 ] && [ $(( $(total t.prof) + $(lost t.prof) )) -eq 603 ]' ||
		note "picks $(picks t.prof), total $(total t.prof), lost $(lost t.prof); want picks >= $want and total + lost = 603"
done

# a snapshot (SIGUSR1) while a producer runs: what its ring and its
# slots (ws) or tallies (w) hold at that moment, then everything at the end
for b in ws w; do
	rm -f n.prof n.prof.snap go go.ready
	"$coll" -o n.prof --name snap >/dev/null 2>&1 &
	cpid=$!
	wait_for "$tmp/pap-collector-$(id -u)/snap"
	CW_FLAT=1 PAP_COLLECTOR="$tmp/pap-collector-$(id -u)/snap" ./$b pause 300 go &
	wpid=$!
	wait_for go.ready
	kill -USR1 $cpid
	wait_for n.prof.snap
	touch go
	wait $wpid
	kill -TERM $cpid
	wait $cpid
	check "$b: a snapshot holds the 300 calls made so far, the profile all 600" \
		'[ "$(picks n.prof.snap)" -eq 300 ] && [ "$(picks n.prof)" -eq 600 ] && [ "$(lost n.prof)" -eq 0 ]'
done

# garbage from rogue producers beside an honest one
rm -f g.prof
"$coll" -o g.prof --name garbage --max-records 5000 >/dev/null 2>g.err &
cpid=$!
wait_for "$tmp/pap-collector-$(id -u)/garbage"
export PAP_COLLECTOR="$tmp/pap-collector-$(id -u)/garbage"
./w threads 2 300 &
wpid=$!
s=1
while [ $s -le 40 ]; do
	"$rogue" ring $s 200 && "$rogue" segment $s && "$rogue" slots $s &&
	"$rogue" records $s 500 || echo "rogue $s failed"
	s=$((s + 1))
done >rogue.out 2>&1
"$rogue" fns 100000 >>rogue.out 2>&1
"$rogue" flood 20000 >>rogue.out 2>&1
wait $wpid
kill -TERM $cpid
wait $cpid
st=$?
unset PAP_COLLECTOR
check "garbage: the collector survives 120 rogue rings and segments" \
	'[ $st -eq 0 ] && [ ! -s rogue.out ]'
check "garbage: the honest producer's 600 activations are intact" \
	'[ "$(acts g.prof)" -eq 600 ] && [ "$(lost g.prof)" -gt 0 ] && [ "$("$decode" print g.prof | wc -l)" -le 5003 ]'

# more distinct records than --max-records: the ones refused are lost,
# one by one, while the ring goes on (work() has 40 distinct paths), sent
# as they are (--slots 0) or counted in 4 slots that COUNT records free
./ws threads 1 400 && mv pap.prof mfile.prof
for slots in 0 4; do
	rm -f m.prof
	"$coll" -o m.prof --max-records 20 --slots $slots -v -- \
		./ws threads 1 400 2>m.err
	check "--max-records 20, --slots $slots: 20 kept, kept + lost = all $(total mfile.prof) emitted, all lost as rejected" \
		'[ "$("$decode" print m.prof | grep -c "^p ")" -eq 20 ] &&
		 [ $(( $(total m.prof) + $(lost m.prof) )) -eq "$(total mfile.prof)" ] &&
		 grep -q "lost $(lost m.prof): .* $(lost m.prof) rejected" m.err'
done

# a producer before 2.2 sends long paths unpacked: packed as now
"$coll" -o o.prof --name old >/dev/null 2>o.err &
cpid=$!
wait_for "$tmp/pap-collector-$(id -u)/old"
PAP_COLLECTOR="$tmp/pap-collector-$(id -u)/old" "$rogue" old 1 30 >o.out 2>&1
kill -TERM $cpid
wait $cpid
check "a 2.1 producer's long path: packed, its 30 copies one record" \
	'"$decode" print o.prof >o.txt && [ "$(grep -c "^p old:" o.txt)" -eq 1 ] && grep -qx "p old:0123456789abcdef 1 30 5 3 0 100 1 101 4294967294 8589934630" o.txt'

# processes that clear their environment (env -i): they find the
# collector that started them through its rendezvous, an entry named by
# the anchor's pid in /tmp/pap-rendezvous-UID (or PAP_RENDEZVOUS_DIR);
# e0.prof is what the file sink gives for the same run
rm -f pap.prof
./w threads 2 100 && mv pap.prof e0.prof
mkdir -p sub out
"$coll" -o e1.prof -- sh -c 'env -i ./w threads 2 100'
check "env -i under the collector: in its profile, byte-identical to the file sink's" \
	'cmp -s e0.prof e1.prof && [ -z "$(find "$tmp" -name pap.prof)" ]'
# ... and the program's environment is left as the command made it
cat >envp.c <<'C'
#include <stdio.h>
extern char **environ;
int main(void)
{
	int n = 0;

	while (environ[n])
		n++;
	printf("%d\n", n);
	return 0;
}
C
"$papgcc" -O2 -o envp envp.c
"$coll" -o ev.prof -- sh -c 'env -i ./envp >envp.out'
check "env -i under the collector: collected, its environment still empty" \
	'[ "$(cat envp.out)" = 0 ] && "$decode" print ev.prof | grep -q "^p main:" && [ -z "$(find "$tmp" -name pap.prof)" ]'
"$coll" -o e2.prof -- sh -c 'env -i sh -c "cd sub && exec ../w threads 2 100"'
check "env -i in another directory: in the collector's profile, no stray pap.prof" \
	'cmp -s e0.prof e2.prof && [ -z "$(find "$tmp" -name pap.prof)" ]'
# an orphan (its parent exits first) is adopted by the collector, which
# waits for it, and stays in reach of the rendezvous
"$coll" -o e3.prof -- sh -c '(sleep 0.3; exec env -i ./w threads 2 100) & exit 0'
check "env -i in an orphan: adopted and collected, no stray pap.prof" \
	'cmp -s e0.prof e3.prof && [ -z "$(find "$tmp" -name pap.prof)" ]'
# a process of the same user that is not a descendant is not collected
rm -f ro.prof ro.ready ro.go
"$coll" -o ro.prof -- sh -c 'touch ro.ready; while [ ! -e ro.go ]; do sleep 0.02; done' &
cpid=$!
wait_for ro.ready
(cd out && env -i ../w threads 2 100)
touch ro.go
wait $cpid
check "env -i outside a running collector: not collected, its own pap.prof" \
	'cmp -s e0.prof out/pap.prof && [ "$(acts ro.prof)" -eq 0 ]'
rm -f out/pap.prof
"$coll" -o rn.prof --no-rendezvous -- sh -c 'cd out && env -i ../w threads 2 100'
check "--no-rendezvous: env -i writes its own pap.prof" \
	'cmp -s e0.prof out/pap.prof && [ "$(acts rn.prof)" -eq 0 ]'
rm -f out/pap.prof

# without a command, --rendezvous advertises to the descendants of the
# collector's parent (this shell, $$)
rm -f rd.prof
mkdir -m 700 rv
PAP_RENDEZVOUS_DIR="$tmp/rv" "$coll" -o rd.prof --rendezvous >/dev/null 2>rd.err &
cpid=$!
wait_for "rv/$$"
env -i PAP_RENDEZVOUS_DIR="$tmp/rv" ./w threads 2 100 2>out/err
check "--rendezvous without a command: the entry is 0600 in a 0700 directory, a child of its shell is collected" \
	'[ "$(stat -c %a rv)" = 700 ] && [ "$(stat -c %a "rv/$$")" = 600 ] &&
	 [ ! -e pap.prof ] && [ ! -s out/err ]'
# refused: each would reach the collector above if it were trusted;
# each run must instead write its own pap.prof, and say why
refused() { # NAME DIR WHAT
	rn=$1 rd=$2 rw=$3
	mkdir -p "r.$rn"
	(cd "r.$rn" && env -i PAP_RENDEZVOUS_DIR="$rd" ../w threads 2 100 2>err)
	check "a rendezvous $rn is refused with a message, the run not collected" \
		'cmp -s e0.prof "r.$rn/pap.prof" &&
		 grep -q "^pap: error: $rd.*: not a private $rw of this user" "r.$rn/err"'
}
ln -s rv rvlink
refused "directory reached by a symbolic link" "$tmp/rvlink" directory
chmod 755 rv
refused "directory of mode 0755" "$tmp/rv" directory
chmod 700 rv
mkdir -m 700 rv2 rv3
ln -s "$tmp/rv/$$" "rv2/$$"
refused "entry that is a symbolic link" "$tmp/rv2" file
cp "rv/$$" "rv3/$$" && chmod 644 "rv3/$$"
refused "entry of mode 0644" "$tmp/rv3" file
if [ "$(id -u)" -eq 0 ]; then
	chown 65534 rv
	refused "directory of another user" "$tmp/rv" directory
	chown 0 rv
	chmod 600 "rv3/$$" && chown 65534 "rv3/$$"
	refused "entry of another user" "$tmp/rv3" file
else
	ok "# SKIP a rendezvous directory of another user is refused (needs root)"
	ok "# SKIP a rendezvous entry of another user is refused (needs root)"
fi
PAP_RENDEZVOUS_DIR="$tmp/rvlink" "$coll" -o rx.prof -- true 2>rx.err
r1=$?
kill -TERM $cpid
wait $cpid
check "the collector refuses a planted directory too, and runs" \
	'[ $r1 -eq 0 ] && grep -q "^pap-collector: error: $tmp/rvlink: not a private directory" rx.err'
check "... and collected the one run that was its own, nothing refused; the entry is gone" \
	'cmp -s e0.prof rd.prof && [ ! -e "rv/$$" ] && [ ! -s rd.err ]'

# a collector SIGKILLed leaves a stale entry: ignored without a word,
# then replaced by the next collector for the same anchor
mkdir -m 700 rv5 stale
PAP_RENDEZVOUS_DIR="$tmp/rv5" "$coll" -o k5.prof --rendezvous >/dev/null 2>&1 &
cpid=$!
wait_for "rv5/$$"
kill -KILL $cpid
wait $cpid 2>/dev/null
(cd stale && env -i PAP_RENDEZVOUS_DIR="$tmp/rv5" ../w threads 2 100 2>err)
check "a dead collector's entry is ignored: the run writes its own pap.prof, silently" \
	'[ -e "rv5/$$" ] && cmp -s e0.prof stale/pap.prof && [ ! -s stale/err ] && [ ! -e k5.prof ]'
PAP_RENDEZVOUS_DIR="$tmp/rv5" "$coll" -o rg.prof --rendezvous >/dev/null 2>rg.err &
cpid=$!
i=0
while ! grep -q "^collector $cpid " "rv5/$$" 2>/dev/null && [ $i -lt 500 ]; do
	sleep 0.01; i=$((i + 1)); done
rm -f pap.prof
env -i PAP_RENDEZVOUS_DIR="$tmp/rv5" ./w threads 2 100
kill -TERM $cpid
wait $cpid
check "... and replaced by the next collector, which collects" \
	'cmp -s e0.prof rg.prof && [ ! -e pap.prof ] && [ ! -e "rv5/$$" ] && [ ! -s rg.err ]'

# security
"$coll" -o s.prof --name sec >/dev/null 2>sec.err &
cpid=$!
sock="$tmp/pap-collector-$(id -u)/sec"
wait_for "$sock"
check "the socket and its directory are private (0600, 0700)" \
	'[ "$(stat -c %a "$sock")" = 600 ] && [ "$(stat -c %a "${sock%/*}")" = 700 ]'
check "segments are 0600 and owned by the producer's uid" \
	'[ "$(PAP_COLLECTOR=$sock "$rogue" mode)" = "600 mine" ]'
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	chmod 755 "$tmp" "${sock%/*}"; chmod 666 "$sock"
	out=$(PAP_COLLECTOR=$sock setpriv --reuid=65534 --regid=65534 \
		--clear-groups "$rogue" mode 2>&1)
	chmod 700 "${sock%/*}"; chmod 600 "$sock"
	kill -TERM $cpid; wait $cpid
	check "a producer of another uid is refused" \
		'[ "$out" = "pap-rogue: refused" ] && grep -q "refused a producer of uid 65534" sec.err'
else
	kill -TERM $cpid; wait $cpid
	ok "# SKIP a producer of another uid is refused (needs root)"
fi
"$coll" -o s.prof --name ../escape -- true 2>/dev/null
r1=$?
"$coll" -o s.prof --name 'a/b' -- true 2>/dev/null
r2=$?
check "names that would leave the collector's directory are refused" \
	'[ $r1 -eq 2 ] && [ $r2 -eq 2 ]'

# the command line
check "--help and --version" \
	'"$coll" --help | grep -q "^Usage: pap-collector -o FILE" && "$coll" --help | grep -q -- "--no-rendezvous" && "$coll" --version | grep -q "^pap-collector (pap) "'
"$coll" -- true 2>err.txt
r1=$?
check "no -o: exit 2 with an error" \
	'[ $r1 -eq 2 ] && grep -q "error: no output file" err.txt'
"$coll" -o x.prof --ring-words 100 -- true 2>err.txt
r1=$?
check "a ring size that is not a power of two: exit 2 with an error" \
	'[ $r1 -eq 2 ] && grep -q "error: --ring-words must be" err.txt'
"$coll" -o x.prof --slots 3 -- true 2>err.txt
r1=$?
check "a slot count that is not a power of two: exit 2 with an error" \
	'[ $r1 -eq 2 ] && grep -q "error: --slots must be" err.txt'

tap_done
