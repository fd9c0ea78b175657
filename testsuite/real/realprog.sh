#!/bin/sh
# realprog.sh - real programs' own test suites, built with pap-gcc: lua
# 5.4.7 and coremark from ../shared/realprog/ (PAP_REALPROG names another
# folder) and zlib 1.2.12 from Debian's binutils-source package.  Each is
# built with its own build system twice, with plain gcc and with
# CC=pap-gcc (static and shared where it builds both); its own tests run
# on the plain build, then on the pap-gcc build with the file sink
# (PAP_PROFILE) and again under pap-collector, and must give the same
# results as the plain build (lib.sh says what is compared); each
# profile must decode and name the program's hot functions.
#
# Quick by default (make check: coremark 2,000 iterations, zlib's tests
# on 256 KB, lua's suite for users plus main.lua and attrib.lua);
# PAP_REAL_FULL=1 runs everything (make soak-real: coremark 20,000
# iterations, zlib on 4 MB, lua's whole suite).  A program whose sources
# are absent is skipped with a message.  PAP_KEEP=1 keeps the work
# directory.  TAP output, one line per build, sink and check.
set -u
here=$(cd "$(dirname "$0")" && pwd)
self=$here/realprog.sh
. "$here/lib.sh"

full=${PAP_REAL_FULL:-}
jobs=2
if [ -n "$full" ]; then
	cm_iter=20000 zlib_bytes=4000000 limit=1800
else
	cm_iter=2000 zlib_bytes=256000 limit=600
fi
# main.lua's tests of the interactive interpreter need readline
if [ -f /usr/include/readline/readline.h ]; then
	lua_rl=-DLUA_USE_READLINE lua_rllib=-lreadline
else
	lua_rl= lua_rllib=
fi

if [ "${1:-}" = run ]; then
	# one program's tests (run_lua, run_coremark, ...): DIR OUT [INPUT]
	shift
	what=$1
	shift
	"run_$what" "$@"
	exit $?
fi

top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
papgcc=$top_builddir/plugin/pap-gcc
decode=$top_builddir/decoder/pap-decode
coll=$top_builddir/collector/pap-collector
# the plain builds use the compiler pap-gcc wraps
cc=$(sed -n 's/^cc=\${PAP_CC:-\(.*\)}$/\1/p' "$papgcc" 2>/dev/null)
cc=${PAP_CC:-${cc:-gcc}}
realprog=${PAP_REALPROG:-$top_srcdir/../shared/realprog}
# make check's variables (TESTS=..., which lua's makefile uses too, -j
# and the jobserver) and the user's compiler settings must not reach the
# programs' own builds
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES TESTS CC CFLAGS CPPFLAGS LDFLAGS LIBS
unset PAP_COLLECTOR PAP_PROFILE PAP_TEST_KILL PAP_COLLECTOR_LOSSY
export full cm_iter lua_rl lua_rllib

lua_tar=$realprog/lua-5.4.7.tar.gz
cm_tar=$realprog/coremark-d5fad6b.tar.gz
bu_tar=$(ls /usr/src/binutils/binutils-*.tar.* 2>/dev/null | head -n 1)
why_lua= why_cm= why_zlib=
where="in $realprog (PAP_REALPROG; by default ../shared/realprog/ beside the source tree)"
[ -f "$lua_tar" ] || why_lua="no lua-5.4.7.tar.gz $where"
[ -f "$cm_tar" ] || why_cm="no coremark-d5fad6b.tar.gz $where"
if [ -z "$bu_tar" ]; then
	why_zlib="zlib comes from Debian's binutils-source, not installed (scripts/install-deps.sh)"
elif ! command -v cmake >/dev/null; then
	why_zlib="zlib's build needs cmake, not installed (scripts/install-deps.sh)"
fi
if [ -n "$why_lua" ] && [ -n "$why_cm" ] && [ -n "$why_zlib" ]; then
	echo "1..0 # SKIP no real program's sources: $why_lua; $why_zlib"
	exit 0
fi

