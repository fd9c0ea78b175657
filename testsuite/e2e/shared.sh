#!/bin/sh
# shared.sh - instrumented shared objects: `pap-gcc -shared`, one runtime
# and one profile for an executable and the objects it loads, and
# dlopen/dlclose any number of times from any thread, while other threads
# run instrumented code.  Every run is checked three ways: the program
# prints what its plain build prints, the decoded paths equal what the
# tracer (-fplugin-arg-pap-trace) saw, and nothing is reported lost.
# TAP output.
set -u
top_builddir=$(cd "${top_builddir:-.}" && pwd)
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
papgcc=$top_builddir/plugin/pap-gcc
decode=$top_builddir/decoder/pap-decode
collector=$top_builddir/collector/pap-collector
# aggregate_trace, trace_forms
. "$top_srcdir/testsuite/e2e/tracelib.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
. "$top_srcdir/testsuite/tap.sh"

echo "1..12"

# the plugins: two objects whose functions share a name, so that a
# record of one taken for the other's (a key at a reused address)
# decodes into the wrong graph
cat >pa.c <<'C'
int plug_work(int n)
{
	int s = 0, i;

	for (i = 0; i < n; i++)
		if (i % 3)
			s += i;
	return s;
}
C
cat >pb.c <<'C'
static int collatz(int n)
{
	int s = 1;

	while (n-- > 0)
		s = (s & 1) ? 3 * s + 1 : s / 2;
	return s;
}
int plug_work(int n) { return collatz(n) + (n & 1 ? 7 : 1); }
C
# the host: loads and closes the plugins ROUNDS times, from THREADS
# threads at once, while WORKERS threads run its own instrumented code;
# NODELETE opens with RTLD_NODELETE
cat >host.c <<'C'
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *plugins[2];
static int rounds, nodelete;
static volatile int stop;
static long results[8], work_done[8];

static long host_work(long n)
{
	long s = 0;

	while (n > 1) {
		s += n;
		n = n % 2 ? 3 * n + 1 : n / 2;
	}
	return s;
}

static void *worker(void *arg)
{
	long k = (long)arg, i = 0, s = 0;

	do {
		s += host_work(++i % 97 + k);
		usleep(100);
	} while (!stop);
	work_done[k] = i > 0 && s >= 0;
	return NULL;
}

static void *loader(void *arg)
{
	long k = (long)arg, sum = 0;
	int r;

	for (r = 0; r < rounds; r++) {
		const char *p = plugins[(r + k) % 2];
		void *h = dlopen(p, RTLD_NOW | (nodelete ? RTLD_NODELETE : 0));
		int (*f)(int);

		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			exit(2);
		}
		f = (int (*)(int))dlsym(h, "plug_work");
		sum += f(r % 11 + (int)k);
		dlclose(h);
	}
	results[k] = sum;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w[4], l[8];
	int threads, workers, i;

	if (argc < 7)
		return 2;
	plugins[0] = argv[1];
	plugins[1] = argv[2];
	rounds = atoi(argv[3]);
	threads = atoi(argv[4]);
	workers = atoi(argv[5]);
	nodelete = !strcmp(argv[6], "nodelete");
	for (i = 0; i < workers; i++)
		pthread_create(&w[i], NULL, worker, (void *)(long)i);
	for (i = 0; i < threads; i++)
		pthread_create(&l[i], NULL, loader, (void *)(long)i);
	for (i = 0; i < threads; i++)
		pthread_join(l[i], NULL);
	stop = 1;
	for (i = 0; i < workers; i++)
		pthread_join(w[i], NULL);
	for (i = 0; i < threads; i++)
		printf("loader %d: %ld\n", i, results[i]);
	for (i = 0; i < workers; i++)
		printf("worker %d: %ld\n", i, work_done[i]);
	return 0;
}
C

trace=-fplugin-arg-pap-trace
if ! gcc -O2 -fPIC -shared pa.c -o plain-pa.so ||
   ! gcc -O2 -fPIC -shared pb.c -o plain-pb.so ||
   ! gcc -O2 -pthread host.c -o plain-host -ldl; then
	echo "Bail out! the plain builds failed"
	exit 1
