/* SPDX-License-Identifier: MIT */
/* interp - a stack bytecode interpreter: a switch dispatch loop running a
 * small program (nested loops, a call, arithmetic and branches). */
#include "bench.h"

enum op {
	PUSH, LOAD, STORE, ADD, SUB, MUL, MOD, LT, JZ, JMP, CALL, RET, DUP,
	POP, XOR, HALT
};

static __attribute__((noinline)) int64_t run(const int *code, int64_t n)
{
	int64_t stack[64], vars[4] = { 0, 0, 0, n };
	int rets[16];
	int sp = 0, rp = 0, pc = 0;
	int64_t x, y;

	for (;;) {
		switch (code[pc++]) {
		case PUSH: stack[sp++] = code[pc++]; break;
		case LOAD: stack[sp++] = vars[code[pc++]]; break;
		case STORE: vars[code[pc++]] = stack[--sp]; break;
		case ADD: y = stack[--sp]; stack[sp - 1] += y; break;
		case SUB: y = stack[--sp]; stack[sp - 1] -= y; break;
		case MUL: y = stack[--sp]; stack[sp - 1] *= y; break;
		case MOD: y = stack[--sp]; stack[sp - 1] %= y; break;
		case XOR: y = stack[--sp]; stack[sp - 1] ^= y; break;
		case LT: y = stack[--sp]; stack[sp - 1] = stack[sp - 1] < y;
			break;
		case JZ: x = stack[--sp]; if (!x) pc = code[pc]; else pc++;
			break;
		case JMP: pc = code[pc]; break;
		case CALL: rets[rp++] = pc + 1; pc = code[pc]; break;
		case RET: pc = rets[--rp]; break;
		case DUP: stack[sp] = stack[sp - 1]; sp++; break;
		case POP: sp--; break;
		case HALT: return vars[2];
		default: return -1;
		}
	}
}

/*
 * The program, its jump targets filled in as it is laid out:
 *   for (i = 0; i < N; i++)
 *     for (j = 0; j < 50; j++)
 *       acc = (acc ^ f(i, j)) % 1000003      f(x, y) = x * 3 + y
 */
static int code[128];

static int build(void)
{
	int n = 0, loop_i, loop_j, exit_i, exit_j, fn, call_at;

#define E(v) (code[n++] = (v))
	E(PUSH); E(0); E(STORE); E(0);
	loop_i = n;
	E(LOAD); E(0); E(LOAD); E(3); E(LT); E(JZ); exit_i = n; E(0);
	E(PUSH); E(0); E(STORE); E(1);
	loop_j = n;
	E(LOAD); E(1); E(PUSH); E(50); E(LT); E(JZ); exit_j = n; E(0);
	E(LOAD); E(2); E(LOAD); E(0); E(LOAD); E(1); E(CALL);
	call_at = n; E(0);
	E(XOR); E(PUSH); E(1000003); E(MOD); E(STORE); E(2);
	E(LOAD); E(1); E(PUSH); E(1); E(ADD); E(STORE); E(1);
	E(JMP); E(loop_j);
	code[exit_j] = n;
	E(LOAD); E(0); E(PUSH); E(1); E(ADD); E(STORE); E(0);
	E(JMP); E(loop_i);
	code[exit_i] = n;
	E(HALT);
	fn = n;		/* f(x, y) = x * 3 + y, args on the stack */
	code[call_at] = fn;
	E(STORE); E(1); E(PUSH); E(3); E(MUL); E(LOAD); E(1); E(ADD);
	E(RET);
#undef E
	return n;
}

int main(int argc, char **argv)
{
	long n = bench_iters(argc, argv, 600000);

	build();
	bench_print("interp", (uint64_t)run(code, n));
	return 0;
}
