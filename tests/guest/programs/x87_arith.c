// x87 arithmetic by inline asm, bit for bit: fadd/fsub/fsubr/fmul/fdiv/
// fdivr in every operand form (st0,st(i); st(i),st0; the popping forms;
// float32, float64, int16 and int32 memory operands) and fsqrt, under all
// 16 control words (4 rounding modes x 4 precision controls), on random
// operands of every class (normals, denormals, pseudo-denormals, zeros,
// infinities, NaNs, unnormals).  C3/C2/C0 are set beforehand: the SDM
// and the APM leave them undefined after these instructions, both CPUs
// keep them and so does phybin, so they go on model lines (guest_common.h).
// One FNV digest of both stack slots and FSW per form (and one of C3/C2/C0
// on a model line), plus a few results in full.
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

typedef struct {
  unsigned char b[10];
} f80;

typedef struct {
  f80 r0, r1;
  unsigned short sw;
} result;

static f80 make(int sign, unsigned exp, uint64_t sig) {
  f80 v;
  memcpy(v.b, &sig, 8);
  unsigned short se = (unsigned short)((sign ? 0x8000 : 0) | exp);
  memcpy(v.b + 8, &se, 2);
  return v;
}

static uint64_t random_sig(void) {
  uint64_t s = rng_next();
  switch (rng_below(5)) {
    case 0: return s & (~0ull << rng_below(64));
    case 1: return s | ((1ull << rng_below(64)) - 1);
    default: return s;
  }
}

// Random value of a random class; `near` biases the exponent.
static f80 random_value(unsigned near) {
  int sign = rng_next() & 1;
  uint64_t sig = random_sig();
  switch (rng_below(24)) {
    case 0: return make(sign, 0, 0);
    case 1: return make(sign, 0x7fff, 1ull << 63);
    case 2: return make(sign, 0x7fff, 3ull << 62 | sig >> 2);
    case 3: return make(sign, 0x7fff, 1ull << 63 | (sig >> 2 | 1));
    case 4: return make(sign, 0, sig >> (1 + rng_below(63)));
    case 5: return make(sign, 0, sig | 1ull << 63);
    case 6: return make(sign, 1 + rng_below(0x7ffe), sig & ~(1ull << 63));
    case 7: return make(sign, 0x7ffe - rng_below(70), sig | 1ull << 63);
    case 8: return make(sign, 1 + rng_below(70), sig | 1ull << 63);
    default: break;
  }
  int e = (int)near + (int)rng_below(140) - 70;
  if (rng_below(3) == 0) e = (int)near + (int)rng_below(5) - 2;
  if (e < 1) e = 1;
  if (e > 0x7ffe) e = 0x7ffe;
  return make(sign, (unsigned)e, sig | 1ull << 63);
}

static uint64_t random_memory(int kind) {
  uint64_t v = rng_next();
  if (rng_below(4) == 0) v &= kind == 1 ? 0x807fffffull : 0x800fffffffffffffull;  // denormals
  if (rng_below(8) == 0) v |= kind == 1 ? 0x7f800000ull : 0x7ff0000000000000ull;   // inf/NaN
  if (kind == 1 && rng_below(2)) v = (v & 0x80000000ull) | ((0x3c000000ull + (v & 0x0fffffffull)) & 0x7fffffffull);
  if (kind == 2 && rng_below(2)) v = (v & 0x8000000000000000ull) | (0x3f00000000000000ull + (v & 0x00ffffffffffffffull));
  return v;
}

#define CLOBBERS "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)", "memory"

// ST0 = a, ST1 = b, memory operand m; run insn, keep both slots and FSW.
#define FORM(fn, insn)                                                                              \
  static void fn(const f80 *a, const f80 *b, const uint64_t *m, unsigned short cw, result *r) {     \
    __asm__ volatile("fninit\n fldz\n fdiv %%st(0), %%st\n fucomp %%st(0)\n fnclex\n fldcw %[cw]\n"   \
                     " fldt %[b]\n fldt %[a]\n " insn "\n fnstsw %[sw]\n"                            \
                     " fstpt %[r0]\n fstpt %[r1]\n fninit\n"                                        \
                     : [r0] "=m"(r->r0), [r1] "=m"(r->r1), [sw] "=m"(r->sw)                         \
                     : [cw] "m"(cw), [a] "m"(*a), [b] "m"(*b), [m] "m"(*m)                          \
                     : CLOBBERS);                                                                   \
  }