fi
if PAP_PLUGIN_ARGS=$trace "$papgcc" -O2 -fPIC -shared pa.c -o pa.so &&
   PAP_PLUGIN_ARGS=$trace "$papgcc" -O2 -fPIC -shared pb.c -o pb.so &&
   readelf -d pa.so | grep -q 'NEEDED.*libpaprt'; then
	ok "pap-gcc -shared links an object that needs the shared runtime"
else
	not_ok "pap-gcc -shared links an object that needs the shared runtime"
fi
PAP_PLUGIN_ARGS=$trace "$papgcc" -O2 -pthread host.c -o host -ldl ||
	echo "# host did not build"
gcc -O2 -pthread host.c -o uhost -ldl

# run WHAT PROG ARGS...: with $need the functions the profile must
# show, runs PROG in a fresh directory d-N with the
# tracer on; checks its output against the plain build's, its decoded
# paths against the trace, and that nothing was reported lost
run() {
	what=$1
	shift
	d=d-$n
	mkdir "$d"
	(cd "$d" && "$@" >out 2>err)
	st=$?
	(cd "$d" && "$tmp/plain-host" "$tmp/plain-pa.so" "$tmp/plain-pb.so" \
		$args >want 2>/dev/null)
	if [ $st -ne 0 ] || ! cmp -s "$d/out" "$d/want"; then
		not_ok "$what: exit status $st, output as the plain build's"
		sed 's/^/# /' "$d/err" | head -5
		return
	fi
	if [ -s "$d/err" ]; then
		not_ok "$what: said nothing on stderr"
		sed 's/^/# /' "$d/err" | head -5
		return
	fi
	check_decoded "$what" "$d"
}

# check_decoded WHAT DIR: DIR/pap.prof decodes into what DIR/pap.trace saw
check_decoded() {
	if ! "$decode" --format=paths "$2/pap.prof" >"$2/decoded.raw" \
	     2>"$2/decode.err"; then
		not_ok "$1: decodes"
		sed 's/^/# /' "$2/decode.err" | head -5
		return
	fi
	trace_forms pap-epp "$2"
	for f in $need; do
		if ! grep -q "^$f " "$2/decoded"; then
			not_ok "$1: $f's paths in the one profile"
			return
		fi
	done
	if false; then :
	elif ! cmp -s "$2/decoded" "$2/traced"; then
		not_ok "$1: decoded paths equal the trace"
		diff "$2/decoded" "$2/traced" | head -5 | sed 's/^/# /'
	elif "$decode" "$2/pap.prof" | grep -q lost; then
		not_ok "$1: nothing lost"
	else
		ok "$1: $(wc -l <"$2/pap.trace") activations decoded = traced"
	fi
}

need="plug_work collatz main"
args="40 1 0 close"
run "one thread loads and closes two plugins 40 times" \
	"$tmp/host" "$tmp/pa.so" "$tmp/pb.so" $args
need="plug_work collatz host_work main"
args="40 1 2 close"
run "the same while two threads run the host's instrumented code" \
	"$tmp/host" "$tmp/pa.so" "$tmp/pb.so" $args
args="30 4 1 close"
run "four threads load and close at once, one runs host code" \
	"$tmp/host" "$tmp/pa.so" "$tmp/pb.so" $args
args="30 2 1 nodelete"
run "RTLD_NODELETE" "$tmp/host" "$tmp/pa.so" "$tmp/pb.so" $args
PAP_PLUGIN_ARGS=$trace "$papgcc" -O2 -flto -fPIC -shared pa.c -o pa-lto.so
PAP_PLUGIN_ARGS=$trace "$papgcc" -O0 -flto -fPIC -shared pb.c -o pb-lto.so
args="30 2 1 close"
run "plugins built with -flto, at -O2 and -O0" \
	"$tmp/host" "$tmp/pa-lto.so" "$tmp/pb-lto.so" $args
