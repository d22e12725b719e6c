// glibc's long double math, which runs on the x87: the exact functions
// (sqrtl, fmodl, remainderl, remquol, rintl, lrintl, floorl, ceill,
// truncl, roundl, frexpl, ldexpl, scalbnl, logbl, ilogbl, modfl,
// nextafterl, copysignl, fmal, fabsl) printed in full with %La, and the
// transcendental ones (expl, exp2l, expm1l, logl, log2l, log10l, log1pl,
// powl, sinl, cosl, tanl, asinl, acosl, atanl, atan2l, sinhl, coshl,
// tanhl, hypotl, cbrtl, erfl, lgammal) to 15 digits: phybin's fyl2x,
// f2xm1 and fpatan are within one unit in the last place of the CPU's.
#include <math.h>
#include <stdio.h>

#include "guest_common.h"

static long double random_ld(int max_exp) {
  long double m = (long double)(rng_next() >> 1) / 9223372036854775808.0L;  // [0, 1)
  int e = (int)rng_below((unsigned)(2 * max_exp + 1)) - max_exp;
  long double v = ldexpl(0.5L + m / 2, e);
  return rng_next() & 1 ? -v : v;
}

static const long double specials[] = {0.0L, -0.0L, 1.0L, -1.0L, 0.5L, 2.0L, 1e-4940L, 1e4930L, -3.5L, 10.0L};

static void exact_functions(long double x, long double y) {
  int q = 0, e = 0;
  long double ip;
  printf("x=%La y=%La\n", x, y);
  printf(" sqrt %La fabs %La fmod %La rem %La", sqrtl(x), fabsl(x), fmodl(x, y), remainderl(x, y));
  long double rq = remquol(x, y, &q);
  printf(" remquo %La %d\n", rq, q & 7);
  printf(" rint %La floor %La ceil %La trunc %La round %La", rintl(x), floorl(x), ceill(x), truncl(x), roundl(x));
  if (fabsl(x) < 1e18L) printf(" lrint %ld llround %lld", lrintl(x), llroundl(x));
  long double fr = frexpl(x, &e);
  printf("\n frexp %La %d ldexp %La scalbn %La logb %La", fr, e, ldexpl(x, 37), scalbnl(x, -70), logbl(x));
  if (x != 0) printf(" ilogb %d", ilogbl(x));
  long double frac = modfl(x, &ip);
  printf(" modf %La %La\n", frac, ip);
  printf(" next %La %La copysign %La fma %La\n", nextafterl(x, y), nexttowardl(x, 0.0L), copysignl(x, y),
         fmal(x, y, 1.0L));
}

static void transcendental_functions(long double x, long double y) {
  long double ax = fabsl(x);
  printf("x=%.18Lg y=%.18Lg\n", x, y);
  printf(" exp %.15Lg exp2 %.15Lg expm1 %.15Lg pow %.15Lg\n", expl(x), exp2l(x), expm1l(x), powl(ax, y));
  printf(" log %.15Lg log2 %.15Lg log10 %.15Lg log1p %.15Lg\n", logl(ax), log2l(ax), log10l(ax), log1pl(ax));
  printf(" sin %.15Lg cos %.15Lg tan %.15Lg atan %.15Lg atan2 %.15Lg\n", sinl(x), cosl(x), tanl(x), atanl(x),
         atan2l(y, x));
  printf(" asin %.15Lg acos %.15Lg sinh %.15Lg cosh %.15Lg tanh %.15Lg\n", asinl(x / (1 + ax)), acosl(x / (1 + ax)),
         sinhl(x), coshl(x), tanhl(x));
  printf(" hypot %.15Lg cbrt %.15Lg erf %.15Lg lgamma %.15Lg\n", hypotl(x, y), cbrtl(x), erfl(x), lgammal(ax + 0.25L));
}

int main(void) {
  rng_seed(99);
  for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++)
    exact_functions(specials[i], specials[(i + 3) % (sizeof specials / sizeof specials[0])]);
  for (int i = 0; i < 40; i++) {
    long double x = random_ld(i < 20 ? 70 : 3000), y = random_ld(i < 20 ? 70 : 3000);
    exact_functions(x, y);
  }
  for (int i = 0; i < 40; i++) {
    long double x = random_ld(i < 30 ? 6 : 12), y = random_ld(4);
    transcendental_functions(x, y);
  }
  transcendental_functions(0.0L, 1.0L);
  transcendental_functions(1.0L, -0.0L);
  transcendental_functions(-INFINITY, INFINITY);
  transcendental_functions(NAN, 2.0L);
  transcendental_functions(3.14159265358979323846L, 1e-4000L);
  transcendental_functions(100.0L, 0.5L);
  return 0;
}
