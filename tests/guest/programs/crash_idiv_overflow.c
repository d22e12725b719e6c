// INT64_MIN / -1 overflows: x86's idiv raises #DE (SIGFPE, status 136)
// even though the divisor is not zero.  AArch64's sdiv returns INT64_MIN.
#include <stdint.h>
#include <stdio.h>

int main(void) {
  volatile int64_t numerator = INT64_MIN, divisor = -1;
  volatile int32_t small = 100, ok_divisor = -1;
  printf("fine: %d\n", small / ok_divisor);
  printf("dividing INT64_MIN by -1\n");
  fflush(stdout);
  int64_t q = numerator / divisor;
  printf("not reached %lld\n", (long long)q);
  return 0;
}
