// SSE4.2 crc32 (8/16/32/64-bit sources, register and memory forms, the
// 64-bit destination's zero upper half) against a bitwise CRC32C in C,
// and pcmpgtq (signed 64-bit compare) on edge and random values.
// Inline assembly rather than -msse4.2, which would let GCC use SSE4.1
// elsewhere.  Also run with PHYBIN_HOST_CRC32=0 (the helper path).
#include <emmintrin.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

static uint64_t crc_u64(uint64_t crc, uint64_t v) {
  __asm__("crc32q %1, %0" : "+r"(crc) : "rm"(v));
  return crc;
}
static uint32_t crc_u32(uint32_t crc, uint32_t v) {
  __asm__("crc32l %1, %0" : "+r"(crc) : "rm"(v));
  return crc;
}
static uint32_t crc_u16(uint32_t crc, uint16_t v) {
  __asm__("crc32w %1, %0" : "+r"(crc) : "rm"(v));
  return crc;
}
static uint32_t crc_u8(uint32_t crc, uint8_t v) {
  __asm__("crc32b %1, %0" : "+r"(crc) : "rm"(v));
  return crc;
}
static __m128i cmpgt_epi64(__m128i a, __m128i b) {
  __asm__("pcmpgtq %1, %0" : "+x"(a) : "xm"(b));
  return a;
}
static uint64_t high_half(__m128i v) { return (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v)); }

static uint32_t ref_crc32c(uint32_t crc, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    crc ^= p[i];
    for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
  }
  return crc;
}

static uint32_t crc_by(const uint8_t *p, size_t n, int width) {
  uint32_t crc = 0xffffffffu;
  uint64_t crc64 = 0xffffffffu;
  size_t i = 0;
  switch (width) {
    case 8:
      for (; i + 8 <= n; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        crc64 = crc_u64(crc64, v);
      }
      crc = (uint32_t)crc64;
      break;
    case 4:
      for (; i + 4 <= n; i += 4) {
        uint32_t v;
        memcpy(&v, p + i, 4);
        crc = crc_u32(crc, v);
      }
      break;
    case 2:
      for (; i + 2 <= n; i += 2) {
        uint16_t v;
        memcpy(&v, p + i, 2);
        crc = crc_u16(crc, v);
      }
      break;
  }
  for (; i < n; i++) crc = crc_u8(crc, p[i]);
  return ~crc;
}

static void crc_edges(void) {
  static const uint64_t values[] = {0, 1, 0x80, 0xff, 0xffff, 0xffffffffull, 0x8000000000000000ull, ~0ull,
                                    0x0123456789abcdefull};
  static const uint64_t seeds[] = {0, ~0ull, 0x12345678, 0xdeadbeef00000000ull};
  for (int s = 0; s < 4; s++)
    for (int v = 0; v < 9; v++) {
      uint64_t x = values[v];
      uint64_t r64 = seeds[s], m64 = x;
      uint32_t r8 = (uint32_t)seeds[s], r16 = r8, r32 = r8;
      uint8_t m8 = (uint8_t)x;
      uint16_t m16 = (uint16_t)x;
      uint32_t m32 = (uint32_t)x;
      uint64_t r8q = seeds[s];  // crc32 r64, r/m8: upper half zeroed
      __asm__("crc32q %1, %0" : "+r"(r64) : "m"(m64));
      __asm__("crc32b %1, %0" : "+r"(r8) : "m"(m8));
      __asm__("crc32w %1, %0" : "+r"(r16) : "m"(m16));
      __asm__("crc32l %1, %0" : "+r"(r32) : "m"(m32));
      __asm__("crc32b %b1, %0" : "+r"(r8q) : "r"(x));
      uint32_t r16r = (uint32_t)seeds[s];
      __asm__("crc32w %w1, %0" : "+r"(r16r) : "r"(x));
      printf("crc %016" PRIx64 " %016" PRIx64 ": q %016" PRIx64 " b %08" PRIx32 " w %08" PRIx32 " l %08" PRIx32
             " bq %016" PRIx64 " wr %08" PRIx32 "\n",
             seeds[s], x, r64, r8, r16, r32, r8q, r16r);
    }
}

static void pcmpgtq_all(void) {
  static const int64_t edges[] = {0, 1, -1, INT64_MAX, INT64_MIN, 0x100000000ll, -0x100000000ll, 0xffffffffll};
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) {
      __m128i a = _mm_set_epi64x(edges[j], edges[i]), b = _mm_set_epi64x(edges[i], edges[j]);
      __m128i r = cmpgt_epi64(a, b);
      printf("pcmpgtq %" PRId64 " %" PRId64 ": %016" PRIx64 " %016" PRIx64 "\n", edges[i], edges[j],
             (uint64_t)_mm_cvtsi128_si64(r), high_half(r));
    }
  uint64_t digest = FNV_INIT;
  rng_seed(99);
  for (int i = 0; i < 5000; i++) {
    __m128i a = _mm_set_epi64x((int64_t)rng_next(), (int64_t)rng_next());
    __m128i b = i % 2 ? a : _mm_set_epi64x((int64_t)rng_next(), (int64_t)rng_next());
    __m128i r = cmpgt_epi64(a, _mm_xor_si128(b, _mm_set_epi64x(1, (int64_t)(i & 3))));
    digest = fnv1a(digest, &r, sizeof r);
  }
  printf("pcmpgtq digest %016" PRIx64 "\n", digest);
}

int main(void) {
  static uint8_t buf[70000];
  rng_seed(5);
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (uint8_t)rng_next();
  // Known answer: CRC32C("123456789") = e3069283.
  printf("crc32c check %08" PRIx32 " %08" PRIx32 "\n", crc_by((const uint8_t *)"123456789", 9, 1),
         ~ref_crc32c(~0u, (const uint8_t *)"123456789", 9));
  static const size_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4096, 70000};
  for (int s = 0; s < 16; s++)
    for (int off = 0; off < 3; off++) {
      size_t n = sizes[s] - (sizes[s] == 70000 ? off : 0);
      const uint8_t *p = buf + (sizes[s] == 70000 ? 0 : off);
      uint32_t ref = ~ref_crc32c(~0u, p, n);
      printf("n %5zu off %d: %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " ref %08" PRIx32 "\n", n, off,
             crc_by(p, n, 1), crc_by(p, n, 2), crc_by(p, n, 4), crc_by(p, n, 8), ref);
    }
  crc_edges();
  pcmpgtq_all();
  return 0;
}
