#!/bin/sh
# calls-record.sh - the call-sequence records that programs built with
# -fplugin-arg-pap-calls make decode to what they did.  Each program is
# linked with calls/take.c, which at exit takes the main thread's record
# from the runtime (rt_calls_take(), librt/calls.h) into a file;
# pap-cseq (testsuite/tools) decodes it in the program its metadata
# describes (libcore/callprog.h, callseq.h) and prints the sequence of
# function names.  The sequences are compared with ones written from the
# sources (tiny.c, loop.c, fanin.c, cgoto.c, tail.c), and, when the
# -finstrument-functions oracle (testsuite/e2e/cygoracle.c,
# calls-check.c) is in the tree, with the
# oracle's on more programs.  -O0 and -O2, calls alone and with each
# intra mode, indirect callees named by the runtime (clusters=sc) or by
# compares (ic, ac).  TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"

src=$top_srcdir/testsuite/e2e/calls
cseq=$top_builddir/testsuite/tools/pap-cseq
configs="none pap-epp pap epp"

gcc -O2 -c "$src/take.c" -o take.o &&
gcc -O2 -c "$src/cunit-stub.c" -o stub.o || exit 1

# record NAME OPT MODE EXTRA SOURCES...: builds ./NAME, runs it, leaves
# NAME.seq (pap's sequence) and NAME.out; 1 when a step fails
record() {
	name=$1 opt=$2 mode=$3 extra=$4
	shift 4
	objs= metas=
	for s in "$@"; do
		case $s in
		*.o) objs="$objs $s" ;;
		*)
			b=$(basename "$s" .c)
			# shellcheck disable=SC2086
			"$papgcc" $opt -fchecking -fplugin-arg-pap-mode=$mode \
				-fplugin-arg-pap-calls -fplugin-arg-pap-calls-tail $extra -c "$s" -o "$b.o" \
				2>>"$name.err" || return 1
			objs="$objs $b.o"
			metas="$metas $PWD/$b.papm"
			;;
		esac
	done
	# shellcheck disable=SC2086
	"$papgcc" $objs take.o stub.o -o "$name" 2>>"$name.err" || return 1
	rm -f "$name.rec"
	PAP_TAKE=$PWD/$name.rec ./"$name" >"$name.out" 2>>"$name.err"
	# shellcheck disable=SC2086
	"$cseq" "$name.rec" $metas >"$name.seq" 2>>"$name.err"
}

# expect NAME WHAT [WHOSE]: NAME.seq against NAME.want, the source's or
# WHOSE
expect() {
	if cmp -s "$1.want" "$1.seq"; then
		ok "$2: $(wc -w <"$1.seq") names as ${3:-the source} says"
	else
		not_ok "$2: the sequence differs from ${3:-the source}'s"
		diff "$1.want" "$1.seq" | cut -c1-300 | head -4 | sed 's/^/#   /'
		diag "$1.err" 5
	fi
}

echo "main mid leaf mid main leaf main >cb thrower thrower thrower main twice leaf twice leaf twice main" >tiny.want
awk 'BEGIN { printf "main"; for (i = 0; i < 3000; i++)
	printf " %s main", (i * 7) % 3 ? "a" : "b"; print "" }' >loop.want
awk 'BEGIN { printf "main"; for (i = 0; i < 500; i++)
	printf " f%d main g main", i % 10; print "" }' >fanin.want
echo "main f main g main f main g main f main" >cgoto.want
# tail.c: each chain of tail calls returns through its functions
tailwant() {
	awk -v n="$1" 'BEGIN { printf "main"
		for (i = 0; i <= n; i++) printf " down"
		for (i = 0; i < n; i++) printf " down"
		printf " main"
		for (i = 0; i < 3; i++) printf " is_even is_odd"
		printf " is_even is_odd is_even is_odd is_even main"
		print " len main say main >cmp order cmp f g h g f main" }'
}
tailwant 3 >tail.want
for opt in -O0 -O2; do
	for mode in $configs; do
		for p in tiny loop fanin cgoto tail; do
			if record "$p" "$opt" "$mode" "" "$src/$p.c"; then
				expect "$p" "$p $opt $mode"
			else
				not_ok "$p $opt $mode: build, run or decode"
				diag "$p.err" 5
			fi
		done
	done
	# indirect calls named by the site's cluster (ic, ac) instead of
	# the runtime: no CALLEE mark is left for tiny.c's two calls of leaf
	for cl in ic ac; do
		p=tiny
		if record "$p" "$opt" pap-epp -fplugin-arg-pap-clusters=$cl \
			"$src/$p.c"; then
			expect "$p" "$p $opt clusters=$cl"
			if grep -q '^f3000000 ' "$p.rec"; then
				not_ok "$p $opt clusters=$cl: a CALLEE mark is left"
			else
				ok "$p $opt clusters=$cl: leaf named by its cluster"
			fi
		else
			not_ok "$p $opt clusters=$cl: build, run or decode"
			diag "$p.err" 5
		fi
	done
