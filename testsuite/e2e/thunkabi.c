/*
 * thunkabi.c - the contract of __pap_tally_preserving (tally_thunk.S),
 * for regs.sh: linked with the thunk alone and a __pap_tally of its own
 * that clobbers every register a callee may, a call made as the plugin
 * makes it must hand over the five pushed arguments and come back with
 * rax, rcx, rdx, rsi, rdi, r8, r9 and xmm0-15 as they were; and an
 * unwinder started in __pap_tally must get through the thunk and main to
 * the C library that called main.  Exit 0 when it does.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unwind.h>

static uint64_t got[5];

int main(void);

/* frames walked from __pap_tally: 1 once main was seen, 2 once the frame
 * after main was found in the C library */
static int unwound;

static _Unwind_Reason_Code walk_frame(struct _Unwind_Context *ctx, void *arg)
{
	Dl_info libc, here;
	int before;
	uintptr_t ip = _Unwind_GetIPInfo(ctx, &before);

	(void)arg;
	if (!before)
		ip--;	/* a return address: the call is before it */
	if (unwound == 1) {
		if (dladdr((void *)ip, &here) && dladdr((void *)puts, &libc) &&
		    here.dli_fbase == libc.dli_fbase)
			unwound = 2;
		return _URC_NORMAL_STOP;
	}
	if (_Unwind_FindEnclosingFunction((void *)ip) == (void *)main)
		unwound = 1;
	return _URC_NO_REASON;
}

void __pap_tally(uint64_t **counters, const char *fn, uint64_t value,
		 uint64_t nvalues, int bl);

void __pap_tally(uint64_t **counters, const char *fn, uint64_t value,
		 uint64_t nvalues, int bl)
{
	got[0] = (uint64_t)(uintptr_t)counters;
	got[1] = (uint64_t)(uintptr_t)fn;
	got[2] = value;
	got[3] = nvalues;
	got[4] = (uint64_t)bl;
	_Unwind_Backtrace(walk_frame, NULL);
	__asm__ volatile(
		"mov $-1, %%rax\n\tmov %%rax, %%rcx\n\tmov %%rax, %%rdx\n\t"
		"mov %%rax, %%rsi\n\tmov %%rax, %%rdi\n\tmov %%rax, %%r8\n\t"
		"mov %%rax, %%r9\n\tmov %%rax, %%r10\n\tmov %%rax, %%r11\n\t"
		"pcmpeqd %%xmm0, %%xmm0\n\tmovdqa %%xmm0, %%xmm1\n\t"
		"movdqa %%xmm0, %%xmm2\n\tmovdqa %%xmm0, %%xmm3\n\t"
		"movdqa %%xmm0, %%xmm4\n\tmovdqa %%xmm0, %%xmm5\n\t"
		"movdqa %%xmm0, %%xmm6\n\tmovdqa %%xmm0, %%xmm7\n\t"
		"movdqa %%xmm0, %%xmm8\n\tmovdqa %%xmm0, %%xmm9\n\t"
		"movdqa %%xmm0, %%xmm10\n\tmovdqa %%xmm0, %%xmm11\n\t"
		"movdqa %%xmm0, %%xmm12\n\tmovdqa %%xmm0, %%xmm13\n\t"
		"movdqa %%xmm0, %%xmm14\n\tmovdqa %%xmm0, %%xmm15"
		: : : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
		      "r11", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5",
		      "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
		      "xmm12", "xmm13", "xmm14", "xmm15", "memory");
}

struct regs {
	uint64_t gin[7], gout[7];	/* rax rcx rdx rsi rdi r8 r9 */
	unsigned char xin[256], xout[256];
};

