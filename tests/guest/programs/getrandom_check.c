// Randomness sources, checked for sanity only: getrandom() fills the whole
// buffer with bytes that are not all equal, two draws differ, GRND_NONBLOCK
// works, /dev/urandom reads succeed, getentropy() works, and AT_RANDOM
// points at 16 bytes that are not all zero.
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <unistd.h>

static int varied(const unsigned char *p, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (p[i] != p[0]) return 1;
  return 0;
}

int main(void) {
  unsigned char a[64], b[64];
  ssize_t ra = getrandom(a, sizeof a, 0);
  ssize_t rb = getrandom(b, sizeof b, GRND_NONBLOCK);
  printf("getrandom lengths ok: %d\n", ra == 64 && rb == 64);
  printf("bytes varied: %d, draws differ: %d\n", varied(a, 64) && varied(b, 64), memcmp(a, b, 64) != 0);
  unsigned char big[4096];
  ssize_t rbig = getrandom(big, sizeof big, 0);
  printf("4096-byte draw ok: %d varied %d\n", rbig == 4096, varied(big, 4096));
  int fd = open("/dev/urandom", O_RDONLY);
  unsigned char u[32];
  printf("/dev/urandom open %d read %d\n", fd >= 0, fd >= 0 && read(fd, u, sizeof u) == 32);
  if (fd >= 0) close(fd);
  unsigned char e[32];
  printf("getentropy %d\n", getentropy(e, sizeof e) == 0);
  const unsigned char *at_random = (const unsigned char *)getauxval(AT_RANDOM);
  int nonzero = 0;
  for (int i = 0; at_random && i < 16; i++) nonzero |= at_random[i];
  printf("AT_RANDOM non-zero: %d\n", nonzero != 0);
  return 0;
}
