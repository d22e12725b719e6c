// SSE4.2 string compares: pcmpistri, pcmpistrm, pcmpestri, pcmpestrm in
// every imm8 mode (bytes/words, signed/unsigned, equal any/ranges/equal
// each/equal ordered, the four polarities, least/most significant index,
// bit/element mask) on random and hand-made operands, with their ECX or
// XMM0 result and flags; register and memory second operands, 32- and
// 64-bit explicit lengths.  Inline assembly only: -msse4.2 would let GCC
// use SSE4.1 elsewhere.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <emmintrin.h>

#include "guest_common.h"

#define FLAG_BITS 0x8d5u

typedef struct {
  uint64_t ecx, flags, mask_lo, mask_hi;
} Result;

typedef Result (*StrFn)(__m128i a, const __m128i *b, int64_t la, int64_t lb);

// One function per instruction and imm8 (the immediate is part of the
// encoding).  The flags are set to a pattern first: the instruction must
// overwrite all six.
#define FLAGS_IN "pushq $0x8d7; popfq; "
#define DEFINE(imm)                                                                                             \
  static Result istri_##imm(__m128i a, const __m128i *b, int64_t la, int64_t lb) {                            \
    Result r = {0};                                                                                            \
    (void)la, (void)lb;                                                                                        \
    __asm__ volatile(FLAGS_IN "pcmpistri $" #imm ", %2, %3; pushfq; popq %1"                                   \
                     : "=c"(r.ecx), "=r"(r.flags) : "m"(*b), "x"(a) : "cc");                                   \
    return r;                                                                                                  \
  }                                                                                                            \
  static Result istrm_##imm(__m128i a, const __m128i *b, int64_t la, int64_t lb) {                            \
    Result r = {0};                                                                                            \
    __m128i m;                                                                                                 \
    (void)la, (void)lb;                                                                                        \
    __m128i bv = _mm_loadu_si128(b);                                                                           \
    __asm__ volatile(FLAGS_IN "pcmpistrm $" #imm ", %2, %3; pushfq; popq %1"                                   \
                     : "=Yz"(m), "=r"(r.flags) : "x"(bv), "x"(a) : "cc");                                      \
    memcpy(&r.mask_lo, &m, 8), memcpy(&r.mask_hi, (char *)&m + 8, 8);                                          \
    return r;                                                                                                  \
  }                                                                                                            \
  static Result estri_##imm(__m128i a, const __m128i *b, int64_t la, int64_t lb) {                            \
    Result r = {0};                                                                                            \
    __asm__ volatile(FLAGS_IN "pcmpestri $" #imm ", %2, %3; pushfq; popq %1"                                   \
                     : "=c"(r.ecx), "=r"(r.flags) : "m"(*b), "x"(a), "a"((int32_t)la), "d"((int32_t)lb) : "cc"); \
    return r;                                                                                                  \
  }                                                                                                            \
  static Result estrm_##imm(__m128i a, const __m128i *b, int64_t la, int64_t lb) {                            \
    Result r = {0};                                                                                            \
    __m128i m;                                                                                                 \
    __asm__ volatile(FLAGS_IN "pcmpestrm $" #imm ", %2, %3; pushfq; popq %1"                                   \
                     : "=Yz"(m), "=r"(r.flags) : "m"(*b), "x"(a), "a"((int32_t)la), "d"((int32_t)lb) : "cc");  \
    memcpy(&r.mask_lo, &m, 8), memcpy(&r.mask_hi, (char *)&m + 8, 8);                                          \
    return r;                                                                                                  \
  }                                                                                                            \
  static Result estri64_##imm(__m128i a, const __m128i *b, int64_t la, int64_t lb) {                          \
    Result r = {0};                                                                                            \
    __asm__ volatile(FLAGS_IN "rex.W pcmpestri $" #imm ", %2, %3; pushfq; popq %1"                            \
                     : "=c"(r.ecx), "=r"(r.flags) : "x"(_mm_loadu_si128(b)), "x"(a), "a"(la), "d"(lb) : "cc");  \
    return r;                                                                                                  \
  }

