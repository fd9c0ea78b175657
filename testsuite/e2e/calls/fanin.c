/* A call site with ten predecessors (the call of g after the switch),
 * whose digit comes from a table rather than compares.  calls-record.sh
 * writes the expected sequence from the loop: for each i, "fK main g
 * main" with K = i % 10. */
#include <stdio.h>

static volatile int sink;

static void f0(void) { sink += 0; }
static void f1(void) { sink += 1; }
static void f2(void) { sink += 2; }
static void f3(void) { sink += 3; }
static void f4(void) { sink += 4; }
static void f5(void) { sink += 5; }
static void f6(void) { sink += 6; }
static void f7(void) { sink += 7; }
static void f8(void) { sink += 8; }
static void f9(void) { sink += 9; }

static void g(void)
{
	sink *= 3;
}

int main(void)
{
	int i;

	for (i = 0; i < 500; i++) {
		switch (i % 10) {
		case 0: f0(); break;
		case 1: f1(); break;
		case 2: f2(); break;
		case 3: f3(); break;
		case 4: f4(); break;
		case 5: f5(); break;
		case 6: f6(); break;
		case 7: f7(); break;
		case 8: f8(); break;
		default: f9(); break;
		}
		g();
	}
	printf("%d\n", sink);
	return 0;
}
