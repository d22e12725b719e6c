// A static x86-64 program whose main starts with an AVX2 instruction.
// phybin presents no AVX2 and cannot translate it: it must stop with
// PHYBIN_ERR_ILLEGAL_INSTR (0x1003), naming the extension (AVX2) and the
// instruction (vpaddd).  The test never runs this program natively.
#include <stdio.h>

int main(void) {
  __asm__ volatile("vpaddd %%ymm0, %%ymm1, %%ymm2" ::: "xmm2");
  puts("reached only on a CPU with AVX2");
  return 0;
}
