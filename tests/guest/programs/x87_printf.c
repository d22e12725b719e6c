// long double through glibc's stdio and strtold: printf %La %.30Le %Lf
// %Lg on random bit patterns (normals of every magnitude, denormals,
// pseudo-denormals, unnormals, NaN payloads, infinities), strtold of the
// printed decimal and hex strings back to the same bits, sscanf %Lf, and
// strtold's rounding of decimal strings halfway between two values.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest_common.h"

static long double from_bits(int sign, unsigned exp, uint64_t sig) {
  long double v = 0;
  memcpy(&v, &sig, 8);
  unsigned short se = (unsigned short)((sign ? 0x8000 : 0) | exp);
  memcpy((char *)&v + 8, &se, 2);
  return v;
}

static void bits(long double v) {
  unsigned char b[10];
  memcpy(b, &v, 10);
  for (int i = 9; i >= 0; i--) printf("%02x", b[i]);
}

static long double random_value(void) {
  int sign = rng_next() & 1;
  uint64_t sig = rng_next();
  switch (rng_below(10)) {
    case 0: return from_bits(sign, 0, sig >> rng_below(64));
    case 1: return from_bits(sign, 0x7fff, rng_below(2) ? 1ull << 63 : sig | 1ull << 63);
    case 2: return from_bits(sign, 1 + rng_below(0x7ffe), sig | 1ull << 63);
    case 3: return from_bits(sign, 0, sig | 1ull << 63);
    default: return from_bits(sign, 16383 + rng_below(200) - 100, sig | 1ull << 63);
  }
}

int main(void) {
  rng_seed(314);
  char buf[256];
  int round_trips = 0;
  for (int i = 0; i < 120; i++) {
    long double v = random_value();
    bits(v);
    printf(" %La %.30Le %Lg", v, v, v);
    if (v > -1e30L && v < 1e30L) printf(" %.10Lf", v);
    printf("\n");
    // Back from decimal (21 significant digits suffice for 64 bits) and hex.
    snprintf(buf, sizeof buf, "%.21Le", v);
    long double back = strtold(buf, NULL);
    snprintf(buf, sizeof buf, "%La", v);
    long double back_hex = strtold(buf, NULL);
    if (memcmp(&back, &v, 10) == 0 && memcmp(&back_hex, &v, 10) == 0) round_trips++;
    else {
      printf("  round trip: ");
      bits(back);
      printf(" ");
      bits(back_hex);
      printf("\n");
    }
  }
  printf("exact round trips: %d\n", round_trips);
  // Decimal strings at and near halfway points between long doubles.
  static const char *inputs[] = {
      "0.1", "1e-4951", "3.6451995318824746025e-4951", "1.18973149535723176502e+4932", "1.18973149535723176508e+4932",
      "9223372036854775807.5", "9223372036854775808.5", "18446744073709551615.5", "2.5e-4950", "-0",
      "0x1.fffffffffffffffep+16383", "0x1p-16446", "0x1.8p-16446", "nan(123)", "-inf", "1e5000", "123456789e-4960",
  };
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    long double v = strtold(inputs[i], NULL);
    printf("strtold(%s) = ", inputs[i]);
    bits(v);
    printf(" %.25Lg\n", v);
  }
  long double a, b;
  if (sscanf("2.718281828459045235360287 -1.5e-300", "%Lf %Lf", &a, &b) == 2) {
    printf("sscanf ");
    bits(a);
    printf(" ");
    bits(b);
    printf("\n");
  }
  return 0;
}
