// SSE2 integer instructions on XMM registers, every lane printed in hex:
// add/sub (wrapping and saturating), compares, min/max, multiplies
// (pmullw, pmulhw, pmulhuw, pmuludq, pmaddwd), pavg, psadbw, logic, shifts
// by immediates (0 to past the lane width) and by registers (huge counts
// too), unpacks, packs, pmovmskb.  Inputs go through an empty asm so that
// the compiler cannot fold anything: the CPU (or phybin) computes it all.
#include <emmintrin.h>
#include <inttypes.h>
#include <stdio.h>

#define HIDE(v) __asm__ volatile("" : "+x"(v))
#define N_IN 8

static __m128i in[N_IN];

static void show(const char *name, int i, int j, __m128i v) {
  uint64_t q[2];
  _mm_storeu_si128((__m128i *)q, v);
  printf("%-9s %d %d %016" PRIx64 "%016" PRIx64 "\n", name, i, j, q[1], q[0]);
}

static void init(void) {
  static const uint64_t k[N_IN][2] = {
      {0, 0},
      {~0ull, ~0ull},
      {0x8000800080008000ull, 0x8000000080000000ull},
      {0x7fff7fff7fff7fffull, 0x7fffffff7fffffffull},
      {0x0123456789abcdefull, 0xfedcba9876543210ull},
      {0x80ff7f0001fe8081ull, 0x7f7f80807ffe0102ull},
      {0x0000000100000002ull, 0xffffffff80000001ull},
      {0xdeadbeefcafebabeull, 0x1122334455667788ull},
  };
  for (int i = 0; i < N_IN; i++) in[i] = _mm_set_epi64x((long long)k[i][1], (long long)k[i][0]);
}

#define BIN(name, expr)                    \
  for (int i = 0; i < N_IN; i++)           \
    for (int j = 0; j < N_IN; j++) {       \
      __m128i a = in[i], b = in[j];        \
      HIDE(a);                             \
      HIDE(b);                             \
      __m128i r = expr;                    \
      show(name, i, j, r);                 \
    }

#define UN(name, expr)                     \
  for (int i = 0; i < N_IN; i++) {         \
    __m128i a = in[i];                     \
    HIDE(a);                               \
    __m128i r = expr;                      \
    show(name, i, 0, r);                   \
  }

static void arith(void) {
  BIN("paddb", _mm_add_epi8(a, b));
  BIN("paddw", _mm_add_epi16(a, b));
  BIN("paddd", _mm_add_epi32(a, b));
  BIN("paddq", _mm_add_epi64(a, b));
  BIN("psubb", _mm_sub_epi8(a, b));
  BIN("psubw", _mm_sub_epi16(a, b));
  BIN("psubd", _mm_sub_epi32(a, b));
  BIN("psubq", _mm_sub_epi64(a, b));
  BIN("paddsb", _mm_adds_epi8(a, b));
  BIN("paddsw", _mm_adds_epi16(a, b));
  BIN("paddusb", _mm_adds_epu8(a, b));
  BIN("paddusw", _mm_adds_epu16(a, b));
  BIN("psubsb", _mm_subs_epi8(a, b));
  BIN("psubsw", _mm_subs_epi16(a, b));
  BIN("psubusb", _mm_subs_epu8(a, b));
  BIN("psubusw", _mm_subs_epu16(a, b));
  BIN("pcmpeqb", _mm_cmpeq_epi8(a, b));
  BIN("pcmpeqw", _mm_cmpeq_epi16(a, b));
  BIN("pcmpeqd", _mm_cmpeq_epi32(a, b));
  BIN("pcmpgtb", _mm_cmpgt_epi8(a, b));
  BIN("pcmpgtw", _mm_cmpgt_epi16(a, b));
  BIN("pcmpgtd", _mm_cmpgt_epi32(a, b));
  BIN("pminub", _mm_min_epu8(a, b));
  BIN("pmaxub", _mm_max_epu8(a, b));
  BIN("pminsw", _mm_min_epi16(a, b));
  BIN("pmaxsw", _mm_max_epi16(a, b));
  BIN("pavgb", _mm_avg_epu8(a, b));
  BIN("pavgw", _mm_avg_epu16(a, b));
  BIN("pmullw", _mm_mullo_epi16(a, b));
  BIN("pmulhw", _mm_mulhi_epi16(a, b));
  BIN("pmulhuw", _mm_mulhi_epu16(a, b));
  BIN("pmuludq", _mm_mul_epu32(a, b));
  BIN("pmaddwd", _mm_madd_epi16(a, b));
  BIN("psadbw", _mm_sad_epu8(a, b));
  BIN("pand", _mm_and_si128(a, b));
  BIN("pandn", _mm_andnot_si128(a, b));
  BIN("por", _mm_or_si128(a, b));
  BIN("pxor", _mm_xor_si128(a, b));
}

