/* SPDX-License-Identifier: MIT */
/*
 * tally_thunk.S - __pap_tally for instrumented code that keeps its
 * general registers across the call (x86-64).
 *
 * A count's rare arm calls __pap_tally when the thread has no counters
 * for the function yet.  As an ordinary call, it clobbers every
 * caller-saved register, so a small function whose only calls are those
 * arms saves callee-saved registers at entry to keep its values across
 * them, on every call.  The plugin calls this thunk from an asm statement
 * whose clobbers are those of a call less what the thunk saves here:
 * the general registers but r10 and r11 (which a lazy PLT binding may
 * use), and the 128 bits of xmm0-xmm15.  It clobbers the flags, memory,
 * the x87 and MMX registers and, in code that may use AVX (where ymm's
 * upper halves or zmm could be live), every vector and mask register.
 * So the function keeps its values in registers across the arm: the
 * compiler cannot save around an asm statement only where it runs, as
 * it does around a call, and kept doubles in memory through a whole
 * loop when the asm clobbered the xmm registers.
 *
 * In: on the stack above the return address, pushed in this order
 * (so from the top down): bl, nvalues, value, fn, counters; the caller
 * stepped below its red zone (rsp - 128) before pushing, and pops them.
 * Out: every general register but r10 and r11 as it was, and xmm0-15.
 *
 * Unwinding: the caller's own unwind tables describe its frame as it was
 * before the asm, which moved rsp by 176 bytes (red zone, arguments and
 * this call's return address) without telling them.  So this frame's
 * CFA is the caller's rsp before the asm, the return address 176 bytes
 * below it, and a debugger or a forced unwind (pthread_cancel in the
 * runtime's connect) gets past the caller.
 */
#if defined(__x86_64__) && defined(__ELF__)
	.text
	.globl	__pap_tally_preserving
	.type	__pap_tally_preserving, @function
__pap_tally_preserving:
	.cfi_startproc
	.cfi_def_cfa_offset 176
	.cfi_offset %rip, -176
	endbr64
	pushq	%rbp
	.cfi_def_cfa_offset 184
	.cfi_offset %rbp, -184
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%rax
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	subq	$256, %rsp
	andq	$-16, %rsp		/* the ABI's alignment at the call */
	movdqu	%xmm0, 0(%rsp)
	movdqu	%xmm1, 16(%rsp)
	movdqu	%xmm2, 32(%rsp)
	movdqu	%xmm3, 48(%rsp)
	movdqu	%xmm4, 64(%rsp)
	movdqu	%xmm5, 80(%rsp)
	movdqu	%xmm6, 96(%rsp)
	movdqu	%xmm7, 112(%rsp)
	movdqu	%xmm8, 128(%rsp)
	movdqu	%xmm9, 144(%rsp)
	movdqu	%xmm10, 160(%rsp)
	movdqu	%xmm11, 176(%rsp)
	movdqu	%xmm12, 192(%rsp)
	movdqu	%xmm13, 208(%rsp)
	movdqu	%xmm14, 224(%rsp)
	movdqu	%xmm15, 240(%rsp)
	movq	48(%rbp), %rdi		/* counters */
	movq	40(%rbp), %rsi		/* fn */
	movq	32(%rbp), %rdx		/* value */
	movq	24(%rbp), %rcx		/* nvalues */
	movl	16(%rbp), %r8d		/* bl */
	call	__pap_tally@PLT
	movdqu	0(%rsp), %xmm0
	movdqu	16(%rsp), %xmm1
	movdqu	32(%rsp), %xmm2
	movdqu	48(%rsp), %xmm3
	movdqu	64(%rsp), %xmm4
	movdqu	80(%rsp), %xmm5
	movdqu	96(%rsp), %xmm6
	movdqu	112(%rsp), %xmm7
	movdqu	128(%rsp), %xmm8
	movdqu	144(%rsp), %xmm9
	movdqu	160(%rsp), %xmm10
	movdqu	176(%rsp), %xmm11
	movdqu	192(%rsp), %xmm12
	movdqu	208(%rsp), %xmm13
	movdqu	224(%rsp), %xmm14
	movdqu	240(%rsp), %xmm15
	leaq	-56(%rbp), %rsp
	popq	%r9
	popq	%r8
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rax
	popq	%rbp
	.cfi_def_cfa %rsp, 176
	ret
	.cfi_endproc
	.size	__pap_tally_preserving, .-__pap_tally_preserving
#endif

#if defined(__ELF__)
	.section .note.GNU-stack, "", @progbits
#endif
