// Overflow detection at 8/16/32/64 bits with __builtin_{add,sub,mul}_overflow
// (compiled to jo/jc/seto/setc and widening multiplies), saturating
// arithmetic written by hand, and the carry chain of multi-word addition.
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "guest_common.h"

#define CHECK_OPS(T, a, b, out)                                                \
  do {                                                                         \
    T r;                                                                       \
    int o1 = __builtin_add_overflow((T)(a), (T)(b), &r);                       \
    out = fnv1a_u64(out, (uint64_t)r * 4 + (uint64_t)o1);                       \
    int o2 = __builtin_sub_overflow((T)(a), (T)(b), &r);                       \
    out = fnv1a_u64(out, (uint64_t)r * 4 + (uint64_t)o2);                       \
    int o3 = __builtin_mul_overflow((T)(a), (T)(b), &r);                       \
    out = fnv1a_u64(out, (uint64_t)r * 4 + (uint64_t)o3);                       \
  } while (0)

static volatile int64_t edge[] = {0, 1, -1, 2, 100, -100, 127, -128, 128, 255, 256,
                                  32767, -32768, 65535, 65536, INT32_MAX, INT32_MIN,
                                  UINT32_MAX, INT64_MAX, INT64_MIN, 3037000499ll, 3037000500ll};
#define NEDGE (sizeof edge / sizeof edge[0])

static void print_edges(void) {
  for (size_t i = 0; i < NEDGE; i++) {
    for (size_t j = 0; j < NEDGE; j++) {
      int64_t a = edge[i], b = edge[j];
      int32_t r32;
      int64_t r64;
      uint32_t u32;
      uint64_t u64;
      uint16_t u16;
      int f = __builtin_add_overflow((int32_t)a, (int32_t)b, &r32) |
              __builtin_mul_overflow((int32_t)a, (int32_t)b, &r32) << 1 |
              __builtin_add_overflow(a, b, &r64) << 2 |
              __builtin_mul_overflow(a, b, &r64) << 3 |
              __builtin_sub_overflow((uint32_t)a, (uint32_t)b, &u32) << 4 |
              __builtin_mul_overflow((uint64_t)a, (uint64_t)b, &u64) << 5 |
              __builtin_add_overflow((int8_t)a, (int8_t)b, &r32) << 6 |
              __builtin_mul_overflow((uint16_t)a, (uint16_t)b, &u16) << 7;
      printf("%02x%c", f, j + 1 == NEDGE ? '\n' : ' ');
    }
  }
}

static int32_t sat_add32(int32_t a, int32_t b) {
  int32_t r;
  if (__builtin_add_overflow(a, b, &r)) return a < 0 ? INT32_MIN : INT32_MAX;
  return r;
}

static uint8_t sat_addu8(uint8_t a, uint8_t b) {
  unsigned s = (unsigned)a + b;
  return s > 255 ? 255 : (uint8_t)s;
}

static int16_t sat_sub16(int16_t a, int16_t b) {
  int32_t d = (int32_t)a - b;
  if (d > INT16_MAX) return INT16_MAX;
  if (d < INT16_MIN) return INT16_MIN;
  return (int16_t)d;
}

// 256-bit addition from four 64-bit limbs: the carry must ripple.
static void add256(const uint64_t *a, const uint64_t *b, uint64_t *r) {
  unsigned carry = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t s;
    unsigned c1 = __builtin_add_overflow(a[i], b[i], &s);
    unsigned c2 = __builtin_add_overflow(s, (uint64_t)carry, &r[i]);
    carry = c1 | c2;
  }
}

int main(void) {
  print_edges();
  uint64_t h8 = FNV_INIT, h16 = FNV_INIT, h32 = FNV_INIT, h64 = FNV_INIT, hu = FNV_INIT;
  rng_seed(7);
  for (int i = 0; i < 20000; i++) {
    uint64_t a = rng_next(), b = rng_next();
    if (i & 1) b >>= (a & 63);
    CHECK_OPS(int8_t, a, b, h8);
    CHECK_OPS(int16_t, a, b, h16);
    CHECK_OPS(int32_t, a, b, h32);
    CHECK_OPS(int64_t, a, b, h64);
    CHECK_OPS(uint64_t, a, b, hu);
    CHECK_OPS(uint8_t, a, b, hu);
    CHECK_OPS(uint32_t, a, b, hu);
  }
  printf("h8 %016" PRIx64 " h16 %016" PRIx64 " h32 %016" PRIx64 "\n", h8, h16, h32);
  printf("h64 %016" PRIx64 " hu %016" PRIx64 "\n", h64, hu);
  for (size_t i = 0; i < NEDGE; i += 2) {
    int64_t a = edge[i], b = edge[NEDGE - 1 - i];
    printf("sat %d %u %d\n", sat_add32((int32_t)a, (int32_t)b), sat_addu8((uint8_t)a, (uint8_t)b),
           sat_sub16((int16_t)a, (int16_t)b));
  }
  uint64_t x[4] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, 0}, y[4] = {1, 0, 0, 5}, r[4];
  add256(x, y, r);
  printf("add256 %016" PRIx64 " %016" PRIx64 " %016" PRIx64 " %016" PRIx64 "\n", r[3], r[2],
         r[1], r[0]);
  return 0;
}
