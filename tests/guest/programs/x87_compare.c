// x87 comparisons and classification by inline asm: fcom, fcomp, fcompp,
// fucom, fucomp, fucompp (registers, float32, float64), ficom/ficomp
// (int16, int32), ftst, fxam (also on an empty register), fcomi, fcomip,
// fucomi, fucomip (RFLAGS), and fcmovcc under every condition; random
// operands of all classes.  C0-C3 are set beforehand, so what each
// instruction leaves alone shows too.  FSW, RFLAGS and both stack slots
// are digested per form.  fcmovcc leaves C3/C2/C0 undefined (SDM, APM);
// both CPUs and phybin keep them: model lines (guest_common.h).
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

typedef struct {
  unsigned char b[10];
} f80;

typedef struct {
  f80 r0, r1;
  unsigned long long flags;
  unsigned short sw;
} result;

#define CLOBBERS "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)", "memory", "cc"

// ST0 = a, ST1 = b, C3 C2 C0 = 1 (an unordered fucom of a NaN); then
// insn, with CF/ZF preset by a compare of `x` and `y` for fcmov.  The
// flags are read with lahf/seto (pushf would write into the red zone).
#define FORM(fn, insn)                                                                                    \
  static void fn(const f80 *a, const f80 *b, const uint64_t *m, unsigned x, unsigned y, result *r) {      \
    unsigned short ax;                                                                                    \
    unsigned char of;                                                                                     \
    __asm__ volatile("fninit\n fldz\n fdiv %%st(0), %%st\n fucomp %%st(0)\n fnclex\n"                   \
                     " fldt %[b]\n fldt %[a]\n cmpl %[y], %[x]\n " insn "\n lahf\n seto %[of]\n"          \
                     " fnstsw %[sw]\n fstpt %[r0]\n fstpt %[r1]\n fninit"                                \
                     : [r0] "=m"(r->r0), [r1] "=m"(r->r1), [sw] "=m"(r->sw), "=a"(ax), [of] "=q"(of)      \
                     : [a] "m"(*a), [b] "m"(*b), [m] "m"(*m), [x] "r"(x), [y] "r"(y)                      \
                     : CLOBBERS);                                                                         \
    r->flags = ((ax >> 8) & 0xd5) | (unsigned long long)of << 11;                                        \
  }

FORM(fcom_st1, "fcom %%st(1)")
FORM(fcomp_st1, "fcomp %%st(1)")
FORM(fcompp, "fcompp")
FORM(fucom_st1, "fucom %%st(1)")
FORM(fucomp_st1, "fucomp %%st(1)")
FORM(fucompp, "fucompp")
FORM(fcom_st3, "fcom %%st(3)")
FORM(fcom_m32, "fcoms %[m]")
FORM(fcomp_m64, "fcompl %[m]")
FORM(ficom_m16, "ficoms %[m]")
FORM(ficomp_m32, "ficompl %[m]")
FORM(ftst, "ftst")
FORM(fxam, "fxam")
FORM(fxam_empty, "ffree %%st(0)\n fxam")
FORM(fcomi, "fcomi %%st(1), %%st")
FORM(fcomip, "fcomip %%st(1), %%st")
FORM(fucomi, "fucomi %%st(1), %%st")
FORM(fucomip, "fucomip %%st(1), %%st")
FORM(fucomi_empty, "ffree %%st(1)\n fucomi %%st(1), %%st")
FORM(fcmovb, "fcmovb %%st(1), %%st")
FORM(fcmovnb, "fcmovnb %%st(1), %%st")
FORM(fcmove, "fcmove %%st(1), %%st")
FORM(fcmovne, "fcmovne %%st(1), %%st")
FORM(fcmovbe, "fcmovbe %%st(1), %%st")
FORM(fcmovnbe, "fcmovnbe %%st(1), %%st")
FORM(fcmovu, "fucomi %%st(1), %%st\n fcmovu %%st(1), %%st")
FORM(fcmovnu, "fucomi %%st(1), %%st\n fcmovnu %%st(1), %%st")

