// SSSE3 and SSE4.1 integer instructions through intrinsics (built with
// -mssse3 -msse4.1): pshufb, palignr, pabs, horizontal add/sub, pmaddubsw,
// pmulhrsw, psign, pmovsx/zx from registers and memory, min/max, pmulld,
// pmuldq, pcmpeqq, packusdw, ptest, blends, pextr/pinsr, mpsadbw,
// phminposuw, movntdqa.  Each operation runs on a few printed inputs and on
// many pseudo-random ones (edge bytes favoured), folded into a checksum.
#include <inttypes.h>
#include <smmintrin.h>
#include <stdio.h>
#include <string.h>
#include <tmmintrin.h>

#include "guest_common.h"

#define N_RANDOM 400

static __m128i va[N_RANDOM], vb[N_RANDOM], vm[N_RANDOM];

static void show128(const char *label, __m128i v) {
  uint8_t b[16];
  _mm_storeu_si128((__m128i *)b, v);
  printf("%-12s", label);
  for (int i = 15; i >= 0; i--) printf("%02x%s", b[i], i % 4 == 0 && i ? "_" : "");
  printf("\n");
}

static uint8_t edge_byte(void) {
  static const uint8_t edges[] = {0x00, 0x01, 0x7f, 0x80, 0x81, 0xff, 0xfe, 0x40};
  uint32_t r = rng_u32();
  return (r & 3) == 0 ? edges[(r >> 8) & 7] : (uint8_t)(r >> 16);
}

static __m128i random_vec(void) {
  uint8_t b[16];
  int mode = (int)rng_below(8);
  for (int i = 0; i < 16; i++) b[i] = mode == 0 ? (uint8_t)(rng_below(3) ? 0 : edge_byte()) : edge_byte();
  __m128i v;
  memcpy(&v, b, 16);
  return v;
}

static uint64_t hash_vec(uint64_t h, __m128i v) { return fnv1a(h, &v, 16); }

#define BIN_OP(name, expr)                                        \
  do {                                                            \
    uint64_t h = FNV_INIT;                                        \
    for (int i = 0; i < N_RANDOM; i++) {                          \
      __m128i a = va[i], b = vb[i], m = vm[i];                    \
      (void)b;                                                    \
      (void)m;                                                    \
      h = hash_vec(h, (expr));                                    \
    }                                                             \
    printf("%-26s %016" PRIx64 "\n", name, h);                    \
  } while (0)

#define INT_OP(name, expr)                                        \
  do {                                                            \
    uint64_t h = FNV_INIT;                                        \
    for (int i = 0; i < N_RANDOM; i++) {                          \
      __m128i a = va[i], b = vb[i];                               \
      (void)b;                                                    \
      h = fnv1a_u64(h, (uint64_t)(expr));                         \
    }                                                             \
    printf("%-26s %016" PRIx64 "\n", name, h);                    \
  } while (0)

__attribute__((noipa)) static __m128i epi8(const char *s) {
  __m128i v;
  memcpy(&v, s, 16);
  return v;
}

static void ssse3_ops(void) {
  BIN_OP("pshufb", _mm_shuffle_epi8(a, b));
  BIN_OP("palignr 0", _mm_alignr_epi8(a, b, 0));
  BIN_OP("palignr 1", _mm_alignr_epi8(a, b, 1));
  BIN_OP("palignr 7", _mm_alignr_epi8(a, b, 7));
  BIN_OP("palignr 15", _mm_alignr_epi8(a, b, 15));
  BIN_OP("palignr 16", _mm_alignr_epi8(a, b, 16));
  BIN_OP("palignr 17", _mm_alignr_epi8(a, b, 17));
  BIN_OP("palignr 31", _mm_alignr_epi8(a, b, 31));
  BIN_OP("palignr 32", _mm_alignr_epi8(a, b, 32));
  BIN_OP("pabsb", _mm_abs_epi8(a));
  BIN_OP("pabsw", _mm_abs_epi16(a));
  BIN_OP("pabsd", _mm_abs_epi32(a));
  BIN_OP("phaddw", _mm_hadd_epi16(a, b));
  BIN_OP("phaddd", _mm_hadd_epi32(a, b));
  BIN_OP("phaddsw", _mm_hadds_epi16(a, b));
  BIN_OP("phsubw", _mm_hsub_epi16(a, b));
  BIN_OP("phsubd", _mm_hsub_epi32(a, b));
  BIN_OP("phsubsw", _mm_hsubs_epi16(a, b));
  BIN_OP("pmaddubsw", _mm_maddubs_epi16(a, b));
  BIN_OP("pmulhrsw", _mm_mulhrs_epi16(a, b));
  BIN_OP("psignb", _mm_sign_epi8(a, b));
  BIN_OP("psignw", _mm_sign_epi16(a, b));
  BIN_OP("psignd", _mm_sign_epi32(a, b));
  BIN_OP("phaddw self", _mm_hadd_epi16(a, a));
  BIN_OP("pshufb self", _mm_shuffle_epi8(a, a));
}

