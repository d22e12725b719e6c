// Chains of SSE arithmetic whose intermediate results nothing else reads
// (the register holding one is cleared right after): phybin checks such a
// chain for x86's NaN rules once, at its end, and redoes it when a NaN
// appears.  Every combination of special values (zeros, infinities, quiet
// and signalling NaNs with payloads, denormals, ordinary numbers) goes
// through packed and scalar chains of two and three operations, including
// invalid ones (inf - inf, 0 * inf, 0 / 0, sqrt(-1)); the result bits and
// the MXCSR flags are summed into checksums, and a few results printed.
#include <inttypes.h>
#include <stdio.h>
#include <xmmintrin.h>

#include "guest_common.h"

static const uint32_t fbits[] = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000,
    0xffc00000, 0x7fc12345, 0x7f812345, 0xff900001, 0x00000001, 0x7f7fffff, 0xc0490fdb,
};
static const uint64_t dbits[] = {
    0x0000000000000000ull, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
    0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull,
    0x7ff8000000012345ull, 0x7ff0000000012345ull, 0xfff4000000000001ull, 0x0000000000000001ull,
    0x7fefffffffffffffull, 0xc00921fb54442d18ull,
};
#define N 14

typedef struct {
  uint64_t lo, hi;
} v128;

static uint32_t flags_then_clear(void) {
  uint32_t m;
  __asm__ volatile("stmxcsr %0" : "=m"(m));
  uint32_t clear = m & ~0x3fu;
  __asm__ volatile("ldmxcsr %0" : : "m"(clear));
  return m & 0x3d;  // DE is exact only with PHYBIN_EXACT_MXCSR=1 (README)
}

// a = a + b * c (packed floats), the product in xmm8 only
static v128 ps_mul_add(v128 a, v128 b, v128 c) {
  __asm__ volatile("movups %1, %%xmm9\n\tmovups %2, %%xmm8\n\tmovups %3, %%xmm10\n\t"
                   "mulps %%xmm10, %%xmm8\n\taddps %%xmm8, %%xmm9\n\txorps %%xmm8, %%xmm8\n\tmovups %%xmm9, %0"
                   : "=m"(a) : "m"(a), "m"(b), "m"(c) : "xmm8", "xmm9", "xmm10");
  return a;
}

// a = (b - c) / a - sqrt(b) (packed doubles), both intermediates dead at once
static v128 pd_sub_div_sqrt(v128 a, v128 b, v128 c) {
  __asm__ volatile("movupd %1, %%xmm9\n\tmovupd %2, %%xmm8\n\tmovupd %3, %%xmm10\n\t"
                   "subpd %%xmm10, %%xmm8\n\tdivpd %%xmm9, %%xmm8\n\tsqrtpd %%xmm10, %%xmm11\n\t"
                   "subpd %%xmm11, %%xmm8\n\tmovapd %%xmm8, %%xmm9\n\txorpd %%xmm8, %%xmm8\n\t"
                   "xorpd %%xmm11, %%xmm11\n\tmovupd %%xmm9, %0"
                   : "=m"(a) : "m"(a), "m"(b), "m"(c) : "xmm8", "xmm9", "xmm10", "xmm11");
  return a;
}

// a[0] = a[0] + b[0] * c[0], then * sqrt(c[0]) (scalar doubles): the upper
// element of a must survive
static v128 sd_chain(v128 a, v128 b, v128 c) {
  __asm__ volatile("movupd %1, %%xmm9\n\tmovupd %2, %%xmm8\n\tmovupd %3, %%xmm10\n\t"
                   "mulsd %%xmm10, %%xmm8\n\taddsd %%xmm8, %%xmm9\n\tsqrtsd %%xmm10, %%xmm11\n\t"
                   "mulsd %%xmm11, %%xmm9\n\txorpd %%xmm8, %%xmm8\n\txorpd %%xmm11, %%xmm11\n\tmovupd %%xmm9, %0"
                   : "=m"(a) : "m"(a), "m"(b), "m"(c) : "xmm8", "xmm9", "xmm10", "xmm11");
  return a;
}

