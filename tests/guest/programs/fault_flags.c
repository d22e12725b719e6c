// The RFLAGS a SIGSEGV or SIGFPE handler finds in its context are those
// at the faulting instruction, also where the code after it overwrites
// them before reading (the translator may leave such flags uncomputed):
// an arithmetic op, then a faulting load, store or divide, then a compare
// that sets every flag again.  (Not yet right after shifts, rotates,
// adc/sbb, inc/dec and multiplies: README "Not yet".)  The handler prints the status flags of
// its context and skips the faulting instruction.
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

static sigjmp_buf back;
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

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGFPE, &sa, NULL);
  const uint64_t vals[][2] = {{1, 2}, {0, 0}, {0x7fffffffffffffff, 1}, {0x8000000000000000, 0x8000000000000000},
                              {0xff, 1}, {5, 5}};
  for (unsigned i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    printf("a %016llx b %016llx\n", (unsigned long long)vals[i][0], (unsigned long long)vals[i][1]);
    add_then_load(vals[i][0], vals[i][1]);
    sub_then_store(vals[i][0], vals[i][1]);
    xor_then_load(vals[i][0], vals[i][1]);
    add_then_div(vals[i][0], vals[i][1]);
    neg_then_load(vals[i][0], vals[i][1]);
  }
  return 0;
}
