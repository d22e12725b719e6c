// More of libm, double and float: hypot, atan2 in all four quadrants and
// on signed zeros and infinities, inverse and hyperbolic functions, log1p,
// expm1, cbrt, erf, lgamma/tgamma, fma (software on baseline x86-64),
// copysign/nextafter/fdim/fmax/fmin, and the float (…f) versions.
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
  const double pts[] = {0.0, -0.0, 1.0, -1.0, 3.0, -4.0, 1e-300, 1e300, inf, -inf};
  for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    printf("y=%g:", pts[i]);
    for (size_t j = 0; j < sizeof pts / sizeof pts[0]; j++) printf(" %.17g", atan2(pts[i], pts[j]));
    printf("\n  hypot:");
    for (size_t j = 0; j < sizeof pts / sizeof pts[0]; j++) printf(" %.17g", hypot(pts[i], pts[j]));
    printf("\n");
  }
  printf("hypot nan/inf %.17g %.17g\n", hypot(nan, inf), hypot(nan, 1.0));
  const double xs[] = {-0.0, 1e-20, 0.25, 0.5, 0.9999999, 1.0, 2.0, 10.0, 30.0, 700.0, -0.75, -20.0, nan};
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
    double x = xs[i];
    printf("x=%.17g\n  asin %.17g acos %.17g atan %.17g sinh %.17g cosh %.17g tanh %.17g\n", x, asin(x),
           acos(x), atan(x), sinh(x), cosh(x), tanh(x));
    printf("  asinh %.17g acosh %.17g atanh %.17g log1p %.17g expm1 %.17g log2 %.17g\n", asinh(x),
           acosh(x), atanh(x), log1p(x), expm1(x), log2(x));
    printf("  cbrt %.17g erf %.17g erfc %.17g tgamma %.17g lgamma %.17g\n", cbrt(x), erf(x), erfc(x),
           tgamma(x), lgamma(x));
    float f = (float)x;
    printf("  f: sinf %.9g cosf %.9g expf %.9g logf %.9g sqrtf %.9g powf %.9g atan2f %.9g\n",
           (double)sinf(f), (double)cosf(f), (double)expf(f), (double)logf(f), (double)sqrtf(f),
           (double)powf(f, 1.5f), (double)atan2f(f, 0.5f));
  }
  printf("fma %.17g %.17g\n", fma(0.1, 10.0, -1.0), fma(1.0 + 0x1p-52, 1.0 - 0x1p-52, -1.0));
  printf("copysign %.17g %.17g nextafter %.17g %.17g %.17g\n", copysign(3.0, -0.0), copysign(-2.0, 1.0),
         nextafter(1.0, 2.0), nextafter(0.0, -1.0), nextafter(1.0, 0.0));
  printf("fdim %.17g fmax %.17g fmin %.17g fmax(nan,1) %.17g fmin(1,nan) %.17g\n", fdim(5.0, 3.0),
         fmax(-0.0, 0.0), fmin(-0.0, 0.0), fmax(nan, 1.0), fmin(1.0, nan));
  printf("classify %d %d %d %d %d signbit %d %d isnan %d isinf %d\n", fpclassify(0.0), fpclassify(1e-310),
         fpclassify(1.0), fpclassify(inf), fpclassify(nan), signbit(-0.0) != 0, signbit(nan) != 0,
         isnan(nan) != 0, isinf(-inf));
  uint64_t h = FNV_INIT, hf = FNV_INIT;
  rng_seed(4242);
  for (int i = 0; i < 3000; i++) {
    double a = (double)(int64_t)rng_next() / 1e18, b = (double)(int64_t)rng_next() / 3e17;
    h = fnv1a_u64(h, bits_of(atan2(a, b)) ^ bits_of(hypot(a, b)) * 3 ^ bits_of(asinh(a)) * 5);
    h = fnv1a_u64(h, bits_of(tanh(a)) ^ bits_of(log1p(fabs(b))) * 3 ^ bits_of(cbrt(b)) * 7);
    float fa = (float)a, fb = (float)b;
    float r = sinf(fa) + cosf(fb) * expf(fa / 4) + logf(fabsf(fb) + 1) + atan2f(fa, fb);
    uint32_t rb;
    memcpy(&rb, &r, sizeof rb);
    hf = fnv1a_u64(hf, rb);
  }
  printf("hash %016" PRIx64 " float hash %016" PRIx64 "\n", h, hf);
  return 0;
}