#define OPS(suffix, form) \
  FORM(fadd_##suffix, "fadd" form) FORM(fsub_##suffix, "fsub" form) FORM(fsubr_##suffix, "fsubr" form) \
  FORM(fmul_##suffix, "fmul" form) FORM(fdiv_##suffix, "fdiv" form) FORM(fdivr_##suffix, "fdivr" form)

OPS(st0_sti, " %%st(1), %%st")
OPS(sti_st0, " %%st, %%st(1)")
OPS(pop, "p %%st, %%st(1)")
OPS(m32, "s %[m]")
OPS(m64, "l %[m]")
FORM(fiadd_m16, "fiadds %[m]") FORM(fisub_m16, "fisubs %[m]") FORM(fisubr_m16, "fisubrs %[m]")
FORM(fimul_m16, "fimuls %[m]") FORM(fidiv_m16, "fidivs %[m]") FORM(fidivr_m16, "fidivrs %[m]")
FORM(fiadd_m32, "fiaddl %[m]") FORM(fisub_m32, "fisubl %[m]") FORM(fisubr_m32, "fisubrl %[m]")
FORM(fimul_m32, "fimull %[m]") FORM(fidiv_m32, "fidivl %[m]") FORM(fidivr_m32, "fidivrl %[m]")
FORM(fsqrt_st0, "fsqrt")
FORM(fadd_st0_st0, "fadd %%st(0), %%st")
FORM(fmulp_st1, "fmulp")

typedef void (*form_fn)(const f80 *, const f80 *, const uint64_t *, unsigned short, result *);
struct form {
  const char *name;
  form_fn fn;
  int memory_kind;  // 0 none, 1 float32, 2 float64, 3 int16, 4 int32
};

#define ROW(suffix, kind)                                                                           \
  {"fadd " #suffix, fadd_##suffix, kind}, {"fsub " #suffix, fsub_##suffix, kind},                  \
      {"fsubr " #suffix, fsubr_##suffix, kind}, {"fmul " #suffix, fmul_##suffix, kind},            \
      {"fdiv " #suffix, fdiv_##suffix, kind}, {"fdivr " #suffix, fdivr_##suffix, kind}

static const struct form forms[] = {
    ROW(st0_sti, 0), ROW(sti_st0, 0), ROW(pop, 0), ROW(m32, 1), ROW(m64, 2),
    {"fiadd m16", fiadd_m16, 3}, {"fisub m16", fisub_m16, 3}, {"fisubr m16", fisubr_m16, 3},
    {"fimul m16", fimul_m16, 3}, {"fidiv m16", fidiv_m16, 3}, {"fidivr m16", fidivr_m16, 3},
    {"fiadd m32", fiadd_m32, 4}, {"fisub m32", fisub_m32, 4}, {"fisubr m32", fisubr_m32, 4},
    {"fimul m32", fimul_m32, 4}, {"fidiv m32", fidiv_m32, 4}, {"fidivr m32", fidivr_m32, 4},
    {"fsqrt", fsqrt_st0, 0}, {"fadd st0,st0", fadd_st0_st0, 0}, {"fmulp", fmulp_st1, 0},
};

static void print_f80(const f80 *v) {
  for (int i = 9; i >= 0; i--) printf("%02x", v->b[i]);
}

int main(void) {
  rng_seed(87);
  for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
    uint64_t digest = FNV_INIT, model_digest = FNV_INIT;
    for (unsigned cw_bits = 0; cw_bits < 16; cw_bits++) {
      unsigned short cw = (unsigned short)(0x7f | (cw_bits & 3) << 8 | (cw_bits >> 2) << 10);
      for (int i = 0; i < 48; i++) {
        f80 a = random_value(16383);
        unsigned short ae;
        memcpy(&ae, a.b + 8, 2);
        f80 b = random_value((ae & 0x7fff) == 0 || (ae & 0x7fff) == 0x7fff ? 16383 : ae & 0x7fff);
        uint64_t m = random_memory(forms[f].memory_kind);
        if (forms[f].memory_kind >= 3 && rng_below(2)) m = (uint64_t)(int64_t)(int8_t)m;
        result r;
        memset(&r, 0, sizeof r);
        forms[f].fn(&a, &b, &m, cw, &r);
        unsigned short cc = r.sw & 0x4500;
        r.sw &= (unsigned short)~0x4500;
        digest = fnv1a(digest, &r, sizeof r);
        model_digest = fnv1a(model_digest, &cc, sizeof cc);
        if (i == 0 && cw_bits == 0) {
          printf("%-14s first: ", forms[f].name);
          print_f80(&r.r0);
          printf(" ");
          print_f80(&r.r1);
          printf(" sw %04x\n", r.sw);
        }
      }
    }
    printf("%-14s digest %016llx\n", forms[f].name, (unsigned long long)digest);
    model_printf("%-14s c3c2c0 digest %016llx\n", forms[f].name, (unsigned long long)model_digest);
  }
  return 0;
}
