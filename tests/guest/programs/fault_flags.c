// The RFLAGS a SIGSEGV or SIGFPE handler finds in its context are those
// at the faulting instruction, also where the code after it overwrites
// them before reading (the translator may leave such flags uncomputed):
// an arithmetic op, then a faulting load, store or divide, then a compare
// that sets every flag again.  Also after inc/dec, rotates,
// multiplies and memory operands; after shifts ZF, SF and PF (their CF
// comes from bits shifted out) but not adc/sbb (README "Not yet").  The handler prints the
// status flags of its context and skips the faulting instruction.
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

static sigjmp_buf back;
__attribute__((used)) uint64_t mem_slot;  // the memory operand of the *_mem cases
static volatile uint64_t seen, defined;  // the flags the op before the fault defines

static void on_fault(int sig, siginfo_t *si, void *ctx) {
  (void)si;
  seen = ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_EFL] & defined;
  printf("  signal %d, flags %03llx\n", sig, (unsigned long long)seen);
  siglongjmp(back, 1);
}

#define CASE(name, mask, setup, fault)                                                  \
  static void name(uint64_t a, uint64_t b) {                                           \
    volatile uint64_t out = 0;                                                         \
    defined = mask;                                                                    \
    if (sigsetjmp(back, 1) == 0) {                                                     \
      uint64_t x = a, y = b, z = 0;                                                    \
      __asm__ volatile(setup "\n" fault "\n cmp %1, %0\n setne %b2"                    \
                       : "+r"(x), "+r"(y), "+r"(z) : : "cc", "memory", "rax", "rdx");  \
      out = x + y + z;                                                                 \
    }                                                                                  \
    (void)out;                                                                         \
  }
// Masks: CF PF AF ZF SF OF = 0x8d5; logic ops leave AF undefined, shifts
// by more than 1 AF and OF.
CASE(add_then_load, 0x8d5, "add %1, %0", "movq 0, %%rax")
CASE(sub_then_store, 0x8d5, "sub %1, %0", "movq %%rax, 8")
CASE(xor_then_load, 0x8c5, "xor %1, %0", "movl 16, %%eax")
CASE(add_then_div, 0x8d5, "xor %%edx, %%edx\n xor %%eax, %%eax\n add %1, %0", "divq %2")
CASE(neg_then_load, 0x8d5, "neg %0", "addq 24, %%rax")
// inc/dec keep CF, which comes from code before the case: not compared.
CASE(inc_then_load, 0x8d4, "inc %0", "movq 0, %%rax")
CASE(dec_then_store, 0x8d4, "decl %k0", "movq %%rax, 8")
CASE(rol_then_load, 0x001, "rol $3, %0", "movq 0, %%rax")
CASE(ror1_then_load, 0x801, "ror $1, %0", "movq 0, %%rax")
CASE(shl_then_load, 0x0c4, "shl $5, %0", "movq 0, %%rax")
CASE(sar1_then_load, 0x8c4, "sar $1, %0", "movq 0, %%rax")
CASE(mul_then_load, 0x801, "mov %0, %%rax\n mulq %1", "movl 16, %%eax")
CASE(imul3_then_load, 0x801, "imul $1000003, %1, %0", "movq 0, %%rax")
CASE(add_mem_src, 0x8d5, "mov %1, mem_slot(%%rip)\n add mem_slot(%%rip), %0", "movq 0, %%rax")
CASE(add_mem_dst, 0x8d5, "mov %1, mem_slot(%%rip)\n add %0, mem_slot(%%rip)", "movq 0, %%rax")
CASE(cmp_mem_imm, 0x8d5, "mov %1, mem_slot(%%rip)\n cmpq $77, mem_slot(%%rip)", "movq 0, %%rax")
CASE(test_mem_reg, 0x8c5, "mov %1, mem_slot(%%rip)\n test %0, mem_slot(%%rip)", "movq 0, %%rax")

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGFPE, &sa, NULL);
  const uint64_t vals[][2] = {{1, 2}, {0, 0}, {0x7fffffffffffffff, 1}, {0x8000000000000000, 0x8000000000000000},
                              {0xff, 1}, {5, 5}, {0xffffffff, 0x80000001}, {0x0f0f0f0f0f0f0f0f, 77},
                              {0xfffffffffffffffe, 3}};
  for (unsigned i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    printf("a %016llx b %016llx\n", (unsigned long long)vals[i][0], (unsigned long long)vals[i][1]);
    add_then_load(vals[i][0], vals[i][1]);
    sub_then_store(vals[i][0], vals[i][1]);
    xor_then_load(vals[i][0], vals[i][1]);
    add_then_div(vals[i][0], vals[i][1]);
    neg_then_load(vals[i][0], vals[i][1]);
    inc_then_load(vals[i][0], vals[i][1]);
    dec_then_store(vals[i][0], vals[i][1]);
    rol_then_load(vals[i][0], vals[i][1]);
    ror1_then_load(vals[i][0], vals[i][1]);
    shl_then_load(vals[i][0], vals[i][1]);
    sar1_then_load(vals[i][0], vals[i][1]);
    mul_then_load(vals[i][0], vals[i][1]);
    imul3_then_load(vals[i][0], vals[i][1]);
    add_mem_src(vals[i][0], vals[i][1]);
    add_mem_dst(vals[i][0], vals[i][1]);
    cmp_mem_imm(vals[i][0], vals[i][1]);
    test_mem_reg(vals[i][0], vals[i][1]);
  }
  return 0;
}
