// exit(3) from a nested call, after output that is still in stdio's buffer
// (stdout is a file or pipe here, so fully buffered): exit must flush it.
#include <stdio.h>
#include <stdlib.h>

// Every path ends in exit(), which GCC sees as endless recursion.
#pragma GCC diagnostic ignored "-Winfinite-recursion"
static void leave(int depth) {
  if (depth == 0) {
    printf("leaving from depth 0\n");
    exit(3);
  }
  printf("depth %d\n", depth);
  leave(depth - 1);
}

int main(void) {
  printf("buffered line before exit\n");
  leave(5);
  printf("not reached\n");
  return 0;
}
