// A write through a null pointer must kill the process with SIGSEGV (the
// shell reports status 139), after the output flushed before it.  Under
// phybin the guest's fault must look the same, not like a crash of phybin.
#include <stdio.h>

int main(void) {
  printf("about to write through a null pointer\n");
  fflush(stdout);
  volatile int *volatile p = NULL;
  *p = 42;
  printf("not reached\n");
  return 0;
}
