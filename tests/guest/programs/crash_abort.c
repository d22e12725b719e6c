// abort() raises SIGABRT (status 134 in the shell); output flushed before
// stays, output still in the stdio buffer at the abort is lost.
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  printf("flushed before abort\n");
  fflush(stdout);
  printf("buffered, lost by abort\n");
  abort();
}
