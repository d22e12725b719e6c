// SSE/SSE2 through intrinsics (the x86-64 baseline): packed integer
// arithmetic with saturation, compares and pmovmskb, shuffles and unpacks,
// shifts by immediates and by registers, psadbw, pmaddwd, packed float and
// double math including min/max with NaN, conversions, and movemask.
#include <emmintrin.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void show128(const char *label, __m128i v) {
  uint8_t b[16];
  _mm_storeu_si128((__m128i *)b, v);
  printf("%-10s", label);
  for (int i = 15; i >= 0; i--) printf("%02x%s", b[i], i % 4 == 0 && i ? "_" : "");
  printf("\n");
}

static void show_ps(const char *label, __m128 v) {
  float f[4];
  uint32_t u[4];
  _mm_storeu_ps(f, v);
  memcpy(u, f, sizeof u);
  printf("%-10s %.9g %.9g %.9g %.9g (%08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32 ")\n", label, (double)f[0],
         (double)f[1], (double)f[2], (double)f[3], u[0], u[1], u[2], u[3]);
}

static void show_pd(const char *label, __m128d v) {
  double d[2];
  _mm_storeu_pd(d, v);
  printf("%-10s %.17g %.17g\n", label, d[0], d[1]);
}

// Inputs pass through functions GCC may not look into (noipa), so every
// intrinsic below executes at run time instead of being folded by the
// compiler, whose folding of out-of-range conversions differs from the CPU.
__attribute__((noipa)) static __m128i epi8(char a0, char a1, char a2, char a3, char a4, char a5, char a6, char a7,
                                           char a8, char a9, char a10, char a11, char a12, char a13, char a14,
                                           char a15) {
  return _mm_setr_epi8(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15);
}
__attribute__((noipa)) static __m128i epi32(int a, int b, int c, int d) { return _mm_setr_epi32(a, b, c, d); }
__attribute__((noipa)) static __m128 ps(float a, float b, float c, float d) { return _mm_setr_ps(a, b, c, d); }
__attribute__((noipa)) static __m128 ps1(float a) { return _mm_set1_ps(a); }
__attribute__((noipa)) static __m128d pd(double a, double b) { return _mm_setr_pd(a, b); }
__attribute__((noipa)) static __m128d pd1(double a) { return _mm_set1_pd(a); }
__attribute__((noipa)) static __m128i cnt(int n) { return _mm_cvtsi32_si128(n); }