// a[0] = c[0] / (a[0] - b[0]) (scalar floats)
static v128 ss_chain(v128 a, v128 b, v128 c) {
  __asm__ volatile("movups %1, %%xmm9\n\tmovups %2, %%xmm8\n\tmovups %3, %%xmm10\n\t"
                   "movaps %%xmm9, %%xmm11\n\tsubss %%xmm8, %%xmm11\n\tdivss %%xmm11, %%xmm10\n\t"
                   "movss %%xmm10, %%xmm9\n\txorps %%xmm11, %%xmm11\n\tmovups %%xmm9, %0"
                   : "=m"(a) : "m"(a), "m"(b), "m"(c) : "xmm8", "xmm9", "xmm10", "xmm11");
  return a;
}

// Scalar loads leave the elements above zero, and so do the operations on
// them: xmm9 = b * c[0] + a[0] and xmm11 = a[0] / xmm9, both with upper
// elements 0 (c's upper element in xmm10 must not leak in), summed bit by
// bit (xor); the NaN rules hold when a loaded value is an operand.
static v128 sd_loaded(v128 a, v128 b, v128 c) {
  __asm__ volatile("movupd %3, %%xmm10\n\tmovsd %2, %%xmm9\n\tmulsd %%xmm10, %%xmm9\n\t"
                   "addsd %1, %%xmm9\n\tmovsd %1, %%xmm11\n\tdivsd %%xmm9, %%xmm11\n\t"
                   "xorpd %%xmm11, %%xmm9\n\tmovupd %%xmm9, %0"
                   : "=m"(a) : "m"(a.lo), "m"(b.lo), "m"(c) : "xmm9", "xmm10", "xmm11");
  return a;
}

// The same for floats: sqrt(b) - a[0], then / c[0], elements 1..3 zero.
static v128 ss_loaded(v128 a, v128 b, v128 c) {
  __asm__ volatile("movups %3, %%xmm10\n\tmovss %2, %%xmm9\n\tsqrtss %%xmm9, %%xmm9\n\t"
                   "subss %1, %%xmm9\n\tdivss %%xmm10, %%xmm9\n\tmovups %%xmm9, %0"
                   : "=m"(a) : "m"(a.lo), "m"(b.lo), "m"(c) : "xmm9", "xmm10");
  return a;
}

static v128 floats(int i, int j) {
  v128 v = {fbits[i] | (uint64_t)fbits[j] << 32, fbits[(i + j) % N] | (uint64_t)0x12345678 << 32};
  return v;
}
static v128 doubles(int i, int j) {
  v128 v = {dbits[i], dbits[j]};
  return v;
}

int main(void) {
  typedef v128 (*chain)(v128, v128, v128);
  static const struct {
    const char* name;
    chain fn;
    int is_double;
  } chains[] = {{"ps_mul_add", ps_mul_add, 0},
                {"pd_sub_div_sqrt", pd_sub_div_sqrt, 1},
                {"sd_chain", sd_chain, 1},
                {"ss_chain", ss_chain, 0},
                {"sd_loaded", sd_loaded, 1},
                {"ss_loaded", ss_loaded, 0}};
  for (unsigned k = 0; k < sizeof chains / sizeof chains[0]; ++k) {
    uint64_t sum = FNV_INIT, flag_sum = FNV_INIT;
    flags_then_clear();
    for (int i = 0; i < N; ++i)
      for (int j = 0; j < N; ++j)
        for (int l = 0; l < N; ++l) {
          v128 a = chains[k].is_double ? doubles(i, j) : floats(i, j);
          v128 b = chains[k].is_double ? doubles(j, l) : floats(j, l);
          v128 c = chains[k].is_double ? doubles(l, i) : floats(l, i);
          v128 r = chains[k].fn(a, b, c);
          sum = fnv1a_u64(fnv1a_u64(sum, r.lo), r.hi);
          flag_sum = fnv1a_u64(flag_sum, flags_then_clear());
          if ((i * N + j) * N + l == 777)
            printf("%s sample %016" PRIx64 " %016" PRIx64 "\n", chains[k].name, r.hi, r.lo);
        }
    printf("%s results %016" PRIx64 " flags %016" PRIx64 "\n", chains[k].name, sum, flag_sum);
  }
  return 0;
}