static void sse41_ops(void) {
  BIN_OP("pmovsxbw", _mm_cvtepi8_epi16(a));
  BIN_OP("pmovsxbd", _mm_cvtepi8_epi32(a));
  BIN_OP("pmovsxbq", _mm_cvtepi8_epi64(a));
  BIN_OP("pmovsxwd", _mm_cvtepi16_epi32(a));
  BIN_OP("pmovsxwq", _mm_cvtepi16_epi64(a));
  BIN_OP("pmovsxdq", _mm_cvtepi32_epi64(a));
  BIN_OP("pmovzxbw", _mm_cvtepu8_epi16(a));
  BIN_OP("pmovzxbd", _mm_cvtepu8_epi32(a));
  BIN_OP("pmovzxbq", _mm_cvtepu8_epi64(a));
  BIN_OP("pmovzxwd", _mm_cvtepu16_epi32(a));
  BIN_OP("pmovzxwq", _mm_cvtepu16_epi64(a));
  BIN_OP("pmovzxdq", _mm_cvtepu32_epi64(a));
  BIN_OP("pminsb", _mm_min_epi8(a, b));
  BIN_OP("pminsd", _mm_min_epi32(a, b));
  BIN_OP("pminuw", _mm_min_epu16(a, b));
  BIN_OP("pminud", _mm_min_epu32(a, b));
  BIN_OP("pmaxsb", _mm_max_epi8(a, b));
  BIN_OP("pmaxsd", _mm_max_epi32(a, b));
  BIN_OP("pmaxuw", _mm_max_epu16(a, b));
  BIN_OP("pmaxud", _mm_max_epu32(a, b));
  BIN_OP("pmulld", _mm_mullo_epi32(a, b));
  BIN_OP("pmuldq", _mm_mul_epi32(a, b));
  BIN_OP("pcmpeqq", _mm_cmpeq_epi64(a, b));
  BIN_OP("pcmpeqq self", _mm_cmpeq_epi64(a, a));
  BIN_OP("packusdw", _mm_packus_epi32(a, b));
  INT_OP("ptest testz", _mm_testz_si128(a, b));
  INT_OP("ptest testc", _mm_testc_si128(a, b));
  INT_OP("ptest testnzc", _mm_testnzc_si128(a, b));
  INT_OP("ptest testz self", _mm_testz_si128(a, a));
  INT_OP("ptest testc self", _mm_testc_si128(a, a));
  BIN_OP("pblendw 00", _mm_blend_epi16(a, b, 0x00));
  BIN_OP("pblendw 01", _mm_blend_epi16(a, b, 0x01));
  BIN_OP("pblendw 5a", _mm_blend_epi16(a, b, 0x5a));
  BIN_OP("pblendw f0", _mm_blend_epi16(a, b, 0xf0));
  BIN_OP("pblendw 33", _mm_blend_epi16(a, b, 0x33));
  BIN_OP("pblendw ff", _mm_blend_epi16(a, b, 0xff));
  BIN_OP("pblendvb", _mm_blendv_epi8(a, b, m));
  INT_OP("pextrb 0", _mm_extract_epi8(a, 0));
  INT_OP("pextrb 13", _mm_extract_epi8(a, 13));
  INT_OP("pextrw 5", _mm_extract_epi16(a, 5));
  INT_OP("pextrd 3", _mm_extract_epi32(a, 3));
  INT_OP("pextrq 1", _mm_extract_epi64(a, 1));
  BIN_OP("pinsrb 9", _mm_insert_epi8(a, _mm_extract_epi32(b, 1), 9));
  BIN_OP("pinsrd 2", _mm_insert_epi32(a, _mm_extract_epi32(b, 1), 2));
  BIN_OP("pinsrq 0", _mm_insert_epi64(a, _mm_extract_epi64(b, 1), 0));
  BIN_OP("mpsadbw 0", _mm_mpsadbw_epu8(a, b, 0));
  BIN_OP("mpsadbw 5", _mm_mpsadbw_epu8(a, b, 5));
  BIN_OP("mpsadbw 7", _mm_mpsadbw_epu8(a, b, 7));
  BIN_OP("phminposuw", _mm_minpos_epu16(a));
}