done

# A tail-recursive loop 10^7 deep runs in the 8 MiB stack the plain
# -O2 build runs it in (without tail calls kept it overflows), prints
# what the plain build prints, and decodes to the source's sequence.
gcc -O2 -o tail-plain "$src/tail.c" || exit 1
deep=10000000
(ulimit -s 8192; ./tail-plain $deep >tail-plain.out 2>&1; echo "status $?" >>tail-plain.out)
tailwant $deep >deep.want
for mode in none pap-epp; do
	name=deep-$mode
	if ! record "$name" -O2 "$mode" "" "$src/tail.c"; then
		not_ok "tail.c -O2 $mode: build, run or decode"
		diag "$name.err" 5
		continue
	fi
	rm -f "$name.rec"
	(ulimit -s 8192; PAP_TAKE=$PWD/$name.rec ./"$name" $deep >"$name.out" 2>>"$name.err"
	 echo "status $?" >>"$name.out")
	if cmp -s tail-plain.out "$name.out"; then
		ok "tail.c -O2 $mode: $deep deep in 8 MiB of stack, as the plain build"
	else
		not_ok "tail.c -O2 $mode: $deep deep: not as the plain build"
		diff tail-plain.out "$name.out" | head -4 | sed 's/^/#   /'
		continue
	fi
	"$cseq" "$name.rec" "$PWD/tail.papm" >"$name.seq" 2>>"$name.err"
	if cmp -s deep.want "$name.seq"; then
		ok "tail.c -O2 $mode: $deep deep decodes as the source says"
	else
		not_ok "tail.c -O2 $mode: $deep deep: the sequence differs from the source's"
		diag "$name.err" 5
	fi
	rm -f "$name.seq"
done
rm -f deep.want

# against the oracle, when it is in the tree
if [ -f "$top_srcdir/testsuite/e2e/cygoracle.c" ] &&
   [ -f "$top_srcdir/testsuite/e2e/calls-check.c" ]; then
	gcc -O2 -c "$top_srcdir/testsuite/e2e/cygoracle.c" -o cygoracle.o &&
	gcc -O2 -o calls-check "$top_srcdir/testsuite/e2e/calls-check.c" ||
		exit 1
	gcc -O2 -c "$src/plainlib.c" -o plainlib.o || exit 1
	for opt in -O0 -O2; do
		for prog in "direct $src/direct.c" \
			    "indirect $src/indirect.c plainlib.o" \
			    "multi $src/multi1.c $src/multi2.c"; do
			# shellcheck disable=SC2086
			set -- $prog
			name=$1
			shift
			rm -rf o && mkdir o
			export ORACLE_DIR=$PWD/o
			cl=$(case $name in direct) echo sc ;; indirect) echo ic ;; *) echo ac ;; esac)
			if ! record "$name" "$opt" pap-epp \
				"-finstrument-functions -fplugin-arg-pap-clusters=$cl" \
				"$@" cygoracle.o; then
				not_ok "$name $opt: build, run or decode"
				diag "$name.err" 5
				continue
			fi
			unset ORACLE_DIR
			nm -n -S "$name" >nm
			./calls-check nm o/oracle.* >"$name.want" 2>>"$name.err"
			expect "$name" "$name $opt" "the oracle"
		done
	done
else
	skip "the -finstrument-functions oracle is not in the tree yet"
fi

echo "1..$n"
tap_done
