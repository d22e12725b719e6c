// SSE/SSE2 conversions in all four MXCSR rounding modes (set with
// _mm_setcsr): cvtsi2ss/sd from 32- and 64-bit integers, cvtss2sd,
// cvtsd2ss, cvt(t)ss2si and cvt(t)sd2si to 32 and 64 bits (x86 returns the
// "integer indefinite" 0x80000000... for NaN and out-of-range values),
// cvtdq2ps, cvt(t)ps2dq, cvtdq2pd, cvt(t)pd2dq, cvtps2pd, cvtpd2ps, and
// the C casts GCC compiles to them.  Also rounding of add/mul/div/sqrt by
// mode, flush-to-zero with denormals-are-zero, and stmxcsr/ldmxcsr.
#include <emmintrin.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define HIDE(v) __asm__ volatile("" : "+x"(v))

static const double dvals[] = {
    0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999999999999994, 1e10, -1e10,
    2147483647.0, 2147483647.5, 2147483648.0, -2147483648.0, -2147483648.5, -2147483649.0,
    4294967296.5, 9.2233720368547748e18, 9.2233720368547758e18, -9.2233720368547758e18, -9.2233720368547779e18,
    1e300, -1e300, INFINITY, -INFINITY, NAN, -NAN, 5e-324, 3.4028235677973366e38, 1.0000000596046448,
    1.0000000894069672, -1.0000000596046448, 16777217.0, 1e-40,
};
#define ND (int)(sizeof dvals / sizeof dvals[0])

static const int64_t ivals[] = {0, 1, -1, 16777217, -16777217, 2147483647, -2147483647 - 1, 9007199254740993LL,
                                -9007199254740993LL, 0x7fffffffffffffffLL, -0x7fffffffffffffffLL - 1,
                                123456789012345678LL};
#define NI (int)(sizeof ivals / sizeof ivals[0])

static const char *const mode_names[] = {"nearest", "down", "up", "zero"};

static uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static uint64_t dbits(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

static void scalar_to_int(void) {
  for (int i = 0; i < ND; i++) {
    __m128d d = _mm_set_sd(dvals[i]);
    __m128 f = _mm_set_ss((float)dvals[i]);
    HIDE(d);
    HIDE(f);
    printf("  %2d sd2si %08x %08x %016" PRIx64 " %016" PRIx64, i, (unsigned)_mm_cvtsd_si32(d),
           (unsigned)_mm_cvttsd_si32(d), (uint64_t)_mm_cvtsd_si64(d), (uint64_t)_mm_cvttsd_si64(d));
    printf(" ss2si %08x %08x %016" PRIx64 " %016" PRIx64 "\n", (unsigned)_mm_cvtss_si32(f),
           (unsigned)_mm_cvttss_si32(f), (uint64_t)_mm_cvtss_si64(f), (uint64_t)_mm_cvttss_si64(f));
  }
}

static void int_to_float(void) {
  for (int i = 0; i < NI; i++) {
    __m128d d = _mm_set1_pd(7.0);
    __m128 f = _mm_set1_ps(7.0f);
    HIDE(d);
    HIDE(f);
    long long v = ivals[i];
    __asm__ volatile("" : "+r"(v));
    __m128d d32 = _mm_cvtsi32_sd(d, (int)v), d64 = _mm_cvtsi64_sd(d, v);
    __m128 f32 = _mm_cvtsi32_ss(f, (int)v), f64 = _mm_cvtsi64_ss(f, v);
    printf("  %2d si2sd %016" PRIx64 " %016" PRIx64 " %016" PRIx64 " si2ss %08x %08x %08x\n", i,
           dbits(_mm_cvtsd_f64(d32)), dbits(_mm_cvtsd_f64(d64)), dbits(_mm_cvtsd_f64(_mm_unpackhi_pd(d64, d64))),
           fbits(_mm_cvtss_f32(f32)), fbits(_mm_cvtss_f32(f64)), (unsigned)_mm_extract_epi16(_mm_castps_si128(f64), 7));
  }
}

static void float_to_float(void) {
  for (int i = 0; i < ND; i++) {
    __m128d d = _mm_setr_pd(dvals[i], dvals[(i + 1) % ND]);
    __m128 f = _mm_setr_ps((float)dvals[i], -3.0f, (float)dvals[(i + 2) % ND], 5.0f);
    HIDE(d);
    HIDE(f);
    __m128 s = _mm_cvtsd_ss(f, d);
    __m128d w = _mm_cvtss_sd(d, f);
    __m128 pd2ps = _mm_cvtpd_ps(d);
    __m128d ps2pd = _mm_cvtps_pd(f);
    uint32_t u[4];
    uint64_t q[2];
    _mm_storeu_ps((float *)u, s);
    printf("  %2d sd2ss %08x %08x %08x %08x", i, u[0], u[1], u[2], u[3]);
    _mm_storeu_pd((double *)q, w);
    printf(" ss2sd %016" PRIx64 " %016" PRIx64, q[0], q[1]);
    _mm_storeu_ps((float *)u, pd2ps);
    printf(" pd2ps %08x %08x %08x %08x", u[0], u[1], u[2], u[3]);
    _mm_storeu_pd((double *)q, ps2pd);
    printf(" ps2pd %016" PRIx64 " %016" PRIx64 "\n", q[0], q[1]);
  }
}

static void packed_int(void) {
  for (int i = 0; i < ND; i++) {
    __m128 f = _mm_setr_ps((float)dvals[i], (float)dvals[(i + 7) % ND], (float)dvals[(i + 13) % ND],
                           (float)dvals[(i + 21) % ND]);
    __m128d d = _mm_setr_pd(dvals[i], dvals[(i + 3) % ND]);
    __m128i n = _mm_setr_epi32((int)ivals[i % NI], (int)ivals[(i + 5) % NI], 0x7fffffbf, -0x7fffffbf);
    HIDE(f);
    HIDE(d);
    HIDE(n);
    uint32_t u[4];
    uint64_t q[2];
    _mm_storeu_si128((__m128i *)u, _mm_cvtps_epi32(f));
    printf("  %2d ps2dq %08x %08x %08x %08x", i, u[0], u[1], u[2], u[3]);
    _mm_storeu_si128((__m128i *)u, _mm_cvttps_epi32(f));
    printf(" tps2dq %08x %08x %08x %08x", u[0], u[1], u[2], u[3]);
    _mm_storeu_si128((__m128i *)u, _mm_cvtpd_epi32(d));
    printf(" pd2dq %08x %08x %08x %08x", u[0], u[1], u[2], u[3]);
    _mm_storeu_si128((__m128i *)u, _mm_cvttpd_epi32(d));
    printf(" tpd2dq %08x %08x %08x %08x\n", u[0], u[1], u[2], u[3]);
    _mm_storeu_ps((float *)u, _mm_cvtepi32_ps(n));
    printf("     dq2ps %08x %08x %08x %08x", u[0], u[1], u[2], u[3]);
    _mm_storeu_pd((double *)q, _mm_cvtepi32_pd(n));
    printf(" dq2pd %016" PRIx64 " %016" PRIx64 "\n", q[0], q[1]);
  }
}

static void arithmetic_rounding(void) {
  volatile double one = 1.0, three = 3.0, two = 2.0, tiny = 1e-300, big = 1e300;
  volatile float fone = 1.0f, fthree = 3.0f, fseven = 7.0f;
  printf("  div %016" PRIx64 " %016" PRIx64 " add %016" PRIx64 " mul %016" PRIx64 " %016" PRIx64 " sqrt %016" PRIx64
         "\n",
         dbits(one / three), dbits(-one / three), dbits(one + tiny), dbits(big * big), dbits(tiny * tiny),
         dbits(sqrt(two)));
  printf("  fdiv %08x %08x fsqrt %08x\n", fbits(fone / fthree), fbits(-fone / fseven), fbits(sqrtf(fthree)));
}

// C casts: (int)d truncates whatever the mode; lrint follows the mode.
static void c_casts(void) {
  for (int i = 0; i < ND; i++) {
    volatile double d = dvals[i];
    if (!(fabs(d) < 9e18)) continue;  // out of range casts are undefined in C
    printf("  %2d cast %lld %d %u lrint %ld\n", i, (long long)d, fabs(d) < 2e9 ? (int)d : 0,
           d >= 0 && d < 4e9 ? (unsigned)d : 0u, lrint(d));
  }
}

static void flush_to_zero(void) {
  unsigned saved = _mm_getcsr();
  volatile double dn = 1e-310, one = 1.0;
  volatile float fdn = 1e-40f, fone = 1.0f, fhalf = 0.5f;
  for (int mode = 0; mode < 2; mode++) {
    _mm_setcsr(mode ? (saved | 0x8040) : saved);  // FTZ | DAZ
    printf("  ftz %d %016" PRIx64 " %016" PRIx64 " %08x %08x csr %08x\n", mode, dbits(dn * one), dbits(dn + dn),
           fbits(fdn * fone), fbits(fdn * fhalf), _mm_getcsr() & ~0x3fu);
  }
  _mm_setcsr(saved);
}

// MXCSR exception flags (IE ZE OE UE PE; DE is left out: AArch64 has no
// denormal-operand flag) after one operation each, read with stmxcsr.
#define FLAGS_AFTER(name, expr)                                   \
  do {                                                            \
    _mm_setcsr(saved & ~0x3fu);                                   \
    volatile __typeof__(expr) r_ = (expr);                        \
    (void)r_;                                                     \
    printf("  flags %-10s %02x\n", name, _mm_getcsr() & 0x3d);    \
  } while (0)

static void exception_flags(void) {
  unsigned saved = _mm_getcsr();
  volatile double zero = 0.0, one = 1.0, three = 3.0, big = 1e300, tiny = 1e-300, inf = INFINITY, qnan = NAN;
  volatile float fone = 1.0f, fzero = 0.0f;
  FLAGS_AFTER("none", one + one);
  FLAGS_AFTER("inexact", one / three);
  FLAGS_AFTER("divzero", one / zero);
  FLAGS_AFTER("fdivzero", fone / fzero);
  FLAGS_AFTER("invalid", zero / zero);
  FLAGS_AFTER("inf-inf", inf - inf);
  FLAGS_AFTER("sqrt-1", sqrt(-one));
  FLAGS_AFTER("overflow", big * big);
  FLAGS_AFTER("underflow", tiny * tiny);
  FLAGS_AFTER("qnan+1", qnan + one);
  FLAGS_AFTER("qnan<1", qnan < one);
  FLAGS_AFTER("qnan==1", qnan == one);
  FLAGS_AFTER("cvt nan", _mm_cvttsd_si32(_mm_set_sd(qnan)));
  FLAGS_AFTER("cvt big", _mm_cvtsd_si64(_mm_set_sd(big)));
  FLAGS_AFTER("cvt 1.5", _mm_cvtsd_si32(_mm_set_sd(one * 1.5)));
  FLAGS_AFTER("cvt 2", _mm_cvtsd_si32(_mm_set_sd(one * 2)));
  FLAGS_AFTER("sd2ss", (float)(one / three));
  _mm_setcsr(saved);
}

int main(void) {
  unsigned saved = _mm_getcsr();
  printf("csr %08x\n", saved);
  for (int mode = 0; mode < 4; mode++) {
    _mm_setcsr((saved & ~0x6000u) | (unsigned)mode << 13);
    printf("mode %s csr %08x\n", mode_names[mode], _mm_getcsr() & ~0x3fu);
    scalar_to_int();
    int_to_float();
    float_to_float();
    packed_int();
    arithmetic_rounding();
  }
  _mm_setcsr(saved);
  c_casts();
  flush_to_zero();
  exception_flags();
  return 0;
}
