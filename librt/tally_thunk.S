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
 * whose clobbers are those of a call less the general registers the
 * thunk saves here: r10, r11 (which a lazy PLT binding may use), the
 * flags, the vector, x87 and mask registers, and memory.  So the
 * function keeps its integers in any general register.
 *
 * In: on the stack above the return address, pushed in this order
 * (so from the top down): bl, nvalues, value, fn, counters; the caller
 * stepped below its red zone (rsp - 128) before pushing, and pops them.
 * Out: every general register but r10 and r11 as it was.
 */
#if defined(__x86_64__) && defined(__ELF__)
	.text
	.globl	__pap_tally_preserving
	.type	__pap_tally_preserving, @function
__pap_tally_preserving:
	.cfi_startproc
	endbr64
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	pushq	%rax
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	andq	$-16, %rsp		/* the ABI's alignment at the call */
	movq	48(%rbp), %rdi		/* counters */
	movq	40(%rbp), %rsi		/* fn */
	movq	32(%rbp), %rdx		/* value */
	movq	24(%rbp), %rcx		/* nvalues */
	movl	16(%rbp), %r8d		/* bl */
	call	__pap_tally@PLT
	leaq	-56(%rbp), %rsp
	popq	%r9
	popq	%r8
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rax
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	__pap_tally_preserving, .-__pap_tally_preserving
#endif

#if defined(__ELF__)
	.section .note.GNU-stack, "", @progbits
#endif
