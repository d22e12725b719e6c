// SSE4.1 roundps/roundss/roundpd/roundsd through intrinsics with every
// immediate (the four modes, "use MXCSR", the precision-exception mask)
// under every MXCSR rounding mode, with the precision flag each leaves,
// and SSE3 fisttp at 16, 32 and 64 bits (out-of-range values: the integer
// indefinite).  Built with -msse4.1 -frounding-math.  Inputs: NaNs with
// payloads, infinities, signed zeros, denormals, halfway cases; results
// as bit patterns.
#include <inttypes.h>
#include <smmintrin.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"
#include "sse_values.h"

__attribute__((noipa)) static __m128 ps(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  return _mm_setr_ps(f_of(a), f_of(b), f_of(c), f_of(d));
}
__attribute__((noipa)) static __m128d pd(uint64_t a, uint64_t b) { return _mm_setr_pd(d_of(a), d_of(b)); }

// Rounds every input with immediate IMM under the current MXCSR mode and
// prints the results and the precision flag.
#define ROUND_ALL(IMM)                                                                       \
  do {                                                                                       \
    for (unsigned i = 0; i + 4 <= NF; i += 4) {                                              \
      __m128 x = ps(kFloats[i], kFloats[i + 1], kFloats[i + 2], kFloats[i + 3]);            \
      _mm_setcsr(_mm_getcsr() & ~0x3fu);                                                     \
      __m128 r = _mm_round_ps(x, IMM);                                                       \
      printf("pe=%u ", _mm_getcsr() & 0x3f);                                                 \
      show_ps("roundps " #IMM, r);                                                           \
      __m128 s = _mm_round_ss(ps(1, 2, 3, 4), x, IMM);                                       \
      show_ps("roundss " #IMM, s);                                                           \
    }                                                                                        \
    for (unsigned i = 0; i + 2 <= ND; i += 2) {                                              \
      __m128d x = pd(kDoubles[i], kDoubles[i + 1]);                                          \
      _mm_setcsr(_mm_getcsr() & ~0x3fu);                                                     \
      __m128d r = _mm_round_pd(x, IMM);                                                      \
      printf("pe=%u ", _mm_getcsr() & 0x3f);                                                 \
      show_pd("roundpd " #IMM, r);                                                           \
      show_pd("roundsd " #IMM, _mm_round_sd(pd(5, 6), x, IMM));                              \
    }                                                                                        \
  } while (0)

static void rounding(void) {
  static const unsigned modes[] = {_MM_ROUND_NEAREST, _MM_ROUND_DOWN, _MM_ROUND_UP, _MM_ROUND_TOWARD_ZERO};
  for (unsigned m = 0; m < 4; m++) {
    _MM_SET_ROUNDING_MODE(modes[m]);
    printf("-- MXCSR mode %u\n", m);
    ROUND_ALL(0); ROUND_ALL(1); ROUND_ALL(2); ROUND_ALL(3);
    ROUND_ALL(4); ROUND_ALL(5); ROUND_ALL(6); ROUND_ALL(7);
    ROUND_ALL(8); ROUND_ALL(9); ROUND_ALL(10); ROUND_ALL(11);
    ROUND_ALL(12); ROUND_ALL(13); ROUND_ALL(14); ROUND_ALL(15);
  }
  _MM_SET_ROUNDING_MODE(_MM_ROUND_NEAREST);
}

__attribute__((noipa)) static long double ld(double x) { return x; }

static void fisttp(void) {
  static const double vals[] = {0.0, -0.0, 1.5, -1.5, 2.5, -2.7, 32767.9, -32768.9, 32768.0, 2147483647.9,
                                -2147483648.9, 2147483648.0, 9.2233720368547748e18, -9.2233720368547758e18,
                                1e300, -1e300};
  for (unsigned i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    long double x = ld(vals[i]);
    short s;
    int w;
    long long q;
    __asm__("fisttps %0" : "=m"(s) : "t"(x) : "st");
    __asm__("fisttpl %0" : "=m"(w) : "t"(x) : "st");
    __asm__("fisttpll %0" : "=m"(q) : "t"(x) : "st");
    printf("fisttp %-22.17g %04hx %08x %016llx\n", vals[i], (unsigned short)s, (unsigned)w, (unsigned long long)q);
  }
}

int main(void) {
  rounding();
  fisttp();
  return 0;
}
