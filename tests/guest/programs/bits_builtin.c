// GCC's bit builtins on the x86-64 baseline: popcount (libgcc or inline),
// clz/ctz (bsr, rep bsf), parity (setnp), ffs, clrsb, bswap16/32/64 and the
// rotate idioms, checked against plain-C reference versions.
#include <inttypes.h>
#include <stdio.h>

#include "guest_common.h"

static int ref_clz64(uint64_t x) {
  int n = 0;
  for (uint64_t bit = 1ull << 63; bit && !(x & bit); bit >>= 1) n++;
  return n;
}

static int ref_ctz64(uint64_t x) {
  int n = 0;
  while (!(x & 1)) {
    x >>= 1;
    n++;
  }
  return n;
}

static int ref_pop(uint64_t x) {
  int n = 0;
  for (; x; x >>= 1) n += (int)(x & 1);
  return n;
}

static void show(uint64_t x) {
  uint32_t lo = (uint32_t)x;
  printf("%016" PRIx64 " pop %d %d par %d %d ffs %d %d clrsb %d %d", x, __builtin_popcountll(x),
         __builtin_popcount(lo), __builtin_parityll(x), __builtin_parity(lo), __builtin_ffsll((long long)x),
         __builtin_ffs((int)lo), __builtin_clrsbll((long long)x), __builtin_clrsb((int)lo));
  if (x) printf(" clz %d ctz %d", __builtin_clzll(x), __builtin_ctzll(x));
  if (lo) printf(" clz32 %d ctz32 %d", __builtin_clz(lo), __builtin_ctz(lo));
  printf("\n  bswap %04x %08" PRIx32 " %016" PRIx64 "\n", __builtin_bswap16((uint16_t)x),
         __builtin_bswap32(lo), __builtin_bswap64(x));
}

static uint32_t rol32(uint32_t x, unsigned n) { return (x << (n & 31)) | (x >> (-n & 31)); }
static uint64_t ror64(uint64_t x, unsigned n) { return (x >> (n & 63)) | (x << (-n & 63)); }
static uint16_t rol16(uint16_t x, unsigned n) {
  return (uint16_t)((x << (n & 15)) | (x >> (-n & 15)));
}

int main(void) {
  static const uint64_t samples[] = {0, 1, 2, 3, 0x80, 0x8000, 0x80000000ull, 0x100000000ull,
                                     0x8000000000000000ull, 0xffffffffffffffffull, 0x7fffffff,
                                     0xffffffff80000000ull, 0x00ff00ff00ff00ffull, 0x1234};
  for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) show(samples[i]);

  int bad = 0;
  uint64_t h = FNV_INIT;
  rng_seed(99);
  for (int i = 0; i < 30000; i++) {
    uint64_t x = rng_next() >> (rng_next() & 63);
    if (!x) continue;
    uint32_t lo = (uint32_t)x;
    if (__builtin_clzll(x) != ref_clz64(x)) bad++;
    if (__builtin_ctzll(x) != ref_ctz64(x)) bad++;
    if (__builtin_popcountll(x) != ref_pop(x)) bad++;
    if (__builtin_parityll(x) != (ref_pop(x) & 1)) bad++;
    if (lo && __builtin_clz(lo) != ref_clz64(lo) - 32) bad++;
    if (lo && __builtin_ctz(lo) != ref_ctz64(lo)) bad++;
    unsigned n = (unsigned)(x >> 58);
    h = fnv1a_u64(h, rol32(lo, n) ^ ror64(x, n) ^ rol16((uint16_t)x, n));
    h = fnv1a_u64(h, __builtin_bswap64(x) + __builtin_bswap32(lo) + __builtin_bswap16((uint16_t)x));
    h = fnv1a_u64(h, (uint64_t)__builtin_clrsbll((long long)x) * 131 + (uint64_t)__builtin_ffs((int)lo));
  }
  printf("bad %d hash %016" PRIx64 "\n", bad, h);
  return 0;
}
