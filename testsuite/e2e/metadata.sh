#!/bin/sh
# metadata.sh - what pairs a profile with its metadata and what the
# metadata lets the decoder find: a profile is never decoded under a plan
# other than the one its probes ran (the stamp covers the mode), and
# sources are found from any directory (the compile directory recorded,
# --source-prefix for moved trees, a missing source named once).
# TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"

echo "1..6"

cat >loop.c <<'C'
#include <stdio.h>
static int work(int n)
{
	int s = 0, i;

	for (i = 0; i < n; i++)
		if (i % 3)
			s += i;
		else
			s -= i;
	return s;
}
int main(int argc, char **argv) { (void)argv; printf("%d\n", work(argc + 6)); return 0; }
C

# the same source rebuilt in another mode: the old profile is refused
mkdir stamp && cd stamp && cp ../loop.c . &&
PAP_PLUGIN_ARGS=-fplugin-arg-pap-mode=pap "$papgcc" -c loop.c &&
"$papgcc" loop.o -o loop && ./loop >/dev/null && cp pap.prof pap-mode.prof
if "$decode" --format=paths pap-mode.prof >out 2>err && grep -q '^work ' out
then
	ok "a profile decodes with the metadata of its own build"
else
	not_ok "a profile decodes with the metadata of its own build"; diag err
fi
PAP_PLUGIN_ARGS=-fplugin-arg-pap-mode=pap-epp "$papgcc" -c loop.c
"$decode" --format=paths pap-mode.prof >out 2>err
status=$?
mismatch="function work: the profile's checksum .* does not match \
the metadata's"
if [ $status -ne 0 ] && grep -q "$mismatch" err && ! grep -q '^work ' out
then
	ok "rebuilt with mode=pap-epp: the mode=pap profile is refused"
else
	not_ok "rebuilt with mode=pap-epp: the mode=pap profile is refused" \
		"(status $status)"
	diag err; diag out
fi
cd "$tmp" || exit 1

# compiled in build/ with a relative source path, run in run/, decoded
# from elsewhere/: line 4 of the annotated source must be the file's own
mkdir -p build/src run elsewhere && cp loop.c build/src/ &&
(cd build && "$papgcc" -c src/loop.c -o loop.o &&
 "$papgcc" loop.o -o ../run/prog) && (cd run && ./prog >/dev/null)
want=$(sed -n 4p loop.c)
# the text annotate shows for line 4, from FILE
line4() { awk -F: '$1 ~ /^ *[0-9#-]+ +[0-9-]+ +4$/ { sub(/^[^:]*:/, "");
	print; exit }' "$1"; }
cd elsewhere || exit 1
"$decode" --format=annotate ../run/pap.prof >out 2>err
if [ "$(line4 out)" = "$want" ] && [ -n "$want" ] && [ ! -s err ]; then
	ok "sources found from another directory (the compile directory)"
else
	not_ok "sources found from another directory (the compile directory)"
	diag out 8; diag err
fi
mv ../build ../moved
"$decode" --format=annotate --meta ../moved ../run/pap.prof >out 2>err
if [ "$(grep -c 'src/loop.c: source file not found' err)" -eq 1 ] &&
   [ -z "$(line4 out)" ]; then
	ok "a moved tree: the missing source named once for two functions"
else
	not_ok "a moved tree: the missing source named once for two functions"
	diag err
fi
"$decode" --format=annotate --meta ../moved \
	--source-prefix="$tmp/build=$tmp/moved" ../run/pap.prof >out 2>err
if [ "$(line4 out)" = "$want" ] && [ ! -s err ]; then
	ok "--source-prefix=OLD=NEW reads a moved tree's sources"
else
	not_ok "--source-prefix=OLD=NEW reads a moved tree's sources"
	diag out 8; diag err
fi
"$decode" --format=annotate --source-prefix=nothing ../run/pap.prof \
	>out 2>err
status=$?
if [ $status -ne 0 ] && grep -q "source-prefix: 'nothing' is not OLD=NEW" err
then
	ok "--source-prefix without OLD= is an error"
else
	not_ok "--source-prefix without OLD= is an error (status $status)"
	diag err
fi
cd "$tmp" || exit 1
tap_done