static void permutes(void) {
  BIN("plbw", _mm_unpacklo_epi8(a, b));
  BIN("plwd", _mm_unpacklo_epi16(a, b));
  BIN("pldq", _mm_unpacklo_epi32(a, b));
  BIN("plqdq", _mm_unpacklo_epi64(a, b));
  BIN("phbw", _mm_unpackhi_epi8(a, b));
  BIN("phwd", _mm_unpackhi_epi16(a, b));
  BIN("phdq", _mm_unpackhi_epi32(a, b));
  BIN("phqdq", _mm_unpackhi_epi64(a, b));
  BIN("packsswb", _mm_packs_epi16(a, b));
  BIN("packssdw", _mm_packs_epi32(a, b));
  BIN("packuswb", _mm_packus_epi16(a, b));
  UN("pslldq1", _mm_slli_si128(a, 1));
  UN("pslldq7", _mm_slli_si128(a, 7));
  UN("pslldq15", _mm_slli_si128(a, 15));
  UN("pslldq16", _mm_slli_si128(a, 16));
  UN("psrldq1", _mm_srli_si128(a, 1));
  UN("psrldq8", _mm_srli_si128(a, 8));
  UN("psrldq13", _mm_srli_si128(a, 13));
  UN("psrldq16", _mm_srli_si128(a, 16));
}

#define SHIFTS_IMM(n)                                  \
  UN("psllw" #n, _mm_slli_epi16(a, n));                \
  UN("pslld" #n, _mm_slli_epi32(a, n));                \
  UN("psllq" #n, _mm_slli_epi64(a, n));                \
  UN("psrlw" #n, _mm_srli_epi16(a, n));                \
  UN("psrld" #n, _mm_srli_epi32(a, n));                \
  UN("psrlq" #n, _mm_srli_epi64(a, n));                \
  UN("psraw" #n, _mm_srai_epi16(a, n));                \
  UN("psrad" #n, _mm_srai_epi32(a, n));

static void shifts(void) {
  SHIFTS_IMM(0)
  SHIFTS_IMM(1)
  SHIFTS_IMM(7)
  SHIFTS_IMM(15)
  SHIFTS_IMM(16)
  SHIFTS_IMM(31)
  SHIFTS_IMM(32)
  SHIFTS_IMM(63)
  SHIFTS_IMM(64)
  SHIFTS_IMM(255)
  static const uint64_t counts[] = {0, 1, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 0x100000001ull,
                                    0x8000000000000000ull};
  for (unsigned k = 0; k < sizeof counts / sizeof counts[0]; k++) {
    __m128i c = _mm_set_epi64x(0x1234, (long long)counts[k]);
    HIDE(c);
    printf("count %" PRIx64 "\n", counts[k]);
    UN("psllw", _mm_sll_epi16(a, c));
    UN("pslld", _mm_sll_epi32(a, c));
    UN("psllq", _mm_sll_epi64(a, c));
    UN("psrlw", _mm_srl_epi16(a, c));
    UN("psrld", _mm_srl_epi32(a, c));
    UN("psrlq", _mm_srl_epi64(a, c));
    UN("psraw", _mm_sra_epi16(a, c));
    UN("psrad", _mm_sra_epi32(a, c));
  }
}

static void masks(void) {
  for (int i = 0; i < N_IN; i++)
    for (int j = 0; j < N_IN; j++) {
      __m128i a = in[i], b = in[j];
      HIDE(a);
      HIDE(b);
      printf("pmovmskb %d %d %04x %04x\n", i, j, _mm_movemask_epi8(a), _mm_movemask_epi8(_mm_cmpeq_epi8(a, b)));
    }
}

// Both operands the same register (packuswb x, x; punpcklbw x, x ...).
#define SELF(insn)                                   \
  for (int i = 0; i < N_IN; i++) {                   \
    __m128i r = in[i];                               \
    __asm__(insn " %0, %0" : "+x"(r));               \
    show(insn, i, i, r);                             \
  }

static void same_register(void) {
  SELF("paddb") SELF("psubw") SELF("paddusb") SELF("psubsw") SELF("pcmpeqb") SELF("pcmpgtd")
  SELF("pminub") SELF("pmaxsw") SELF("pavgb") SELF("pmullw") SELF("pmulhw") SELF("pmulhuw")
  SELF("pmuludq") SELF("pmaddwd") SELF("psadbw") SELF("pand") SELF("pandn") SELF("por") SELF("pxor")
  SELF("punpcklbw") SELF("punpckhwd") SELF("punpckldq") SELF("punpckhqdq") SELF("packsswb")
  SELF("packssdw") SELF("packuswb") SELF("psllw") SELF("psrld") SELF("psraw") SELF("psubq")
}

int main(void) {
  init();
  arith();
  permutes();
  shifts();
  masks();
  same_register();
  return 0;
}
