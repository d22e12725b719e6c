// Rounding: floor, ceil, round, trunc, rint, nearbyint, lrint, llrint,
// lround under all four fesetround modes (MXCSR's rounding control), the
// same for float, frexp/ldexp/modf/scalbn/ilogb decomposition, and the
// rounding of ordinary arithmetic (division, conversions) per mode.
#include <fenv.h>
#include <math.h>
#include <stdio.h>

static const int modes[] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
static const char *const mode_names[] = {"nearest", "down", "up", "zero"};

int main(void) {
  volatile double zero = 0.0;
  const double vals[] = {0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994,
                         1.4999999999999998, 2.7, -2.7, 1e15 + 0.5, 4503599627370495.5,
                         4503599627370497.0, 9007199254740993.0, 1e300, -1e-300,
                         1.0 / zero, -1.0 / zero, zero / zero};
  for (size_t m = 0; m < 4; m++) {
    fesetround(modes[m]);
    printf("mode %s (fegetround ok %d)\n", mode_names[m], fegetround() == modes[m]);
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
      volatile double x = vals[i];
      printf("  %.17g: rint %.17g nearby %.17g floor %.17g ceil %.17g round %.17g trunc %.17g", x,
             rint(x), nearbyint(x), floor(x), ceil(x), round(x), trunc(x));
      if (fabs(x) < 1e18) printf(" lrint %ld llrint %lld lround %ld", lrint(x), llrint(x), lround(x));
      printf("\n");
      float f = (float)x;
      printf("    f %.9g: rintf %.9g floorf %.9g ceilf %.9g roundf %.9g truncf %.9g\n", (double)f,
             (double)rintf(f), (double)floorf(f), (double)ceilf(f), (double)roundf(f), (double)truncf(f));
    }
    volatile double one = 1.0, three = 3.0, big = 1e308;
    volatile long long odd = 9007199254740993ll;
    printf("  1/3 %.17g -1/3 %.17g 2/3 %.17g big*10 %.17g\n", one / three, -one / three,
           2 * one / three, big * 10);
    printf("  (double)2^53+1 %.17g (float)1/3 %.9g sqrt(2) %.17g\n", (double)odd,
           (double)(float)(one / three), sqrt(2 * one));
  }
  fesetround(FE_TONEAREST);
  const double dec[] = {0.0, 1.0, -1.0, 0.1, 3.75, 1024.0, 1e-310, -6e300, 123456789.0};
  for (size_t i = 0; i < sizeof dec / sizeof dec[0]; i++) {
    int e;
    double frac = frexp(dec[i], &e), ip;
    double fp = modf(dec[i] * 3.3, &ip);
    printf("frexp(%.17g) = %.17g * 2^%d | ldexp back %.17g | modf %.17g + %.17g | ilogb %d scalbn %.17g\n",
           dec[i], frac, e, ldexp(frac, e), ip, fp, dec[i] != 0 ? ilogb(dec[i]) : 0, scalbn(dec[i], -3));
  }
  printf("ldexp edges %.17g %.17g %.17g %.17g\n", ldexp(1.0, 1023), ldexp(1.0, 1024), ldexp(1.0, -1074),
         ldexp(1.0, -1075));
  printf("remainder %.17g %.17g remquo ", remainder(10.0, 3.0), remainder(11.0, 3.0));
  int q;
  double r = remquo(29.0, 3.0, &q);
  printf("%.17g q%d\n", r, q);
  return 0;
}
