#!/bin/sh
# calls-build.sh - the call-sequence probes (-fplugin-arg-pap-calls) keep
# programs' behaviour: programs with direct, indirect, recursive, libc
# callback (qsort), setjmp/longjmp and multi-file calls, built
# at -O0 and -O2 with calls alone (mode=none), with each intra mode and
# with -finstrument-functions, print what the plain build prints and
# exit the same; so do csmith programs (when csmith is installed).  The
# metadata's site lines match the sources: each line marked
# "SITE FUNCTION KIND FLAGS CALLEE" has that site, and a marked
# function has exactly its marked sites.  TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"

src=$top_srcdir/testsuite/e2e/calls
cflags="-fchecking -Wall -Wno-clobbered"
configs="none pap-epp pap epp cyg"

# cfg_args CONFIG: the plugin arguments of a configuration
cfg_args() {
	case $1 in
	cyg) echo "-fplugin-arg-pap-calls -finstrument-functions" ;;
	*) echo "-fplugin-arg-pap-mode=$1 -fplugin-arg-pap-calls" ;;
	esac
}

gcc -c "$src/cunit-stub.c" -o stub.o || exit 1
gcc -O2 -c "$src/plainlib.c" -o plainlib.o || exit 1
gcc -O2 -c "$src/cyghooks.c" -o cyghooks.o || exit 1

# build NAME OPT CONFIG SOURCES...: ./NAME.OPT.CONFIG, or 1
build() {
	name=$1 opt=$2 cfg=$3
	shift 3
	out=$name$opt.$cfg
	objs=
	for s in "$@"; do
		case $s in
		*.o) objs="$objs $s" ;;
		*)
			o=$(basename "$s" .c)$opt.$cfg.o
			# shellcheck disable=SC2046
			"$papgcc" $opt $cflags $(cfg_args "$cfg") -c "$s" \
				-o "$o" 2>>"$out.err" || return 1
			objs="$objs $o"
			;;
		esac
	done
	[ "$cfg" = cyg ] && objs="$objs cyghooks.o"
	# shellcheck disable=SC2086
	"$papgcc" $objs stub.o -o "$out" 2>>"$out.err"
}

# check NAME "SOURCES" [ARGS]: plain against every build
check() {
	name=$1 srcs=$2 args=${3:-}
	plainsrcs=
	for s in $srcs; do
		case $s in
		*.o) plainsrcs="$plainsrcs $s" ;;
		*) plainsrcs="$plainsrcs $s" ;;
		esac
	done
	# shellcheck disable=SC2086
	gcc -O2 -w $plainsrcs -o "$name.plain" || { not_ok "$name: plain build"; return; }
	# shellcheck disable=SC2086
	./"$name.plain" $args >"$name.plain.out" 2>&1
	want=$?
	for opt in -O0 -O2; do
		for cfg in $configs; do
			# shellcheck disable=SC2086
			if ! build "$name" "$opt" "$cfg" $srcs; then
				not_ok "$name $args $opt $cfg: builds"
				diag "$name$opt.$cfg.err"
				continue
			fi
			# shellcheck disable=SC2086
			./"$name$opt.$cfg" $args >"$name.out" 2>&1
			got=$?
			if [ $got -eq $want ] && cmp -s "$name.plain.out" "$name.out"; then
				ok "$name $args $opt $cfg: same output and status ($want)"
			else
				not_ok "$name $args $opt $cfg: output or status ($got, want $want)"
				diff "$name.plain.out" "$name.out" | head -5 | sed 's/^/#   /'
			fi
		done
	done
}

check direct "$src/direct.c"
check direct "$src/direct.c" x
check indirect "$src/indirect.c plainlib.o"
check jump "$src/jump.c"
check multi "$src/multi1.c $src/multi2.c"

# --- metadata: the marked sites ------------------------------------------
# sites FILE.papm FUNCTION: its site lines, without the block
sites() {
	[ -f "$1" ] || { echo "no file $1"; return; }
	awk -v fn="$2" '
		$1 == "function" { cur = $2 }
		$1 == "site" && cur == fn { print $3 != "" ? $4 " " $5 " " $6 " " $7 : "" }
	' "$1"
}

# (at -O0, where GCC reaches a unit's functions in the source's order: a
# callee defined before its caller without a tail site is known to make
# no tail chain, and its sites have no flag t)
for f in direct indirect jump multi1; do
	"$papgcc" -O0 -fplugin-arg-pap-calls -fplugin-arg-pap-calls-tail \
		-c "$src/$f.c" -o $f.o 2>/dev/null ||
		{ not_ok "$f: builds for its metadata"; continue; }
	papm=$f.papm
	if head -1 "$papm" | grep -qx 'pap-meta 3' &&
	   sed -n 3p "$papm" | grep -Eq '^unit [0-9a-f]{16}$'; then
		ok "$f: metadata version 3 with its unit sum"
	else
		not_ok "$f: metadata header"
		head -3 "$papm" | sed 's/^/#   /'
	fi
	grep -n '/\* SITE ' "$src/$f.c" | sed 's|^\([0-9]*\):.*/\* SITE \([^*]*\) \*/.*|\1 \2|' >marks
	while read -r line fn kind flags callee; do
		if sites "$papm" "$fn" | grep -qx "$kind $flags $line $callee"; then
			ok "$f: $fn has a $kind site at line $line to $callee ($flags)"
		else
			not_ok "$f: $fn: no site '$kind $flags $line $callee'"
			sites "$papm" "$fn" | sed 's/^/#   /'
		fi
	done <marks
