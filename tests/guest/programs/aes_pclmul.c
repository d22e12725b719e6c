// AES-NI and PCLMULQDQ through intrinsics (built with -maes -mpclmul):
// AES-128 and AES-256 key expansion with aeskeygenassist, encryption and
// decryption (aesimc'd round keys) of the FIPS-197 appendix B and C
// vectors, then every instruction on pseudo-random inputs folded into
// checksums, and carry-less products for every immediate.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <wmmintrin.h>

#include "guest_common.h"

static __m128i bytes(const char *hex) {
  uint8_t b[16];
  for (int i = 0; i < 16; i++) sscanf(hex + 2 * i, "%2hhx", &b[i]);
  __m128i v;
  memcpy(&v, b, 16);
  return v;
}

static void show(const char *label, __m128i v) {
  uint8_t b[16];
  memcpy(b, &v, 16);
  printf("%-14s", label);
  for (int i = 0; i < 16; i++) printf("%02x", b[i]);
  printf("\n");
}

static __m128i expand_step(__m128i key, __m128i assist) {
  key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
  key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
  key = _mm_xor_si128(key, _mm_slli_si128(key, 4));
  return _mm_xor_si128(key, assist);
}

#define STEP128(i, rcon) k[i] = expand_step(k[i - 1], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(k[i - 1], rcon), 0xff))

static void expand128(__m128i key, __m128i k[11]) {
  k[0] = key;
  STEP128(1, 0x01); STEP128(2, 0x02); STEP128(3, 0x04); STEP128(4, 0x08); STEP128(5, 0x10);
  STEP128(6, 0x20); STEP128(7, 0x40); STEP128(8, 0x80); STEP128(9, 0x1b); STEP128(10, 0x36);
}

#define STEP256(i, rcon)                                                                               \
  do {                                                                                                 \
    k[i] = expand_step(k[i - 2], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(k[i - 1], rcon), 0xff)); \
    k[i + 1] = expand_step(k[i - 1], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(k[i], 0), 0xaa));     \
  } while (0)

static void expand256(__m128i lo, __m128i hi, __m128i k[15]) {
  k[0] = lo;
  k[1] = hi;
  STEP256(2, 0x01); STEP256(4, 0x02); STEP256(6, 0x04); STEP256(8, 0x08); STEP256(10, 0x10); STEP256(12, 0x20);
  k[14] = expand_step(k[12], _mm_shuffle_epi32(_mm_aeskeygenassist_si128(k[13], 0x40), 0xff));
}

static __m128i encrypt(__m128i block, const __m128i *k, int rounds) {
  block = _mm_xor_si128(block, k[0]);
  for (int r = 1; r < rounds; r++) block = _mm_aesenc_si128(block, k[r]);
  return _mm_aesenclast_si128(block, k[rounds]);
}

static __m128i decrypt(__m128i block, const __m128i *k, int rounds) {
  block = _mm_xor_si128(block, k[rounds]);
  for (int r = rounds - 1; r > 0; r--) block = _mm_aesdec_si128(block, _mm_aesimc_si128(k[r]));
  return _mm_aesdeclast_si128(block, k[0]);
}

static void fips197(void) {
  __m128i k[15];
  expand128(bytes("2b7e151628aed2a6abf7158809cf4f3c"), k);
  show("B key10", k[10]);
  __m128i c = encrypt(bytes("3243f6a8885a308d313198a2e0370734"), k, 10);
  show("B cipher", c);
  show("B plain", decrypt(c, k, 10));
  expand128(bytes("000102030405060708090a0b0c0d0e0f"), k);
  c = encrypt(bytes("00112233445566778899aabbccddeeff"), k, 10);
  show("C.1 cipher", c);
  show("C.1 plain", decrypt(c, k, 10));
  expand256(bytes("000102030405060708090a0b0c0d0e0f"), bytes("101112131415161718191a1b1c1d1e1f"), k);
  c = encrypt(bytes("00112233445566778899aabbccddeeff"), k, 14);
  show("C.3 cipher", c);
  show("C.3 plain", decrypt(c, k, 14));
}

static __m128i random_vec(void) {
  uint64_t q[2] = {rng_next(), rng_next()};
  __m128i v;
  memcpy(&v, q, 16);
  return v;
}

#define HASHED(name, expr)                                  \
  do {                                                      \
    uint64_t h = FNV_INIT;                                  \
    rng_seed(99);                                           \
    for (int i = 0; i < 500; i++) {                         \
      __m128i a = random_vec(), b = random_vec();           \
      (void)b;                                              \
      __m128i r = (expr);                                   \
      h = fnv1a(h, &r, 16);                                 \
    }                                                       \
    printf("%-22s %016" PRIx64 "\n", name, h);              \
  } while (0)

int main(void) {
  fips197();
  HASHED("aesenc", _mm_aesenc_si128(a, b));
  HASHED("aesenclast", _mm_aesenclast_si128(a, b));
  HASHED("aesdec", _mm_aesdec_si128(a, b));
  HASHED("aesdeclast", _mm_aesdeclast_si128(a, b));
  HASHED("aesimc", _mm_aesimc_si128(a));
  HASHED("aeskeygenassist 0", _mm_aeskeygenassist_si128(a, 0));
  HASHED("aeskeygenassist 1b", _mm_aeskeygenassist_si128(a, 0x1b));
  HASHED("aeskeygenassist ff", _mm_aeskeygenassist_si128(a, 0xff));
  HASHED("pclmulqdq 00", _mm_clmulepi64_si128(a, b, 0x00));
  HASHED("pclmulqdq 01", _mm_clmulepi64_si128(a, b, 0x01));
  HASHED("pclmulqdq 10", _mm_clmulepi64_si128(a, b, 0x10));
  HASHED("pclmulqdq 11", _mm_clmulepi64_si128(a, b, 0x11));
  HASHED("pclmulqdq self", _mm_clmulepi64_si128(a, a, 0x01));
  show("clmul max", _mm_clmulepi64_si128(_mm_set1_epi64x(-1), _mm_set1_epi64x(-1), 0x00));
  show("clmul x^63", _mm_clmulepi64_si128(_mm_set_epi64x(0, INT64_MIN), _mm_set_epi64x(INT64_MIN, 3), 0x10));
  return 0;
}
