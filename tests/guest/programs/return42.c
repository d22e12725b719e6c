// Returning 42 from main: the value travels through __libc_start_main's
// call to exit and must become the process's exit status.
#include <stdio.h>

int main(void) {
  volatile int result = 40;
  result += 2;
  printf("returning %d\n", result);
  return result;
}