int main(void) {
  __m128i a = epi8(1, -2, 3, -4, 100, -100, 127, -128, 0, 50, -50, 90, -90, 7, 8, 9);
  __m128i b = epi8(100, 100, -100, -100, 100, -100, 1, -1, 0, 80, -80, 60, -60, 1, 2, 3);
  show128("add8", _mm_add_epi8(a, b));
  show128("adds8", _mm_adds_epi8(a, b));
  show128("addus8", _mm_adds_epu8(a, b));
  show128("subs16", _mm_subs_epi16(a, b));
  show128("subus8", _mm_subs_epu8(a, b));
  show128("avg8", _mm_avg_epu8(a, b));
  show128("min_u8", _mm_min_epu8(a, b));
  show128("max_s16", _mm_max_epi16(a, b));
  show128("mullo16", _mm_mullo_epi16(a, b));
  show128("mulhi16", _mm_mulhi_epi16(a, b));
  show128("mulhiu16", _mm_mulhi_epu16(a, b));
  show128("mul_u32", _mm_mul_epu32(a, b));
  show128("madd", _mm_madd_epi16(a, b));
  show128("sad", _mm_sad_epu8(a, b));
  show128("cmpeq8", _mm_cmpeq_epi8(a, b));
  show128("cmpgt16", _mm_cmpgt_epi16(a, b));
  show128("cmplt32", _mm_cmplt_epi32(a, b));
  printf("movemask8 %04x\n", _mm_movemask_epi8(_mm_cmpgt_epi8(a, b)));
  show128("and", _mm_and_si128(a, b));
  show128("andnot", _mm_andnot_si128(a, b));
  show128("xor", _mm_xor_si128(a, b));
  show128("slli16", _mm_slli_epi16(a, 3));
  show128("srai32", _mm_srai_epi32(a, 5));
  show128("srli64", _mm_srli_epi64(a, 13));
  show128("sll_reg", _mm_sll_epi32(a, cnt(7)));
  show128("sll_big", _mm_sll_epi16(a, cnt(40)));
  show128("sra_big", _mm_sra_epi16(a, cnt(40)));
  show128("bslli", _mm_slli_si128(a, 5));
  show128("bsrli", _mm_srli_si128(a, 11));
  show128("shuf32", _mm_shuffle_epi32(a, 0x1b));
  show128("shufhi", _mm_shufflehi_epi16(a, 0x72));
  show128("shuflo", _mm_shufflelo_epi16(a, 0xd8));
  show128("unpklo8", _mm_unpacklo_epi8(a, b));
  show128("unpkhi16", _mm_unpackhi_epi16(a, b));
  show128("unpklo64", _mm_unpacklo_epi64(a, b));
  show128("packs16", _mm_packs_epi16(a, b));
  show128("packus16", _mm_packus_epi16(a, b));
  show128("packs32", _mm_packs_epi32(a, b));
  printf("extract %d insert ", _mm_extract_epi16(a, 5));
  show128("", _mm_insert_epi16(a, 0x1234, 6));

  __m128 x = ps(1.5f, -2.25f, 0.0f, 1e30f), y = ps(0.5f, 4.0f, -0.0f, 1e10f);
  volatile float zero = 0.0f;
  __m128 nanv = ps1(zero / zero);
  show_ps("addps", _mm_add_ps(x, y));
  show_ps("mulps", _mm_mul_ps(x, y));
  show_ps("divps", _mm_div_ps(x, y));
  show_ps("sqrtps", _mm_sqrt_ps(ps(4.0f, 2.0f, -1.0f, 0.25f)));
  show_ps("minps", _mm_min_ps(x, y));
  show_ps("maxps", _mm_max_ps(x, y));
  show_ps("min nan,x", _mm_min_ps(nanv, x));
  show_ps("min x,nan", _mm_min_ps(x, nanv));
  show_ps("max 0,-0", _mm_max_ps(ps1(0.0f), ps1(-0.0f)));
  show_ps("cmplt", _mm_cmplt_ps(x, y));
  show_ps("cmpunord", _mm_cmpunord_ps(x, nanv));
  printf("movmskps %x\n", _mm_movemask_ps(_mm_cmplt_ps(x, y)));
  show_ps("shufps", _mm_shuffle_ps(x, y, 0x4e));
  show_ps("unpcklps", _mm_unpacklo_ps(x, y));
  show_ps("rcp-ish", _mm_div_ps(ps1(1.0f), x));
  __m128d p = pd(1.0 / 3, -1e300), q = pd(3.0, 1e300);
  show_pd("mulpd", _mm_mul_pd(p, q));
  show_pd("subpd", _mm_sub_pd(p, q));
  show_pd("sqrtpd", _mm_sqrt_pd(pd(2.0, 1e-300)));
  show_pd("minpd", _mm_min_pd(p, q));
  show_pd("andnpd", _mm_andnot_pd(pd1(-0.0), p));
  show128("cvttps", _mm_cvttps_epi32(ps(1.9f, -1.9f, 3e9f, -3e9f)));
  show128("cvtps", _mm_cvtps_epi32(ps(2.5f, 3.5f, -2.5f, zero / zero)));
  show_ps("cvtdq2ps", _mm_cvtepi32_ps(epi32(16777217, -7, 0x7fffffff, 3)));
  show_pd("cvtps2pd", _mm_cvtps_pd(x));
  show_ps("cvtpd2ps", _mm_cvtpd_ps(pd(1e300, 0.1)));
  show128("cvttpd", _mm_cvttpd_epi32(pd(-2.7, 1e20)));
  printf("cvtsd2si %d cvttsd2si64 %lld\n", _mm_cvtsd_si32(pd1(-3.5)), (long long)_mm_cvttsd_si64(pd1(-1e19)));
  return 0;
}
