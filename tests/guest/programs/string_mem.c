// memcpy, memmove (overlapping forwards and backwards), memset and memcmp
// for every size up to 300 at all 16 source/destination misalignments,
// then big blocks (glibc switches to rep movsb and non-temporal stores),
// checked byte by byte against simple loops.
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest_common.h"

static int sign(int x) { return (x > 0) - (x < 0); }

static unsigned char src[512], dst[512], ref[512];

static void reset(unsigned char *p, size_t n, unsigned seed) {
  for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(i * 13 + seed);
}

static void ref_move(unsigned char *d, const unsigned char *s, size_t n) {
  unsigned char tmp[512];
  for (size_t i = 0; i < n; i++) tmp[i] = s[i];
  for (size_t i = 0; i < n; i++) d[i] = tmp[i];
}

int main(void) {
  unsigned long errors = 0;
  uint64_t h = FNV_INIT;
  static const size_t src_aligns[] = {0, 1, 3, 7, 8, 15};
  for (size_t ai = 0; ai < sizeof src_aligns / sizeof src_aligns[0]; ai++) {
    size_t sa = src_aligns[ai];
    for (size_t da = 0; da < 16; da++) {
      for (size_t n = 0; n <= 300; n += (n < 40 ? 1 : 37)) {
        reset(src, sizeof src, 1);
        reset(dst, sizeof dst, 2);
        memcpy(ref, dst, sizeof dst);
        memcpy(dst + da, src + sa, n);
        for (size_t i = 0; i < n; i++) ref[da + i] = src[sa + i];
        errors += memcmp(dst, ref, sizeof dst) != 0;
        // Overlap, destination after source and before it.
        reset(dst, sizeof dst, 3);
        memcpy(ref, dst, sizeof dst);
        memmove(dst + 40 + da, dst + 40 + sa + 8, n);
        ref_move(ref + 40 + da, ref + 40 + sa + 8, n);
        errors += memcmp(dst, ref, sizeof dst) != 0;
        memmove(dst + 100 + sa + 9, dst + 100 + da, n);
        ref_move(ref + 100 + sa + 9, ref + 100 + da, n);
        errors += memcmp(dst, ref, sizeof dst) != 0;
        memset(dst + da, (int)(n & 0xff), n);
        for (size_t i = 0; i < n; i++) ref[da + i] = (unsigned char)n;
        errors += memcmp(dst, ref, sizeof dst) != 0;
        // memcmp: equal, then one byte changed at several places.
        reset(src, sizeof src, 5);
        reset(dst, sizeof dst, 5);
        h = fnv1a_u64(h, (uint64_t)(sign(memcmp(src + sa, dst + sa, n)) + 1));
        if (n) {
          size_t pos = (n * 7 + da) % n;
          dst[sa + pos] ^= (unsigned char)(0x80 >> (da & 7));
          h = fnv1a_u64(h, (uint64_t)(sign(memcmp(src + sa, dst + sa, n)) + 1) * 3 +
                               (uint64_t)(sign(memcmp(src + sa, dst + sa, pos)) + 1));
        }
      }
    }
  }
  printf("small errors %lu memcmp hash %016" PRIx64 "\n", errors, h);

  size_t big = 6u << 20;
  unsigned char *a = malloc(big + 64), *b = malloc(big + 64);
  for (size_t i = 0; i < big + 64; i++) a[i] = (unsigned char)(i ^ (i >> 9));
  static const size_t sizes[] = {4096, 4097, 65536 + 3, 1u << 20, (6u << 20) - 5};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    size_t n = sizes[k];
    memset(b, 0xee, big + 64);
    memcpy(b + 3, a + 1, n);
    unsigned long bad = 0;
    for (size_t i = 0; i < n; i += 7) bad += b[3 + i] != a[1 + i];
    bad += b[2] != 0xee || b[3 + n] != 0xee;
    memmove(b + 1, b + 33, n);  // overlapping, forwards
    // The last 30 bytes moved came from past the copied block.
    for (size_t i = 0; i + 30 < n; i += 97) bad += b[1 + i] != a[31 + i];
    memmove(b + 50, b + 1, n);  // overlapping, backwards
    for (size_t i = 0; i + 30 < n; i += 101) bad += b[50 + i] != a[31 + i];
    memset(b + 7, 0x5a, n);
    for (size_t i = 0; i < n; i += 89) bad += b[7 + i] != 0x5a;
    printf("big %zu bad %lu cmp %d hash %016" PRIx64 "\n", n, bad, sign(memcmp(a, b, n)),
           fnv1a(FNV_INIT, b + n - 90, 150));  // the tail and what lies past it
  }
  free(a);
  free(b);
  return 0;
}
