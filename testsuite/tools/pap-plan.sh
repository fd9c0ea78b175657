#!/bin/sh
# pap-plan.sh - the pap-plan tool end to end on the bundled example, in
# every mode, plus its error messages.  TAP output.
set -u
tool="${top_builddir:-.}/decoder/pap-plan"
ex="${top_srcdir:-.}/examples"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "${top_srcdir:-.}/testsuite/tap.sh"
check() { # description, command...
	d=$1
	shift
	if "$@" >"$tmp/out" 2>"$tmp/err"; then ok "$d"; else not_ok "$d"; sed 's/^/# /' "$tmp/out" "$tmp/err"; fi
}
expect_error() { # description, expected stderr text, command...
	d=$1
	msg=$2
	shift 2
	if "$@" >"$tmp/out" 2>"$tmp/err"; then
		not_ok "$d (exit 0)"
	elif grep -qF -- "$msg" "$tmp/err"; then
		ok "$d"
	else
		not_ok "$d"
		sed 's/^/# /' "$tmp/err"
	fi
}

echo "1..11"
for m in pap-epp pap epp; do
	check "fig2 walk decodes exactly in $m" "$tool" -q -m "$m" -w "$ex/fig2.walk" "$ex/fig2.cfg"
done
"$tool" -w "$ex/fig2.walk" "$ex/fig2.cfg" >"$tmp/full" 2>&1
if grep -q "exact: decoded path equals the walk" "$tmp/full" &&
   grep -q "^  G -> B (back) (fold):" "$tmp/full"; then
	ok "plan output shows the back edge as a fold"
else
	not_ok "plan output shows the back edge as a fold"
fi
check "--help" "$tool" --help
check "--version" "$tool" --version
printf 'blocks A B\nedge A C\n' >"$tmp/bad.cfg"
expect_error "unknown block named with file and line" "bad.cfg:2: error: unknown block 'C'" "$tool" "$tmp/bad.cfg"
expect_error "missing file" "no-such.cfg: error: No such file or directory" "$tool" "$tmp/no-such.cfg"
expect_error "bad mode" "unknown mode 'fast'" "$tool" -m fast "$ex/fig2.cfg"
printf 'A B D F\n' >"$tmp/bad.walk"
expect_error "walk that does not return" "must end in a block that returns" "$tool" -w "$tmp/bad.walk" "$ex/fig2.cfg"
printf 'A D\n' >"$tmp/bad2.walk"
expect_error "walk over a missing edge" "no edge A -> D" "$tool" -w "$tmp/bad2.walk" "$ex/fig2.cfg"
tap_done
