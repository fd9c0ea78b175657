#!/bin/sh
# papgcc.sh - pap-gcc in every mode gcc has: -save-temps, -S, -E, -###,
# response files, -x LANGUAGE, --version and --help.  Each compile must
# instrument (metadata written, probes in the code) and each link must
# bring the runtime (the program writes a profile that decodes).
# TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
# activations of FUNCTION in PROFILE
acts() { "$decode" --format=paths "$2" 2>/dev/null | awk -v f="$1" \
	'$1 == f { s += $2 } END { print s + 0 }'; }
# fresh DIR: an empty directory with loop.c, entered
fresh() { rm -rf "$tmp/$1" && mkdir "$tmp/$1" && cd "$tmp/$1" &&
	cp "$tmp/loop.c" .; }

echo "1..13"

cat >loop.c <<'C'
#include <stdio.h>
static int work(int n) { int s = 0, i; for (i = 0; i < n; i++) s += i % 3 ? i : -i; return s; }
int main(int argc, char **argv) { (void)argv; printf("%d\n", work(argc + 2)); return 0; }
C

fresh savetemps
if "$papgcc" -save-temps -O2 -c loop.c -o loop.o 2>err &&
   [ -s loop.i ] && [ -s loop.s ] && [ -s loop.papm ] &&
   grep -q __pap_ loop.s && "$papgcc" -save-temps loop.o -o loop 2>>err &&
   ./loop >/dev/null && [ "$(acts work pap.prof)" -eq 1 ] && [ ! -s err ]; then
	ok "-save-temps: instrumented, metadata, runtime linked"
else
	not_ok "-save-temps: instrumented, metadata, runtime linked"; diag err
fi

fresh asm
if "$papgcc" -S loop.c 2>err && grep -q __pap_ loop.s && [ -s loop.papm ] &&
   [ ! -s err ]; then
	ok "-S: the assembly has the probes and the metadata is written"
else
	not_ok "-S: the assembly has the probes and the metadata is written"
	diag err
fi

fresh pre
if "$papgcc" -E loop.c >loop.i 2>err && grep -q 'work' loop.i &&
   [ ! -e loop.papm ] && [ ! -s err ]; then
	ok "-E: preprocesses only, no metadata, no runtime"
else
	not_ok "-E: preprocesses only, no metadata, no runtime"; diag err
fi

fresh dry
if "$papgcc" -### -c loop.c 2>out && grep -q 'fplugin=.*pap\.so' out &&
   [ ! -e loop.o ] && [ ! -e loop.papm ]; then
	ok "-###: shows the plugin in the commands and runs none"
else
	not_ok "-###: shows the plugin in the commands and runs none"; diag out
fi

# a response file naming -c: a compile, so no runtime on the command line
# (gcc would warn that the library is unused); one nested in another
fresh rsp
printf -- "-O2 -c 'loop.c'\n-o loop.o\n" >compile.rsp
printf -- "@compile.rsp\n" >outer.rsp
printf -- "loop.o -o 'my prog'\n" >link.rsp
if "$papgcc" @outer.rsp 2>err && [ -s loop.o ] && [ -s loop.papm ] &&
   [ ! -s err ] && "$papgcc" @link.rsp 2>>err && ./"my prog" >/dev/null &&
   [ "$(acts work pap.prof)" -eq 1 ] && [ ! -s err ]; then
	ok "@file: compile (nested) and link read from response files"
else
	not_ok "@file: compile (nested) and link read from response files"
	diag err
fi

fresh langc
if "$papgcc" -x c loop.c -o loop 2>err && ./loop >/dev/null &&
   [ "$(acts work pap.prof)" -eq 1 ] && [ ! -s err ]; then
	ok "-x c: one-step compile and link"
else
	not_ok "-x c: one-step compile and link"; diag err
fi

fresh langcxx
if "$papgcc" -x c++ loop.c -o loop 2>err && ./loop >/dev/null &&
   [ "$(acts _ZL4worki pap.prof)" -eq 1 ] && [ ! -s err ]; then
	ok "-x c++: one-step compile and link"
else
	not_ok "-x c++: one-step compile and link"; diag err
fi

fresh stdin
if "$papgcc" -x c -c - -o loop.o <loop.c 2>err && [ -s loop.papm ] &&
   "$papgcc" loop.o -o loop 2>>err && ./loop >/dev/null &&
   [ "$(acts work pap.prof)" -eq 1 ]; then
	ok "-x c -: a unit read from standard input"
else
	not_ok "-x c -: a unit read from standard input"; diag err
fi

fresh verbose
if "$papgcc" -v loop.c -o loop 2>err && ./loop >/dev/null &&
   [ "$(acts work pap.prof)" -eq 1 ] && grep -q 'pap\.so' err; then
	ok "-v: one-step compile and link, the plugin in gcc's commands"
else
	not_ok "-v: one-step compile and link, the plugin in gcc's commands"
	diag err
fi

# the two steps apart, as a build with CFLAGS=-v runs them
fresh verbose2
if "$papgcc" -v -O2 -c loop.c 2>err && [ -s loop.papm ] &&
   "$papgcc" -v loop.o -o loop 2>>err && ./loop >/dev/null &&
   [ "$(acts work pap.prof)" -eq 1 ]; then
	ok "-v -c then -v to link: instrumented, metadata, runtime linked"
else
	not_ok "-v -c then -v to link: instrumented, metadata, runtime linked"
	diag err 5
fi

# questions about gcc itself: gcc's own answers, nothing added
fresh ask
cc=${PAP_CC:-gcc}
if [ "$("$papgcc" -print-prog-name=cc1)" = "$("$cc" -print-prog-name=cc1)" ] &&
   [ "$("$papgcc" -print-search-dirs)" = "$("$cc" -print-search-dirs)" ] &&
   [ "$("$papgcc" -dumpmachine)" = "$("$cc" -dumpmachine)" ] &&
   [ "$("$papgcc" -v 2>&1)" = "$("$cc" -v 2>&1)" ] &&
   [ "$(ls)" = loop.c ]; then
	ok "-print-*, -dumpmachine, -v alone: gcc's answers"
else
	not_ok "-print-*, -dumpmachine, -v alone: gcc's answers"
fi

cd "$tmp" || exit 1
# the version configure gave pap, read from the build's Makefile
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile")
gccversion=$(${PAP_CC:-gcc} -dumpfullversion 2>/dev/null)
if "$papgcc" --version >out 2>&1 && grep -q "pap $version" out &&
   grep -q "$gccversion" out && [ -n "$version" ] && echo --version >v.rsp &&
   "$papgcc" @v.rsp 2>&1 | grep -q "pap $version"; then
	ok "--version names gcc's and pap's versions (also from @file)"
else
	not_ok "--version names gcc's and pap's versions (also from @file)"
	diag out
fi
if "$papgcc" --help >out 2>&1 && grep -q '^Usage:' out &&
   grep -q 'PAP_PLUGIN_ARGS' out && grep -q "pap $version" out; then
	ok "--help: gcc's help, then pap-gcc's"
else
	not_ok "--help: gcc's help, then pap-gcc's"; diag out
fi
tap_done
