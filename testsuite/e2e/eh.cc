// Exceptions through instrumented C++: try/catch, nested try, rethrow,
// destructors run by unwinding, a throw from a loop, recursion through a
// throw.  Every function's paths must equal the tracer's.
#include <cstdio>
#include <cstdlib>

extern "C" int eh_c_step(int i);	// eh.c, built with -fexceptions
extern "C" long eh_c_log(void);

static long log_sum;

struct Guard {
	int id;
	explicit Guard(int v) : id(v) { log_sum += v; }
	~Guard()
	{
		if (id % 3)
			log_sum += id;
		else
			log_sum -= 1;
	}
};

struct Oops {
	int code;
};

extern "C" void cxx_maybe_throw(int i)
{
	if (i % 5 == 2)
		throw Oops{ i };
	if (i % 11 == 7)
		throw i;
	log_sum += i & 1;
}

static int scan(int n)
{
	Guard g(n);
	int s = 0;

	for (int i = 0; i < n; i++) {
		Guard inner(i);

		if (i * 7 % 13 == 12)
			throw Oops{ i };
		s += i % 4 ? i : -i;
	}
	return s;
}

static int nested(int k)
{
	int r = 0;

	try {
		Guard g(k);

		try {
			cxx_maybe_throw(k);
			r += 1;
		} catch (const Oops &o) {
			r += o.code;
			if (k % 3 == 0)
				throw;			// rethrow to the outer try
		}
		cxx_maybe_throw(k + 1);
	} catch (const Oops &o) {
		r -= o.code;
	} catch (int v) {
		r += 2 * v;
		if (v % 2)
			throw;				// out of nested()
	}
	return r;
}

static int descend(int depth, int limit)
{
	Guard g(depth);

	if (depth == limit)
		throw Oops{ depth };
	if (depth % 2) {
		try {
			return descend(depth + 1, limit) + 1;
		} catch (const Oops &o) {
			if (o.code % 4 == depth % 4)
				return -depth;
			throw;
		}
	}
	return descend(depth + 1, limit) * 2;
}

// No landing pad: a throw leaves its activation abandoned, with the
// breakpoints its long loop made still pending.
static int spin(int n)
{
	int s = 0;

	for (int i = 0; i < n; i++) {
		if ((i ^ s) & 1)
			s += i;
		else
			s -= 3;
		if (i == n - 1 && n % 3 == 0)
			cxx_maybe_throw(2);
	}
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 300;
	long total = 0;

	for (int i = 0; i < n; i++) {
		try {
			total += scan(i % 20);
		} catch (const Oops &o) {
			total -= o.code;
		}
		try {
			total += nested(i);
		} catch (int v) {
			total += v * 100;
		}
		try {
			total += descend(0, i % 9);
		} catch (const Oops &o) {
			total += o.code * 1000;
		}
		if (i % 10 == 0) {
			try {
				total += spin(600 + i);
			} catch (const Oops &o) {
				total += o.code;
			}
		}
		try {
			total += eh_c_step(i);
		} catch (const Oops &o) {
			total += o.code;
		} catch (int v) {
			total -= v;
		}
	}
	std::printf("%ld %ld %ld\n", total, log_sum, eh_c_log());
	return 0;
}
