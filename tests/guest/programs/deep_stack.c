// Deep recursion: 100,000 nested calls with a small frame (a few MB of
// stack, well inside the default 8 MB limit), with values kept in each
// frame and checked on the way back up; then a large local array.
#include <stdio.h>
#include <string.h>

__attribute__((noinline)) static unsigned long descend(unsigned long n, unsigned long acc) {
  volatile unsigned long keep = n * 2654435761ul ^ acc;  // lives in this frame
  if (n == 0) return acc;
  unsigned long below = descend(n - 1, acc + (n & 7));
  return below + (keep == (n * 2654435761ul ^ acc) ? 1 : 1000000);
}

__attribute__((noinline)) static unsigned long big_frame(int seed) {
  volatile unsigned char buf[1 << 20];  // 1 MB on the stack, touched sparsely
  for (int i = 0; i < (1 << 20); i += 4096) buf[i] = (unsigned char)(i ^ seed);
  unsigned long s = 0;
  for (int i = 0; i < (1 << 20); i += 4096) s += buf[i];
  return s;
}

int main(void) {
  unsigned long r = descend(100000, 0);
  printf("descend(100000) = %lu\n", r);
  printf("big frame sum %lu\n", big_frame(7));
  printf("again %lu\n", descend(50000, 3));
  return 0;
}
