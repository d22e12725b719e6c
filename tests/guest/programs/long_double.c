// x87 extended precision through long double: arithmetic at 64-bit
// mantissa precision (results that double cannot hold), conversions to
// and from integers (fild/fistp), comparisons, sqrtl/fabsl/fmodl, the
// type's limits, and printf's %Lf %Le %Lg %La on all of it.
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void show(const char *label, long double v) {
  printf("%-14s %.25Lf | %.21Le | %Lg | %.20Lg | %La\n", label, v, v, v, v, v);
}

static void bits(const char *label, long double v) {
  unsigned char raw[sizeof v];
  memset(raw, 0, sizeof raw);
  memcpy(raw, &v, 10);  // only the 80 meaningful bits; the rest is padding
  printf("%-14s ", label);
  for (int i = 9; i >= 0; i--) printf("%02x", raw[i]);
  printf("\n");
}

int main(void) {
  volatile long double one = 1.0L, three = 3.0L, zero = 0.0L, ten = 10.0L;
  long double third = one / three;
  show("1/3", third);
  show("2/3", 2 * third);
  show("1/3*3", third * three);
  show("1+2^-63", one + ldexpl(1.0L, -63));
  show("1+2^-64", one + ldexpl(1.0L, -64));
  show("10^20", powl(ten, 20));
  show("2^64", ldexpl(1.0L, 64));
  show("pi", 3.14159265358979323846264338327950288L);
  show("sqrtl(2)", sqrtl(2.0L));
  show("fmodl", fmodl(1e20L, 7.0L));
  show("fabsl(-x)", fabsl(-third));
  show("LDBL_MAX", LDBL_MAX);
  show("LDBL_MIN", LDBL_MIN);
  show("LDBL_EPSILON", LDBL_EPSILON);
  show("denormal", LDBL_MIN / 1024);
  show("inf", one / zero);
  show("0/0", zero / zero);
  show("-0", -zero);
  show("(ld)0.1", (long double)0.1);
  show("0.1L", 0.1L);
  bits("1/3 bits", third);
  bits("0/0 bits", zero / zero);
  bits("LDBL_MAX bits", LDBL_MAX);
  bits("-0 bits", -zero);
  printf("%Lf %Lf %.0Lf %.0Lf %.0Lf\n", 0.5L, -0.5L, 0.5L, 1.5L, 2.5L);

  // Integer <-> long double conversions, exact for all 64-bit values.
  static const int64_t ints[] = {0, 1, -1, INT64_MAX, INT64_MIN, 9007199254740993ll, -123456789012345678ll};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
    volatile long double v = (long double)ints[i];
    int64_t back = (int64_t)v;
    volatile long double u = (long double)(uint64_t)ints[i];
    uint64_t uback = (uint64_t)u;
    printf("int %" PRId64 " -> %.1Lf -> %" PRId64 " | u %.1Lf -> %" PRIu64 "\n", ints[i], v, back, u, uback);
  }
  static const long double fracs[] = {2.5L, -2.5L, 2.75L, -2.25L, 1e18L + 0.5L, 123456.999999L};
  for (size_t i = 0; i < sizeof fracs / sizeof fracs[0]; i++) {
    volatile long double v = fracs[i];
    printf("trunc %.4Lf -> %lld  llrintl %lld  lroundl %ld  floorl %.1Lf ceill %.1Lf\n", v, (long long)v,
           llrintl(v), lroundl(v), floorl(v), ceill(v));
  }

  // Sum that only extended precision gets right: 2^63 + small terms.
  long double acc = ldexpl(1.0L, 63);
  for (int i = 0; i < 1000; i++) acc += 1.0L;
  printf("2^63+1000 = %.1Lf\n", acc);
  double dacc = ldexp(1.0, 63);
  for (int i = 0; i < 1000; i++) dacc += 1.0;
  printf("as double  = %.1f\n", dacc);

  // Comparisons (fucomip), including NaN which is unordered.
  long double vals[] = {-one, zero, third, one, zero / zero};
  for (int i = 0; i < 5; i++) {
    for (int j = 0; j < 5; j++)
      printf("%d%d%d%d ", vals[i] < vals[j], vals[i] <= vals[j], vals[i] == vals[j], vals[i] != vals[j]);
    printf("\n");
  }
  long double series = 0;
  for (int k = 1; k <= 2000; k++) series += 1.0L / ((long double)k * k);
  printf("basel partial %.20Lf\n", series);
  printf("double <- ld %.17g float <- ld %.9g\n", (double)third, (double)(float)third);
  return 0;
}
