#!/bin/sh
# cstress.sh - many processes and threads into one collector, producers
# SIGKILLed inside a record at random points, and the collector SIGKILLed
# and restarted under load (with producers that already left); at the end the profile must hold exactly what
# the workload implies minus what it reports lost:
#   sum of counts + lost = records emitted.
# make check runs a small instance; make soak-collector a large one
# (PAP_STRESS_PROCS, _THREADS, _REPS, _KILLED, _ROUNDS, _SEED).  TAP output.
set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
papgcc=$top_builddir/plugin/pap-gcc
decode=$top_builddir/decoder/pap-decode
coll=$top_builddir/collector/pap-collector
procs=${PAP_STRESS_PROCS:-4}		# processes per phase
threads=${PAP_STRESS_THREADS:-4}	# threads per process
reps=${PAP_STRESS_REPS:-300}		# records per thread and phase
killed=${PAP_STRESS_KILLED:-2}		# processes killed per round
rounds=${PAP_STRESS_ROUNDS:-1}
seed=${PAP_STRESS_SEED:-1}
tmp=$(mktemp -d) || exit 1
export TMPDIR="$tmp"
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
unset PAP_COLLECTOR PAP_PROFILE PAP_TEST_KILL PAP_COLLECTOR_LOSSY
total() { "$decode" --format=paths "$1" 2>/dev/null | awk '{ s += $2 }
	END { print s + 0 }'; }
lost() { "$decode" print "$1" 2>/dev/null | sed -n 's/^l //p' |
	awk '{ s += $1 } END { print s + 0 }'; }
wait_for() { i=0; while [ ! -e "$1" ] && [ $i -lt 1000 ]; do sleep 0.01;
	i=$((i + 1)); done; }
# rnd N: a pseudo-random number in [1, N] into $R, from the seed
rnd() { seed=$(( (seed * 1103515245 + 12345) % 2147483648 ));
	R=$(( seed / 65536 % $1 + 1 )); }

echo "1..$rounds"
"$papgcc" -O2 -pthread -o w "$top_srcdir/testsuite/e2e/cworkload.c" || exit 1
# the processes killed at their N-th record given to the runtime count
# every record there: built without counting in place (tally=0)
"$papgcc" -O2 -pthread -fplugin-arg-pap-tally=0 -o ws \
	"$top_srcdir/testsuite/e2e/cworkload.c" || exit 1
sock="$tmp/pap-collector-$(id -u)/stress"
export PAP_PROFILE="$tmp/out.prof"
r=1
while [ $r -le $rounds ]; do
	rm -f out.prof go
	expected=0
	kills=0
	nproc=0
	"$coll" -o out.prof --name stress >/dev/null 2>c1.err &
	c1=$!
	wait_for "$sock"
	export PAP_COLLECTOR="$sock"
	# phase A: streaming to the collector that will be killed
	pids=""
	i=0
	while [ $i -lt $procs ]; do
		./w tpause $threads $reps go 2>/dev/null & pids="$pids $!"
		expected=$((expected + 1 + threads * (2 * reps + 3)))
		nproc=$((nproc + 1))
		i=$((i + 1))
	done
	# some leave before the kill: only the pending-loss file speaks
	# for what the collector drained from them
	i=0
	while [ $i -lt $procs ]; do
		./w threads $threads $reps & q=$!
		expected=$((expected + 2 + threads * (reps + 2)))
		nproc=$((nproc + 1))
		i=$((i + 2))
		wait $q
	done
	rnd 5
	sleep 0.$R
	kill -KILL $c1
	wait $c1 2>/dev/null
	"$coll" -o out.prof --name stress >/dev/null 2>c2.err &
	c2=$!
	sleep 0.2
	touch go
	# phase B: the restarted collector; some producers die mid-record
	i=0
	while [ $i -lt $procs ]; do
		if [ $i -lt $killed ]; then
			rnd $((threads * (reps + 2)))
			n=$R
			PAP_TEST_KILL=mid:$n ./ws churn $threads $reps \
				2>/dev/null & pids="$pids $!"
			expected=$((expected + n))
			kills=$((kills + 1))
		else
			./w threads $threads $reps & pids="$pids $!"
			expected=$((expected + 2 + threads * (reps + 2)))
		fi
		nproc=$((nproc + 1))
		i=$((i + 1))
	done
	for p in $pids; do wait $p 2>/dev/null; done
	kill -TERM $c2
	wait $c2
	got=$(total out.prof)
	l=$(lost out.prof)
	desc="round $r: $nproc processes x $threads threads, $kills killed mid-record, collector killed and restarted: $got in profile + $l lost = $expected emitted"
	if [ $((got + l)) -eq $expected ]; then
		echo "ok $r - $desc"
	else
		echo "not ok $r - $desc (got $((got + l)))"
		fails=1
	fi
	unset PAP_COLLECTOR
	r=$((r + 1))
done
[ -z "${fails:-}" ]
