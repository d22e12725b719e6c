// cmovcc and setcc right after the compare that sets their flags, at 64,
// 32 and 16 bits and for every condition, and byte/word writes into
// registers whose other bits must survive (setcc, 8- and 16-bit
// arithmetic).  phybin compares and selects in one step there (cmp; csel)
// and inserts the bytes in place: the results must be the CPU's.
#include <inttypes.h>
#include <stdio.h>

#include "guest_common.h"

static volatile int64_t vals[] = {0, 1, -1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0x7fffffff, 0x80000000ll,
                                  0xffffffffll, INT64_MAX, INT64_MIN, 0x123456789abcdefll, -1000003};
#define NVALS (sizeof vals / sizeof vals[0])

// One condition: cmov at 64/32/16 bits, setcc into the low byte of a
// register holding garbage, and test+cmov.
#define COND(cc)                                                                                          \
  static uint64_t cond_##cc(int64_t a, int64_t b) {                                                       \
    uint64_t r64 = 0x1111, r32 = 0xdeadbeefcafef00dull, r16 = 0x2222222222222222ull;                      \
    uint64_t set = 0xa5a5a5a5a5a5a5a5ull, t = 0x3333;                                                     \
    __asm__("cmp %[b], %[a]\n\tcmov" #cc " %[a], %[r64]" : [r64] "+r"(r64) : [a] "r"(a), [b] "r"(b) : "cc"); \
    __asm__("cmp %k[b], %k[a]\n\tcmov" #cc " %k[b], %k[r32]" : [r32] "+r"(r32) : [a] "r"(a), [b] "r"(b) : "cc"); \
    __asm__("cmp %w[b], %w[a]\n\tcmov" #cc " %w[a], %w[r16]" : [r16] "+r"(r16) : [a] "r"(a), [b] "r"(b) : "cc"); \
    __asm__("cmp %[b], %[a]\n\tset" #cc " %b[set]" : [set] "+q"(set) : [a] "r"(a), [b] "r"(b) : "cc");     \
    __asm__("test %[a], %[a]\n\tcmov" #cc " %[b], %[t]" : [t] "+r"(t) : [a] "r"(a), [b] "r"(b) : "cc");     \
    return r64 ^ (r32 * 3) ^ (r16 * 5) ^ (set * 7) ^ (t * 11);                                            \
  }
COND(o) COND(no) COND(b) COND(ae) COND(e) COND(ne) COND(be) COND(a)
COND(s) COND(ns) COND(p) COND(np) COND(l) COND(ge) COND(le) COND(g)

static uint64_t (*const conds[])(int64_t, int64_t) = {cond_o, cond_no, cond_b, cond_ae, cond_e, cond_ne,
                                                       cond_be, cond_a, cond_s, cond_ns, cond_p, cond_np,
                                                       cond_l, cond_ge, cond_le, cond_g};

// 8- and 16-bit arithmetic into registers with garbage above.
static uint64_t partial(int64_t a, int64_t b) {
  uint64_t x = (uint64_t)a, y = (uint64_t)b, z = (uint64_t)a;
  __asm__("addb %b[y], %b[x]" : [x] "+q"(x) : [y] "q"(y) : "cc");
  __asm__("subw %w[y], %w[z]" : [z] "+r"(z) : [y] "r"(y) : "cc");
  __asm__("movb %b[y], %h[y]" : [y] "+Q"(y) : : );
  return x ^ (z << 1) ^ (y << 2);
}

// Branches on a value being zero at every width (test r, r; jz and dec;
// jnz), with other bits set above the tested width.
#define ZERO_BRANCH(name, reg_mod)                                                           \
  static uint64_t name(uint64_t v) {                                                    \
    uint64_t taken = 1;                                                                 \
    __asm__("test %" reg_mod "[v], %" reg_mod "[v]\n\tjz 1f\n\tmov $2, %[t]\n1:"        \
            : [t] "+r"(taken) : [v] "q"(v) : "cc");                                      \
    return taken;                                                                       \
  }
ZERO_BRANCH(zero64, "q")
ZERO_BRANCH(zero32, "k")
ZERO_BRANCH(zero16, "w")
ZERO_BRANCH(zero8, "b")

// A dec; jnz loop counting the low 8 bits down to zero.
static uint64_t dec_loop(uint64_t v) {
  uint64_t n = 0, c = (v & 0xff) | 0xabcd00;
  if ((c & 0xff) == 0) return 0;
  __asm__("1:\n\tinc %[n]\n\tdec %b[c]\n\tjnz 1b" : [n] "+r"(n), [c] "+q"(c) : : "cc");
  return n ^ (c << 8);
}

int main(void) {
  uint64_t digest = FNV_INIT;
  for (size_t i = 0; i < NVALS; ++i) {
    for (size_t j = 0; j < NVALS; ++j) {
      for (size_t c = 0; c < sizeof conds / sizeof conds[0]; ++c) {
        uint64_t r = conds[c](vals[i], vals[j]);
        digest = fnv1a(digest, &r, sizeof r);
        if (i == j || j == 0) printf("%zu %zu cc%zu %016" PRIx64 "\n", i, j, c, r);
      }
      uint64_t p = partial(vals[i], vals[j]);
      digest = fnv1a(digest, &p, sizeof p);
    }
    const uint64_t v = (uint64_t)vals[i];
    for (int shift = 0; shift < 64; shift += 8) {
      const uint64_t w = v << shift;
      printf("zero %016" PRIx64 ": %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " loop %" PRIx64 "\n", w, zero64(w),
             zero32(w), zero16(w), zero8(w), dec_loop(w));
    }
  }
  printf("digest %016" PRIx64 "\n", digest);
  return 0;
}
