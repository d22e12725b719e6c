// Far transfers in 64-bit code: jmp far and call far through m16:32 and
// m16:64 (REX.W: Intel reads a 64-bit offset) to Linux's 64-bit code
// selector 0x33, far returns (lretl, lretq, with an immediate), how much
// the calls push; and #GP (SIGSEGV, SI_KERNEL, the selector as error
// code) for any other selector.
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>

#include "guest_common.h"

struct __attribute__((packed)) far32 { uint32_t off; uint16_t sel; };
struct __attribute__((packed)) far64 { uint64_t off; uint16_t sel; };

static sigjmp_buf back;
static volatile long si_code_seen, err_seen;
static void on_segv(int sig, siginfo_t *si, void *ctx) {
  si_code_seen = si->si_code;
  err_seen = ((ucontext_t *)ctx)->uc_mcontext.gregs[REG_ERR];
  siglongjmp(back, sig);
}

// REX.W far jmp/call read m16:64 on Intel CPUs, m16:32 on AMD ones, where
// these would jump to the offset's low half with a selector made of its
// upper bytes: model lines, run only on the model's vendor.
static void rex_w_forms(void) {
  static struct far64 t64;
  uint64_t r = 0, sp0, sp1;
  __asm__ volatile("lea 1f(%%rip), %%rax\n mov %%rax, %1\n movw $0x33, 8+%1\n rex.w ljmp *%1\n mov $5, %0\n 1: add $1, %0"
                   : "+r"(r), "+m"(t64) : : "rax", "memory");
  model_printf("ljmp m16:64: %lu\n", (unsigned long)r);
  __asm__ volatile("lea 2f(%%rip), %%rax\n mov %%rax, %2\n movw $0x33, 8+%2\n mov %%rsp, %0\n rex.w lcall *%2\n jmp 3f\n"
                   " 2: mov %%rsp, %1\n rex.w lret\n 3:"
                   : "=&r"(sp0), "=&r"(sp1), "+m"(t64) : : "rax", "memory");
  model_printf("lcall m16:64 pushes %ld bytes\n", (long)(sp0 - sp1));
  // lretq $16 drops 16 more bytes: RSP ends 16 above where the call began.
  __asm__ volatile("lea 2f(%%rip), %%rax\n mov %%rax, %2\n movw $0x33, 8+%2\n sub $16, %%rsp\n mov %%rsp, %0\n"
                   " rex.w lcall *%2\n jmp 3f\n 2: rex.w lret $16\n 3: mov %%rsp, %1\n"
                   : "=&r"(sp0), "=&r"(sp1), "+m"(t64) : : "rax", "memory");
  model_printf("lretq $16: rsp moved %ld\n", (long)(sp1 - sp0));
}

// The m16:32 forms reach only code below 4 GiB: not in a PIE.
static void m16_32_forms(void) {
  static struct far32 t32;
  uint64_t r = 0, sp0, sp1;
  __asm__ volatile("lea 1f(%%rip), %%rax\n mov %%eax, %1\n movw $0x33, 4+%1\n ljmpl *%1\n mov $5, %0\n 1: add $1, %0"
                   : "+r"(r), "+m"(t32) : : "rax", "memory");
  printf("ljmp m16:32: %lu\n", (unsigned long)r);
  __asm__ volatile("lea 2f(%%rip), %%rax\n mov %%eax, %2\n movw $0x33, 4+%2\n mov %%rsp, %0\n lcalll *%2\n jmp 3f\n"
                   " 2: mov %%rsp, %1\n lretl\n 3:"
                   : "=&r"(sp0), "=&r"(sp1), "+m"(t32) : : "rax", "memory");
  printf("lcall m16:32 pushes %ld bytes\n", (long)(sp0 - sp1));
}

int main(void) {
  static struct far32 t32;
  if ((uintptr_t)&m16_32_forms < 0x100000000ull)
    m16_32_forms();
  else
    printf("m16:32 forms: not run (the code is above 4 GiB)\n");
  if (cpu_is_intel()) {
    rex_w_forms();
  } else {  // as many model lines, in the same places
    model_printf("ljmp m16:64: not run (this CPU reads m16:32)\n");
    model_printf("lcall m16:64: not run\n");
    model_printf("lretq $16: not run\n");
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGSEGV, &sa, NULL);
  const uint16_t selectors[] = {0, 0x2b, 0x3b, 0x10};
  for (int i = 0; i < 4; i++) {
    t32.sel = selectors[i];
    int s = sigsetjmp(back, 1);
    if (s == 0) {
      __asm__ volatile("lea 1f(%%rip), %%rax\n mov %%eax, %0\n ljmpl *%0\n 1:" : "+m"(t32) : : "rax", "memory");
      printf("selector %04x: jumped\n", selectors[i]);
    } else {
      printf("selector %04x: signal %d, si_code %ld, err %#lx\n", selectors[i], s, si_code_seen, err_seen);
    }
  }
  return 0;
}
