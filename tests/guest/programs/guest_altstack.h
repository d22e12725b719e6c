// A SIGSEGV handler (SA_SIGINFO, not blocked while it runs) on a stack of
// its own, for guest programs whose faults happen with RSP at memory that
// cannot be written.
#ifndef GUEST_ALTSTACK_H
#define GUEST_ALTSTACK_H

#include <signal.h>
#include <string.h>

static inline void segv_handler_on_altstack(void (*handler)(int, siginfo_t *, void *)) {
  static char altstack[65536];
  stack_t ss = {altstack, 0, sizeof altstack};
  sigaltstack(&ss, NULL);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigaction(SIGSEGV, &sa, NULL);
}

#endif
