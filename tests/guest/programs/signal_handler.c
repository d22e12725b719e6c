// Signal delivery to guest handlers: raise() with sigaction handlers
// (SA_SIGINFO with si_signo/si_code), a blocked signal left pending and
// delivered on unblock, SA_RESETHAND, a handler interrupting a loop via
// kill(getpid()), a SIGSEGV handler that recovers with siglongjmp (the
// fault address is checked against the pointer used), sigaltstack, and
// SIGFPE from an integer division caught by a handler.
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t hits[65];
static volatile int last_code;
static sigjmp_buf recover;
static void *volatile fault_addr;

static void counting(int sig, siginfo_t *info, void *ctx) {
  (void)ctx;
  hits[sig]++;
  last_code = info->si_code;
}

static void on_segv(int sig, siginfo_t *info, void *ctx) {
  (void)sig;
  (void)ctx;
  fault_addr = info->si_addr;
  siglongjmp(recover, 1);
}

static void on_fpe(int sig, siginfo_t *info, void *ctx) {
  (void)sig;
  (void)ctx;
  last_code = info->si_code;
  siglongjmp(recover, 2);
}

static char alt_stack_used;
static char alt_stack[1 << 16];

static void on_alt(int sig) {
  char here;
  (void)sig;
  alt_stack_used = &here >= alt_stack && &here < alt_stack + sizeof alt_stack;
}

static void install(int sig, void (*fn)(int, siginfo_t *, void *), int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = fn;
  sa.sa_flags = SA_SIGINFO | flags;
  sigemptyset(&sa.sa_mask);
  sigaction(sig, &sa, NULL);
}

int main(void) {
  install(SIGUSR1, counting, 0);
  install(SIGUSR2, counting, SA_RESETHAND);
  raise(SIGUSR1);
  raise(SIGUSR1);
  printf("SIGUSR1 hits %d, si_code is SI_TKILL: %d\n", hits[SIGUSR1], last_code == SI_TKILL);
  raise(SIGUSR2);
  struct sigaction now;
  sigaction(SIGUSR2, NULL, &now);
  printf("SIGUSR2 hits %d, reset to default: %d\n", hits[SIGUSR2], now.sa_handler == SIG_DFL);

  sigset_t block, old, pending;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigprocmask(SIG_BLOCK, &block, &old);
  kill(getpid(), SIGUSR1);
  sigpending(&pending);
  printf("pending while blocked: %d, hits still %d\n", sigismember(&pending, SIGUSR1), hits[SIGUSR1]);
  sigprocmask(SIG_SETMASK, &old, NULL);
  printf("after unblock hits %d, si_code is SI_USER: %d\n", hits[SIGUSR1], last_code == SI_USER);

  install(SIGSEGV, on_segv, SA_NODEFER);
  int *bad = (int *)(uintptr_t)0x10;
  for (int round = 0; round < 3; round++) {
    if (sigsetjmp(recover, 1) == 0) {
      *(volatile int *)bad = round;
      printf("not reached\n");
    } else {
      printf("recovered from SIGSEGV %d, address matches: %d\n", round, fault_addr == (void *)bad);
    }
  }

  install(SIGFPE, on_fpe, 0);
  volatile int num = 7, den = 0;
  if (sigsetjmp(recover, 1) == 0) {
    printf("not reached %d\n", num / den);
  } else {
    printf("caught SIGFPE, si_code FPE_INTDIV: %d\n", last_code == FPE_INTDIV);
  }

  stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alt;
  sa.sa_flags = SA_ONSTACK;
  sigaction(SIGUSR2, &sa, NULL);
  raise(SIGUSR2);
  printf("handler ran on the alternate stack: %d\n", alt_stack_used);

  signal(SIGUSR1, SIG_IGN);
  raise(SIGUSR1);
  printf("ignored signal survived\n");
  return 0;
}
