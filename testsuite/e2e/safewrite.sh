#!/bin/sh
# safewrite.sh - what every writer does with its target (doc/formats.md,
# "What a writer does with its target"): a regular file of its own or
# nothing is written; the null device and an empty PAP_PROFILE switch the
# output off; a directory, a device, a FIFO, a symbolic link or another
# user's file is refused and left as it was, the program's own output and
# exit status unchanged; temporaries never follow a planted link; a lock
# held too long sends the profile to PATH.PID; pap-collector checks -o
# before it starts its command.  Every run that could hang does so under
# a time limit.  TAP output.
set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
papgcc=$top_builddir/plugin/pap-gcc
decode=$top_builddir/decoder/pap-decode
coll=$top_builddir/collector/pap-collector
tmp=$(mktemp -d) || exit 1
holder=
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
cd "$tmp" || exit 1
. "$top_srcdir/testsuite/tap.sh"
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
# activations of f in PROFILE: the program calls it once per run
acts() { "$decode" --format=paths "$1" 2>/dev/null |
	awk '$1 == "f" { s += $2 } END { print s + 0 }'; }
# run PROFILE: the program, under a time limit, its stderr in err;
# "out 7" and status 3 are what it does without pap
run() { PAP_PROFILE=$1 timeout 60 ./p 2>err >out; st=$?; }
unchanged='[ $st -eq 3 ] && [ "$(cat out)" = "out 7" ]'

echo "1..33"

cat >p.c <<'C'
#include <stdio.h>
static int f(int n)
{
	int s = 0, i;

	for (i = 0; i < n; i++)
		s += i & 1 ? i : -i;
	return s;
}
int main(int argc, char **argv)
{
	(void)argv;
	printf("out %d\n", f(argc + 13));
	return 3;
}
C
if ! "$papgcc" -O2 -o p p.c; then
	echo "Bail out! cannot build with pap-gcc"
	exit 1
fi
run ok.prof
check "a fresh profile: written, the program's output and status its own" \
	"$unchanged && [ \"\$(acts ok.prof)\" -eq 1 ] && [ ! -s err ]"

# a directory
mkdir dir
run dir
check "a directory target: an error naming it, output and status unchanged" \
	"$unchanged && grep -q '^pap: error: dir: is a directory; not written' err"
check "... the directory is left as it was, nothing renamed" \
	'[ -d dir ] && [ -z "$(ls dir)" ] && [ -z "$(ls -d dir.* 2>/dev/null)" ]'

# a FIFO: nothing hangs
mkfifo fifo
run fifo
check "a FIFO target: no hang, an error, output and status unchanged" \
	"$unchanged && grep -q '^pap: error: fifo: is a FIFO; not written' err"
check "... the FIFO is still there, nothing renamed" \
	'[ -p fifo ] && [ -z "$(ls -d fifo.* 2>/dev/null | grep -v "^fifo.lock$")" ]'

# a symbolic link at the target, to a file that does not exist yet
ln -s "$tmp/victim" link
run link
check "a symbolic link target: refused, never followed" \
	"$unchanged && grep -q '^pap: error: link: is a symbolic link' err && [ ! -e victim ] && [ -L link ]"

# a symbolic link planted at the temporary's name (PATH.tmp.PID: the
# shell's pid, which exec hands to the program)
echo precious >victim
PAP_PROFILE=t.prof timeout 60 sh -c \
	'ln -s "$0/victim" "t.prof.tmp.$$" && exec ./p' "$tmp" >out 2>err
st=$?
check "a link planted at the temporary's name: not followed, the profile written" \
	"$unchanged && [ \"\$(cat victim)\" = precious ] && [ -L t.prof.tmp.* ] && [ \"\$(acts t.prof)\" -eq 1 ]"
timeout 60 sh -c 'ln -s "$0/victim" "m.prof.tmp.$$" &&
	exec "$1" merge -o m.prof ok.prof' "$tmp" "$decode" >out 2>err
check "... and for pap-decode merge -o" \
	'[ $? -eq 0 ] && [ "$(cat victim)" = precious ] && [ "$(acts m.prof)" -eq 1 ]'
