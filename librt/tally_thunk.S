/* SPDX-License-Identifier: MIT */
/*
 * tally_thunk.S - __pap_tally for instrumented code that keeps its
 * registers across the call (x86-64).
 *
 * A count's rare arm calls __pap_tally when the thread has no counters
 * for the function yet.  As an ordinary call, it clobbers every
 * caller-saved register, so a small function whose only calls are those
 * arms saves callee-saved registers at entry to keep its values across
 * them, on every call.  The plugin calls this thunk from an asm statement
 * that clobbers nothing but r10, r11 (which a lazy PLT binding may use)
 * and the flags, so that the function keeps its values in any register.
 *
 * In: on the stack above the return address, pushed in this order
 * (so from the top down): bl, nvalues, value, fn, counters; the caller
 * stepped below its red zone (rsp - 128) before pushing, and pops them.
 * Every register is as it was on return, but r10, r11 and the flags:
 * the general ones pushed, the x87, SSE and AVX state saved with xsave
 * (every component the OS enables) or, without it, fxsave.
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
	pushq	%rbx
	pushq	%rcx
	pushq	%rdx
	pushq	%rsi
	pushq	%rdi
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	pushq	%r12			/* -88(%rbp): 1 if xsave, 0 if fxsave */
	movl	$1, %eax
	cpuid
	btl	$27, %ecx		/* OSXSAVE: xsave usable */
	jnc	.Lfxsave
	movl	$0xd, %eax
	xorl	%ecx, %ecx
	cpuid				/* ebx: bytes for the enabled state */
	movl	%ebx, %ebx
	subq	%rbx, %rsp
	andq	$-64, %rsp
	xorl	%eax, %eax		/* xsave's header must start zeroed */
	movq	%rax, 512(%rsp)
	movq	%rax, 520(%rsp)
	movq	%rax, 528(%rsp)
	movq	%rax, 536(%rsp)
	movq	%rax, 544(%rsp)
	movq	%rax, 552(%rsp)
	movq	%rax, 560(%rsp)
	movq	%rax, 568(%rsp)
	movl	$-1, %eax
	movl	$-1, %edx
	xsave	(%rsp)
	movl	$1, %r12d
	jmp	.Lcall
.Lfxsave:
	subq	$512, %rsp
	andq	$-16, %rsp
	fxsave64 (%rsp)
	xorl	%r12d, %r12d
.Lcall:					/* rsp is 16-byte aligned */
	movq	48(%rbp), %rdi		/* counters */
	movq	40(%rbp), %rsi		/* fn */
	movq	32(%rbp), %rdx		/* value */
	movq	24(%rbp), %rcx		/* nvalues */
	movl	16(%rbp), %r8d		/* bl */
	call	__pap_tally@PLT
	testl	%r12d, %r12d
	jz	.Lfxrstor
	movl	$-1, %eax
	movl	$-1, %edx
	xrstor	(%rsp)
	jmp	.Lout
.Lfxrstor:
	fxrstor64 (%rsp)
.Lout:
	leaq	-88(%rbp), %rsp
	popq	%r12
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rdi
	popq	%rsi
	popq	%rdx
	popq	%rcx
	popq	%rbx
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
