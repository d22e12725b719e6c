// The smallest useful program: the base of the bad-input files (built for
// AArch64, dynamically linked, or static and then truncated or patched).
#include <stdio.h>

int main(void) {
  puts("hello");
  return 0;
}