ln -s "$tmp/victim" m2.prof
"$decode" merge -o m2.prof ok.prof 2>err
check "pap-decode merge -o a symbolic link: refused, exit 1, the link left alone" \
	'[ $? -eq 1 ] && [ -L m2.prof ] && [ "$(cat victim)" = precious ] && grep -q "m2.prof: is a symbolic link" err'
ln -s "$tmp/victim" ok.prof.lock2 && mv ok.prof.lock2 l.prof.lock
run l.prof
check "a symbolic link at the lock's name: refused, never followed" \
	"$unchanged && [ \"\$(cat victim)\" = precious ] && [ ! -e l.prof ] && grep -q 'l.prof.lock: is a symbolic link' err"

# PAP_PROFILE set empty, and a null device: output off
run ""
check "PAP_PROFILE set empty: no profile, no message" \
	"$unchanged && [ ! -e pap.prof ] && [ ! -s err ]"
if [ "$(id -u)" -eq 0 ] && mknod nul c 1 3 2>/dev/null &&
   mknod zero c 1 5 2>/dev/null; then
	run nul
	check "a null device node: output off, no message, the node left as it was" \
		"$unchanged && [ ! -s err ] && [ -c nul ] && [ \"\$(stat -c %t:%T nul)\" = 1:3 ] && [ -z \"\$(ls -d nul.* 2>/dev/null)\" ]"
	run zero
	check "another character device: refused, the node left as it was" \
		"$unchanged && grep -q 'zero: is a character device' err && [ -c zero ] && [ \"\$(stat -c %t:%T zero)\" = 1:5 ] && [ -z \"\$(ls -d zero.* 2>/dev/null)\" ]"
	"$decode" merge -o zero ok.prof 2>err
	check "pap-decode merge -o a character device: refused, exit 1, node kept" \
		'[ $? -eq 1 ] && [ -c zero ] && grep -q "zero: is a character device" err'
	"$decode" merge -o nul ok.prof 2>err
	check "pap-decode merge -o a null device: nothing written, exit 0" \
		'[ $? -eq 0 ] && [ -c nul ] && [ ! -s err ]'
else
	skip "a null device node is output off (mknod needs root)"
	skip "another character device is refused (mknod needs root)"
	skip "pap-decode merge -o a character device is refused (needs root)"
	skip "pap-decode merge -o a null device writes nothing (needs root)"
fi
# PAP_PROFILE=/dev/null itself, where /dev is a scratch tmpfs in a mount
# namespace of its own: the real node is never at risk
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null &&
   unshare -m true 2>/dev/null; then
	PAP_PROFILE=/dev/null timeout 60 unshare -m sh -c '
		mount -t tmpfs tmpfs /dev && mknod -m 666 /dev/null c 1 3 &&
		./p; st=$?
		ls -la /dev >"$0/devls"; exit $st' "$tmp" >out 2>err
	st=$?
	check "PAP_PROFILE=/dev/null: output off, /dev/null still the device, nothing beside it" \
		"$unchanged && [ ! -s err ] && grep -q '^c.* 1, *3 .* null\$' devls && [ \"\$(grep -c . devls)\" -eq 4 ]"
	timeout 60 unshare -m sh -c '
		mount -t tmpfs tmpfs /dev && mknod -m 666 /dev/null c 1 3 &&
		mkdir /dev/shm && "$1" -o /dev/null -- ./p; st=$?
		ls -A /dev >"$0/devls2"; exit $st' "$tmp" "$coll" >out 2>err
	st=$?
	check "pap-collector -o /dev/null: collects and writes nothing, leaves nothing in /dev" \
		"$unchanged && [ ! -s err ] && [ \"\$(cat devls2 | tr '\n' ' ')\" = 'null shm ' ]"
else
	skip "PAP_PROFILE=/dev/null (needs root and unshare -m)"
	skip "pap-collector -o /dev/null (needs root and unshare -m)"
