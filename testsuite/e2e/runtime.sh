#!/bin/sh
# runtime.sh - what the runtime, pap-gcc and pap-decode promise beyond
# exact decoding: incomplete paths, stale and corrupt profiles, byte-
# identical metadata, many processes and fork sharing one profile, the
# pap_dump/pap_reset API, and an Autotools project built with CC=pap-gcc.
# TAP output.
set -u
. "${top_srcdir:-.}/testsuite/e2e/prologue.sh"
check() { if eval "$2"; then ok "$1"; else not_ok "$1"; fi; }
# activations of FUNCTION in PROFILE
acts() { "$decode" --format=paths "$2" | awk -v f="$1" '$1 == f { s += $2 }
	END { print s + 0 }'; }

echo "1..24"

cat >noret.c <<'C'
#include <stdlib.h>
static void die(int code) { if (code > 2) exit(code - 3); }
int main(int argc, char **argv) { (void)argv; die(argc + 2); die(argc + 3); return 9; }
C
"$papgcc" -O2 -o noret noret.c && ./noret
check "exit() inside a function: path recorded, marked incomplete" \
	'"$decode" --format=json --top=0 pap.prof | grep -q "\"complete\": false"'

cat >loop.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include <pap/pap.h>
static int work(int n) { int s = 0, i; for (i = 0; i < n; i++) s += i % 3 ? i : -i; return s; }
int main(int argc, char **argv)
{
	int i, reps = argc > 1 ? atoi(argv[1]) : 10;
	if (argc > 2 && argv[2][0] == 'f') {		/* fork */
		pid_t pid = fork();
		for (i = 0; i < reps; i++) work(i);
		if (pid == 0) _exit(pap_dump() != 0);
		waitpid(pid, NULL, 0);
		return 0;
	}
	if (argc > 2 && argv[2][0] == 'r') {		/* reset */
		for (i = 0; i < reps; i++) work(i);
		pap_reset();
	}
	for (i = 0; i < reps; i++) work(i);
	printf("%d\n", work(reps));
	return 0;
}
C
"$papgcc" -O2 -c loop.c -o loop1.o && cp loop1.papm meta1 &&
"$papgcc" -O2 -c loop.c -o loop1.o && cp loop1.papm meta2
check "identical compiles give byte-identical metadata" 'cmp -s meta1 meta2'
"$papgcc" loop1.o -o loop

rm -f pap.prof
i=0
while [ $i -lt 16 ]; do ./loop 50 >/dev/null & i=$((i + 1)); done
wait
check "16 processes at once into one profile: 16 x 51 activations of work" \
	'[ "$(acts work pap.prof)" -eq $((16 * 51)) ]'

rm -f pap.prof
./loop 20 fork
check "fork: parent and child count their own 20 activations each" \
	'[ "$(acts work pap.prof)" -eq 40 ]'

rm -f pap.prof
./loop 20 reset >/dev/null
check "pap_reset forgets what came before" '[ "$(acts work pap.prof)" -eq 21 ]'

# the profile is a log: each process appends its segment (doc/formats.md)
rm -f pap.prof
./loop 30 >/dev/null && mv pap.prof one.prof
"$decode" --format=paths one.prof | awk '{ $2 = $2 * 30; print }' | sort >want30
i=0
while [ $i -lt 30 ]; do
	./loop 30 >/dev/null &
	i=$((i + 1))
	[ $((i % 6)) -ne 0 ] || wait
done
wait
"$decode" --format=paths pap.prof 2>err30 | sort >got30
check "30 processes, 6 at a time, append to one profile: 30 times one run's paths" \
	'cmp -s want30 got30 && [ ! -s err30 ] &&
	 [ "$(wc -c <pap.prof)" -gt "$(wc -c <one.prof)" ]'
i=0 ones=
while [ $i -lt 30 ]; do ones="$ones one.prof"; i=$((i + 1)); done
"$decode" merge -o merged30.prof $ones
cp pap.prof log30.prof
"$decode" compact pap.prof
check "compacted, the log is the file one merge of the 30 writes, byte for byte" \
	'cmp -s pap.prof merged30.prof && [ "$(wc -c <pap.prof)" -lt "$(wc -c <log30.prof)" ] &&
	 "$decode" print log30.prof >l30.txt && "$decode" print pap.prof >c30.txt &&
	 cmp -s l30.txt c30.txt'

# a writer killed inside its append loses its own records only; the next
# writer cuts the torn segment off
cp pap.prof before.prof
PAP_TEST_KILL=append-mid ./loop 30 >/dev/null 2>&1
"$decode" --format=paths pap.prof 2>errk | sort >gotk
check "a writer killed inside its append: the file reads as before, with a warning" \
	'[ "$(wc -c <pap.prof)" -gt "$(wc -c <before.prof)" ] && cmp -s gotk got30 &&
	 grep -q "pap.prof: warning: the last [0-9]* bytes, from byte [0-9]*, are a segment cut short" errk'
./loop 30 >/dev/null 2>errn
check "the next writer cuts off the torn segment, then appends: 31 runs" \
	'grep -q "cut off the last [0-9]* bytes" errn &&
	 [ "$(acts work pap.prof)" -eq $((31 * 31)) ] &&
	 "$decode" --format=paths pap.prof >/dev/null 2>errr && [ ! -s errr ]'
PAP_TEST_KILL=append-after ./loop 30 >/dev/null 2>&1
check "a writer killed once its segment is written keeps its records: 32 runs" \
	'[ "$(acts work pap.prof)" -eq $((32 * 31)) ]'
cp pap.prof before.prof
PAP_TEST_KILL=compact-mid "$decode" compact pap.prof 2>/dev/null
check "compaction killed while writing its temporary leaves the file as it was" \
	'cmp -s pap.prof before.prof && "$decode" compact pap.prof &&
	 [ "$(acts work pap.prof)" -eq $((32 * 31)) ]'
rm -f pap.prof.tmp.*	# the killed compaction's

# a full disk (the file size limit: SIGXFSZ ignored, so write fails with
# EFBIG), inside the segment and before it: nothing committed is lost
size=$(wc -c <pap.prof)
cp pap.prof before.prof
(trap '' XFSZ; exec prlimit --fsize=$((size + 700)) ./loop 300 >/dev/null 2>errf1)
(trap '' XFSZ; exec prlimit --fsize=$size ./loop 300 >/dev/null 2>errf2)
check "a full disk inside or before the append: the writer says so, the file is as it was" \
	'grep -q "pap.prof: cannot write: File too large" errf1 &&
	 grep -q "pap.prof: cannot write: File too large" errf2 && cmp -s pap.prof before.prof'
./loop 30 >/dev/null
check "and with room again, the next writer appends: 33 runs" \
	'[ "$(acts work pap.prof)" -eq $((33 * 31)) ]'

# a file cut exactly where a segment ends (a copy stopped there) is whole
# segments, but shorter than the length its last writer committed
rm -f seg.prof
PAP_PROFILE=seg.prof ./loop 30 >/dev/null
s1=$(wc -c <seg.prof)
PAP_PROFILE=seg.prof ./loop 30 >/dev/null
head -c "$s1" seg.prof >segcut.prof
"$decode" --format=paths one.prof | sort >want1
"$decode" --format=paths segcut.prof 2>errc | sort >gotc
check "a profile cut where a segment ends: what is left is read, the cut said" \
	'[ "$(wc -c <seg.prof)" -gt "$s1" ] && cmp -s gotc want1 &&
	 grep -q "^segcut.prof: warning: the file was cut: its writer left it [0-9]* bytes long" errc'
PAP_PROFILE=segcut.prof ./loop 30 >/dev/null 2>errw
check "... the next writer keeps what is left, says so, and commits the file anew" \
	'grep -q "segcut.prof: warning: the file was cut" errw &&
	 [ "$(acts work segcut.prof)" -eq $((2 * 31)) ] &&
	 "$decode" --format=paths segcut.prof >/dev/null 2>errr && [ ! -s errr ]'

cp pap.prof good.prof
"$decode" print good.prof >good.txt
head -c 40 good.txt >trunc.prof
printf 'pap-profile 1\np work:zz 1 1 1 0\n' >bad.prof
check "a truncated text profile is refused naming file and line" \
	'! "$decode" trunc.prof 2>err && grep -q "trunc.prof:2: error:" err'
check "a malformed record is refused" \
	'! "$decode" bad.prof 2>err && grep -q "bad.prof:2: error:" err'

cp trunc.prof pap.prof
./loop 5 >/dev/null 2>err
check "the runtime keeps an unreadable profile aside and writes a new one" \
	'ls pap.prof.bad.* >/dev/null 2>&1 && [ "$(acts work pap.prof)" -eq 6 ]'

sed 's/i % 3 ? i : -i/i % 4 ? i : -i/; s/for (i = 0; i < n; i++)/for (i = 0; i < n; i++) if (i > 1000) break; else/' loop.c >loop2.c
mv loop2.c loop.c
"$papgcc" -O2 -c loop.c -o loop1.o
check "a profile from before a recompile is refused, naming the function" \
	'! "$decode" good.prof >/dev/null 2>err && grep -q "function work: the profile.s checksum" err'

cat >sig.c <<'C'
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
static volatile sig_atomic_t handled;
static volatile unsigned sink;
static unsigned g(unsigned x) { int i; for (i = 0; i < 50; i++) x = x % 3 ? x * 3 + 1 : x / 3; return x; }
__attribute__((no_instrument_function))
static void on_prof(int sig) { (void)sig; sink += g(sink); handled++; }
static unsigned f(unsigned x) { int i; for (i = 0; i < 200; i++) x = x & 1 ? x * 5 + 1 : x >> 1; return x; }
int main(void)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 200 }, { 0, 200 } };
	unsigned i, s = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	for (i = 0; i < 300000; i++) s += f(i);
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_PROF, &it, NULL);
	fprintf(stderr, "handled %d\n", (int)handled);
	return (int)(s & 1);
}
C
rm -f pap.prof
"$papgcc" -O2 -o sig sig.c && ./sig 2>sig.err
handled=$(awk '/^handled/ { print $2 }' sig.err)
lost=$(awk "/could not be recorded/ { print \$2 }" sig.err)
fa=$(acts f pap.prof)
ga=$(acts g pap.prof)
if [ "$fa" -eq 300000 ] && [ $((ga + ${lost:-0})) -eq "$handled" ] &&
   "$decode" pap.prof >/dev/null; then
	ok "signal handlers: f 300000 exact, g $ga recorded + ${lost:-0} reported lost = $handled handled"
