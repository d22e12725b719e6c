// 128-bit arithmetic with __int128: widening multiplies (mul/imul with the
// rdx:rax result), 128-bit shifts (shld/shrd), libgcc's __divti3/__modti3
// and unsigned forms, with negative operands, checked by a schoolbook
// reference and printed in decimal.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

typedef __int128 i128;
typedef unsigned __int128 u128;

static void u128_to_dec(u128 v, char *out) {
  char buf[48];
  int n = 0;
  do {
    buf[n++] = (char)('0' + (int)(v % 10));
    v /= 10;
  } while (v);
  for (int i = 0; i < n; i++) out[i] = buf[n - 1 - i];
  out[n] = 0;
}

static void i128_to_dec(i128 v, char *out) {
  if (v < 0) {
    *out++ = '-';
    u128_to_dec((u128)0 - (u128)v, out);
  } else {
    u128_to_dec((u128)v, out);
  }
}

// Reference 64x64->128 multiply from 32-bit halves.
static void mul_ref(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo) {
  uint64_t al = a & 0xffffffff, ah = a >> 32, bl = b & 0xffffffff, bh = b >> 32;
  uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
  uint64_t mid = (ll >> 32) + (lh & 0xffffffff) + (hl & 0xffffffff);
  *lo = (ll & 0xffffffff) | (mid << 32);
  *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static const char *const operands[] = {
    "0", "1", "-1", "7", "-7", "10", "-10", "18446744073709551615", "-18446744073709551616",
    "170141183460469231731687303715884105727", "-170141183460469231731687303715884105727",
    "123456789012345678901234567890", "-98765432109876543210", "4294967296", "-3"};
#define NOPS (sizeof operands / sizeof operands[0])

static i128 parse_i128(const char *s) {
  int neg = *s == '-';
  u128 v = 0;
  for (s += neg; *s; s++) v = v * 10 + (u128)(*s - '0');
  return neg ? (i128)((u128)0 - v) : (i128)v;
}

int main(void) {
  char a_s[64], b_s[64];
  for (size_t i = 0; i < NOPS; i++) {
    for (size_t j = 0; j < NOPS; j++) {
      volatile i128 a = parse_i128(operands[i]), b = parse_i128(operands[j]);
      if (b == 0) continue;
      i128_to_dec(a / b, a_s);
      i128_to_dec(a % b, b_s);
      printf("%s / %s = %s r %s", operands[i], operands[j], a_s, b_s);
      u128 ua = (u128)a, ub = (u128)b;
      u128_to_dec(ua / ub, a_s);
      u128_to_dec(ua % ub, b_s);
      printf(" | u %s r %s\n", a_s, b_s);
    }
  }
  int bad = 0;
  uint64_t h = FNV_INIT;
  rng_seed(0xabcdef);
  for (int i = 0; i < 20000; i++) {
    uint64_t a = rng_next(), b = rng_next() >> (i % 64);
    u128 p = (u128)a * b;
    uint64_t hi, lo;
    mul_ref(a, b, &hi, &lo);
    if ((uint64_t)(p >> 64) != hi || (uint64_t)p != lo) bad++;
    i128 sp = (i128)(int64_t)a * (int64_t)b;
    h = fnv1a_u64(h, (uint64_t)((u128)sp >> 64));
    unsigned sh = (unsigned)(a & 127);
    h = fnv1a_u64(h, (uint64_t)(p << sh) ^ (uint64_t)(p >> sh) ^ (uint64_t)((u128)(sp >> sh) >> 64));
    if (b) {
      u128 q = p / b;
      if ((uint64_t)q != a || p % b != 0) bad++;
      i128 n = (i128)(int64_t)a * 3 - 1;
      i128 d = (i128)(int64_t)b;
      if (d != 0) h = fnv1a_u64(h, (uint64_t)(n / d) ^ (uint64_t)(n % d));
    }
  }
  printf("bad %d hash %016" PRIx64 "\n", bad, h);
  return 0;
}
