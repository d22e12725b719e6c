// Integer division by zero: x86's idiv raises #DE, which Linux delivers as
// SIGFPE (status 136).  AArch64's sdiv would quietly return 0, so a
// translator has to check the divisor itself.
#include <stdio.h>

int main(void) {
  volatile int numerator = 1234, divisor = 0;
  printf("dividing by zero\n");
  fflush(stdout);
  int q = numerator / divisor;
  printf("not reached %d\n", q);
  return 0;
}
