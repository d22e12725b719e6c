// SHA-256 written from the FIPS 180-4 description (32-bit rotates, shifts,
// big-endian loads), checked on the standard test vectors and on
// incremental updates of varying chunk sizes; plus a 64-bit FNV-1a and a
// Murmur3-style finaliser over the same data.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct sha256 {
  uint32_t h[8];
  uint64_t length;
  unsigned char block[64];
  size_t used;
};

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t ror(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void compress(struct sha256 *s, const unsigned char *p) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
  for (int i = 0; i < 64; i++) {
    uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
    uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
  }
  s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
  s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

static void sha_init(struct sha256 *s) {
  static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(s->h, iv, sizeof iv);
  s->length = 0;
  s->used = 0;
}

static void sha_update(struct sha256 *s, const void *data, size_t n) {
  const unsigned char *p = data;
  s->length += n;
  while (n) {
    size_t take = 64 - s->used < n ? 64 - s->used : n;
    memcpy(s->block + s->used, p, take);
    s->used += take;
    p += take;
    n -= take;
    if (s->used == 64) {
      compress(s, s->block);
      s->used = 0;
    }
  }
}

static void sha_final(struct sha256 *s, char hex[65]) {
  uint64_t bits = s->length * 8;
  unsigned char pad = 0x80, zero = 0, len[8];
  sha_update(s, &pad, 1);
  while (s->used != 56) sha_update(s, &zero, 1);
  for (int i = 0; i < 8; i++) len[i] = (unsigned char)(bits >> (56 - 8 * i));
  sha_update(s, len, 8);
  for (int i = 0; i < 8; i++) sprintf(hex + 8 * i, "%08" PRIx32, s->h[i]);
}

static void digest(const char *label, const void *data, size_t n) {
  struct sha256 s;
  char hex[65];
  sha_init(&s);
  sha_update(&s, data, n);
  sha_final(&s, hex);
  printf("%-10s %s\n", label, hex);
}

static uint64_t fmix64(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  return k ^ (k >> 33);
}

int main(void) {
  digest("empty", "", 0);
  digest("abc", "abc", 3);
  const char *two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  digest("448 bits", two_blocks, strlen(two_blocks));
  static unsigned char million[1000000];
  memset(million, 'a', sizeof million);
  digest("1M x 'a'", million, sizeof million);
  // The same data fed in chunks of many sizes must give the same digest.
  static unsigned char data[10000];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (unsigned char)(i * 131 + (i >> 8));
  digest("whole", data, sizeof data);
  static const size_t chunks[] = {1, 3, 63, 64, 65, 127, 1000};
  for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
    struct sha256 s;
    char hex[65];
    sha_init(&s);
    for (size_t off = 0; off < sizeof data; off += chunks[c])
      sha_update(&s, data + off, sizeof data - off < chunks[c] ? sizeof data - off : chunks[c]);
    sha_final(&s, hex);
    printf("chunk %-4zu %s\n", chunks[c], hex);
  }
  uint64_t fnv = 0xcbf29ce484222325ull, mix = 0;
  for (size_t i = 0; i < sizeof data; i++) {
    fnv = (fnv ^ data[i]) * 0x100000001b3ull;
    mix = fmix64(mix + data[i]);
  }
  printf("fnv %016" PRIx64 " fmix %016" PRIx64 "\n", fnv, mix);
  return 0;
}
