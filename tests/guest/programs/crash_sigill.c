// __builtin_trap() compiles to ud2, which raises SIGILL (status 132).  The
// guest must die of the signal: ud2 is a valid instruction to translate,
// not an untranslatable one that phybin should report as its own error.
#include <stdio.h>

int main(void) {
  printf("executing ud2\n");
  fflush(stdout);
  __builtin_trap();
}