fi
# another user's file
if [ "$(id -u)" -eq 0 ]; then
	echo "someone else's" >theirs && chown 65534 theirs
	run theirs
	check "another user's file: refused and left as it was" \
		"$unchanged && [ \"\$(cat theirs)\" = \"someone else's\" ] && grep -q 'theirs: belongs to another user' err"
else
	skip "another user's file is refused (needs root)"
fi
# a regular file of ours that is not a profile is kept aside, as before
echo "not a profile" >mine.prof
run mine.prof
check "a file of ours that is not a profile: kept as PATH.bad.PID, the profile written" \
	"$unchanged && grep -q '^not a profile\$' mine.prof.bad.* && [ \"\$(acts mine.prof)\" -eq 1 ]"

# a lock held by another process: a bounded wait, then PATH.PID
cp ok.prof held.prof
: >held.prof.lock
# the holder is the sleep itself (exec), so that killing it ends it and
# nothing keeps the test's output open: the harness reads to its end
(flock 9 && exec sleep 300) 9>held.prof.lock </dev/null >/dev/null 2>&1 &
holder=$!
i=0
while flock -n held.prof.lock true 2>/dev/null && [ $i -lt 500 ]; do
	sleep 0.01; i=$((i + 1)); done
PAP_LOCK_TIMEOUT=1 PAP_PROFILE=held.prof timeout 60 sh -c 'echo $$ >pid; exec ./p' \
	>out 2>err
st=$?
pid=$(cat pid)
check "a lock held elsewhere: no hang, output and status unchanged, said" \
	"$unchanged && grep -q \"held.prof.lock: another process held the lock for 1 s; writing the profile to held.prof.$pid instead\" err"
check "... the run's records are in held.prof.$pid, held.prof as it was" \
	"[ \"\$(acts held.prof.$pid)\" -eq 1 ] && cmp -s ok.prof held.prof"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
holder=

# PAP_PROFILE's patterns: %p, %h, %Nm, %%
PAP_PROFILE='pat-%p-%h-%3m-%m-%%-%x.prof' timeout 60 sh -c \
	'echo $$ >pid; exec ./p' >out 2>err
st=$?
pid=$(cat pid)
name="pat-$pid-$(hostname)-$((pid % 3))-0-%-%x.prof"
check "PAP_PROFILE=pat-%p-%h-%3m-%m-%%-%x.prof: pid, host, pool member, %, the rest as it is" \
	"$unchanged && [ \"\$(acts '$name')\" -eq 1 ] && [ ! -s err ]"
for i in 1 2 3 4 5 6; do PAP_PROFILE='pool-%2m.prof' ./p >/dev/null; done
check "a pool of 2 (%2m): every run in pool-0.prof or pool-1.prof, nowhere else" \
	'[ $(( $(acts pool-0.prof) + $(acts pool-1.prof) )) -eq 6 ] && [ "$(ls pool-*.prof | wc -l)" -le 2 ]'

# pap-collector -o
timeout 60 "$coll" -o "$tmp/nonexistent/x.prof" -- sh -c ': >ran; exit 4' 2>err
st=$?
check "pap-collector -o in a missing directory: the command never starts, exit 125" \
	'[ $st -eq 125 ] && [ ! -e ran ] && grep -q "the command is not started" err'
timeout 60 "$coll" -o dir -- sh -c ': >ran; exit 4' 2>err
st=$?
check "pap-collector -o a directory: refused before the command, exit 125" \
	'[ $st -eq 125 ] && [ ! -e ran ] && grep -q "dir: is a directory" err && [ -d dir ]'
timeout 60 "$coll" -o c.prof -- sh -c './p >/dev/null; exit 4' 2>err
st=$?
check "pap-collector: the command's status when the profile is written" \
	'[ $st -eq 4 ] && [ "$(acts c.prof)" -eq 1 ]'
timeout 60 "$coll" -o c2.prof -- sh -c './p >/dev/null; mkdir c2.prof; exit 4' 2>err
st=$?
check "... 125 when it cannot be written at the end, the command's status said" \
	'[ $st -eq 125 ] && grep -q "the profile was not written; the command'"'"'s exit status was 4" err && [ -d c2.prof ]'