typedef void (*form_fn)(const f80 *, const f80 *, const uint64_t *, unsigned, unsigned, result *);
struct form {
  const char *name;
  form_fn fn;
  int memory_kind;  // 0 none, 1 float32, 2 float64, 3 int16, 4 int32
};
#define F(name, kind) {#name, name, kind}
static const struct form forms[] = {
    F(fcom_st1, 0),  F(fcomp_st1, 0), F(fcompp, 0),     F(fucom_st1, 0),  F(fucomp_st1, 0),    F(fucompp, 0),
    F(fcom_st3, 0),  F(fcom_m32, 1),  F(fcomp_m64, 2),  F(ficom_m16, 3),  F(ficomp_m32, 4),    F(ftst, 0),
    F(fxam, 0),      F(fxam_empty, 0), F(fcomi, 0),     F(fcomip, 0),     F(fucomi, 0),        F(fucomip, 0),
    F(fucomi_empty, 0), F(fcmovb, 0), F(fcmovnb, 0),    F(fcmove, 0),     F(fcmovne, 0),       F(fcmovbe, 0),
    F(fcmovnbe, 0),  F(fcmovu, 0),    F(fcmovnu, 0),
};

static f80 make(int sign, unsigned exp, uint64_t sig) {
  f80 v;
  memcpy(v.b, &sig, 8);
  unsigned short se = (unsigned short)((sign ? 0x8000 : 0) | exp);
  memcpy(v.b + 8, &se, 2);
  return v;
}

static f80 random_value(void) {
  int sign = rng_next() & 1;
  uint64_t sig = rng_next();
  switch (rng_below(16)) {
    case 0: return make(sign, 0, 0);
    case 1: return make(sign, 0x7fff, 1ull << 63);
    case 2: return make(sign, 0x7fff, 3ull << 62 | sig >> 2);
    case 3: return make(sign, 0x7fff, 1ull << 63 | (sig >> 2 | 1));
    case 4: return make(sign, 0, sig >> 1);
    case 5: return make(sign, 0, sig | 1ull << 63);
    case 6: return make(sign, 1 + rng_below(0x7ffe), sig & ~(1ull << 63));
    default: return make(sign, 16383 + rng_below(8) - 4, (sig & ~0ull << rng_below(64)) | 1ull << 63);
  }
}

int main(void) {
  rng_seed(7);
  for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
    uint64_t digest = FNV_INIT, model_digest = FNV_INIT;
    unsigned short undef = strncmp(forms[f].name, "fcmov", 5) ? 0 : 0x4500;
    for (int i = 0; i < 400; i++) {
      f80 a = random_value(), b = rng_below(6) == 0 ? a : random_value();
      uint64_t m = rng_next();
      switch (forms[f].memory_kind) {
        case 1: m = rng_below(2) ? m & 0x807fffff : (m & 0x80000000) | (0x3f000000 + (m & 0x01ffffff)); break;
        case 2: m = rng_below(2) ? m & 0x800fffffffffffffull : (m & 0x8000000000000000ull) | 0x3ff0000000000000ull; break;
        case 3: case 4: m = (uint64_t)(int64_t)(int8_t)m; break;
        default: break;
      }
      if (forms[f].memory_kind == 2 && rng_below(8) == 0) m |= 0x7ff0000000000000ull;
      unsigned x = rng_below(3), y = rng_below(3);
      result r;
      memset(&r, 0, sizeof r);
      forms[f].fn(&a, &b, &m, x, y, &r);
      unsigned short cc = r.sw & undef;
      r.sw &= (unsigned short)~undef;
      digest = fnv1a(digest, &r, sizeof r);
      model_digest = fnv1a(model_digest, &cc, sizeof cc);
      if (i < 2) printf("%-12s sw %04x flags %03llx\n", forms[f].name, r.sw, r.flags);
    }
    printf("%-12s digest %016llx\n", forms[f].name, (unsigned long long)digest);
    if (undef) model_printf("%-12s c3c2c0 digest %016llx\n", forms[f].name, (unsigned long long)model_digest);
  }
  return 0;
}
