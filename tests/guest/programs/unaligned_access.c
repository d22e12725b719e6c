// Misaligned memory accesses, legal everywhere on x86 outside aligned SSE
// moves: 2/4/8/16-byte loads and stores at every offset through memcpy
// and packed structs, unaligned SSE loads (movdqu/movups), accesses that
// straddle a page boundary, and read-modify-write on misaligned data.
#include <emmintrin.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guest_common.h"

struct __attribute__((packed)) rec {
  uint8_t tag;
  uint64_t a;
  uint16_t b;
  uint32_t c;
  double d;
};

int main(void) {
  static unsigned char buf[256];
  for (int i = 0; i < 256; i++) buf[i] = (unsigned char)(i * 37 + 11);
  uint64_t h = FNV_INIT;
  for (int off = 0; off < 32; off++) {
    uint16_t v16;
    uint32_t v32;
    uint64_t v64;
    memcpy(&v16, buf + off, 2);
    memcpy(&v32, buf + off, 4);
    memcpy(&v64, buf + off, 8);
    __m128i v128 = _mm_loadu_si128((const __m128i *)(buf + off));
    h = fnv1a_u64(h, v16 ^ (uint64_t)v32 << 16 ^ v64);
    h = fnv1a_u64(h, (uint64_t)_mm_cvtsi128_si64(_mm_srli_si128(v128, 8)));
    v64 += (uint64_t)off;
    memcpy(buf + 128 + off, &v64, 8);  // overlapping misaligned stores
  }
  printf("load hash %016" PRIx64 " store hash %016" PRIx64 "\n", h, fnv1a(FNV_INIT, buf + 128, 64));

  struct rec recs[7];
  for (int i = 0; i < 7; i++) {
    recs[i].tag = (uint8_t)i;
    recs[i].a = 0x0102030405060708ull * (uint64_t)(i + 1);
    recs[i].b = (uint16_t)(1000 * i);
    recs[i].c = 0xdeadbeefu ^ (uint32_t)i;
    recs[i].d = i / 3.0;
  }
  double dsum = 0;
  uint64_t isum = 0;
  for (int i = 0; i < 7; i++) {
    recs[i].a += recs[i].c;  // read-modify-write at odd addresses
    recs[i].b ^= 0xffff;
    isum += recs[i].a + recs[i].b + recs[i].c;
    dsum += recs[i].d;
  }
  printf("packed sizeof %zu isum %016" PRIx64 " dsum %.17g\n", sizeof(struct rec), isum, dsum);

  float fl[9];
  for (int i = 0; i < 9; i++) fl[i] = (float)i * 1.5f;
  __m128 u = _mm_loadu_ps((const float *)((const char *)fl + 2));  // misaligned by 2 bytes
  float out[4];
  _mm_storeu_ps(out, u);
  uint32_t bits[4];
  memcpy(bits, out, sizeof bits);
  printf("movups odd bits %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32 "\n", bits[0], bits[1], bits[2], bits[3]);

  long page = sysconf(_SC_PAGESIZE);
  unsigned char *two = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  for (long i = 0; i < page * 2; i++) two[i] = (unsigned char)(i ^ (i >> 8));
  uint64_t across = 0;
  for (int k = 1; k < 8; k++) {
    uint64_t v;
    memcpy(&v, two + page - k, 8);  // straddles the page boundary
    across = across * 31 + v;
    v = ~v;
    memcpy(two + page - k, &v, 8);
  }
  __m128i x = _mm_loadu_si128((const __m128i *)(two + page - 7));
  printf("page straddle %016" PRIx64 " sse %016" PRIx64 "\n", across, (uint64_t)_mm_cvtsi128_si64(x));
  munmap(two, (size_t)page * 2);
  return 0;
}
