// rcpps/rcpss/rsqrtps/rsqrtss: estimates that never set an MXCSR flag (the
// SDM lists no SIMD exception for them), whatever the operand, rounding
// mode or flush mode.  Their bits differ between CPU models (Intel and
// AMD use other tables), so only what every CPU gives is printed: the
// class of the result (zero, infinity, NaN, with sign) and whether a
// finite result is within the documented relative error of 1.5 * 2^-12.
#include <math.h>
#include <stdio.h>
#include <xmmintrin.h>

static const char *verdict(float x, float r, int sqrt_form) {
  if (isnan(r)) return signbit(r) ? "-nan" : "+nan";
  if (isinf(r)) return signbit(r) ? "-inf" : "+inf";
  if (r == 0) return signbit(r) ? "-0" : "+0";
  const double exact = sqrt_form ? 1.0 / sqrt((double)x) : 1.0 / (double)x;
  return fabs(((double)r - exact) / exact) <= 1.5 / 4096 ? "close" : "FAR";
}

int main(void) {
  const float vals[] = {0.0f, -0.0f, 3.0f, -3.0f, 1e-40f, 2e-39f, 1e38f, 3.4e38f, INFINITY, -INFINITY,
                        NAN, 0.1f, 7.5e-39f, 1.17549435e-38f};
  const unsigned modes[] = {0x1f80, 0x3f80, 0x5f80, 0x7f80, 0x9fc0, 0x1fc0, 0x9f80};  // RC, FTZ, DAZ
  for (unsigned m = 0; m < sizeof modes / sizeof modes[0]; m++) {
    for (unsigned i = 0; i < sizeof vals / sizeof vals[0]; i++) {
      printf("mxcsr %04x x %-14g", modes[m], vals[i]);
      for (int k = 0; k < 4; k++) {
        _mm_setcsr(modes[m]);
        const __m128 x = _mm_set1_ps(vals[i]);
        volatile __m128 r = k == 0 ? _mm_rcp_ps(x) : k == 1 ? _mm_rsqrt_ps(x) : k == 2 ? _mm_rcp_ss(x) : _mm_rsqrt_ss(x);
        const unsigned after = _mm_getcsr();
        float lanes[4];
        _mm_storeu_ps(lanes, r);
        printf(" %s %s %04x", k & 1 ? "rsqrt" : "rcp", verdict(vals[i], lanes[0], k & 1), after);
      }
      printf("\n");
    }
  }
  _mm_setcsr(0x1f80);
  return 0;
}
