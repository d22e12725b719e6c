// Fetching code where there is none: a call through a NULL function
// pointer, a jump into a data array and onto the stack (not executable),
// code that runs off the end of its mapping by falling through or with an
// instruction cut at the end, and code whose page was unmapped or made
// PROT_NONE / PROT_READ after it ran once.  Each time the SIGSEGV handler
// reports si_code, si_addr and the RIP of its context (relative to the
// code's own page where it is one of ours), then leaves with siglongjmp.
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

static sigjmp_buf back;
static volatile uintptr_t base;  // what addresses are printed relative to
static volatile int code_seen;
static volatile uintptr_t addr_seen, rip_seen;

static void on_segv(int sig, siginfo_t *si, void *ctx) {
  ucontext_t *uc = ctx;
  (void)sig;
  code_seen = si->si_code;
  addr_seen = (uintptr_t)si->si_addr;
  rip_seen = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
  siglongjmp(back, 1);
}

static void report(const char *what) {
  printf("%-24s SIGSEGV code %d addr %+ld rip %+ld\n", what, code_seen, (long)(addr_seen - base),
         (long)(rip_seen - base));
}

typedef void (*fn)(void);

static void try_call(const char *what, uintptr_t target, uintptr_t relative_to) {
  base = relative_to;
  if (sigsetjmp(back, 1) == 0) {
    ((fn)target)();
    printf("%-24s returned\n", what);
    return;
  }
  report(what);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGSEGV, &sa, NULL);
  const long page = sysconf(_SC_PAGESIZE);

  try_call("null pointer", 0, 0);
  static unsigned char data[64] = {0xc3};  // a ret, but in .data
  try_call("data array", (uintptr_t)data, (uintptr_t)data);
  unsigned char on_stack[16] = {0xc3};
  try_call("stack", (uintptr_t)on_stack, (uintptr_t)on_stack);

  // Two pages of code; the second is unmapped or made inaccessible below.
  unsigned char *code = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return 1;
  unsigned char *second = code + page;
  memset(code, 0x90, 2 * page);  // nops all the way
  // At the end of the first page: a 5-byte mov cut by the boundary, its
  // last three bytes the first three of the second page, then a ret.
  unsigned char *cut = second - 2;
  cut[0] = 0xb8, cut[1] = 0x01;
  second[3] = 0xc3;
  unsigned char *fall = second - 64;  // nops that fall into the second page
  mprotect(code, 2 * page, PROT_READ | PROT_EXEC);
  try_call("falls through, mapped", (uintptr_t)fall, (uintptr_t)second);
  try_call("jump, mapped", (uintptr_t)second + 3, (uintptr_t)second);

  mprotect(second, page, PROT_READ);
  try_call("falls into PROT_READ", (uintptr_t)fall, (uintptr_t)second);
  try_call("cut by PROT_READ", (uintptr_t)cut, (uintptr_t)second);
  try_call("jump to PROT_READ", (uintptr_t)second + 3, (uintptr_t)second);
  mprotect(second, page, PROT_NONE);
  try_call("falls into PROT_NONE", (uintptr_t)fall, (uintptr_t)second);
  try_call("jump to PROT_NONE", (uintptr_t)second + 3, (uintptr_t)second);
  munmap(second, page);
  try_call("falls into unmapped", (uintptr_t)fall, (uintptr_t)second);
  try_call("cut by unmapped", (uintptr_t)cut, (uintptr_t)second);
  try_call("jump to unmapped", (uintptr_t)second + 3, (uintptr_t)second);
  // The first page made PROT_NONE after its code ran.
  mprotect(code, page, PROT_NONE);
  try_call("ran, then PROT_NONE", (uintptr_t)fall, (uintptr_t)second);
  munmap(code, page);
  try_call("ran, then unmapped", (uintptr_t)fall, (uintptr_t)second);
  return 0;
}
