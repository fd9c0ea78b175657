#!/bin/sh
# diagnostics.sh - an instrumented compilation gives exactly the
# warnings and errors of the plain one.  Each unit of a corpus is
# compiled (-c) with -Wall -Wextra at -O0, -O1, -O2, -O3 and -Os by plain
# gcc and by pap-gcc, and the two stderr texts must be byte for byte the
# same, with the same exit status.  The corpus: the C programs in
# testsuite/e2e (every mode at every level), six csmith programs (every
# mode at every level), and lua 5.4.7's sources from
# $PAP_REALPROG/lua-5.4.7.tar.gz (default: ../shared/realprog next to
# the source tree; skipped when absent; one or more modes a level, so
# that each mode sees it).  TAP output, one line per part and level.
#
# One difference is let through, in one direction only: a -Wclobbered
# warning of the plain build that the instrumented build does not give.
# GCC decides it in the register allocator, from which of a setjmp
# caller's registers live across the setjmp are set twice, on the final
# code: probes make functions bigger, so GCC inlines and predicts
# branches differently and may put a variable elsewhere.  The
# instrumented build must then give the plain one's text with
# -Wno-clobbered, and none of its own -Wclobbered warnings may be new.
set -u
if [ "${1:-}" = one ]; then
	# one unit: $2 work dir, $3 part, $4 level, $5 modes (a,b), $6
	# source, then its flags; prints one line per mode:
	# PART LEVEL MODE ok|lost|fail SOURCE [why]
	work=$2 part=$3 opt=$4 modes=$5 src=$6
	shift 6
	d=$(mktemp -d "$work/u.XXXXXX") || exit 1
	name=$(basename "$src")
	$PLAINCC $INC "$@" "$opt" -Wall -Wextra -c "$src" -o "$d/plain.o" \
		2>"$d/plain.err"
	pst=$?
	for mode in $(echo "$modes" | tr , ' '); do
		"$PAPGCC" -fplugin-arg-pap-mode="$mode" "$@" "$opt" -Wall -Wextra \
			-c "$src" -o "$d/$mode.o" 2>"$d/$mode.err"
		ist=$?
		if [ $ist -ne $pst ]; then
			echo "$part $opt $mode fail $name exit status $pst plain, $ist instrumented"
			cp "$d/$mode.err" "$work/fail.$part$opt.$mode.$name"
			continue
		fi
		if cmp -s "$d/plain.err" "$d/$mode.err"; then
			echo "$part $opt $mode ok $name"
			continue
		fi
		# only plain's -Wclobbered warnings may be missing
		grep -F '[-Wclobbered]' "$d/plain.err" | sort >"$d/pc"
		grep -F '[-Wclobbered]' "$d/$mode.err" | sort >"$d/ic"
		$PLAINCC $INC "$@" "$opt" -Wall -Wextra -Wno-clobbered -c "$src" \
			-o "$d/plain.o" 2>"$d/plain.nc"
		"$PAPGCC" -fplugin-arg-pap-mode="$mode" "$@" "$opt" -Wall -Wextra \
			-Wno-clobbered -c "$src" -o "$d/$mode.o" 2>"$d/$mode.nc"
		if [ -s "$d/pc" ] && [ -z "$(comm -13 "$d/pc" "$d/ic")" ] &&
		   cmp -s "$d/plain.nc" "$d/$mode.nc"; then
			echo "$part $opt $mode lost $name $(comm -23 "$d/pc" "$d/ic" | wc -l)"
			continue
		fi
		echo "$part $opt $mode fail $name diagnostics differ"
		diff "$d/plain.err" "$d/$mode.err" >"$work/fail.$part$opt.$mode.$name"
	done
	rm -rf "$d"
	exit 0
fi

# the plugin and pap-gcc are built without sanitizers in every build (cc1
# cannot load ASan), so a sanitized build would compare the same
# compilers' texts again
if [ "${PAP_TEST_SANITIZED:-no}" = yes ]; then
	echo "1..0 # SKIP the plugin is the plain build's under --enable-sanitizers: compared there"
	exit 0
fi
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
PAPGCC=$top_builddir/plugin/pap-gcc
# the compiler pap-gcc wraps, so that both builds use the same one
cc=$(sed -n 's/^cc=\${PAP_CC:-\(.*\)}$/\1/p' "$PAPGCC")
PLAINCC=${PAP_CC:-${cc:-gcc}}
PAP_CC=$PLAINCC
# pap-gcc's include directories, so that both see the same headers
INC="-I$top_builddir/include -I$top_srcdir/include"
PAP_PLUGIN_ARGS=
export PAPGCC PLAINCC PAP_CC INC PAP_PLUGIN_ARGS
self=$top_srcdir/testsuite/e2e/diagnostics.sh
realprog=${PAP_REALPROG:-$top_srcdir/../shared/realprog}
levels="-O0 -O1 -O2 -O3 -Os"
all=pap-epp,pap,epp
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

