#!/bin/sh
# regs.sh - registers kept across a count's rare arm (regs.c): a thread's
# first count in a function calls the runtime through a thunk
# (librt/tally_thunk.S) that keeps the general registers but r10 and
# r11, and xmm0-15, from an asm statement that names what else it
# clobbers.  64
# threads each run functions that keep doubles, four doubles (AVX, where
# the CPU has it) and many integers live across that arm; in every mode
# at -O0, -O2 and
# -O3 the output must equal the plain build's, and the epp build must
# call the thunk; and the thunk alone (thunkabi.c) keeps its contract
# against a __pap_tally that clobbers all a callee may, and unwinds
# through it to main's caller.  TAP output.
set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
papgcc=$top_builddir/plugin/pap-gcc
src=$top_srcdir/testsuite/e2e/regs.c
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

gcc -O2 -w "$src" -o plain -lpthread && ./plain 64 >plain.out ||
	{ echo "Bail out! cannot build or run regs.c"; exit 1; }
echo "1..10"
n=0
fails=0
for opt in -O0 -O2 -O3; do
	for mode in epp pap pap-epp; do
		n=$((n + 1))
		rm -f pap.prof
		if ! "$papgcc" $opt -w -fchecking -fplugin-arg-pap-mode=$mode \
		     "$src" -o inst -lpthread 2>cc.err; then
			echo "not ok $n - $opt $mode: compile failed"; sed 's/^/# /' cc.err
			fails=$((fails + 1)); continue
		fi
		thunks=$(objdump -d inst | grep -c 'call.*<__pap_tally_preserving>')
		if ! ./inst 64 >inst.out 2>run.err || ! cmp -s plain.out inst.out; then
			echo "not ok $n - $opt $mode: output differs from the plain build"
			diff plain.out inst.out | head -3 | sed 's/^/# /'
			fails=$((fails + 1))
		elif [ $mode = epp ] && [ "$thunks" -eq 0 ]; then
			echo "not ok $n - $opt $mode: no count calls the thunk"
			fails=$((fails + 1))
		else
			echo "ok $n - $opt $mode: 64 threads print what plain prints ($thunks calls of the thunk)"
		fi
	done
done
# the thunk's contract itself, against a __pap_tally that clobbers all
# a callee may: arguments handed over, registers kept
n=$((n + 1))
if gcc -O2 -w "$top_srcdir/testsuite/e2e/thunkabi.c" \
       "$top_srcdir/librt/tally_thunk.S" -o thunkabi 2>cc.err &&
   ./thunkabi >abi.out; then
	echo "ok $n - the thunk hands over its pushed arguments, keeps rax, rcx, rdx, rsi, rdi, r8, r9 and xmm0-15, and unwinds to main's caller"
else
	echo "not ok $n - the thunk breaks its contract: $(cat abi.out cc.err 2>/dev/null | head -2)"
	fails=$((fails + 1))
fi
[ $fails -eq 0 ]
