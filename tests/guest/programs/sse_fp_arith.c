// SSE/SSE2 floating-point arithmetic, packed and scalar, on special values
// (zeros of both signs, infinities, quiet and signalling NaNs with
// payloads, denormals, huge and tiny numbers), results printed as bits:
// add, sub, mul, div, sqrt, min, max.  Scalar forms must keep the upper
// elements of the destination.  Checks x86's NaN rules: a NaN made from
// ordinary operands is the negative default NaN, and with two NaN operands
// the first one wins.  rcp/rsqrt are approximations on x86: only their
// accuracy is printed.  Also the default NaN seen through printf ("-nan").
#include <emmintrin.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define HIDE(v) __asm__ volatile("" : "+x"(v))

static const uint32_t fbits[] = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3fc00000, 0x40400000, 0x7149f2ca, 0x8ea2425e,
    0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7fc12345, 0x7f812345, 0xff900001, 0x00000001,
    0x007fffff, 0x7f7fffff, 0x00800000, 0xc0490fdb,
};
static const uint64_t dbits[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
    0x3ff8000000000000ull, 0x4008000000000000ull, 0x7e37e43c8800759cull, 0x81d0000000000001ull,
    0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull,
    0x7ff8000000012345ull, 0x7ff0000000012345ull, 0xfff4000000000001ull, 0x0000000000000001ull,
    0x000fffffffffffffull, 0x7fefffffffffffffull, 0x0010000000000000ull, 0xc00921fb54442d18ull,
};
#define NF (int)(sizeof fbits / sizeof fbits[0])
#define ND (int)(sizeof dbits / sizeof dbits[0])

static __m128 fv(int i, int j) {  // element 0 = value i, the others distinct markers
  __m128i v = _mm_set_epi32(0x11111111 + j, 0x22222222, (int)fbits[(i + 3) % NF], (int)fbits[i]);
  return _mm_castsi128_ps(v);
}
static __m128d dv(int i) {
  __m128i v = _mm_set_epi64x((long long)dbits[(i + 5) % ND], (long long)dbits[i]);
  return _mm_castsi128_pd(v);
}

