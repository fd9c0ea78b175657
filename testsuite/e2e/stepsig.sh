#!/bin/sh
# stepsig.sh - a signal handler's instrumented code at every instruction
# of an activation that makes breakpoints, the runtime's included
# (stepsig.c steps through it with the trap flag): the activations it
# interrupted decode as the tracer saw them without the handler, and the
# handler's own records are at most as many as it ran.  A timer hits
# the runtime's narrow windows now and then (longact.sh); this hits each
# of them on every run.  x86-64 Linux only.  TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
. "$top_srcdir/testsuite/e2e/tracelib.sh"
unset PAP_COLLECTOR PAP_PROFILE
src=$top_srcdir/testsuite/e2e/stepsig.c

echo "1..1"
mkdir -p ref step
if ! (cd ref && PAP_PLUGIN_ARGS="-fplugin-arg-pap-trace" \
      "$papgcc" -O2 -o prog "$src" && ./prog >out) >ref.log 2>&1 ||
   ! (cd step && "$papgcc" -O2 -o prog "$src") >step.log 2>&1; then
	not_ok "build or reference run"
	diag ref.log
	diag step.log
	tap_done
	exit
fi
(cd step && ./prog step >out 2>err)
st=$?
if [ $st -eq 77 ]; then
	skip "not x86-64 Linux: no trap flag to step with"
	tap_done
	exit
fi
h=$(sed -n 's/^handlers //p' step/err)
aggregate_trace ref/pap.trace | awk '$1 == "churn" || $1 == "run"' >traced
if [ $st -ne 0 ] || ! cmp -s ref/out step/out || [ -z "$h" ]; then
	not_ok "stepped run: exit $st, output as the reference's"
	diag step/err
elif [ "$h" -lt 1000 ]; then
	not_ok "stepped run: the handler ran $h times only"
elif ! "$decode" --format=paths step/pap.prof >decoded.raw 2>decode.err; then
	not_ok "pap-decode failed"
	diag decode.err
else
	awk '$1 == "churn" || $1 == "run"' decoded.raw | sort >decoded
	b=$(awk '$1 == "burst" { s += $2 } END { print s + 0 }' decoded.raw)
	if ! cmp -s decoded traced; then
		not_ok "interrupted activations: decoded differ from traced"
		diff decoded traced | cut -c1-200 | head -5 | sed 's/^/# /'
	elif [ "$b" -gt $((h + 1)) ]; then
		not_ok "$b handler activations decoded, $h handlers ran"
	else
		what="$b handler activations decoded"
		ok "$h handlers, one an instruction: decoded = traced; $what"
	fi
fi
tap_done
