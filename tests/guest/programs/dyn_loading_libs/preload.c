// LD_PRELOAD'ed into dyn_loading: its constructor runs before main, and its
// rand() interposes libc's.
#include <stdio.h>

__attribute__((constructor)) static void announce(void) {
  printf("  preload constructor ran\n");
  fflush(stdout);
}

int rand(void) { return 4242; }
