// MXCSR's FTZ (flush results) and DAZ (denormal inputs as zero) set one
// at a time: each changes different results on x86.
#include <stdio.h>
#include <xmmintrin.h>

int main(void) {
  volatile double tiny = 1e-310, small = 1e-300;
  unsigned csr = _mm_getcsr();
  const char *names[] = {"FTZ", "DAZ"};
  const unsigned bits[] = {0x8000, 0x0040};
  for (int k = 0; k < 2; k++) {
    _mm_setcsr((csr & ~0x8040u) | bits[k]);
    double a = tiny * 2.0, b = small / 1e10, c = tiny + 0.0, d = tiny * 1e10;
    volatile float ft = 1e-40f;
    float e = ft * 2.0f;
    printf("%-4s tiny*2 %.17g small/1e10 %.17g tiny+0 %.17g tiny*1e10 %.17g f %.9g\n", names[k], a, b, c, d,
           (double)e);
  }
  _mm_setcsr(csr);
  return 0;
}
