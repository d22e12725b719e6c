/* run_case(entry): enters a case's code at entry.  The case's own prologue
 * loads the initial state (generated with the case, see driver/assemble.cpp)
 * and its epilogue saves the final state, puts our RSP back from the control
 * page and jumps to the address stored there, which is case_done below. */
#include "layout.h"

        .intel_syntax noprefix
        .text
        .globl run_case
        .type run_case, @function
run_case:
        push rbx
        push rbp
        push r12
        push r13
        push r14
        push r15
        sub rsp, 8                       /* keep the C stack 16-byte aligned */
        mov qword ptr [DT_CTL_BASE + DT_CTL_HOST_RSP], rsp
        lea rax, [rip + case_done]
        mov qword ptr [DT_CTL_BASE + DT_CTL_RETURN], rax
        jmp rdi
case_done:
        /* the case may leave DF set, the x87 stack full or MXCSR changed:
         * give C code back what the ABI promises */
        cld
        fninit
        ldmxcsr dword ptr [rip + default_mxcsr]
        add rsp, 8
        pop r15
        pop r14
        pop r13
        pop r12
        pop rbp
        pop rbx
        ret
        .size run_case, . - run_case

        .section .rodata
        .p2align 2
default_mxcsr:
        .long 0x1f80
        .section .note.GNU-stack, "", @progbits