tmp=$(mktemp -d) || exit 1
trap 'kill $(jobs -p) 2>/dev/null; if [ -n "${PAP_KEEP:-}" ]; then echo "# kept $tmp"; else rm -rf "$tmp"; fi' EXIT
export TMPDIR="$tmp"
timings=$tmp/timings
: >"$timings"
# record PROGRAM WHAT VALUE: a row of the summary printed at the end
record() { printf '%-9s %-34s %s\n' "$1" "$2" "$3" >>"$timings"; }

echo "1..18"
mode=quick
[ -z "$full" ] || mode=full
note "mode: $mode; plain compiler $cc; sources: $realprog"

# lost PROFILE: the records it reports lost
lost() { "$decode" print "$1" 2>/dev/null | sed -n 's/^l //p' |
	awk '{ s += $1 } END { print s + 0 }'; }

# inst_run PROG SINK TREE OUT [INPUT]: PROG's tests on the pap-gcc build in
# TREE with the file sink (SINK=file) or under pap-collector
# (SINK=collector), results in OUT, profile OUT.prof, within $limit
# seconds (then the results say status 124 or nothing); leaves rc, secs
# and strays (pap.prof files in TREE: processes whose records missed
# the profile)
inst_run() {
	prog=$1 sink=$2 tree=$3 out=$4
	shift 4
	rm -rf "$out" "$out.prof"
	mkdir -p "$out"
	find "$tree" -name 'pap.prof*' -exec rm -f {} +
	t0=$(now)
	if [ "$sink" = file ]; then
		PAP_PROFILE=$out.prof timeout -k 10 "$limit" sh "$self" run "$prog" "$tree" "$out" "$@"
	else
		timeout -k 10 "$limit" "$coll" -o "$out.prof" -- sh "$self" run "$prog" "$tree" "$out" "$@"
	fi >"$out.log" 2>&1
	rc=$?
	secs=$(since "$t0")
	strays=$(find "$tree" -name pap.prof | sed "s|^$tree/||" | tr '\n' ' ')
}
plain_run() { # PROG TREE OUT [INPUT]
	prog=$1 tree=$2 out=$3
	shift 3
	mkdir -p "$out"
	t0=$(now)
	timeout -k 10 "$limit" sh "$self" run "$prog" "$tree" "$out" "$@" >"$out.log" 2>&1
	secs=$(since "$t0")
}
# same_results PLAIN OUT: every .cmp file of the plain run equals the
# instrumented one; the first differences as comments
same_results() {
	res=0
	for f in "$1"/*.cmp; do
		b=$(basename "$f")
		if ! cmp -s "$f" "$2/$b"; then
			res=1
			echo "#   $b differs from the plain build's:"
			diff "$f" "$2/$b" 2>&1 | head -n 12 | sed 's/^/#   /'
		fi
	done >"$2.diff"
	[ -n "$(ls "$1"/*.cmp 2>/dev/null)" ] || res=1
	return $res
}
# check_sink PROG SINK PLAINOUT OUT WHAT: the TAP line for one run
check_sink() {
	if [ ! -s "$4.prof" ]; then
		not_ok "$5 (no profile written; exit $rc)"
		diag "$4.log"
	elif same_results "$3" "$4"; then
		ok "$5"
	else
		not_ok "$5"
		cat "$4.diff"
		diag "$4.log" 5
	fi
	record "$1" "tests, $2 (s)" "$secs"
	record "$1" "profile, $2 (KB)" "$(size "$4.prof")"
	[ -z "$strays" ] || note "$1 $2: pap.prof written beside the tests: $strays"
}
# check_decode PROG PROFILES -- FUNCTIONS: every profile decodes (coverage
# decodes every record: exit 0 only if all were), each FUNCTION has paths
# in it, and its hottest paths print
check_decode() {
	prog=$1
	shift
	profs=
	while [ "$1" != -- ]; do profs="$profs $1"; shift; done
	shift
	bad= seen=0
	# the decodes run side by side; each leaves its status and time
	for p in $profs; do
		[ -s "$p" ] || continue
		( t0=$(now); "$decode" coverage "$p" >"$p.cov" 2>"$p.err"
		  echo "$? $(since "$t0")" >"$p.st" ) &
	done
	wait
	for p in $profs; do
		[ -s "$p" ] || continue
		seen=$((seen + 1))
		read -r st secs <"$p.st"
		record "$prog" "decode coverage $(basename "$p") (s)" "$secs"
		if [ "$st" -ne 0 ]; then
			bad="$bad $(basename "$p"): pap-decode coverage failed: $(head -c 200 "$p.err" | tr '\n' ' ');"
			continue
		fi
		for f in "$@"; do
			awk -v f="$f" '$1 == f && $2 > 0 { found = 1 } END { exit !found }' "$p.cov" ||
				bad="$bad $(basename "$p"): no paths of $f;"
		done
		# the hottest paths of the first function, bounded
		"$decode" --function="^$1\$" --top=3 --no-source "$p" 2>"$p.err" |
			head -c 200000 >"$p.top"
		grep -q "$1" "$p.top" || bad="$bad $(basename "$p"): no hot path of $1 printed;"
	done
	[ $seen -gt 0 ] || bad=" no profile"
	if [ -z "$bad" ]; then
		ok "$prog: $seen profiles decode, with paths of $*"
	else
		not_ok "$prog: profiles decode, with paths of $*:$bad"
	fi
}

# ---------------------------------------------------------------------
# coremark
# ---------------------------------------------------------------------
if [ -n "$why_cm" ]; then
	for w in "build" "file sink" "collector" "profiles" "decode"; do skip "coremark $w: $why_cm"; done
else
	d=$tmp/coremark
	unpack "$cm_tar" "$d/plain" && unpack "$cm_tar" "$d/inst"
	t0=$(now); build_coremark "$d/plain" "$cc"; pst=$?; record coremark "build, plain (s)" "$(since "$t0")"
	t0=$(now); build_coremark "$d/inst" "$papgcc"; ist=$?; record coremark "build, pap-gcc (s)" "$(since "$t0")"
	if [ $pst -ne 0 ]; then
		echo "Bail out! coremark: the plain build fails"; diag "$d/plain/build.log"; exit 1
	fi
	record coremark "coremark.exe, plain / pap-gcc (KB)" "$(size "$d/plain/coremark.exe") / $(size "$d/inst/coremark.exe")"
	if [ $ist -eq 0 ]; then
		ok "coremark: make compile with CC=pap-gcc"
		plain_run coremark "$d/plain" "$d/out-plain"; record coremark "tests, plain (s)" "$secs"
		inst_run coremark file "$d/inst" "$d/out-file"
		check_sink coremark "file sink" "$d/out-plain" "$d/out-file" \
			"coremark, file sink: CRCs of the performance, validation and profile runs ($cm_iter iterations) as plain"
		inst_run coremark collector "$d/inst" "$d/out-coll"
		check_sink coremark "collector" "$d/out-plain" "$d/out-coll" \
			"coremark, collector: CRCs of the three runs as plain"
		# many processes append their own segments to the file sink's
		# profile: compared as text, whose records are in a fixed order
		if "$decode" print "$d/out-file.prof" >"$d/out-file.txt" &&
		   "$decode" print "$d/out-coll.prof" >"$d/out-coll.txt" &&
		   cmp -s "$d/out-file.txt" "$d/out-coll.txt" && [ "$(lost "$d/out-file.prof")" -eq 0 ]; then
			ok "coremark: file sink and collector write byte-identical profiles, nothing lost"
		else
			not_ok "coremark: file sink and collector write byte-identical profiles, nothing lost (lost: $(lost "$d/out-file.prof") / $(lost "$d/out-coll.prof"))"
		fi
		check_decode coremark "$d/out-file.prof" "$d/out-coll.prof" -- \
			core_bench_list core_list_mergesort matrix_mul_matrix core_state_transition crcu8
	else
		not_ok "coremark: make compile with CC=pap-gcc"; diag "$d/inst/build.log"
		for w in "file sink" "collector" "profiles" "decode"; do skip "coremark $w: no pap-gcc build"; done
	fi
fi

# ---------------------------------------------------------------------
# zlib
# ---------------------------------------------------------------------
if [ -n "$why_zlib" ]; then
	for w in "static build" "static, file sink" "static, collector" "shared build" \
		"shared, file sink" "shared, collector" "decode"; do skip "zlib $w: $why_zlib"; done
else
	d=$tmp/zlib
	t0=$(now)
	if ! sh "$top_srcdir/bench/fetch-zlib.sh" "$d" >"$d.fetch.log" 2>&1; then
		echo "Bail out! zlib: cannot unpack $bu_tar"; diag "$d.fetch.log"; exit 1
	fi
	input=$d/zlib.in
	if [ "$zlib_bytes" -gt 0 ]; then
		head -c "$zlib_bytes" "$d/zlib.in" >"$d/input" && input=$d/input
	fi
	record zlib "unpack (s)" "$(since "$t0")"
	note "zlib: input $(size "$input") KB of binutils' bfd sources"
	t0=$(now)
	if ! configure_zlib "$d/zlib" "$d/plain" "$cc" || ! build_zlib_static "$d/plain" "$cc" ||
	   ! build_zlib_shared "$d/plain"; then
		echo "Bail out! zlib: the plain build fails"
		diag "$d/plain/configure.log"; diag "$d/plain/build-static.log"; diag "$d/plain/build-shared.log"
		exit 1
	fi
	record zlib "build, plain (s)" "$(since "$t0")"
	t0=$(now)
	configure_zlib "$d/zlib" "$d/inst" "$papgcc" && build_zlib_static "$d/inst" "$papgcc"
	ist=$?
	record zlib "build static, pap-gcc (s)" "$(since "$t0")"
	plain_run zlib_static "$d/plain" "$d/out-plain-static" "$input"; record zlib "tests static, plain (s)" "$secs"
	plain_run zlib_shared "$d/plain" "$d/out-plain-shared" "$input"; record zlib "tests shared, plain (s)" "$secs"
	record zlib "minigzip static, plain / pap-gcc (KB)" "$(size "$d/plain/minigzip-static") / $(size "$d/inst/minigzip-static")"
	if [ $ist -eq 0 ]; then
		ok "zlib: cmake with CC=pap-gcc, libz.a, example and minigzip linked with it"
		inst_run zlib_static file "$d/inst" "$d/out-file-static" "$input"
		check_sink zlib "file sink, static" "$d/out-plain-static" "$d/out-file-static" \
			"zlib static, file sink: example, minigzip round trip, deflated bytes at 6 settings as plain"
		inst_run zlib_static collector "$d/inst" "$d/out-coll-static" "$input"
		check_sink zlib "collector, static" "$d/out-plain-static" "$d/out-coll-static" \
			"zlib static, collector: example, minigzip round trip, deflated bytes as plain"
	else
		not_ok "zlib: cmake with CC=pap-gcc, libz.a, example and minigzip linked with it"
		diag "$d/inst/configure.log"; diag "$d/inst/build-static.log"
		skip "zlib static, file sink: no pap-gcc build"; skip "zlib static, collector: no pap-gcc build"
	fi
	t0=$(now)
	if [ $ist -eq 0 ] && build_zlib_shared "$d/inst"; then
		record zlib "shared build, pap-gcc (s)" "$(since "$t0")"
		record zlib "libz.so, plain / pap-gcc (KB)" "$(size "$d/plain/libz.so.1.2.12") / $(size "$d/inst/libz.so.1.2.12")"
		ok "zlib: libz.so, example, example64, minigzip, minigzip64 with CC=pap-gcc"
		inst_run zlib_shared file "$d/inst" "$d/out-file-shared" "$input"
		check_sink zlib "file sink, shared" "$d/out-plain-shared" "$d/out-file-shared" \
			"zlib shared, file sink: make test (ctest), minigzip round trip, deflated bytes as plain"
		inst_run zlib_shared collector "$d/inst" "$d/out-coll-shared" "$input"
		check_sink zlib "collector, shared" "$d/out-plain-shared" "$d/out-coll-shared" \
			"zlib shared, collector: make test (ctest), minigzip round trip, deflated bytes as plain"
	else
		not_ok "zlib: libz.so, example, example64, minigzip, minigzip64 with CC=pap-gcc"
		diag "$d/inst/build-shared.log" 8
		skip "zlib shared, file sink: no pap-gcc build"; skip "zlib shared, collector: no pap-gcc build"
	fi
	check_decode zlib "$d/out-file-static.prof" "$d/out-coll-static.prof" \
		"$d/out-file-shared.prof" "$d/out-coll-shared.prof" -- \
		deflate inflate deflate_slow longest_match inflate_fast crc32_z adler32_z
fi

# ---------------------------------------------------------------------
# lua
# ---------------------------------------------------------------------
if [ -n "$why_lua" ]; then
	for w in "build" "C modules" "file sink" "collector" "collector reaches every process" \
		"decode"; do skip "lua $w: $why_lua"; done
else
	d=$tmp/lua
	unpack "$lua_tar" "$d/plain" && unpack "$lua_tar" "$d/inst"
	[ -n "$lua_rl" ] || note "lua: no readline (libreadline-dev): main.lua and the C modules' tests are left out"
	t0=$(now)
	if ! build_lua "$d/plain" "$cc" || ! build_lua_libs "$d/plain" "$cc"; then
		echo "Bail out! lua: the plain build fails"; diag "$d/plain/build.log"; diag "$d/plain/build-libs.log"; exit 1
	fi
	record lua "build, plain (s)" "$(since "$t0")"
	t0=$(now); build_lua "$d/inst" "$papgcc"; ist=$?; record lua "build, pap-gcc (s)" "$(since "$t0")"
	record lua "lua, plain / pap-gcc (KB)" "$(size "$d/plain/lua") / $(size "$d/inst/lua")"
	plain_run lua "$d/plain" "$d/out-plain"; record lua "tests, plain (s)" "$secs"
	if grep -q 'final OK' "$d/out-plain/all.out"; then :; else
		echo "Bail out! lua: the plain build fails its own test suite"; diag "$d/out-plain/all.err"; exit 1
	fi
	if [ $ist -eq 0 ]; then
		ok "lua: its makefile with CC=pap-gcc"
		libs_note=
		if build_lua_libs "$d/inst" "$papgcc"; then
			ok "lua: testes/libs (C modules, -shared) with CC=pap-gcc"
		else
			not_ok "lua: testes/libs (C modules, -shared) with CC=pap-gcc"
			diag "$d/inst/build-libs.log" 5
			# the suite still tests the interpreter, with plain C modules
			build_lua_libs "$d/inst" "$cc"
			libs_note=" (C modules built plain)"
		fi
		if [ -n "$full" ] && [ -n "$lua_rl" ]; then
			what="whole suite"
		elif [ -n "$full" ]; then
			what="whole suite but main.lua and the C modules (_port)"
		elif [ -n "$lua_rl" ]; then
			what="suite for users, main.lua, attrib.lua"
		else
			what="suite for users"
		fi
		lua_funcs="luaV_execute luaH_getshortstr luaD_precall luaC_step luaS_newlstr"
		# the C modules', loaded with dlopen and closed at exit
		[ -n "$libs_note" ] || [ -z "$lua_rl" ] ||
			lua_funcs="$lua_funcs luaopen_lib11 luaopen_lib2 onefunction"
		inst_run lua file "$d/inst" "$d/out-file"
		check_sink lua "file sink" "$d/out-plain" "$d/out-file" \
			"lua, file sink: $what: exit status, final OK and output as plain$libs_note"
		inst_run lua collector "$d/inst" "$d/out-coll"
		check_sink lua "collector" "$d/out-plain" "$d/out-coll" \
			"lua, collector: $what as plain$libs_note"
		if [ -z "$strays" ]; then
			ok "lua, collector: every process reached the collector (no pap.prof beside the tests)"
		else
			not_ok "lua, collector: every process reached the collector (pap.prof written in: $strays)"
		fi
		note "lua: records lost: $(lost "$d/out-file.prof") (file sink), $(lost "$d/out-coll.prof") (collector)"
		# shellcheck disable=SC2086
		check_decode lua "$d/out-file.prof" "$d/out-coll.prof" -- $lua_funcs
	else
		not_ok "lua: its makefile with CC=pap-gcc"; diag "$d/inst/build.log"
		for w in "C modules" "file sink" "collector" "collector reaches every process" "decode"; do
			skip "lua $w: no pap-gcc build"; done
	fi
fi

note "timings and sizes (2 jobs):"
sed 's/^/#   /' "$timings"
tap_done