: >"$tmp/jobs"
# lua first: its units are the biggest, and xargs starts jobs in order
lua=
if [ -f "$realprog/lua-5.4.7.tar.gz" ] &&
   mkdir "$tmp/lua" && tar -xzf "$realprog/lua-5.4.7.tar.gz" -C "$tmp/lua"; then
	lua=$(dirname "$(find "$tmp/lua" -name lapi.c | head -n 1)")
fi
if [ -n "$lua" ] && [ "$lua" != . ]; then
	for opt in $levels; do
		case $opt in
		-O0) modes=epp ;;
		-O1) modes=pap ;;
		-O2) modes=$all ;;
		-O3) modes=pap-epp ;;
		-Os) modes=pap ;;
		esac
		# onelua.c #includes all the others: their diagnostics again
		for f in "$lua"/*.c; do
			[ "$(basename "$f")" = onelua.c ] && continue
			echo "lua $opt $modes $f -std=c99 -DLUA_USE_LINUX"
		done
	done >>"$tmp/jobs"
else
	lua=
fi
have_csmith=
if command -v csmith >/dev/null && [ -f /usr/include/csmith/csmith.h ]; then
	have_csmith=yes
	mkdir "$tmp/csmith"
	# in its own directory: csmith leaves platform.info where it runs
	(cd "$tmp/csmith" && for seed in 1 2 3 4 5 6; do
		csmith --seed $seed --max-funcs 4 --max-block-depth 4 \
			>p$seed.c 2>/dev/null || rm -f p$seed.c
	done)
	for opt in $levels; do
		for f in "$tmp"/csmith/p*.c; do
			[ -f "$f" ] && echo "csmith $opt $all $f -I/usr/include/csmith"
		done
	done >>"$tmp/jobs"
fi
for opt in $levels; do
	for f in "$top_srcdir"/testsuite/e2e/*.c; do
		case $f in
		*/eh.c) echo "e2e $opt $all $f -fexceptions" ;;	# as eh.sh builds it
		*) echo "e2e $opt $all $f" ;;
		esac
	done
done >>"$tmp/jobs"

xargs -P 2 -L 1 sh "$self" one "$tmp" <"$tmp/jobs" >"$tmp/results"

echo "1..15"
n=0
fails=0
for part in e2e csmith lua; do
	for opt in $levels; do
		n=$((n + 1))
		case $part in
		lua) what="lua 5.4.7" ;;
		csmith) what="6 csmith programs" ;;
		e2e) what="testsuite/e2e/*.c" ;;
		esac
		if [ $part = lua ] && [ -z "$lua" ]; then
			echo "ok $n # SKIP lua $opt: no $realprog/lua-5.4.7.tar.gz"
			continue
		fi
		if [ $part = csmith ] && [ -z "$have_csmith" ]; then
			echo "ok $n # SKIP csmith $opt: csmith or libcsmith-dev not installed"
			continue
		fi
		awk -v p=$part -v o=$opt '$1 == p && $2 == o' "$tmp/results" >"$tmp/r"
		units=$(awk '{ print $5 }' "$tmp/r" | sort -u | wc -l)
		modes=$(awk '!s[$3]++ { m = m (m == "" ? "" : ", ") $3 }
			     END { print m }' "$tmp/r")
		bad=$(awk '$4 == "fail"' "$tmp/r" | wc -l)
		if [ "$units" -eq 0 ] || [ "$bad" -ne 0 ]; then
			echo "not ok $n - $what $opt: $bad of $(wc -l <"$tmp/r") compilations differ from plain gcc's"
			awk '$4 == "fail" { printf "# %s %s %s:", $5, $2, $3
				for (i = 6; i <= NF; i++) printf " %s", $i
				print "" }' "$tmp/r"
			for f in "$tmp"/fail.$part$opt.*; do
				[ -f "$f" ] || continue
				echo "# ${f##*/fail.}:"
				head -n 20 "$f" | sed 's/^/#   /'
			done
			fails=$((fails + 1))
			continue
		fi
		lost=$(awk '$4 == "lost" { s += $6 } END { print s + 0 }' "$tmp/r")
		note=
		[ "$lost" -gt 0 ] &&
			note=" but for $lost -Wclobbered warnings not repeated"
		echo "ok $n - $what $opt, $units units in $modes: plain gcc's diagnostics, exactly$note"
	done
done
[ $fails -eq 0 ]
