// libm's core functions printed with %.17g so every bit shows: sqrt, sin,
// cos, tan, exp, log, log10, pow and fmod over hand-picked arguments
// (zeros, huge and tiny values, multiples of pi, special values) and a
// sweep, plus digests of many evaluations.
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

static uint64_t bits_of(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

int main(void) {
  volatile double zero = 0.0;
  const double inf = 1.0 / zero, nan = zero / zero;
  const double args[] = {0.0, -0.0, 1e-310, 1e-300, 1e-8, 0.1, 0.5, 0.7853981633974483, 1.0,
                         1.5707963267948966, 2.0, 3.141592653589793, 4.0, 10.0, 100.0, 710.0,
                         1e10, 1e22, 1e300, -0.5, -1.0, -3.0, -745.2, inf, -inf, nan};
  for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
    double x = args[i];
    printf("x=%.17g\n", x);
    printf("  sqrt %.17g sin %.17g cos %.17g tan %.17g\n", sqrt(x), sin(x), cos(x), tan(x));
    printf("  exp %.17g log %.17g log10 %.17g exp2 %.17g\n", exp(x), log(x), log10(x), exp2(x));
    printf("  pow(x,0.5) %.17g pow(x,3) %.17g pow(2,x) %.17g pow(x,-1.5) %.17g\n", pow(x, 0.5),
           pow(x, 3), pow(2, x), pow(x, -1.5));
    printf("  fmod(x,3) %.17g fmod(x,-0.7) %.17g fmod(7,x) %.17g\n", fmod(x, 3), fmod(x, -0.7),
           fmod(7, x));
  }
  static const double pw[][2] = {{-8, 1.0 / 3}, {-2, 3}, {-2, 0.5}, {0, -1}, {-0.0, -3}, {1, 1e300},
                                 {-1, 1e300}, {0.5, 1074}, {2, -1075}, {10, 308}, {10, 309},
                                 {1.0000001, 1e9}, {-1, 0}, {0, 0}};
  for (size_t i = 0; i < sizeof pw / sizeof pw[0]; i++)
    printf("pow(%g,%g) = %.17g\n", pw[i][0], pw[i][1], pow(pw[i][0], pw[i][1]));
  // Large arguments need careful argument reduction.
  static const double big[] = {1e6, 1e15, 1e22, 1.7976931348623157e308, 6381956970095103.0 * 1024};
  for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
    printf("big %.17g: sin %.17g cos %.17g\n", big[i], sin(big[i]), cos(big[i]));

  uint64_t h_trig = FNV_INIT, h_exp = FNV_INIT, h_pow = FNV_INIT;
  rng_seed(77);
  for (int i = 0; i < 4000; i++) {
    double x = (double)(int64_t)rng_next() / 9.2e18 * 20.0;  // about -20..20
    double y = (double)rng_u32() / 4294967296.0 * 4.0;
    h_trig = fnv1a_u64(h_trig, bits_of(sin(x)) ^ bits_of(cos(x)) * 3 ^ bits_of(tan(x)) * 5);
    h_exp = fnv1a_u64(h_exp, bits_of(exp(x)) ^ bits_of(log(fabs(x))) * 3 ^ bits_of(sqrt(fabs(x))) * 7);
    h_pow = fnv1a_u64(h_pow, bits_of(pow(fabs(x), y)) ^ bits_of(fmod(x, y + 0.1)) * 3);
  }
  printf("hashes trig %016" PRIx64 " exp %016" PRIx64 " pow %016" PRIx64 "\n", h_trig, h_exp, h_pow);
  printf("sqrt(2) %.17g cbrt(27) %.17g M_PI %.17g\n", sqrt(2.0), cbrt(27.0), M_PI);
  return 0;
}
