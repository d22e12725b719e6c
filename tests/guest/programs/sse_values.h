// Special float and double operands (NaNs with payloads, infinities, signed
// zeros, denormals, halfway cases) and bit-pattern printers shared by the
// SSE3/SSE4.1 floating-point programs.
#pragma once

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <xmmintrin.h>
#include <emmintrin.h>

static inline float f_of(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static inline double d_of(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

static const uint32_t kFloats[] = {
    0x00000000, 0x80000000, 0x3f000000, 0xbf000000, 0x3fc00000, 0xbfc00000, 0x40200000, 0xc0200000,
    0x3f7fffff, 0x4b000001, 0x4affffff, 0xcb7fffff, 0x00000001, 0x807fffff, 0x7f800000, 0xff800000,
    0x7fc00001, 0xffc00002, 0x7f800003, 0xff800004, 0x3eaaaaab, 0x40490fdb, 0xc2f6e979, 0x4effffff,
};
static const uint64_t kDoubles[] = {
    0x0000000000000000, 0x8000000000000000, 0x3fe0000000000000, 0xbfe0000000000000, 0x3ff8000000000000,
    0xbff8000000000000, 0x4004000000000000, 0xc004000000000000, 0x3fefffffffffffff, 0x4330000000000001,
    0x432fffffffffffff, 0x0000000000000001, 0x800fffffffffffff, 0x7ff0000000000000, 0xfff0000000000000,
    0x7ff8000000000001, 0xfff8000000000002, 0x7ff0000000000003, 0xfff0000000000004, 0x400921fb54442d18,
};
#define NF (sizeof kFloats / sizeof kFloats[0])
#define ND (sizeof kDoubles / sizeof kDoubles[0])

static inline void show_ps(const char *label, __m128 v) {
  uint32_t u[4];
  memcpy(u, &v, 16);
  printf("%-16s %08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32 "\n", label, u[0], u[1], u[2], u[3]);
}
static inline void show_pd(const char *label, __m128d v) {
  uint64_t u[2];
  memcpy(u, &v, 16);
  printf("%-16s %016" PRIx64 " %016" PRIx64 "\n", label, u[0], u[1]);
}
