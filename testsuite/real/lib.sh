# lib.sh - sourced by realprog.sh: TAP helpers, and how each real program
# is unpacked, built with its own build system and tested with its own
# tests.  The run_* functions write what must equal the plain build's into
# an output folder; realprog.sh runs them once on the plain build, then on
# the pap-gcc build with the file sink and under pap-collector, and
# compares.

. "$here/../tap.sh"

now() { date +%s.%N; }
# since START: seconds elapsed, one decimal
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# size FILE: in KB (0 when absent)
size() { if [ -f "$1" ]; then echo $(( ($(wc -c <"$1") + 1023) / 1024 )); else echo 0; fi; }

# unpack TARBALL DIR: the tarball's single top folder becomes DIR
unpack() { mkdir -p "$2" && tar xzf "$1" -C "$2" --strip-components=1; }

# ---------------------------------------------------------------------
# coremark: `make compile` (one gcc command for every file), then its
# three standard runs (coremark's Makefile: run1.log, run2.log, and the
# profile run) with ITERATIONS iterations.  Each run checks its list,
# matrix and state results against CRCs: kept are the CRC lines, the
# iteration count, any "ERROR!" line but the one about running under 10
# seconds (timing, not results), and the exit status.
# ---------------------------------------------------------------------
build_coremark() { # DIR CC
	(cd "$1" && make compile PORT_DIR=linux CC="$2" XCFLAGS=-O2 \
		ITERATIONS="$cm_iter") >"$1/build.log" 2>&1
}
run_coremark() { # DIR OUT
	cd "$1" || return 1
	i=0
	for params in "0x0 0x0 0x66" "0x3415 0x3415 0x66" "8 8 8"; do
		i=$((i + 1))
		size=2000
		[ $i -eq 3 ] && size=1200
		# shellcheck disable=SC2086
		./coremark.exe $params "$cm_iter" 7 1 $size >"$2/run$i.log" 2>&1
		st=$?
		{ grep -E 'crc|^Iterations +:|ERROR' "$2/run$i.log" |
			grep -v 'at least 10 secs'; echo "status $st"; } >"$2/run$i.cmp"
	done
}

# ---------------------------------------------------------------------
# zlib 1.2.12 as binutils ships it: the upstream CMake build (libz.a and
# libz.so; example, example64, minigzip and minigzip64 linked with
# libz.so; `make test` runs example and example64 through ctest).  The
# static side: example and minigzip as CMake compiled them, linked with
# libz.a, as zlib's Makefile does for its `make test`.  Both sides run
# zlib's test recipe (example, and "hello world" through minigzip and
# back), then deflate the input file with minigzip at levels 1, 6 and 9
# and the filtered, Huffman-only and RLE strategies: the compressed
# bytes must equal the plain build's, and must inflate back to the input.
# ---------------------------------------------------------------------
configure_zlib() { # SRC BUILD CC
	mkdir -p "$2" && (cd "$2" && CC="$3" cmake -S "$1" -B . \
		-DCMAKE_BUILD_TYPE=Release) >"$2/configure.log" 2>&1
}
build_zlib_static() { # BUILD CC
	(cd "$1" && make -j"$jobs" zlibstatic &&
	 make test/example.o test/minigzip.o &&
	 "$2" -o example-static CMakeFiles/example.dir/test/example.o libz.a &&
	 "$2" -o minigzip-static CMakeFiles/minigzip.dir/test/minigzip.o libz.a
	) >"$1/build-static.log" 2>&1
}
build_zlib_shared() { # BUILD
	(cd "$1" && make -j"$jobs") >"$1/build-shared.log" 2>&1
}
zlib_recipe() { # EXAMPLE MINIGZIP OUT INPUT
	{ echo hello world | "./$2" | "./$2" -d; echo "status $?"; } >"$3/hello.cmp" 2>&1
	rm -f tmpzt
	{ "./$1" tmpzt; echo "status $?"; } >"$3/example.cmp" 2>&1
	rm -f tmpzt
	for opt in -1 -6 -9 -f -h -r; do
		"./$2" $opt <"$4" >tmpz.gz
		st=$?
		echo "$opt: status $st, deflated $(cksum <tmpz.gz)"
		if "./$2" -d <tmpz.gz | cmp -s - "$4"; then
			echo "$opt: inflates back"
		else
			echo "$opt: does not inflate back"
		fi
	done >"$3/levels.cmp" 2>&1
	rm -f tmpz.gz
}
run_zlib_static() { # BUILD OUT INPUT
	cd "$1" && zlib_recipe example-static minigzip-static "$2" "$3"
}
run_zlib_shared() { # BUILD OUT INPUT
	cd "$1" || return 1
	# zlib's own `make test` (ctest), verbose so example's output counts;
	# paths and times left out
	make test ARGS=-V >"$2/ctest.log" 2>&1
	st=$?
	{ sed -e "s|$1|BUILD|g" -e 's/[0-9.]* sec$/T sec/' \
		-e '/Test timeout computed/d' "$2/ctest.log" |
		grep -v '^make\|^Total Test time'
	  echo "status $st"; } >"$2/ctest.cmp"
	zlib_recipe example minigzip "$2" "$3"
}