# a daemon collector: what a producer cannot hand over joins -o's file
mkdir run1
TMPDIR=$tmp "$coll" -o "$tmp/d.prof" --name safe >dout 2>/dev/null &
cpid=$!
i=0
while ! grep -q PAP_COLLECTOR= dout 2>/dev/null && [ $i -lt 500 ]; do
	sleep 0.01; i=$((i + 1)); done
sock=$(sed -n 's/^PAP_COLLECTOR=//p' dout)
kill -KILL $cpid
wait $cpid 2>/dev/null
(cd run1 && PAP_COLLECTOR=$sock timeout 60 ../p >/dev/null 2>../err)
check "a producer of a daemon collector that is gone: into the collector's file, not ./pap.prof" \
	'[ ! -e run1/pap.prof ] && [ "$(acts d.prof)" -eq 1 ]'

# a snapshot (SIGUSR1) through a temporary that a planted link cannot
# redirect
TMPDIR=$tmp "$coll" -o "$tmp/s.prof" --name snap >sout 2>serr &
cpid=$!
ln -s "$tmp/victim" "s.prof.snap.tmp.$cpid"
i=0
while ! grep -q PAP_COLLECTOR= sout 2>/dev/null && [ $i -lt 500 ]; do
	sleep 0.01; i=$((i + 1)); done
kill -USR1 $cpid
i=0
while [ ! -e s.prof.snap ] && [ $i -lt 500 ]; do
	sleep 0.01; i=$((i + 1)); done
kill -TERM $cpid
wait $cpid
check "a snapshot: written, a link planted at its temporary's name not followed" \
	'[ -f s.prof.snap ] && [ "$(cat victim)" = precious ] && "$decode" print s.prof.snap >/dev/null'

# the plugin's metadata: its temporary (NAME.papm.tmp.PID, older pap's
# NAME.papm.tmpPID) never follows a planted link, and a NAME.papm that is
# not a regular file is left alone.  cc1's pid is known only in a pid
# namespace of its own (root), where pids start at 1.
mkdir meta && cp p.c meta/m.c
if [ "$(id -u)" -eq 0 ] && unshare -p -f true 2>/dev/null; then
	i=1
	while [ $i -le 200 ]; do
		ln -s "$tmp/victim" "meta/m.papm.tmp.$i"
		ln -s "$tmp/victim" "meta/m.papm.tmp$i"
		i=$((i + 1))
	done
	(cd meta && timeout 120 unshare -p -f "$papgcc" -O2 -c m.c) 2>err
	st=$?
	check "metadata: links planted at the temporary's names not followed" \
		'[ $st -eq 0 ] && [ "$(cat victim)" = precious ] && [ -f meta/m.papm ] && [ ! -L meta/m.papm ] && grep -q "^function f" meta/m.papm'
else
	skip "metadata's temporary and planted links (needs root and unshare -p)"
fi
rm -rf meta/m.papm* && ln -s "$tmp/victim" meta/m.papm
(cd meta && "$papgcc" -O2 -c m.c) 2>err
st=$?
check "metadata: a link at NAME.papm refused, the compile fails saying so" \
	'[ $st -ne 0 ] && [ -L meta/m.papm ] && [ "$(cat victim)" = precious ] && grep -q "m.papm: is a symbolic link" err'

# pap-decode --html: never into a directory reached through a link
mkdir real
ln -s real html
"$decode" --html=html ok.prof 2>err
check "pap-decode --html through a symbolic link: refused, nothing written" \
	'[ $? -ne 0 ] && [ -z "$(ls real)" ] && grep -q "html: not a directory of this user" err'

# the tracer (the tests' oracle, trace mode): PAP_TRACE through a link
mkdir trace && cp p.c trace/t.c
(cd trace && PAP_PLUGIN_ARGS=-fplugin-arg-pap-trace "$papgcc" -O2 -o t t.c &&
 ln -s "$tmp/victim" t.trace && PAP_TRACE=t.trace ./t) >/dev/null 2>err
check "trace: PAP_TRACE naming a link refused, its target left alone" \
	'[ "$(cat victim)" = precious ] && grep -q "pap: trace" err'

tap_done