// Memory operands of the narrow forms: each reads only its bytes, here the
// last bytes before an unmapped page would be the risk; a buffer suffices
// to check the values.
__attribute__((noipa)) static void memory_forms(const uint8_t *p) {
  show128("pmovsxbq m", _mm_cvtepi8_epi64(_mm_cvtsi32_si128(*(const uint16_t *)p)));
  __m128i r;
  __asm__("pmovsxbq (%1), %0" : "=x"(r) : "r"(p + 1));
  show128("pmovsxbq m16", r);
  __asm__("pmovzxbq (%1), %0" : "=x"(r) : "r"(p + 3));
  show128("pmovzxbq m16", r);
  __asm__("pmovzxbd (%1), %0" : "=x"(r) : "r"(p + 2));
  show128("pmovzxbd m32", r);
  __asm__("pmovsxwq (%1), %0" : "=x"(r) : "r"(p + 5));
  show128("pmovsxwq m32", r);
  __asm__("pmovsxbw (%1), %0" : "=x"(r) : "r"(p + 7));
  show128("pmovsxbw m64", r);
  __asm__("pmovzxdq (%1), %0" : "=x"(r) : "r"(p + 4));
  show128("pmovzxdq m64", r);
  __m128i x = _mm_set1_epi8(0x11);
  __asm__("pinsrb $3, (%1), %0" : "+x"(x) : "r"(p + 6));
  __asm__("pinsrw $7, (%1), %0" : "+x"(x) : "r"(p + 9));
  show128("pinsrb/w m", x);
  uint8_t out[16];
  memset(out, 0xee, sizeof out);
  __m128i src = epi8("\x01\x82\x03\x84\x05\x86\x07\x88\x09\x8a\x0b\x8c\x0d\x8e\x0f\x90");
  __asm__("pextrb $5, %1, (%0)" : : "r"(out), "x"(src) : "memory");
  __asm__("pextrw $6, %1, 2(%0)" : : "r"(out), "x"(src) : "memory");
  __asm__("pextrd $3, %1, 4(%0)" : : "r"(out), "x"(src) : "memory");
  __asm__("extractps $2, %1, 8(%0)" : : "r"(out), "x"(src) : "memory");
  __m128i o;
  memcpy(&o, out, 16);
  show128("pextr* m", o);
  uint64_t r64;
  __asm__("pextrb $15, %1, %0" : "=r"(r64) : "x"(src));
  printf("pextrb r64   %016" PRIx64 "\n", r64);
  __asm__("mov $-1, %0\n\textractps $1, %1, %k0" : "=&r"(r64) : "x"(src));
  printf("extractps r32 %016" PRIx64 "\n", r64);
  __m128i ptest_a = epi8("\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80");
  unsigned char zf, cf;
  __asm__("ptest %2, %3\n\tsetz %0\n\tsetc %1" : "=r"(zf), "=r"(cf) : "x"(ptest_a), "x"(src));
  printf("ptest zf=%u cf=%u\n", zf, cf);
  _Alignas(16) uint8_t aligned[16];
  memcpy(aligned, p, 16);
  show128("movntdqa", _mm_stream_load_si128((__m128i *)aligned));
}

int main(void) {
  __m128i a = epi8("\x00\x01\x7f\x80\x81\xff\xfe\x40\x10\x20\x30\x40\x50\x60\x70\x80");
  __m128i b = epi8("\x0f\x80\x01\x8e\x03\x10\x7f\x02\x00\xff\x05\x06\x87\x09\x0a\x0b");
  show128("pshufb", _mm_shuffle_epi8(a, b));
  show128("palignr 5", _mm_alignr_epi8(a, b, 5));
  show128("pabsb", _mm_abs_epi8(a));
  show128("phaddsw", _mm_hadds_epi16(a, b));
  show128("pmaddubsw", _mm_maddubs_epi16(a, b));
  show128("pmulhrsw", _mm_mulhrs_epi16(_mm_set1_epi16(-32768), _mm_set1_epi16(-32768)));
  show128("psignb", _mm_sign_epi8(a, b));
  show128("pmovsxbw", _mm_cvtepi8_epi16(a));
  show128("packusdw", _mm_packus_epi32(a, b));
  show128("mpsadbw 6", _mm_mpsadbw_epu8(a, b, 6));
  show128("phminposuw", _mm_minpos_epu16(b));
  show128("pblendvb", _mm_blendv_epi8(a, b, a));
  uint8_t buf[32];
  for (int i = 0; i < 32; i++) buf[i] = (uint8_t)(i * 37 + 0x85);
  memory_forms(buf);

  rng_seed(42);
  for (int i = 0; i < N_RANDOM; i++) {
    va[i] = random_vec();
    vb[i] = random_vec();
    vm[i] = random_vec();
  }
  ssse3_ops();
  sse41_ops();
  return 0;
}