# ---------------------------------------------------------------------
# lua 5.4.7: its makefile (static liblua.a linked into lua), the C
# modules of its test suite (testes/libs, shared objects built with
# -shared), and its test suite.  Quick: all.lua for users (_U: no long,
# non-portable or internal tests), then main.lua (the stand-alone
# interpreter: some seventy child processes, `env -i`, signals) and
# attrib.lua (require and the C modules: dlopen and dlclose) on their
# own.  Full: all.lua with every test.  Without readline, which main.lua
# needs, both leave out main.lua and the C modules.  math.randomseed() without
# arguments (all.lua's) takes a fixed seed, so that the output of tests
# using random numbers is comparable.
# ---------------------------------------------------------------------
lua_seed='local rs = math.randomseed
math.randomseed = function (...)
  if select("#", ...) == 0 then return rs(7) end
  return rs(...)
end'
build_lua() { # DIR CC
	# main.lua's Ctrl-C test reads a background script's pid from
	# `lua -e S & echo $!` and races with the script's own first line
	# (it fails often with dash): the script starts after a short sleep
	sed -i 's/%s -e "%s" & echo \$!/(sleep 0.2; exec %s -e "%s") \& echo $!/' \
		"$1/testes/main.lua"
	(cd "$1" && make -j"$jobs" CC="$2" MYCFLAGS="-std=c99 -DLUA_USE_LINUX $lua_rl" \
		MYLIBS="$lua_rllib") >"$1/build.log" 2>&1
}
build_lua_libs() { # DIR CC
	(cd "$1/testes/libs" && rm -f ./*.so all && make CC="$2") >"$1/build-libs.log" 2>&1
}
# normalise_lua FILE: the suite's output without timings, memory figures
# (string hashes are seeded by address and time, so the figures move by
# a few hundred bytes between any two runs), dates, pids and
# temporary names; standard error without the GC tracer's dots
normalise_lua() {
	sed -e '/^time: /d' -e '/---- total memory:/d' -e '/^total time:/d' \
		-e '/^test done on/d' -e '/temporary program file used/d' \
		-e 's/background, pid [0-9]*/background, pid P/' \
		-e 's/in [0-9.]* msec/in T msec/' -e 's/with [0-9]* kills/with K kills/' "$1"
}
normalise_lua_err() { sed -e 's/^\.*//' -e 's/\.*$//' -e '/^$/d' "$1"; }
lua_part() { # OUT NAME LUA-ARGS...
	out=$1 name=$2
	shift 2
	rm -f time.txt time-debug.txt
	# standard input is a pipe: files.lua checks that seeking it fails
	: | ../lua "$@" >"$out/$name.out" 2>"$out/$name.err"
	st=$?
	{ normalise_lua "$out/$name.out"; echo "-- stderr"
	  normalise_lua_err "$out/$name.err"; echo "status $st"; } >"$out/$name.cmp"
}
run_lua() { # DIR OUT
	cd "$1/testes" || return 1
	if [ -n "$full" ] && [ -n "$lua_rl" ]; then
		lua_part "$2" all -e "$lua_seed" all.lua
	elif [ -n "$full" ]; then
		# without main.lua and the C modules (_port)
		lua_part "$2" all -e "$lua_seed" -e '_port=true' all.lua
	else
		lua_part "$2" all -e "$lua_seed" -e '_U=true' all.lua
		if [ -n "$lua_rl" ]; then
			lua_part "$2" main main.lua
			lua_part "$2" attrib attrib.lua
		fi
	fi
}