// Sixteen immediates 0xh0..0xhf at a time (names need literal numbers).
#define EACH16(M, h)                                                                                   \
  M(0x##h##0) M(0x##h##1) M(0x##h##2) M(0x##h##3) M(0x##h##4) M(0x##h##5) M(0x##h##6) M(0x##h##7)   \
  M(0x##h##8) M(0x##h##9) M(0x##h##a) M(0x##h##b) M(0x##h##c) M(0x##h##d) M(0x##h##e) M(0x##h##f)
#define EACH128(M) EACH16(M, 0) EACH16(M, 1) EACH16(M, 2) EACH16(M, 3) EACH16(M, 4) EACH16(M, 5) EACH16(M, 6) EACH16(M, 7)
EACH128(DEFINE)

#define ROW(n) {istri_##n, istrm_##n, estri_##n, estrm_##n, estri64_##n},
static const StrFn table[128][5] = {EACH128(ROW)};
static const char *const names[5] = {"istri", "istrm", "estri", "estrm", "estri64"};

// Operands: random bytes drawn from a small alphabet (so that equalities
// happen), zero elements at random places, ranges as ordered pairs.
static void make_operand(uint8_t *out, int kind) {
  static const uint8_t alphabet[] = {'a', 'b', 'c', 'z', '0', '9', 0x80, 0xff, 0x7f, 0x01, 'A'};
  for (int i = 0; i < 16; i++) {
    switch (kind) {
      case 0: out[i] = alphabet[rng_below(sizeof alphabet)]; break;
      case 1: out[i] = (uint8_t)rng_next(); break;
      default: out[i] = (uint8_t)('a' + rng_below(4)); break;
    }
  }
  if (rng_below(3) == 0) out[rng_below(16)] = 0;
  if (rng_below(5) == 0) out[rng_below(16)] = 0, out[rng_below(16) | 1] = 0;  // a zero word, often
}

static const int64_t lengths[] = {0, 1, 3, 7, 8, 9, 15, 16, 17, -1, -5, -16, -17, 100, -100, 0x7fffffff,
                                  -0x7fffffff - 1};

int main(void) {
  rng_seed(2024);
  __attribute__((aligned(16))) uint8_t a[16], b[32];
  // A few fixed cases printed in full: the documented examples.
  memcpy(a, "az\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
  memcpy(b, "Hello, world! 12", 16);
  __m128i av = _mm_loadu_si128((const __m128i *)a);
  for (int imm = 0; imm < 128; imm += 4) {
    Result r = table[imm][0](av, (const __m128i *)b, 0, 0);
    Result m = table[imm][1](av, (const __m128i *)b, 0, 0);
    printf("imm %02x az-vs-hello istri %2" PRIu64 " fl %03" PRIx64 " istrm %016" PRIx64 "%016" PRIx64 " fl %03" PRIx64 "\n",
           imm, r.ecx, r.flags & FLAG_BITS, m.mask_hi, m.mask_lo, m.flags & FLAG_BITS);
  }
  for (int imm = 0; imm < 128; imm++) {
    for (int f = 0; f < 5; f++) {
      uint64_t digest = FNV_INIT;
      int trials = f == 4 ? 60 : 200;
      for (int t = 0; t < trials; t++) {
        make_operand(a, t % 3);
        // b sometimes copies part of a, so that ordered matches happen.
        make_operand(b, t % 3);
        if (t % 4 == 0) {
          uint32_t at = rng_below(8), len = 1 + rng_below(6);
          memcpy(b + at, a, len);
        }
        av = _mm_loadu_si128((const __m128i *)a);
        int64_t la = lengths[rng_below(sizeof lengths / sizeof lengths[0])];
        int64_t lb = lengths[rng_below(sizeof lengths / sizeof lengths[0])];
        if (f == 4 && t % 2) la = la * 0x100000001ll, lb = -lb * 0x10000;  // only the 64-bit value counts
        Result r = table[imm][f](av, (const __m128i *)b, la, lb);
        r.flags &= FLAG_BITS;
        digest = fnv1a(digest, &r, sizeof r);
      }
      printf("%s %02x %016" PRIx64 "\n", names[f], imm, digest);
    }
  }
  return 0;
}
