// glibc's libm on an SSE2 machine: its double and float functions are SSE2
// code (bit manipulation through movq/movd, pand/por masks, cvt*, scalar
// and packed arithmetic).  Each result is printed with %a, so the
// translated run must match the native one bit for bit.  Special inputs
// (zeros, infinities, NaN, denormals, huge arguments) take the functions'
// rare paths.
#include <math.h>
#include <stdio.h>

static const double dvals[] = {0.0, -0.0, 0.5, -0.75, 1.0, 2.0, 3.14159, -10.5, 100.25, 1e-5, 7e-310,
                               1e22, -1e300, 710.0, -745.5, INFINITY, -INFINITY, NAN};
#define ND (int)(sizeof dvals / sizeof dvals[0])

int main(void) {
  for (int i = 0; i < ND; i++) {
    double x = dvals[i], y = dvals[(i * 5 + 3) % ND];
    float f = (float)x, g = (float)y;
    int e = 0;
    double ip = 0, fr = frexp(x, &e), mf = modf(x, &ip);
    printf("%2d exp %a log %a log2 %a log10 %a expm1 %a log1p %a\n", i, exp(x), log(x), log2(x), log10(x), expm1(x),
           log1p(x));
    printf("   sin %a cos %a tan %a asin %a acos %a atan %a atan2 %a\n", sin(x), cos(x), tan(x), asin(x), acos(x),
           atan(x), atan2(x, y));
    printf("   sinh %a cosh %a tanh %a asinh %a\n", sinh(x), cosh(x), tanh(x), asinh(x));
    printf("   pow %a %a sqrt %a cbrt %a hypot %a fmod %a rem %a\n", pow(x, y), pow(fabs(x), 0.5), sqrt(x), cbrt(x),
           hypot(x, y), fmod(x, y), remainder(x, y));
    printf("   frexp %a %d ldexp %a modf %a %a scalbn %a logb %a ilogb %d\n", fr, e, ldexp(x, 7), mf, ip,
           scalbn(x, -3), logb(x), x == x ? ilogb(x) : 0);
    printf("   erf %a erfc %a lgamma %a\n", erf(x), erfc(x), lgamma(x));  // tgamma uses x87
    printf("   f exp %a log %a sin %a cos %a pow %a sqrt %a atan2 %a tanh %a\n", (double)expf(f), (double)logf(f),
           (double)sinf(f), (double)cosf(f), (double)powf(f, g), (double)sqrtf(f), (double)atan2f(f, g),
           (double)tanhf(f));
  }
  return 0;
}