# plugins compiled by gcc -fplugin=pap.so and linked without any runtime:
# they call the host's
gcc -O2 -fPIC -shared -fplugin="$top_builddir/plugin/.libs/pap.so" \
	-fplugin-arg-pap-trace pa.c -o pa-bare.so
gcc -O2 -fPIC -shared -fplugin="$top_builddir/plugin/.libs/pap.so" \
	-fplugin-arg-pap-trace pb.c -o pb-bare.so
args="30 2 1 close"
run "plugins linked without the runtime use the host's" \
	"$tmp/host" "$tmp/pa-bare.so" "$tmp/pb-bare.so" $args
need="plug_work collatz"
args="40 2 0 close"
run "a host without pap loads the runtime with the plugins" \
	"$tmp/uhost" "$tmp/pa.so" "$tmp/pb.so" $args
need="plug_work collatz host_work main"

# under the collector: the same profile as the file sink's
args="40 2 2 close"
d=dc
mkdir $d
(cd $d && "$collector" -o c.prof -- "$tmp/host" "$tmp/pa.so" "$tmp/pb.so" \
	$args >out 2>err)
st=$?
if [ $st -ne 0 ] || [ -e $d/pap.prof ] || [ ! -s $d/c.prof ]; then
	not_ok "under pap-collector: exit $st, one profile, the collector's"
	sed 's/^/# /' $d/err | head -5
else
	mv $d/c.prof $d/pap.prof
	check_decoded "under pap-collector" $d
fi

# a library linked in, shared and static: one profile, the same paths
cat >lib.c <<'C'
int lib_step(int x)
{
	int i, s = 0;

	for (i = 0; i < x % 7; i++)
		s += i & 1 ? x : -i;
	return s;
}
C
cat >main.c <<'C'
#include <stdio.h>
int lib_step(int x);
int main(void)
{
	int i, s = 0;

	for (i = 0; i < 50; i++)
		s += lib_step(i);
	printf("%d\n", s);
	return 0;
}
C
mkdir st sh
(cd st && "$papgcc" -O2 -c ../lib.c -o lib.o && "$papgcc" -O2 ../main.c \
	lib.o -o prog && ./prog >out)
(cd sh && "$papgcc" -O2 -fPIC -shared ../lib.c -o liblib.so &&
	"$papgcc" -O2 ../main.c -L. -llib -Wl,-rpath,"$tmp/sh" -o prog &&
	./prog >out)
"$decode" --format=paths st/pap.prof 2>&1 | sort >st/paths
"$decode" --format=paths sh/pap.prof 2>&1 | sort >sh/paths
if [ -s st/paths ] && cmp -s st/paths sh/paths && cmp -s st/out sh/out &&
   grep -q '^lib_step' sh/paths && grep -q '^main' sh/paths &&
   [ "$(ls sh/*.prof)" = sh/pap.prof ]; then
	ok "a library static and shared: one profile, the same decoded paths"
else
	not_ok "a library static and shared: one profile, the same decoded paths"
	diff st/paths sh/paths | head -5 | sed 's/^/# /'
fi

# one runtime: pap_reset in the executable forgets the library's records
cat >reset.c <<'C'
#include <stdio.h>
#include <pap/pap.h>
int lib_step(int x);
int main(void)
{
	int s = lib_step(3);

	pap_reset();
	s += lib_step(4) + lib_step(4);
	printf("%d\n", s);
	return 0;
}
C
(cd sh && rm -f pap.prof && "$papgcc" -O2 ../reset.c -L. -llib \
	-Wl,-rpath,"$tmp/sh" -o reset && ./reset >/dev/null)
if [ "$("$decode" --format=paths sh/pap.prof | awk '$1 == "lib_step" { s += $2 }
	END { print s + 0 }')" = 2 ]; then
	ok "the executable and its shared library share one runtime"
else
	not_ok "the executable and its shared library share one runtime"
fi

# nothing stray: every run above wrote its own directory's profile only
if [ -z "$(find . -name '*.tmp.*' -o -name '*.bad.*' -o -name '*.pending.*')" ]; then
	ok "no stray or set-aside profile anywhere"
else
	not_ok "no stray or set-aside profile anywhere"
fi

tap_done
