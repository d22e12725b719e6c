// Bit manipulation written out by hand: popcount (three ways), parity,
// bit reversal, rotates through shift-or idioms (which GCC turns into
// rol/ror), byte swaps, lowest/highest set bit, next power of two, Gray code.
#include <inttypes.h>
#include <stdio.h>

#include "guest_common.h"

static int popcount_loop(uint64_t x) {
  int n = 0;
  while (x) {
    n += (int)(x & 1);
    x >>= 1;
  }
  return n;
}

static int popcount_kernighan(uint64_t x) {
  int n = 0;
  for (; x; n++) x &= x - 1;
  return n;
}

static int popcount_swar(uint64_t x) {
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  return (int)((x * 0x0101010101010101ull) >> 56);
}

static int parity8(uint8_t x) {
  x ^= x >> 4;
  x ^= x >> 2;
  x ^= x >> 1;
  return x & 1;
}

static uint32_t reverse32(uint32_t x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
  return (x >> 16) | (x << 16);
}

static uint8_t rotl8(uint8_t x, unsigned n) { n &= 7; return (uint8_t)((x << n) | (x >> ((8 - n) & 7))); }
static uint16_t rotr16(uint16_t x, unsigned n) { n &= 15; return (uint16_t)((x >> n) | (x << ((16 - n) & 15))); }
static uint32_t rotl32(uint32_t x, unsigned n) { n &= 31; return (x << n) | (x >> ((32 - n) & 31)); }
static uint64_t rotr64(uint64_t x, unsigned n) { n &= 63; return (x >> n) | (x << ((64 - n) & 63)); }

static uint32_t bswap32_manual(uint32_t x) {
  return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}

static uint64_t bswap64_manual(uint64_t x) {
  uint64_t r = 0;
  for (int i = 0; i < 8; i++) r = (r << 8) | ((x >> (8 * i)) & 0xff);
  return r;
}

static int highest_bit(uint64_t x) {
  int n = -1;
  while (x) {
    x >>= 1;
    n++;
  }
  return n;
}

static uint32_t next_pow2(uint32_t x) {
  x--;
  x |= x >> 1;
  x |= x >> 2;
  x |= x >> 4;
  x |= x >> 8;
  x |= x >> 16;
  return x + 1;
}

static uint32_t gray(uint32_t x) { return x ^ (x >> 1); }

static uint32_t gray_inverse(uint32_t g) {
  for (uint32_t s = 1; s < 32; s <<= 1) g ^= g >> s;
  return g;
}

int main(void) {
  static const uint64_t samples[] = {0, 1, 0x80, 0xff, 0x8000000000000000ull, 0xffffffffffffffffull,
                                     0x0123456789abcdefull, 0xf0f0f0f00f0f0f0full, 0x5555aaaa};
  for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
    uint64_t x = samples[i];
    printf("%016" PRIx64 ": pop %d %d %d par %d rev %08" PRIx32 " hb %d\n", x, popcount_loop(x),
           popcount_kernighan(x), popcount_swar(x), parity8((uint8_t)x), reverse32((uint32_t)x),
           highest_bit(x));
    printf("  rot %02x %04x %08" PRIx32 " %016" PRIx64 " bs %08" PRIx32 " %016" PRIx64 "\n",
           rotl8((uint8_t)x, 3), rotr16((uint16_t)x, 5), rotl32((uint32_t)x, 13), rotr64(x, 29),
           bswap32_manual((uint32_t)x), bswap64_manual(x));
    printf("  np2 %" PRIu32 " gray %08" PRIx32 " back %08" PRIx32 " low %016" PRIx64 "\n",
           next_pow2((uint32_t)x | 1), gray((uint32_t)x), gray_inverse(gray((uint32_t)x)),
           x & (0 - x));
  }
  uint64_t h = FNV_INIT;
  int mismatches = 0;
  rng_seed(1234);
  for (int i = 0; i < 20000; i++) {
    uint64_t x = rng_next() >> (i & 63);
    unsigned n = (unsigned)i;
    int a = popcount_loop(x), b = popcount_kernighan(x), c = popcount_swar(x);
    if (a != b || b != c) mismatches++;
    h = fnv1a_u64(h, (uint64_t)a ^ rotr64(x, n) ^ rotl32((uint32_t)x, n));
    h = fnv1a_u64(h, (uint64_t)rotl8((uint8_t)x, n) << 16 | rotr16((uint16_t)x, n));
    h = fnv1a_u64(h, reverse32((uint32_t)x) ^ bswap64_manual(x));
    h = fnv1a_u64(h, (uint64_t)parity8((uint8_t)x) + (uint64_t)highest_bit(x));
  }
  printf("mismatches %d hash %016" PRIx64 "\n", mismatches, h);
  return 0;
}
