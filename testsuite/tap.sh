# tap.sh - the Test Anything Protocol as pap's shell tests speak it,
# sourced by each of them.  Counts the tests run (n) and failed (fails);
# a script ends with `tap_done`, whose status says whether all passed.

n=0
fails=0
# ok DESCRIPTION / not_ok DESCRIPTION / skip WHY: one test's result
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n # SKIP $1"; }
# diag FILE [LINES]: the last LINES (default 15) lines of FILE as comments
diag() { [ -f "$1" ] && tail -n "${2:-15}" "$1" | sed 's/^/#   /'; }
note() { echo "# $*"; }
# tap_done: exit status 0 when no test failed
tap_done() { [ "$fails" -eq 0 ]; }
