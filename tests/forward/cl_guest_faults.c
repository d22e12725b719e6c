// The guest's own fault handling after OpenCL started: PoCL's LLVM then
// has installed crash handlers for SIGSEGV and SIGBUS, natively its own;
// under phybin, phybin's stay in place (translated code's faults and
// protected code pages arrive there) and the guest's handler gets its
// faults.  The program reads a PROT_NONE page three times; its handler
// counts, opens the page and the read goes on.  The same source built for
// AArch64 and run natively prints the same.
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cl_common.h"

static volatile int faults;
static char *page;
static long page_size;

static void on_fault(int sig, siginfo_t *info, void *context) {
  (void)context;
  if (sig != SIGSEGV || (char *)info->si_addr != page) _exit(3);
  ++faults;
  mprotect(page, (size_t)page_size, PROT_READ | PROT_WRITE);
}

int main(void) {
  struct cl_setup cl = cl_open();
  cl_program program = cl_build(&cl, "__kernel void nop(__global int *x) { x[0] = 1; }\n", NULL, NULL);
  page_size = sysconf(_SC_PAGESIZE);
  page = mmap(NULL, (size_t)page_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return 2;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &sa, NULL);
  int sum = 0;
  for (int i = 0; i < 3; ++i) {
    sum += page[i * 64];  // faults: the handler opens the page
    mprotect(page, (size_t)page_size, PROT_NONE);
  }
  printf("faults handled by the program: %d, sum %d\n", faults, sum);
  clReleaseProgram(program);
  cl_close(&cl);
  return 0;
}
