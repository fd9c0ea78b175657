# prologue.sh - how an end-to-end test script begins; sourced right after
# `set -u` as . "${top_srcdir:-.}/testsuite/e2e/prologue.sh".  Sets
# top_builddir and top_srcdir absolute, papgcc and decode to the built
# tools, makes a scratch directory $tmp (removed at exit) the working
# directory, and sources the TAP helpers (testsuite/tap.sh).
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
papgcc=$top_builddir/plugin/pap-gcc
decode=$top_builddir/decoder/pap-decode
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
. "$top_srcdir/testsuite/tap.sh"
