// Loops whose every memory access is volatile, so each load and store is
// really executed in order: counters, a volatile array walked forwards and
// backwards, read-after-write through aliasing pointers, and a busy loop
// whose exit depends on a value re-read every iteration.
#include <inttypes.h>
#include <stdio.h>

static volatile uint32_t counter;
static volatile uint64_t wide_counter;
static volatile unsigned char bytes[4096];

int main(void) {
  for (int i = 0; i < 200000; i++) counter++;
  printf("counter %" PRIu32 "\n", counter);
  for (int i = 0; i < 100000; i++) wide_counter += (uint64_t)i * 3;
  printf("wide %" PRIu64 "\n", wide_counter);

  for (int i = 0; i < 4096; i++) bytes[i] = (unsigned char)(i * 31);
  uint32_t fwd = 0, back = 0;
  for (int i = 0; i < 4096; i++) fwd = fwd * 33 + bytes[i];
  for (int i = 4095; i >= 0; i--) back = back * 33 + bytes[i];
  printf("fwd %08" PRIx32 " back %08" PRIx32 "\n", fwd, back);

  // Two views of the same memory: the store through one must be seen by
  // the load through the other.
  volatile uint32_t word = 0;
  volatile unsigned char *as_bytes = (volatile unsigned char *)&word;
  uint32_t seen = 0;
  for (int i = 0; i < 1000; i++) {
    word = (uint32_t)i * 0x01010101u;
    as_bytes[i & 3] = 0xff;
    seen = seen * 7 + word;
  }
  printf("alias %08" PRIx32 "\n", seen);

  volatile int stop_at = 123457;
  int spins = 0;
  volatile int value = 0;
  while (value != stop_at) {
    value = value + 1;
    spins++;
  }
  printf("spins %d\n", spins);

  // Nested loops with volatile bounds, and a do-while counting down.
  volatile int rows = 300, cols = 200;
  uint64_t cells = 0;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) cells += (uint64_t)(r ^ c);
  printf("cells %" PRIu64 "\n", cells);
  volatile int down = 50000;
  int steps = 0;
  do {
    down = down - 3;
    steps++;
  } while (down > 0);
  printf("down %d steps %d\n", down, steps);
  return 0;
}