done
# functions whose every site is marked: exactly those
for fc in "direct twice 3" "indirect apply 1" "multi1 pong 2" "direct sq 0"; do
	set -- $fc
	[ -f "$1.papm" ] || { not_ok "$1.papm missing"; continue; }
	got=$(sites "$1.papm" "$2" | wc -l)
	if [ "$got" -eq "$3" ]; then
		ok "$1: $2 has $3 sites"
	else
		not_ok "$1: $2 has $got sites, want $3"
	fi
done
# -finstrument-functions' hooks and builtins are no sites; the sites are
# the same with the hooks, in the same blocks at the same lines to the
# same callees (their kinds and flags differ: a hook after every call
# leaves none in tail position)
"$papgcc" -O0 -fplugin-arg-pap-calls -fplugin-arg-pap-calls-tail \
	-finstrument-functions -c "$src/direct.c" -o direct.o 2>/dev/null &&
	mv direct.papm cyg.papm
"$papgcc" -O0 -fplugin-arg-pap-calls -fplugin-arg-pap-calls-tail \
	-c "$src/direct.c" -o direct.o 2>/dev/null
if [ ! -f cyg.papm ] || grep -q __cyg_profile cyg.papm; then
	not_ok "-finstrument-functions hooks are sites"
elif [ "$(awk '$1 == "site" { print $2, $3, $6, $7 }' cyg.papm)" = \
       "$(awk '$1 == "site" { print $2, $3, $6, $7 }' direct.papm)" ] &&
     grep -q '^site .* tail ' direct.papm &&
     ! grep -q '^site .* tail ' cyg.papm; then
	ok "-finstrument-functions adds no site (and leaves no tail site)"
else
	not_ok "-finstrument-functions changes the sites"
fi
# -O0 and -O2 number the same sites: the same entries, maybe in another
# order (and so another unit sum), but flag t, which depends on that
# order, and so the checksums
entries() {
	awk '$1 == "function" { e = "" }
	     $1 == "site" { sub(/t/, "", $5); if ($5 == "") $5 = "-" }
	     $1 != "checksum" { e = e $0 " | " }
	     $1 == "end" { print e }' "$1" | sort
}
"$papgcc" -O2 -fplugin-arg-pap-calls -c "$src/jump.c" -o jump.o 2>/dev/null && mv jump.papm j2.papm
"$papgcc" -O0 -fplugin-arg-pap-calls -c "$src/jump.c" -o jump.o 2>/dev/null
if [ -f j2.papm ] && [ "$(entries j2.papm)" = "$(entries jump.papm)" ] &&
   [ "$(grep -c '^site' jump.papm)" -eq 9 ]; then
	ok "jump: the same metadata at -O0 and -O2"
else
	not_ok "jump: metadata differs between -O0 and -O2"
fi

# --- csmith ---------------------------------------------------------------
if command -v csmith >/dev/null && [ -f /usr/include/csmith/csmith.h ]; then
	seed=${PAP_CALLS_CSMITH_SEED:-1}
	want_progs=${PAP_CALLS_CSMITH:-6}
	done_progs=0
	while [ $done_progs -lt "$want_progs" ] && [ "$seed" -lt 200 ]; do
		seed=$((seed + 1))
		csmith --seed "$seed" --max-funcs 4 --max-block-depth 4 >cs.c 2>/dev/null || continue
		gcc -O2 -w -I/usr/include/csmith cs.c -o cs.plain 2>/dev/null || continue
		timeout 2 ./cs.plain >cs.plain.out 2>&1
		st=$?
		[ $st -eq 124 ] && continue
		gcc -O0 -w -I/usr/include/csmith cs.c -o cs.plain0 2>/dev/null &&
			timeout 2 ./cs.plain0 >/dev/null 2>&1
		[ $? -eq 124 ] && continue
		done_progs=$((done_progs + 1))
		for opt in -O0 -O2; do
			if ! "$papgcc" $opt -w -fchecking -I/usr/include/csmith \
				-fplugin-arg-pap-calls cs.c stub.o -o cs.inst 2>cs.err; then
				not_ok "csmith $seed $opt: builds"
				diag cs.err 5
				continue
			fi
			timeout 60 ./cs.inst >cs.out 2>&1
			ist=$?
			if [ $ist -eq $st ] && cmp -s cs.plain.out cs.out; then
				ok "csmith $seed $opt: same output and status"
			else
				not_ok "csmith $seed $opt: output or status ($ist, want $st)"
			fi
		done
	done
else
	skip "csmith not installed"
fi

echo "1..$n"
tap_done
