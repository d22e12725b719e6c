// Code that runs on from an executable page into the next page of the same
// mapping when that page is not executable (PROT_READ, PROT_NONE, or
// readable and writable): the fault comes at the first byte of the second
// page, with that address and RIP, however far before the boundary the
// code started, and for an instruction cut by the boundary (RIP at its
// start).  Then code that ran through both pages once (one block may span
// them) after the second page loses PROT_EXEC, and after it is unmapped.
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

static sigjmp_buf back;
static volatile uint64_t seen_addr, seen_rip;
static volatile int seen_code, seen_sig;
static char *page;

static void on_segv(int sig, siginfo_t *info, void *ctx) {
  seen_sig = sig;
  seen_code = info->si_code;
  seen_addr = (uint64_t)info->si_addr;
  seen_rip = (uint64_t)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
  siglongjmp(back, 1);
}

// Runs the code at `offset` bytes before the boundary and says what stopped it.
static void run(const char *what, int offset) {
  seen_sig = 0;
  if (sigsetjmp(back, 1) == 0) ((void (*)(void))(page + 4096 - offset))();
  const uint64_t boundary = (uint64_t)page + 4096;
  printf("%-34s from %2d before: signal %d code %d addr %+lld rip %+lld\n", what, offset, seen_sig, seen_code,
         seen_sig ? (long long)(seen_addr - boundary) : 0, seen_sig ? (long long)(seen_rip - boundary) : 0);
}

// nops over both pages, a ret at the end of the second, the second page
// with `second`'s protection.
static void fill(int second) {
  mprotect(page, 8192, PROT_READ | PROT_WRITE);
  memset(page, 0x90, 8192);
  page[8191] = (char)0xc3;
  mprotect(page, 4096, PROT_READ | PROT_EXEC);
  mprotect(page + 4096, 4096, second);
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);
  page = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  const struct {
    const char *name;
    int prot;
  } seconds[] = {{"into PROT_READ", PROT_READ}, {"into PROT_NONE", PROT_NONE},
                 {"into PROT_READ|PROT_WRITE", PROT_READ | PROT_WRITE}};
  for (int i = 0; i < 3; i++)
    for (int offset = 1; offset <= 64; offset *= 4) {
      fill(seconds[i].prot);
      run(seconds[i].name, offset);
    }
  fill(PROT_READ);
  mprotect(page, 4096, PROT_READ | PROT_WRITE);
  page[4094] = (char)0xb8;  // mov $imm32, %eax: 5 bytes, 3 of them on the second page
  mprotect(page, 4096, PROT_READ | PROT_EXEC);
  run("a mov cut by the boundary", 16);

  fill(PROT_READ | PROT_EXEC);
  run("both executable", 16);
  run("both executable, again", 16);
  mprotect(page + 4096, 4096, PROT_READ);
  run("then the second PROT_READ", 16);
  mprotect(page + 4096, 4096, PROT_READ | PROT_EXEC);
  run("executable again", 16);
  munmap(page + 4096, 4096);
  run("then the second unmapped", 16);
  return 0;
}