int main(void)
{
	static const uint64_t want[5] = { 0x1111, 0x2222, 0x3333, 0x4444, 5 };
	struct regs s;
	unsigned i;

	for (i = 0; i < 7; i++)
		s.gin[i] = 0x0101010101010101ull * (i + 1);
	for (i = 0; i < 256; i++)
		s.xin[i] = (unsigned char)(i * 7 + 3);
	__asm__ volatile(
		"mov 0(%%rbx), %%rax\n\tmov 8(%%rbx), %%rcx\n\t"
		"mov 16(%%rbx), %%rdx\n\tmov 24(%%rbx), %%rsi\n\t"
		"mov 32(%%rbx), %%rdi\n\tmov 40(%%rbx), %%r8\n\t"
		"mov 48(%%rbx), %%r9\n\t"
		"movdqu 112(%%rbx), %%xmm0\n\tmovdqu 128(%%rbx), %%xmm1\n\t"
		"movdqu 144(%%rbx), %%xmm2\n\tmovdqu 160(%%rbx), %%xmm3\n\t"
		"movdqu 176(%%rbx), %%xmm4\n\tmovdqu 192(%%rbx), %%xmm5\n\t"
		"movdqu 208(%%rbx), %%xmm6\n\tmovdqu 224(%%rbx), %%xmm7\n\t"
		"movdqu 240(%%rbx), %%xmm8\n\tmovdqu 256(%%rbx), %%xmm9\n\t"
		"movdqu 272(%%rbx), %%xmm10\n\tmovdqu 288(%%rbx), %%xmm11\n\t"
		"movdqu 304(%%rbx), %%xmm12\n\tmovdqu 320(%%rbx), %%xmm13\n\t"
		"movdqu 336(%%rbx), %%xmm14\n\tmovdqu 352(%%rbx), %%xmm15\n\t"
		"lea -128(%%rsp), %%rsp\n\t"
		"pushq $0x1111\n\tpushq $0x2222\n\tpushq $0x3333\n\t"
		"pushq $0x4444\n\tpushq $5\n\t"
		"call __pap_tally_preserving\n\t"
		"lea 168(%%rsp), %%rsp\n\t"
		"mov %%rax, 56(%%rbx)\n\tmov %%rcx, 64(%%rbx)\n\t"
		"mov %%rdx, 72(%%rbx)\n\tmov %%rsi, 80(%%rbx)\n\t"
		"mov %%rdi, 88(%%rbx)\n\tmov %%r8, 96(%%rbx)\n\t"
		"mov %%r9, 104(%%rbx)\n\t"
		"movdqu %%xmm0, 368(%%rbx)\n\tmovdqu %%xmm1, 384(%%rbx)\n\t"
		"movdqu %%xmm2, 400(%%rbx)\n\tmovdqu %%xmm3, 416(%%rbx)\n\t"
		"movdqu %%xmm4, 432(%%rbx)\n\tmovdqu %%xmm5, 448(%%rbx)\n\t"
		"movdqu %%xmm6, 464(%%rbx)\n\tmovdqu %%xmm7, 480(%%rbx)\n\t"
		"movdqu %%xmm8, 496(%%rbx)\n\tmovdqu %%xmm9, 512(%%rbx)\n\t"
		"movdqu %%xmm10, 528(%%rbx)\n\tmovdqu %%xmm11, 544(%%rbx)\n\t"
		"movdqu %%xmm12, 560(%%rbx)\n\tmovdqu %%xmm13, 576(%%rbx)\n\t"
		"movdqu %%xmm14, 592(%%rbx)\n\tmovdqu %%xmm15, 608(%%rbx)"
		: : "b"(&s)
		: "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
		  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6",
		  "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12", "xmm13",
		  "xmm14", "xmm15", "memory", "cc");
	if (memcmp(got, want, sizeof(want))) {
		puts("arguments not handed over");
		return 1;
	}
	if (memcmp(s.gin, s.gout, sizeof(s.gin))) {
		puts("a general register changed");
		return 1;
	}
	if (memcmp(s.xin, s.xout, sizeof(s.xin))) {
		puts("an xmm register changed");
		return 1;
	}
	if (unwound != 2) {
		puts(unwound ? "the unwinder got lost after main" :
			       "the unwinder did not reach main");
		return 1;
	}
	return 0;
}
