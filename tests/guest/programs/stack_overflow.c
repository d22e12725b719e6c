// Unbounded recursion on the main thread's stack: the SIGSEGV handler, on
// its alternate stack, sees what the kernel reports for the guard gap below
// the stack, SEGV_MAPERR (no mapping there), at an address about the stack
// limit below where main's frame is; then a thread's stack overflow, whose
// guard page glibc maps PROT_NONE: SEGV_ACCERR.
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static char *stack_top;
static uint64_t limit;
static sigjmp_buf back;
static volatile int seen_code;
static volatile uint64_t seen_depth;

static void on_segv(int sig, siginfo_t *info, void *ctx) {
  (void)sig;
  (void)ctx;
  seen_code = info->si_code;
  seen_depth = (uint64_t)(stack_top - (char *)info->si_addr);
  siglongjmp(back, 1);
}

#pragma GCC diagnostic ignored "-Winfinite-recursion"
static int deep(int n) {
  volatile char pad[1000];
  pad[0] = (char)n;
  return deep(n + 1) + pad[0];
}

static void *overflow_here(void *arg) {
  static char alt[2][1 << 16];  // sigaltstack is per thread: one each
  static int calls;
  stack_t ss = {.ss_sp = alt[calls++ & 1], .ss_size = sizeof alt[0]};
  sigaltstack(&ss, NULL);
  char here;
  stack_top = &here;
  limit = (uint64_t)(uintptr_t)arg;
  if (sigsetjmp(back, 1) == 0) deep(0);
  return NULL;
}

static void report(const char *what) {
  printf("%s: si_code %d (%s), fault within 256 KiB of the limit below the start: %s\n", what, seen_code,
         seen_code == 1 ? "SEGV_MAPERR" : seen_code == 2 ? "SEGV_ACCERR" : "other",
         seen_depth <= limit + (256u << 10) && seen_depth + (256u << 10) >= limit ? "yes" : "no");
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigaction(SIGSEGV, &sa, NULL);
  struct rlimit r;
  getrlimit(RLIMIT_STACK, &r);
  if (r.rlim_cur != 8u << 20) {
    printf("the stack limit is not 8 MiB\n");
    return 1;
  }
  overflow_here((void *)(uintptr_t)r.rlim_cur);
  report("main thread");
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 20);
  pthread_t t;
  pthread_create(&t, &attr, overflow_here, (void *)(uintptr_t)(1 << 20));
  pthread_join(t, NULL);
  report("thread");
  return 0;
}
