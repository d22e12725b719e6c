// MXCSR's FTZ (flush results) and DAZ (denormal inputs as zero) set one
// at a time, then both: each changes different results on x86, and the
// flags they raise (DE is left out: phybin tracks it only with
// PHYBIN_EXACT_MXCSR).
#include <stdio.h>
#include <xmmintrin.h>

int main(void) {
  volatile double tiny = 1e-310, small = 1e-300;
  unsigned csr = _mm_getcsr();
  const char *names[] = {"FTZ", "DAZ", "both", "none"};
  const unsigned bits[] = {0x8000, 0x0040, 0x8040, 0};
  for (int k = 0; k < 4; k++) {
    _mm_setcsr((csr & ~0x807fu) | bits[k]);
    double a = tiny * 2.0, b = small / 1e10, c = tiny + 0.0, d = tiny * 1e10;
    volatile float ft = 1e-40f;
    float e = ft * 2.0f;
    printf("%-4s tiny*2 %.17g small/1e10 %.17g tiny+0 %.17g tiny*1e10 %.17g f %.9g\n", names[k], a, b, c, d,
           (double)e);
    printf("     flags %02x\n", _mm_getcsr() & 0x3d);
    volatile float m = ft;
    __m128 mn = _mm_min_ss(_mm_set_ss(m), _mm_set_ss(1.0f));
    printf("     min(denormal, 1) %.9g\n", (double)_mm_cvtss_f32(mn));
  }
  _mm_setcsr(csr);
  return 0;
}
