#!/bin/sh
# sigalloc.sh - a signal handler's instrumented code runs while the
# program is inside malloc (sigalloc.c), and the program still computes
# what the plain build computes: the runtime takes no memory from malloc
# where a handler's record may need it (librt/pages.c), spills included.
# Each run must exit 0 with the plain build's output, and the handler's
# activations recorded plus the records counted as lost must equal the
# number of times the handler ran, which the program counts itself:
# (1) three runs with the default spill size; (2) three runs spilling
# every 64 KiB, so that handlers spill too.  Before the runtime took
# mapped pages, every run aborted in malloc, crashed or hung.  TAP
# output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
unset PAP_COLLECTOR PAP_PROFILE PAP_SPILL
src=$top_srcdir/testsuite/e2e/sigalloc.c

echo "1..2"
gcc -O2 -o plain "$src" && ./plain 1000000 >plain.out 2>/dev/null || exit 1
"$papgcc" -O2 -o prog "$src" >cc.log 2>&1 || { cat cc.log; exit 1; }

# runs SPILL: three runs, each checked; says what failed, or nothing
runs() {
	for run in 1 2 3; do
		d=run$1.$run
		rm -rf "$d"
		mkdir -p "$d"
		(cd "$d" && PAP_SPILL=$1 timeout 300 ../prog 1000000 >out 2>err)
		st=$?
		h=$(sed -n 's/^handlers //p' "$d/err")
		if [ $st -ne 0 ] || ! cmp -s plain.out "$d/out"; then
			echo "run $run: exit $st, output $(cat "$d/out")," \
			     "plain's $(cat plain.out);" \
			     "$(tail -n 2 "$d/err" | tr '\n' ' ')"
			return
		fi
		if ! "$decode" print "$d/pap.prof" >"$d/p.txt" 2>"$d/derr"; then
			echo "run $run: pap-decode print failed:" \
			     "$(head -c 200 "$d/derr")"
			return
		fi
		got=$(awk '$1 == "p" && $2 ~ /^walk:/ { c += $4 }
			   $1 == "l" { l += $2 }
			   END { print c + l }' "$d/p.txt")
		if [ "$got" != "$h" ]; then
			echo "run $run: walk's activations + lost = $got," \
			     "the handler ran $h times"
			return
		fi
	done
}

for spill in 8M 64k; do
	what="PAP_SPILL=$spill: 3 runs, plain's output"
	what="$what, every handler's activation recorded or counted lost"
	err=$(runs $spill)
	if [ -n "$err" ]; then
		not_ok "$what: $err"
	else
		ok "$what"
	fi
done
tap_done