else
	not_ok "signal handlers: f $fa, g $ga + lost ${lost:-0} vs handled $handled"
fi

# A signal handler siglongjmps back into a sigsetjmp loop, at any moment:
# inside the call to step (the path is cut there, exactly) or in work's
# own code (its state is unknown: counted as lost, never recorded wrong).
# (Not under the tracer: it takes a lock, which a longjmp out of a handler
# may leave held.  The handler itself is not instrumented, so only work's
# paths are at stake.)
cat >sigjmp.c <<'C'
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
static sigjmp_buf env;
static volatile sig_atomic_t armed, jumps;
__attribute__((no_instrument_function))
static void on_prof(int sig) { (void)sig; if (armed) { armed = 0; jumps++; siglongjmp(env, 1); } }
static unsigned step(unsigned x) { int i; for (i = 0; i < 40; i++) x = x & 1 ? x * 3 + 1 : x >> 1; return x; }
static unsigned work(unsigned rounds)
{
	volatile unsigned done = 0, acc = 1;
	while (done < rounds) {
		if (sigsetjmp(env, 1)) { done++; continue; }
		armed = 1;
		for (;;) {
			unsigned x = acc;
			int i;
			for (i = 0; i < 40; i++) x = x & 1 ? x * 5 + 1 : x >> 1;
			acc = x + step(x);
		}
	}
	return acc;
}
int main(void)
{
	struct sigaction sa;
	struct itimerval it = { { 0, 300 }, { 0, 300 } };
	unsigned r;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_prof;
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_PROF, &it, NULL);
	r = work(200);
	it.it_value.tv_usec = it.it_interval.tv_usec = 0;
	setitimer(ITIMER_PROF, &it, NULL);
	fprintf(stderr, "jumps %d\n", (int)jumps);
	return (int)(r & 0);
}
C
rm -f pap.prof
"$papgcc" -O2 -o sigjmp sigjmp.c && ./sigjmp 2>sigjmp.err
jumps=$(awk '/^jumps/ { print $2 }' sigjmp.err)
lost=$(awk "/could not be recorded/ { print \$2 }" sigjmp.err)
# each jump ends one path (cut at the call, or lost) and starts one at the
# receiver (which ends cut, lost, or, the last one, by returning)
"$decode" --format=json --top=0 pap.prof | awk '
	/"name": / { f = /"name": "work"/; next }
	!f { next }
	{ c = $0; sub(/.*"count": /, "", c); c += 0 }
	/"resumed": true/ && /"complete": false/ { rc += c }
	/"resumed": true/ && /"complete": true/ { rw += c }
	/"resumed": false/ && /"complete": false/ { nc += c }
	/"resumed": false/ && /"complete": true/ { nw += c }
	END { print rc + 0, rw + 0, nc + 0, nw + 0 }' >sigjmp.counts
