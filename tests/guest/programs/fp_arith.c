// SSE scalar arithmetic where x86 and AArch64 disagree: which NaN comes
// out of an operation on two NaNs (x86: the first source), the default
// NaN's sign, minsd/maxsd idioms with NaN and signed zeros, unordered
// compares, exception flags (fetestexcept), denormals with MXCSR's FTZ and
// DAZ bits set together, and float sums the compiler may vectorise.
#include <fenv.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <xmmintrin.h>

static uint64_t dbits(double d) {
  uint64_t b;
  memcpy(&b, &d, sizeof b);
  return b;
}

static double from_bits(uint64_t b) {
  double d;
  memcpy(&d, &b, sizeof d);
  return d;
}

// a < b ? a : b compiles to minsd, which returns b when either is NaN.
static double min_idiom(double a, double b) { return a < b ? a : b; }
static double max_idiom(double a, double b) { return a > b ? a : b; }

static void flags(const char *what) {
  int f = fetestexcept(FE_ALL_EXCEPT);
  printf("%-12s %s%s%s%s%s\n", what, f & FE_INVALID ? "I" : "-", f & FE_DIVBYZERO ? "Z" : "-",
         f & FE_OVERFLOW ? "O" : "-", f & FE_UNDERFLOW ? "U" : "-", f & FE_INEXACT ? "P" : "-");
  feclearexcept(FE_ALL_EXCEPT);
}

int main(void) {
  volatile double qnan1 = from_bits(0x7ff8000000000001ull), qnan2 = from_bits(0xfff8000000000002ull);
  volatile double one = 1.0, zero = 0.0, negzero = -0.0, inf = 1.0 / zero;
  printf("nan1+nan2 %016" PRIx64 " nan2+nan1 %016" PRIx64 "\n", dbits(qnan1 + qnan2), dbits(qnan2 + qnan1));
  printf("nan1*1 %016" PRIx64 " 1*nan2 %016" PRIx64 " nan2-nan1 %016" PRIx64 "\n", dbits(qnan1 * one),
         dbits(one * qnan2), dbits(qnan2 - qnan1));
  printf("0/0 %016" PRIx64 " inf-inf %016" PRIx64 " 0*inf %016" PRIx64 "\n", dbits(zero / zero),
         dbits(inf - inf), dbits(zero * inf));
  volatile float fn1 = (float)qnan1, fone = 1.0f;
  float fsum = fn1 + fone;
  uint32_t fb;
  memcpy(&fb, &fsum, sizeof fb);
  printf("float nan+1 %08" PRIx32 "\n", fb);

  const double ops[] = {1.0, -1.0, 0.0, -0.0, qnan1, qnan2};
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < 6; j++)
      printf("%016" PRIx64 "/%016" PRIx64 " ", dbits(min_idiom(ops[i], ops[j])), dbits(max_idiom(ops[i], ops[j])));
    printf("\n");
  }
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < 6; j++) {
      volatile double a = ops[i], b = ops[j];
      printf("%d%d%d%d%d%d ", a < b, a <= b, a == b, a != b, a > b, a >= b);
    }
    printf("\n");
  }
  printf("-0 == 0: %d, 1/-0 = %g\n", negzero == zero, one / negzero);

  feclearexcept(FE_ALL_EXCEPT);
  volatile double r;
  r = one / 3.0;  flags("1/3");
  r = one / zero; flags("1/0");
  r = zero / zero; flags("0/0");
  r = 1e308 * 10.0 * one; flags("overflow");
  volatile double e308 = 1e-308;
  r = e308 / 1e10; flags("underflow");
  r = one + 1.0; flags("exact");
  r = qnan1 + one; flags("qnan+1");
  volatile double snan = from_bits(0x7ff0000000000001ull);
  r = snan + one; flags("snan+1");
  printf("snan+1 bits %016" PRIx64 "\n", dbits(r));
  r = (double)(qnan1 < one); flags("qnan<1");
  volatile int64_t big = (int64_t)(1e300 * one); flags("cvt 1e300");
  (void)big;

  // Denormals: FTZ flushes results, DAZ treats denormal inputs as zero.
  volatile double tiny = 1e-310, small = 1e-300;
  unsigned csr = _mm_getcsr();
  // FTZ and DAZ one at a time are in fp_ftz_daz_split.c.
  const char *names[] = {"none", "FTZ+DAZ"};
  const unsigned bits[] = {0, 0x8040};
  for (int k = 0; k < 2; k++) {
    _mm_setcsr((csr & ~0x8040u) | bits[k]);
    double a = tiny * 2.0, b = small / 1e10, c = tiny + 0.0, d = tiny * 1e10;
    volatile float ft = 1e-40f;
    float e = ft * 2.0f;
    printf("%-8s tiny*2 %.17g small/1e10 %.17g tiny+0 %.17g tiny*1e10 %.17g f %.9g\n", names[k], a, b, c, d,
           (double)e);
  }
  _mm_setcsr(csr);

  static float xs[1000];
  for (int i = 0; i < 1000; i++) xs[i] = (float)i * 0.001f - 0.3f;
  float s = 0.0f;
  double sd = 0.0;
  for (int i = 0; i < 1000; i++) {
    s += xs[i] * xs[i];
    sd += (double)xs[i] / (i + 1);
  }
  printf("sum sq %.9g harmonic-ish %.17g\n", (double)s, sd);
  return 0;
}
