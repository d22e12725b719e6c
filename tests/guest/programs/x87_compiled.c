// Ordinary C with long double, as GCC compiles it for the x87 (fild/fistp
// with the fnstcw/fldcw truncation dance, the 2^64 fix-ups of unsigned
// conversions, fucomip/fcmov for comparisons and ternaries, fxch, the
// complex-arithmetic helpers __mulxc3/__divxc3): conversions between
// long double and every integer and floating type, arithmetic chains,
// comparisons with NaN, qsort, Kahan and pairwise sums, Horner
// polynomials, complex products and quotients.  Results printed exactly
// with %La.
#include <complex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "guest_common.h"

static long double random_ld(void) {
  long double v = (long double)(int64_t)rng_next() / (long double)(1ull << rng_below(64));
  return rng_below(8) == 0 ? v * 1e-300L : v;
}

static void conversions(long double v) {
  volatile long double x = v;
  printf("%La:", v);
  if (x > -9.2e18L && x < 9.2e18L) printf(" i64 %lld i32 %d i16 %d", (long long)x, (int)(x / 4e9L), (short)(x / 1e15L));
  if (x >= 0 && x < 1.8e19L) printf(" u64 %llu u32 %u", (unsigned long long)x, (unsigned)(x / 5e9L));
  printf(" f %a d %a\n", (double)(float)x, (double)x);
}

static void from_integers(uint64_t u) {
  volatile uint64_t vu = u;
  volatile int64_t vi = (int64_t)u;
  volatile uint32_t v32 = (uint32_t)u;
  volatile int16_t v16 = (int16_t)u;
  long double a = vu, b = vi, c = v32, d = v16;
  printf("from %016llx: %La %La %La %La\n", (unsigned long long)u, a, b, c, d);
}

static int compare_ld(const void *p, const void *q) {
  long double a = *(const long double *)p, b = *(const long double *)q;
  return (a > b) - (a < b);
}

static long double horner(const long double *c, int n, long double x) {
  long double r = c[n - 1];
  for (int i = n - 2; i >= 0; i--) r = r * x + c[i];
  return r;
}

int main(void) {
  rng_seed(31337);
  static const long double edge[] = {0.0L, -0.0L, 0.5L, -0.5L, 1.5L, 2.5L, -2.5L, 9223372036854775807.0L,
                                     -9223372036854775808.0L, 18446744073709551615.0L, 1e-4940L, 3.4e38L};
  for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) conversions(edge[i]);
  for (int i = 0; i < 30; i++) conversions(random_ld());
  static const uint64_t ints[] = {0, 1, ~0ull, 1ull << 63, (1ull << 63) - 1, 0x8000000000000001ull, 12345, 0xfffffffffffff800ull};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) from_integers(ints[i]);
  for (int i = 0; i < 8; i++) from_integers(rng_next());

  // Comparisons, including NaN (unordered) and signed zeros; min/max
  // through ternaries (fcmov at -O2).
  long double vals[] = {-1.0L, -0.0L, 0.0L, 1.0L / 3, 1e4000L, __builtin_nanl(""), -__builtin_infl()};
  for (int i = 0; i < 7; i++) {
    for (int j = 0; j < 7; j++) {
      long double a = vals[i], b = vals[j];
      long double mx = a > b ? a : b, mn = a < b ? a : b;
      printf("%d%d%d%d%d%d ", a < b, a <= b, a == b, a != b, a >= b, __builtin_isunordered(a, b));
      if (j == 6) printf("max %La min %La\n", mx, mn);
    }
  }

  long double arr[64];
  for (int i = 0; i < 64; i++) arr[i] = random_ld();
  qsort(arr, 64, sizeof arr[0], compare_ld);
  uint64_t digest = FNV_INIT;
  for (int i = 0; i < 64; i++) digest = fnv1a(digest, &arr[i], 10);
  printf("sorted digest %016llx first %La last %La\n", (unsigned long long)digest, arr[0], arr[63]);

  // Sums: naive, Kahan, and a product chain that over- and underflows.
  long double naive = 0, kahan = 0, comp = 0, prod = 1;
  for (int i = 1; i <= 3000; i++) {
    long double term = 1.0L / ((long double)i * i * i);
    naive += term;
    long double y = term - comp, t = kahan + y;
    comp = (t - kahan) - y;
    kahan = t;
    prod *= (i % 7) ? 1e10L : 1e-25L;
  }
  printf("naive %La kahan %La prod %La\n", naive, kahan, prod);

  static const long double coeffs[] = {1.0L, -0.5L, 1.0L / 3, -0.25L, 0.2L, -1.0L / 6, 1.0L / 7};
  for (int i = 0; i < 5; i++) {
    long double x = (long double)i / 7;
    printf("horner(%La) = %La\n", x, horner(coeffs, 7, x));
  }

  // Complex long double: products and quotients through libgcc.
  for (int i = 0; i < 6; i++) {
    long double complex z = random_ld() + random_ld() * I, w = random_ld() + random_ld() * I;
    if (i == 5) w = 0;
    long double complex p = z * w, q = z / w;
    printf("z*w = %La %La  z/w = %La %La\n", creall(p), cimagl(p), creall(q), cimagl(q));
  }
  return 0;
}
