// Integer arithmetic at every width: wrap-around of unsigned and (through
// unsigned casts, which GCC defines as modulo) signed values, promotions of
// 8- and 16-bit operands, arithmetic versus logical shifts, division and
// remainder with negative operands.  Inputs go through volatile so the
// compiler cannot fold the work away at -O2.
#include <inttypes.h>
#include <stdio.h>

#include "guest_common.h"

static volatile int64_t vals[] = {0, 1, -1, 2, -2, 7, -7, 127, -128, 255, 32767, -32768,
                                  65535, 0x7fffffff, -0x7fffffff - 1, 0xffffffffll,
                                  INT64_MAX, INT64_MIN, 0x123456789abcdefll, -1000003};
#define NVALS (sizeof vals / sizeof vals[0])

static void widths8(int64_t a, int64_t b) {
  uint8_t ua = (uint8_t)a, ub = (uint8_t)b;
  int8_t sa = (int8_t)a, sb = (int8_t)b;
  uint8_t sum = (uint8_t)(ua + ub), dif = (uint8_t)(ua - ub), mul = (uint8_t)(ua * ub);
  int8_t ssum = (int8_t)(uint8_t)(sa + sb), sneg = (int8_t)(uint8_t)(-sa);
  printf("  8: %u %u %u %d %d %d", sum, dif, mul, ssum, sneg, sa < sb);
  if (sb != 0 && !(sa == INT8_MIN && sb == -1))
    printf(" %d %d", sa / sb, sa % sb);
  if (ub != 0) printf(" %u %u", ua / ub, ua % ub);
  printf("\n");
}

static void widths16(int64_t a, int64_t b) {
  uint16_t ua = (uint16_t)a, ub = (uint16_t)b;
  int16_t sa = (int16_t)a, sb = (int16_t)b;
  uint16_t mul = (uint16_t)(ua * ub);
  int16_t smul = (int16_t)(uint16_t)((uint32_t)(uint16_t)sa * (uint32_t)(uint16_t)sb);
  printf(" 16: %u %u %u %d %d", (uint16_t)(ua + ub), (uint16_t)(ua - ub), mul, smul,
         (int16_t)(sa >> 3));
  if (sb != 0 && !(sa == INT16_MIN && sb == -1)) printf(" %d %d", sa / sb, sa % sb);
  if (ub != 0) printf(" %u %u", ua / ub, ua % ub);
  printf("\n");
}

static void widths32(int64_t a, int64_t b) {
  uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
  int32_t sa = (int32_t)a, sb = (int32_t)b;
  int32_t swrap = (int32_t)(ua + ub), smul = (int32_t)(ua * ub);
  unsigned sh = ub & 31;
  printf(" 32: %" PRIu32 " %" PRIu32 " %" PRId32 " %" PRId32 " %" PRId32 " %" PRIu32, ua - ub,
         ua * ub, swrap, smul, sa >> sh, ua >> sh);
  printf(" %" PRIu32, ua << sh);
  if (sb != 0 && !(sa == INT32_MIN && sb == -1)) printf(" %d %d", sa / sb, sa % sb);
  if (ub != 0) printf(" %u %u", ua / ub, ua % ub);
  printf("\n");
}

static void widths64(int64_t a, int64_t b) {
  uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
  int64_t swrap = (int64_t)(ua + ub), smul = (int64_t)(ua * ub), sneg = (int64_t)(0 - ua);
  unsigned sh = (unsigned)(ub & 63);
  printf(" 64: %" PRIu64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRIu64 "\n",
         ua - ub, swrap, smul, sneg, a >> sh, ua >> sh);
  if (b != 0 && !(a == INT64_MIN && b == -1))
    printf("     %" PRId64 " %" PRId64, a / b, a % b);
  if (ub != 0) printf(" %" PRIu64 " %" PRIu64, ua / ub, ua % ub);
  printf("\n");
}

// Promotions: char and short operands become int before arithmetic.
static void promotions(void) {
  volatile unsigned char uc = 200;
  volatile signed char sc = -100;
  volatile unsigned short us = 60000;
  volatile short ss = -30000;
  volatile unsigned int ui = 4000000000u;
  printf("promo: %d %d %d %d\n", uc + uc, sc * sc, us * 2, ss - 10000);
  printf("promo: %u %d %lld\n", ui + uc, (int)(uc > sc), (long long)ui * 3);
  printf("promo: %d %d\n", (unsigned char)(uc << 1), (signed char)(sc * 3));
  printf("mix: %d %d\n", -1 < (int)ui, (unsigned)-1 > ui);
}

// Constant divisors become multiply-high sequences; check them against
// variable divisors on many values.
static void const_divisors(void) {
  uint64_t h = FNV_INIT;
  rng_seed(42);
  for (int i = 0; i < 20000; i++) {
    int32_t x = (int32_t)rng_u32();
    uint32_t u = rng_u32();
    int64_t y = (int64_t)rng_next();
    h = fnv1a_u64(h, (uint64_t)(x / 7) ^ ((uint64_t)(x % 7) << 40));
    h = fnv1a_u64(h, (uint64_t)(x / -3) + (uint64_t)(u / 10) + (uint64_t)(u % 1000));
    h = fnv1a_u64(h, (uint64_t)(y / 1000000007) + (uint64_t)(y % 641));
    h = fnv1a_u64(h, (uint64_t)(x / 16) + (uint64_t)(x % 16) + (uint64_t)(y >> 7));
  }
  printf("const_div hash %016" PRIx64 "\n", h);
}

int main(void) {
  for (size_t i = 0; i < NVALS; i++) {
    for (size_t j = 0; j < NVALS; j += 3) {
      printf("[%zu,%zu]\n", i, j);
      widths8(vals[i], vals[j]);
      widths16(vals[i], vals[j]);
      widths32(vals[i], vals[j]);
      widths64(vals[i], vals[j]);
    }
  }
  promotions();
  const_divisors();
  return 0;
}
