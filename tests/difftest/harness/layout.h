/* Shared by the x86-64 harness (C, assembly) and the driver (C++): where a
 * case's memory and the state blocks live.  The addresses are fixed so that
 * the generated case code can address them absolutely (disp32) and stays
 * the same bytes natively and under phybin (guest address == host address).
 * They lie above the range where the kernel puts a static program's brk
 * heap (up to 1 GB above its .bss) and below 2 GB (disp32). */
#ifndef DIFFTEST_LAYOUT_H
#define DIFFTEST_LAYOUT_H

#define DT_CODE_BASE 0x50000000   /* case code, mapped read+exec once */
#define DT_CODE_RESERVE 0x08000000 /* room for the code of one case file */
#define DT_DATA_BASE 0x60000000   /* the memory area cases read and write */
#define DT_DATA_SIZE 512          /* compared after each case */
#define DT_OPERAND_SIZE 256       /* [0,256): memory operands; [256,512): stack */
#define DT_STACK_TOP (DT_DATA_BASE + 0x180) /* initial RSP: room to push and pop */
#define DT_CTL_BASE 0x60001000    /* state blocks the case prologue/epilogue use */

/* Offsets inside the control page (fxsave areas first: 16-byte aligned). */
#define DT_CTL_IN_FX 0x000
#define DT_CTL_OUT_FX 0x200
#define DT_CTL_IN_GPR 0x400
#define DT_CTL_IN_FLAGS 0x480
#define DT_CTL_OUT_GPR 0x500
#define DT_CTL_OUT_FLAGS 0x588    /* pushfq with RSP = 0x590 writes here */
#define DT_CTL_HOST_RSP 0x600
#define DT_CTL_RETURN 0x608

#define DT_CASE_MAGIC 0x31435444u   /* "DTC1" */
#define DT_RESULT_MAGIC 0x31525444u /* "DTR1" */

#ifndef __ASSEMBLER__
#include <stdint.h>
/* Initial state of one case in the case file; the final state in the result
 * file has the same shape plus the signal that ended the case (0: none). */
struct dt_state {
  uint64_t gpr[16]; /* rax rcx rdx rbx rsp rbp rsi rdi r8..r15 */
  uint64_t rflags;
  uint64_t signal;
  uint8_t fx[512]; /* fxsave image: x87, MXCSR, XMM */
  uint8_t mem[DT_DATA_SIZE];
};
/* Case file: u32 magic, u32 ncases, u32 code size, code bytes, then per case
 * u32 entry offset (into the code) and a dt_state.  Result file: u32 magic,
 * u32 ncases, then one dt_state per case. */
#endif
#endif
