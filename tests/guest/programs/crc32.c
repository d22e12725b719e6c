// Checksums: CRC-32 (IEEE, reflected) by a 256-entry table and by the
// bitwise definition, slicing-by-4, CRC-32C (Castagnoli) bitwise, Adler-32
// and Fletcher-16, on test vectors and a buffer of pseudo-random bytes.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

static uint32_t table[4][256];

static void make_tables(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
    table[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++)
    for (int t = 1; t < 4; t++) table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
}

static uint32_t crc32_table(const unsigned char *p, size_t n) {
  uint32_t c = 0xffffffffu;
  while (n--) c = table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
  return ~c;
}

static uint32_t crc32_slice4(const unsigned char *p, size_t n) {
  uint32_t c = 0xffffffffu;
  while (n >= 4) {
    uint32_t w;
    memcpy(&w, p, 4);  // little-endian load, possibly misaligned
    c ^= w;
    c = table[3][c & 0xff] ^ table[2][(c >> 8) & 0xff] ^ table[1][(c >> 16) & 0xff] ^ table[0][c >> 24];
    p += 4;
    n -= 4;
  }
  while (n--) c = table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
  return ~c;
}

static uint32_t crc_bitwise(const unsigned char *p, size_t n, uint32_t poly) {
  uint32_t c = 0xffffffffu;
  while (n--) {
    c ^= *p++;
    for (int k = 0; k < 8; k++) c = (c >> 1) ^ (poly & (0u - (c & 1)));
  }
  return ~c;
}

static uint32_t adler32(const unsigned char *p, size_t n) {
  uint32_t a = 1, b = 0;
  while (n--) {
    a = (a + *p++) % 65521;
    b = (b + a) % 65521;
  }
  return b << 16 | a;
}

static uint16_t fletcher16(const unsigned char *p, size_t n) {
  uint16_t s1 = 0, s2 = 0;
  while (n--) {
    s1 = (uint16_t)((s1 + *p++) % 255);
    s2 = (uint16_t)((s2 + s1) % 255);
  }
  return (uint16_t)(s2 << 8 | s1);
}

static void report(const char *label, const unsigned char *p, size_t n) {
  printf("%-12s crc32 %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " crc32c %08" PRIx32 " adler %08" PRIx32
         " fletcher %04x\n",
         label, crc32_table(p, n), crc32_slice4(p, n), crc_bitwise(p, n, 0xedb88320u),
         crc_bitwise(p, n, 0x82f63b78u), adler32(p, n), fletcher16(p, n));
}

int main(void) {
  make_tables();
  report("empty", (const unsigned char *)"", 0);
  report("123456789", (const unsigned char *)"123456789", 9);
  report("fox", (const unsigned char *)"The quick brown fox jumps over the lazy dog", 43);
  static unsigned char buf[65536 + 3];
  rng_seed(32);
  for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)rng_next();
  report("random 64K", buf, 65536);
  report("misaligned", buf + 3, 65536);
  for (size_t n = 1; n <= 16; n++) {
    printf("prefix %2zu %08" PRIx32 " %08" PRIx32 "\n", n, crc32_table(buf + n, n * 7), crc32_slice4(buf + n, n * 7));
  }
  return 0;
}