read rc rw nc nw <sigjmp.counts
lost=${lost:-0}
if [ "${jumps:-0}" -gt 0 ] && [ $((rc + nc + lost)) -eq "$jumps" ] &&
   [ $((rc + rw + lost - 1 + nc)) -eq "$jumps" ] && [ "$rw" -eq 1 ] &&
   [ "$nw" -eq 0 ] && [ "$rc" -gt 0 ] && [ "$lost" -gt 0 ]; then
	ok "siglongjmp from a handler: $jumps jumps = $((rc + nc)) paths cut at the call + $lost reported lost"
else
	not_ok "siglongjmp from a handler: jumps ${jumps:-?}, resumed+cut $rc, resumed+whole $rw, cut $nc, whole $nw, lost $lost"
fi

mkdir proj && cd proj && cat >configure.ac <<'AC'
AC_INIT([hello], [1.0])
AM_INIT_AUTOMAKE([foreign])
AC_PROG_CC
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
AC
printf 'bin_PROGRAMS = hello\nhello_SOURCES = hello.c\n' >Makefile.am
printf '#include <stdio.h>\nint main(int c, char **v) { (void)v; while (c-- > 0) puts("hi"); return 0; }\n' >hello.c
if autoreconf -fi >/dev/null 2>&1 && CC="$papgcc" ./configure >/dev/null 2>&1 &&
   make >/dev/null 2>&1 && rm -f pap.prof && ./hello a b >/dev/null &&
   [ "$(acts main pap.prof)" -eq 1 ]; then
	ok "CC=pap-gcc ./configure && make on an Autotools project"
else
	not_ok "CC=pap-gcc ./configure && make on an Autotools project"
fi
cd ..

# -v with files is an ordinary option: instrumented, metadata, runtime
mkdir verbose && cd verbose && cp ../loop.c . &&
if "$papgcc" -v -O2 -c loop.c -o loop.o 2>/dev/null && [ -s loop.papm ] &&
   "$papgcc" -v loop.o -o loop 2>/dev/null && ./loop 3 >/dev/null &&
   [ "$(acts work pap.prof)" -eq 4 ]; then
	ok "pap-gcc -v compiles with the plugin and links the runtime"
else
	not_ok "pap-gcc -v compiles with the plugin and links the runtime"
fi
cd ..
if "$papgcc" --version | grep -q 'Free Software Foundation' &&
   [ -x "$("$papgcc" -print-prog-name=cc1)" ] &&
   "$papgcc" -v 2>&1 | grep -q '^gcc version'; then
	ok "pap-gcc --version, -v and -print-prog-name are gcc's"
else
	not_ok "pap-gcc --version, -v and -print-prog-name are gcc's"
fi
tap_done
