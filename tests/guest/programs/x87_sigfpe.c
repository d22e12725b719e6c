// Unmasked x87 exceptions.  A child unmasks divide-by-zero while the flag
// is already set from a masked 1/0: the fldcw inside feenableexcept makes
// it pending and the next x87 instruction delivers SIGFPE; the parent
// reports how the child died.  Then the parent unmasks with clean flags,
// divides by zero, and dies of SIGFPE itself (status 136).
#define _GNU_SOURCE  // feenableexcept
#include <fenv.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long double one = 1.0L, zero = 0.0L;

int main(void) {
  volatile long double r = one / 3;
  printf("masked: 1/3 ok, 1/0 = %Lg\n", one / zero);
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    r = one / zero;  // ZE set, masked
    feenableexcept(FE_DIVBYZERO);
    r = r + one;  // the pending exception is delivered here
    printf("child: not reached\n");
    return 0;
  }
  int status = 0;
  waitpid(child, &status, 0);
  printf("child: %s %d\n", WIFSIGNALED(status) ? "signal" : "exit",
         WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
  feclearexcept(FE_ALL_EXCEPT);
  feenableexcept(FE_DIVBYZERO);
  printf("unmasked divide by zero next\n");
  fflush(stdout);
  r = one / zero;
  printf("not reached %Lg\n", r);
  return 0;
}
