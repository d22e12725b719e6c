// Integer sieves: Eratosthenes on a byte array up to 2,000,000 and on a
// bit array (odd numbers only), Euler's totient sieve, and a segmented
// sieve for a window above 10^12, with counts and checksums.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIMIT 2000000

int main(void) {
  unsigned char *composite = calloc(LIMIT + 1, 1);
  for (uint32_t i = 2; (uint64_t)i * i <= LIMIT; i++)
    if (!composite[i])
      for (uint32_t j = i * i; j <= LIMIT; j += i) composite[j] = 1;
  uint32_t count = 0, last = 0;
  uint64_t sum = 0;
  for (uint32_t i = 2; i <= LIMIT; i++)
    if (!composite[i]) {
      count++;
      sum += i;
      last = i;
    }
  printf("primes <= %d: %" PRIu32 ", sum %" PRIu64 ", largest %" PRIu32 "\n", LIMIT, count, sum, last);
  uint32_t twins = 0;
  for (uint32_t i = 3; i + 2 <= LIMIT; i += 2) twins += !composite[i] && !composite[i + 2];
  printf("twin pairs %" PRIu32 "\n", twins);

  // Bit sieve over odd numbers: bit k stands for 2k+1.
  uint32_t nbits = LIMIT / 2 + 1;
  uint64_t *bits = calloc(nbits / 64 + 1, sizeof *bits);
  for (uint32_t k = 1; (2 * k + 1) * (2 * k + 1) <= LIMIT; k++) {
    if (bits[k >> 6] >> (k & 63) & 1) continue;
    uint32_t p = 2 * k + 1;
    for (uint32_t m = (p * p) / 2; m < nbits; m += p) bits[m >> 6] |= 1ull << (m & 63);
  }
  uint32_t odd_primes = 0;
  for (uint32_t k = 1; k < nbits && 2 * k + 1 <= LIMIT; k++) odd_primes += !(bits[k >> 6] >> (k & 63) & 1);
  printf("bit sieve agrees: %d\n", odd_primes + 1 == count);

  // Totients up to 100000.
  uint32_t tn = 100000;
  uint32_t *phi = malloc((tn + 1) * sizeof *phi);
  for (uint32_t i = 0; i <= tn; i++) phi[i] = i;
  for (uint32_t i = 2; i <= tn; i++)
    if (phi[i] == i)
      for (uint32_t j = i; j <= tn; j += i) phi[j] -= phi[j] / i;
  uint64_t phisum = 0;
  for (uint32_t i = 1; i <= tn; i++) phisum += phi[i];
  printf("sum of phi(1..%u) = %" PRIu64 ", phi(99991) = %u, phi(100000) = %u\n", tn, phisum, phi[99991], phi[100000]);

  // Segmented sieve of [10^12, 10^12 + 100000).
  uint64_t lo = 1000000000000ull, width = 100000;
  unsigned char *seg = calloc(width, 1);
  for (uint32_t p = 2; p <= 1000000; p++) {
    if (composite[p]) continue;
    uint64_t start = (lo + p - 1) / p * p;
    for (uint64_t m = start; m < lo + width; m += p) seg[m - lo] = 1;
  }
  uint32_t segcount = 0;
  uint64_t first = 0;
  for (uint64_t i = 0; i < width; i++)
    if (!seg[i]) {
      if (!segcount) first = lo + i;
      segcount++;
    }
  printf("primes in [1e12, 1e12+1e5): %" PRIu32 ", first %" PRIu64 "\n", segcount, first);
  free(seg);
  free(phi);
  free(bits);
  free(composite);
  return 0;
}