static void show_ps(const char *name, int i, int j, __m128 v) {
  uint32_t u[4];
  _mm_storeu_ps((float *)u, v);
  printf("%-6s %2d %2d %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32 "\n", name, i, j, u[0], u[1], u[2], u[3]);
}
static void show_pd(const char *name, int i, int j, __m128d v) {
  uint64_t u[2];
  _mm_storeu_pd((double *)u, v);
  printf("%-6s %2d %2d %016" PRIx64 " %016" PRIx64 "\n", name, i, j, u[0], u[1]);
}

#define PS_BIN(name, expr)            \
  for (int i = 0; i < NF; i++)        \
    for (int j = 0; j < NF; j++) {    \
      __m128 a = fv(i, j), b = fv(j, i); \
      HIDE(a);                        \
      HIDE(b);                        \
      __m128 r = expr;                \
      show_ps(name, i, j, r);         \
    }
#define PD_BIN(name, expr)            \
  for (int i = 0; i < ND; i++)        \
    for (int j = 0; j < ND; j++) {    \
      __m128d a = dv(i), b = dv(j);   \
      HIDE(a);                        \
      HIDE(b);                        \
      __m128d r = expr;               \
      show_pd(name, i, j, r);         \
    }

static void floats(void) {
  PS_BIN("addps", _mm_add_ps(a, b));
  PS_BIN("subps", _mm_sub_ps(a, b));
  PS_BIN("mulps", _mm_mul_ps(a, b));
  PS_BIN("divps", _mm_div_ps(a, b));
  PS_BIN("minps", _mm_min_ps(a, b));
  PS_BIN("maxps", _mm_max_ps(a, b));
  PS_BIN("addss", _mm_add_ss(a, b));
  PS_BIN("subss", _mm_sub_ss(a, b));
  PS_BIN("mulss", _mm_mul_ss(a, b));
  PS_BIN("divss", _mm_div_ss(a, b));
  PS_BIN("minss", _mm_min_ss(a, b));
  PS_BIN("maxss", _mm_max_ss(a, b));
  for (int i = 0; i < NF; i++) {
    __m128 a = fv(i, 0), b = fv((i + 1) % NF, 1);
    HIDE(a);
    HIDE(b);
    show_ps("sqrtps", i, 0, _mm_sqrt_ps(a));
    show_ps("sqrtss", i, 0, _mm_sqrt_ss(a));
    // sqrtss xmm1, xmm2: the upper elements come from the destination
    __asm__("sqrtss %1, %0" : "+x"(b) : "x"(a));
    show_ps("sqrtss2", i, 0, b);
  }
}

static void doubles(void) {
  PD_BIN("addpd", _mm_add_pd(a, b));
  PD_BIN("subpd", _mm_sub_pd(a, b));
  PD_BIN("mulpd", _mm_mul_pd(a, b));
  PD_BIN("divpd", _mm_div_pd(a, b));
  PD_BIN("minpd", _mm_min_pd(a, b));
  PD_BIN("maxpd", _mm_max_pd(a, b));
  PD_BIN("addsd", _mm_add_sd(a, b));
  PD_BIN("subsd", _mm_sub_sd(a, b));
  PD_BIN("mulsd", _mm_mul_sd(a, b));
  PD_BIN("divsd", _mm_div_sd(a, b));
  PD_BIN("minsd", _mm_min_sd(a, b));
  PD_BIN("maxsd", _mm_max_sd(a, b));
  for (int i = 0; i < ND; i++) {
    __m128d a = dv(i), b = dv((i + 1) % ND);
    HIDE(a);
    HIDE(b);
    show_pd("sqrtpd", i, 0, _mm_sqrt_pd(a));
    show_pd("sqrtsd", i, 0, _mm_sqrt_sd(b, a));
  }
}

// rcpps/rsqrtps: x86 promises a relative error of at most 1.5 * 2^-12.
static void estimates(void) {
  static const float xs[] = {1.0f, 3.0f, 0.1f, 1e-20f, 7e30f, -2.5f, 1234.5f};
  for (unsigned k = 0; k < sizeof xs / sizeof xs[0]; k++) {
    __m128 x = _mm_set1_ps(xs[k]);
    HIDE(x);
    float r = _mm_cvtss_f32(_mm_rcp_ps(x)), rs = _mm_cvtss_f32(_mm_rsqrt_ss(_mm_set1_ps(fabsf(xs[k]))));
    float er = fabsf(r * xs[k] - 1.0f), ers = fabsf(rs * rs * fabsf(xs[k]) - 1.0f);
    printf("rcp %u %d rsqrt %d\n", k, er < 0.0004f, ers < 0.0008f);
  }
  __m128 special = _mm_setr_ps(0.0f, -0.0f, INFINITY, -INFINITY);
  HIDE(special);
  uint32_t u[4];
  _mm_storeu_ps((float *)u, _mm_rcp_ps(special));
  printf("rcp special %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32 "\n", u[0], u[1], u[2], u[3]);
}

// What C code sees: NaNs through printf (the sign shows as "-nan").
static void c_level(void) {
  volatile double zero = 0.0, inf = INFINITY, one = 1.0;
  volatile float fzero = 0.0f;
  double q = zero / zero, s = sqrt(-one), d = inf - inf, m = zero * inf;
  float fq = fzero / fzero;
  uint64_t b[4];
  uint32_t fb;
  memcpy(&b[0], &q, 8);
  memcpy(&b[1], &s, 8);
  memcpy(&b[2], &d, 8);
  memcpy(&b[3], &m, 8);
  memcpy(&fb, &fq, 4);
  printf("c: %016" PRIx64 " %016" PRIx64 " %016" PRIx64 " %016" PRIx64 " %08" PRIx32 "\n", b[0], b[1], b[2], b[3], fb);
  double n = NAN, p = n + one;
  memcpy(&b[0], &p, 8);
  printf("c: NAN+1 %016" PRIx64 "\n", b[0]);
  printf("c: %f %f %f\n", q, -q, p);
}

// Both operands the same register: the result register is also both inputs.
#define SELF(insn)                                   \
  for (int i = 0; i < NF; i++) {                     \
    __m128 r = fv(i, 0);                             \
    __asm__(insn " %0, %0" : "+x"(r));               \
    show_ps(insn, i, i, r);                          \
  }
#define SELFD(insn)                                  \
  for (int i = 0; i < ND; i++) {                     \
    __m128d r = dv(i);                               \
    __asm__(insn " %0, %0" : "+x"(r));               \
    show_pd(insn, i, i, r);                          \
  }

static void same_register(void) {
  SELF("addps") SELF("subps") SELF("mulps") SELF("divps") SELF("minps") SELF("maxps") SELF("sqrtps")
  SELF("addss") SELF("subss") SELF("mulss") SELF("divss") SELF("minss") SELF("maxss") SELF("sqrtss")
  SELF("unpcklps") SELF("unpckhps") SELF("movhlps") SELF("movlhps") SELF("movss") SELF("andnps")
  SELFD("addpd") SELFD("subpd") SELFD("mulpd") SELFD("divpd") SELFD("minpd") SELFD("maxpd") SELFD("sqrtpd")
  SELFD("addsd") SELFD("subsd") SELFD("mulsd") SELFD("divsd") SELFD("minsd") SELFD("maxsd") SELFD("sqrtsd")
  SELFD("unpcklpd") SELFD("unpckhpd") SELFD("cvtsd2ss") SELFD("cvtpd2ps") SELFD("cvttpd2dq")
  SELF("cvtss2sd") SELF("cvtps2pd") SELF("cvtps2dq") SELF("cvtdq2ps") SELF("cvtdq2pd")
}

int main(void) {
  floats();
  same_register();
  doubles();
  estimates();
  c_level();
  return 0;
}
