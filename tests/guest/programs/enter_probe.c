// enter checks that the final RSP can be written before it completes: with
// the frame reaching into a PROT_NONE page below a small stack, enter
// faults at level 0, 1 and 2 with the final RSP as the fault address
// (printed relative to the stack's top), on a handler on the sigaltstack.
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "guest_altstack.h"

static sigjmp_buf back;
static volatile uintptr_t fault_addr;
static void on_segv(int sig, siginfo_t *si, void *ctx) {
  (void)ctx;
  fault_addr = (uintptr_t)si->si_addr;
  siglongjmp(back, sig);
}

// RSP and RBP are kept in registers across (a fault returns by siglongjmp).
#define ENTER(level)                                                                                   \
  __asm__ volatile("mov %%rsp, %0\n mov %%rbp, %1\n mov %2, %%rsp\n mov %%rsp, %%rbp\n"                \
                   " enter $0x1100, $" #level "\n mov %0, %%rsp\n mov %1, %%rbp"                         \
                   : "=&r"(saved_sp), "=&r"(saved_bp) : "r"(top) : "memory")

int main(void) {
  segv_handler_on_altstack(on_segv);
  char *m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return 1;
  mprotect(m, 4096, PROT_NONE);
  const uintptr_t top = (uintptr_t)m + 8192 - 64;
  for (volatile int level = 0; level < 3; level++) {
    uintptr_t saved_sp, saved_bp;
    int s = sigsetjmp(back, 1);
    if (s == 0) {
      if (level == 0) ENTER(0);
      else if (level == 1) ENTER(1);
      else ENTER(2);
      printf("level %d: no fault\n", level);
    } else {
      printf("level %d: signal %d at top-%ld\n", level, s, (long)(top - fault_addr));
    }
  }
  return 0;
}
