// SHA-1 and SHA-256 with the SHA extensions (sha1rnds4, sha1nexte,
// sha1msg1, sha1msg2, sha256rnds2, sha256msg1, sha256msg2) on the FIPS
// 180-2 example messages and random data, checked against plain C
// implementations.  Built with -msha; byte swaps and the 4-byte shifts are
// done with SSE2 only, so nothing beyond SSE2 and SHA is needed.
#include <immintrin.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

static uint32_t rol(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
static uint32_t ror(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

// Four big-endian words as a vector, the first in the high (sha1) or the
// low (sha256) dword.
static __m128i words_high_first(const uint8_t *p) {
  return _mm_set_epi32((int)be32(p), (int)be32(p + 4), (int)be32(p + 8), (int)be32(p + 12));
}
static __m128i words_low_first(const uint8_t *p) {
  return _mm_set_epi32((int)be32(p + 12), (int)be32(p + 8), (int)be32(p + 4), (int)be32(p));
}

static const uint32_t K256[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
    0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
    0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
    0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static void sha256_block_ext(uint32_t h[8], const uint8_t *p) {
  __m128i abef = _mm_set_epi32((int)h[0], (int)h[1], (int)h[4], (int)h[5]);
  __m128i cdgh = _mm_set_epi32((int)h[2], (int)h[3], (int)h[6], (int)h[7]);
  __m128i abef0 = abef, cdgh0 = cdgh, w[16];
  for (int g = 0; g < 16; g++) {
    if (g < 4) {
      w[g] = words_low_first(p + 16 * g);
    } else {
      // W[t-7..t-4]: the upper three words of group g-2 and the lowest of g-1.
      __m128i w7 = _mm_or_si128(_mm_srli_si128(w[g - 2], 4), _mm_slli_si128(w[g - 1], 12));
      w[g] = _mm_sha256msg2_epu32(_mm_add_epi32(_mm_sha256msg1_epu32(w[g - 4], w[g - 3]), w7), w[g - 1]);
    }
    __m128i wk = _mm_add_epi32(w[g], _mm_loadu_si128((const __m128i *)&K256[4 * g]));
    cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
    abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0e));
  }
  abef = _mm_add_epi32(abef, abef0);
  cdgh = _mm_add_epi32(cdgh, cdgh0);
  uint32_t x[4], y[4];
  _mm_storeu_si128((__m128i *)x, abef);
  _mm_storeu_si128((__m128i *)y, cdgh);
  h[0] = x[3], h[1] = x[2], h[4] = x[1], h[5] = x[0], h[2] = y[3], h[3] = y[2], h[6] = y[1], h[7] = y[0];
}

static void sha256_block_c(uint32_t h[8], const uint8_t *p) {
  uint32_t w[64], s[8];
  for (int i = 0; i < 16; i++) w[i] = be32(p + 4 * i);
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  memcpy(s, h, sizeof s);
  for (int i = 0; i < 64; i++) {
    uint32_t t1 = s[7] + (ror(s[4], 6) ^ ror(s[4], 11) ^ ror(s[4], 25)) + ((s[4] & s[5]) ^ (~s[4] & s[6])) + K256[i] + w[i];
    uint32_t t2 = (ror(s[0], 2) ^ ror(s[0], 13) ^ ror(s[0], 22)) + ((s[0] & s[1]) ^ (s[0] & s[2]) ^ (s[1] & s[2]));
    memmove(s + 1, s, 7 * sizeof s[0]);
    s[4] += t1;
    s[0] = t1 + t2;
  }
  for (int i = 0; i < 8; i++) h[i] += s[i];
}

static void sha1_block_ext(uint32_t h[5], const uint8_t *p) {
  __m128i abcd = _mm_set_epi32((int)h[0], (int)h[1], (int)h[2], (int)h[3]);
  __m128i e0 = _mm_set_epi32((int)h[4], 0, 0, 0);
  __m128i abcd0 = abcd, prev = abcd, w[20];
  for (int g = 0; g < 20; g++) {
    w[g] = g < 4 ? words_high_first(p + 16 * g)
                 : _mm_sha1msg2_epu32(_mm_xor_si128(_mm_sha1msg1_epu32(w[g - 4], w[g - 3]), w[g - 2]), w[g - 1]);
    __m128i we = g == 0 ? _mm_add_epi32(e0, w[0]) : _mm_sha1nexte_epu32(prev, w[g]);
    prev = abcd;
    switch (g / 5) {
      case 0: abcd = _mm_sha1rnds4_epu32(abcd, we, 0); break;
      case 1: abcd = _mm_sha1rnds4_epu32(abcd, we, 1); break;
      case 2: abcd = _mm_sha1rnds4_epu32(abcd, we, 2); break;
      default: abcd = _mm_sha1rnds4_epu32(abcd, we, 3); break;
    }
  }
  e0 = _mm_sha1nexte_epu32(prev, e0);
  abcd = _mm_add_epi32(abcd, abcd0);
  uint32_t x[4], e[4];
  _mm_storeu_si128((__m128i *)x, abcd);
  _mm_storeu_si128((__m128i *)e, e0);
  h[0] = x[3], h[1] = x[2], h[2] = x[1], h[3] = x[0], h[4] = e[3];
}

static void sha1_block_c(uint32_t h[5], const uint8_t *p) {
  uint32_t w[80], a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int i = 0; i < 16; i++) w[i] = be32(p + 4 * i);
  for (int i = 16; i < 80; i++) w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
  for (int i = 0; i < 80; i++) {
    uint32_t f = i < 20 ? (b & c) | (~b & d) : i < 40 ? b ^ c ^ d : i < 60 ? (b & c) | (b & d) | (c & d) : b ^ c ^ d;
    uint32_t k = i < 20 ? 0x5a827999 : i < 40 ? 0x6ed9eba1 : i < 60 ? 0x8f1bbcdc : 0xca62c1d6;
    uint32_t t = rol(a, 5) + f + e + k + w[i];
    e = d, d = c, c = rol(b, 30), b = a, a = t;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

typedef void (*BlockFn)(uint32_t *, const uint8_t *);

// Merkle-Damgard padding around a block function; `words` = 5 or 8.
static void digest(BlockFn block, int words, const uint8_t *msg, size_t len, size_t repeat, uint32_t *h) {
  static const uint32_t init1[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
  static const uint32_t init256[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(h, words == 5 ? init1 : init256, (size_t)words * 4);
  uint8_t buf[64];
  size_t fill = 0;
  uint64_t total = 0;
  for (size_t r = 0; r < repeat; r++)
    for (size_t i = 0; i < len; i++) {
      buf[fill++] = msg[i];
      total++;
      if (fill == 64) block(h, buf), fill = 0;
    }
  buf[fill++] = 0x80;
  if (fill > 56) {
    memset(buf + fill, 0, 64 - fill);
    block(h, buf);
    fill = 0;
  }
  memset(buf + fill, 0, 56 - fill);
  for (int i = 0; i < 8; i++) buf[56 + i] = (uint8_t)((total * 8) >> (56 - 8 * i));
  block(h, buf);
}

static void show(const char *name, const uint8_t *msg, size_t len, size_t repeat) {
  uint32_t h1[5], h1c[5], h256[8], h256c[8];
  digest(sha1_block_ext, 5, msg, len, repeat, h1);
  digest(sha1_block_c, 5, msg, len, repeat, h1c);
  digest(sha256_block_ext, 8, msg, len, repeat, h256);
  digest(sha256_block_c, 8, msg, len, repeat, h256c);
  printf("%s\n  sha1   ", name);
  for (int i = 0; i < 5; i++) printf("%08" PRIx32, h1[i]);
  printf(" %s\n  sha256 ", memcmp(h1, h1c, sizeof h1) ? "MISMATCH" : "ok");
  for (int i = 0; i < 8; i++) printf("%08" PRIx32, h256[i]);
  printf(" %s\n", memcmp(h256, h256c, sizeof h256) ? "MISMATCH" : "ok");
}

int main(void) {
  show("\"abc\"", (const uint8_t *)"abc", 3, 1);
  show("\"\"", (const uint8_t *)"", 0, 1);
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  show("448-bit message", (const uint8_t *)two, strlen(two), 1);
  show("one million a", (const uint8_t *)"a", 1, 1000000);
  static uint8_t data[10000];
  rng_seed(3);
  for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)rng_next();
  for (size_t len = 0; len < 300; len += 37) show("random", data + len, sizeof data - 7 * len, 1);
  return 0;
}
