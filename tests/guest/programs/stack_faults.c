// Stack and pointer-bump accesses that fault leave every register as it was
// before the faulting instruction: push, a run of pushes, pop, call and
// ret at a PROT_NONE page, and a load or store followed by a bump of its
// pointer.  (phybin does such an access and its register update in one
// AArch64 instruction with writeback; the fault must see neither.)  The
// handler runs on the sigaltstack and prints RSP, RIP and the registers
// involved, relative to the page and the faulting instruction.
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "guest_altstack.h"

static sigjmp_buf back;
static volatile uint64_t f_rsp, f_rip, f_rbx, f_rsi, f_addr;

static void on_segv(int sig, siginfo_t *si, void *vctx) {
  const ucontext_t *uc = vctx;
  f_rsp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
  f_rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
  f_rbx = (uint64_t)uc->uc_mcontext.gregs[REG_RBX];
  f_rsi = (uint64_t)uc->uc_mcontext.gregs[REG_RSI];
  f_addr = (uint64_t)si->si_addr;
  siglongjmp(back, sig);
}

// Each case loads RSP (and RBX/RSI) from `at`, runs code whose instruction
// at the global label `<name>_at` faults, and never comes back by itself.
#define CASE(name, code)                                                                  \
  extern char name##_at[];                                                                \
  __attribute__((noinline)) static void name(uint64_t at) {                              \
    __asm__ volatile("mov %0, %%rsi\n mov $0x5151, %%rbx\n mov $0x7777, %%rax\n" code    \
                     : : "r"(at) : "rax", "rbx", "rsi", "memory");                         \
  }

CASE(push_one, "mov %%rsi, %%rsp\n .globl push_one_at\n push_one_at: push %%rax\n")
CASE(push_third, "mov %%rsi, %%rsp\n push %%rax\n push %%rbx\n .globl push_third_at\n push_third_at: push %%rax\n")
CASE(push_word, "mov %%rsi, %%rsp\n .globl push_word_at\n push_word_at: pushw $7\n")
CASE(pop_one, "mov %%rsi, %%rsp\n .globl pop_one_at\n pop_one_at: pop %%rbx\n")
CASE(pop_second, "mov %%rsi, %%rsp\n pop %%rax\n .globl pop_second_at\n pop_second_at: pop %%rbx\n")
CASE(ret_one, "mov %%rsi, %%rsp\n .globl ret_one_at\n ret_one_at: ret\n")
CASE(call_one, "mov %%rsi, %%rsp\n .globl call_one_at\n call_one_at: call 1f\n 1: ud2\n")
CASE(load_bump, ".globl load_bump_at\n load_bump_at: mov (%%rsi), %%rbx\n add $8, %%rsi\n")
CASE(load_bump_word, ".globl load_bump_word_at\n load_bump_word_at: movzwl (%%rsi), %%ebx\n add $2, %%rsi\n")
CASE(store_bump, ".globl store_bump_at\n store_bump_at: mov %%rbx, (%%rsi)\n add $8, %%rsi\n")
CASE(store_before, ".globl store_before_at\n store_before_at: mov %%rbx, -8(%%rsi)\n lea -8(%%rsi), %%rsi\n")

struct Case {
  const char *name;
  void (*run)(uint64_t);
  const char *at;
  int top;         // offset from the upper guard page (else from the lower one's end)
  int64_t offset;
  int stack;       // RSP is the case's (else it is the C stack's: not printed)
};

int main(void) {
  segv_handler_on_altstack(on_segv);
  // [m, m + 4096) and [m + 8192, m + 12288) are PROT_NONE; the page
  // between them is the stack.
  char *m = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return 1;
  mprotect(m, 4096, PROT_NONE);
  mprotect(m + 8192, 4096, PROT_NONE);
  const struct Case cases[] = {
      {"push at the guard", push_one, push_one_at, 0, 0, 1},
      {"third push at the guard", push_third, push_third_at, 0, 16, 1},
      {"pushw at the guard", push_word, push_word_at, 0, 0, 1},
      {"pop from the guard", pop_one, pop_one_at, 1, 0, 1},
      {"second pop from the guard", pop_second, pop_second_at, 1, -8, 1},
      {"ret from the guard", ret_one, ret_one_at, 1, 0, 1},
      {"call at the guard", call_one, call_one_at, 0, 0, 1},
      {"load then bump", load_bump, load_bump_at, 0, -64, 0},
      {"load word then bump", load_bump_word, load_bump_word_at, 1, 0, 0},
      {"store then bump", store_bump, store_bump_at, 0, -8, 0},
      {"store below then step down", store_before, store_before_at, 0, 0, 0},
  };
  for (volatile size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {  // volatile: kept across siglongjmp
    const struct Case *c = &cases[i];
    const uint64_t base = (uint64_t)m + (c->top ? 8192 : 4096);
    f_rsp = f_rip = f_rbx = f_rsi = f_addr = 0;
    if (sigsetjmp(back, 1) == 0) {
      c->run(base + (uint64_t)c->offset);
      printf("%s: no fault\n", c->name);
      continue;
    }
    printf("%s: rip %+lld, rsi %+lld, rbx %#llx, address %+lld", c->name, (long long)(f_rip - (uint64_t)c->at),
           (long long)(f_rsi - base), (unsigned long long)f_rbx, (long long)(f_addr - base));
    if (c->stack) printf(", rsp %+lld", (long long)(f_rsp - base));
    printf("\n");
  }
  return 0;
}
