// x87 instructions beyond the four operations, by inline asm, bit for
// bit: frndint, fscale, fxtract, fprem and fprem1 (one step and run to
// completion, with the quotient bits in C0/C3/C1 and C2 for a partial
// result), fchs, fabs; and the transcendental instructions (fsin, fcos,
// fsincos, fptan, fpatan, f2xm1, fyl2x, fyl2xp1) on their special
// operands, where the results are exact: zeros, infinities, NaNs, ones,
// out-of-range arguments.  Random operands under all control words; C3,
// C2 and C0 are set beforehand, to see which ones each instruction keeps.
// Model lines (guest_common.h) get what the SDM and the APM leave
// undefined and phybin does as Intel CPUs do: the condition codes an
// instruction leaves undefined (both CPUs keep them) and f2xm1 beyond its
// domain -1..+1 and at its ends.
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

#define CLOBBERS "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)", "memory", "rax", "cc"

#define FORM(fn, insn)                                                                              \
  static void fn(const f80 *a, const f80 *b, unsigned short cw, result *r) {                        \
    __asm__ volatile("fninit\n fldz\n fdiv %%st(0), %%st\n fucomp %%st(0)\n fnclex\n fldcw %[cw]\n"   \
                     " fldt %[b]\n fldt %[a]\n " insn "\n fnstsw %[sw]\n"                            \
                     " fstpt %[r0]\n fstpt %[r1]\n fninit\n"                                        \
                     : [r0] "=m"(r->r0), [r1] "=m"(r->r1), [sw] "=m"(r->sw)                         \
                     : [cw] "m"(cw), [a] "m"(*a), [b] "m"(*b)                                       \
                     : CLOBBERS);                                                                   \
  }

FORM(frndint_, "frndint")
FORM(fscale_, "fscale")
FORM(fxtract_, "fxtract")
FORM(fprem_, "fprem")
FORM(fprem1_, "fprem1")
FORM(fprem_loop, "1: fprem\n fnstsw %%ax\n testb $4, %%ah\n jnz 1b")
FORM(fprem1_loop, "1: fprem1\n fnstsw %%ax\n testb $4, %%ah\n jnz 1b")
FORM(fchs_, "fchs")
FORM(fabs_, "fabs")
FORM(fsin_, "fsin")
FORM(fcos_, "fcos")
FORM(fsincos_, "fsincos")
FORM(fptan_, "fptan")
FORM(fpatan_, "fpatan")
FORM(f2xm1_, "f2xm1")
FORM(fyl2x_, "fyl2x")
FORM(fyl2xp1_, "fyl2xp1")

typedef void (*form_fn)(const f80 *, const f80 *, unsigned short, result *);
struct form {
  const char *name;
  form_fn fn;
  int special_only;      // 1: only operands whose results are exact
  unsigned short undef;  // FSW bits the manuals leave undefined: C3 C2 C0, C3 C0 (trig), none (fprem)
};
#define CC 0x4500
static const struct form forms[] = {
    {"frndint", frndint_, 0, CC},  {"fscale", fscale_, 0, CC},      {"fxtract", fxtract_, 0, CC},
    {"fprem", fprem_, 0, 0},       {"fprem1", fprem1_, 0, 0},        {"fprem*", fprem_loop, 0, 0},
    {"fprem1*", fprem1_loop, 0, 0}, {"fchs", fchs_, 0, CC},          {"fabs", fabs_, 0, CC},
    {"fsin", fsin_, 1, 0x4100},    {"fcos", fcos_, 1, 0x4100},      {"fsincos", fsincos_, 1, 0x4100},
    {"fptan", fptan_, 1, 0x4100},  {"fpatan", fpatan_, 1, CC},      {"f2xm1", f2xm1_, 1, CC},
    {"fyl2x", fyl2x_, 1, CC},      {"fyl2xp1", fyl2xp1_, 1, CC},
};

// f2xm1 of |x| > 1: the manuals leave the result undefined; of +-1 the
// last bit is the vendor's (AMD CPUs give 1 - 2^-64 for +1, Intel ones 1).
static int beyond_domain(const char *name, const f80 *a) {
  unsigned short se;
  memcpy(&se, a->b + 8, 2);
  return !strcmp(name, "f2xm1") && (se & 0x7fff) >= 16383;
}

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
  if (rng_below(3) == 0) sig &= ~0ull << rng_below(64);
  switch (rng_below(14)) {
    case 0: return make(sign, 0, 0);
    case 1: return make(sign, 0x7fff, 1ull << 63);
    case 2: return make(sign, 0x7fff, 3ull << 62 | sig >> 2);
    case 3: return make(sign, 0x7fff, 1ull << 63 | (sig >> 2 | 1));
    case 4: return make(sign, 0, sig >> rng_below(64));
    case 5: return make(sign, 1 + rng_below(0x7ffe), sig | 1ull << 63);
    case 6: return make(sign, 16383 + rng_below(20), sig | 1ull << 63);
    default: return make(sign, 16383 + rng_below(140) - 70, sig | 1ull << 63);
  }
}

// A value that is special for every transcendental: zero, infinity,
// NaN (quiet or signaling), unsupported encoding.
static f80 special_value(void) {
  int sign = rng_next() & 1;
  uint64_t sig = rng_next() | 1ull << 63;
  switch (rng_below(5)) {
    case 0: return make(sign, 0, 0);
    case 1: return make(sign, 0x7fff, 1ull << 63);
    case 2: return make(sign, 0x7fff, 3ull << 62 | sig >> 3);
    case 3: return make(sign, 0x7fff, 1ull << 63 | (sig >> 3 | 1));
    default: return make(sign, 1 + rng_below(0x7ffe), sig & ~(1ull << 63));
  }
}

static f80 finite_value(void) {
  return make(rng_next() & 1, 16383 + rng_below(40) - 20, rng_next() | 1ull << 63);
}

// Operands (a = ST0, b = ST1) whose results are exact or decided by a
// rule: special values; sin/cos/tan beyond 2^63; f2xm1 of +-1 and beyond;
// fyl2x of powers of two >= 1 (below 1 the CPU's log2 is a hair off) and
// of negative numbers; fyl2xp1 below -1; pairs of a special and a finite
// value.
static void special_pair(const char *name, f80 *a, f80 *b) {
  int sign = rng_next() & 1;
  uint64_t sig = rng_next() | 1ull << 63;
  *a = special_value();
  *b = rng_below(2) ? special_value() : finite_value();
  switch (rng_below(3)) {
    case 0: return;
    case 1: *a = finite_value(); *b = special_value(); break;
    default: break;
  }
  if (!strcmp(name, "fsin") || !strcmp(name, "fcos") || !strcmp(name, "fsincos") || !strcmp(name, "fptan"))
    *a = make(sign, 16383 + 63 + rng_below(200), sig);
  else if (!strcmp(name, "f2xm1"))
    *a = rng_below(2) ? make(sign, 16383, 1ull << 63) : make(sign, 16383 + rng_below(30), sig);
  else if (!strcmp(name, "fyl2x"))
    *a = rng_below(2) ? make(0, 16383 + rng_below(30), 1ull << 63) : make(1, 16383 + rng_below(9), sig);
  else if (!strcmp(name, "fyl2xp1"))
    *a = make(1, 16383 + rng_below(9), sig);
}

int main(void) {
  rng_seed(1234);
  for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
    uint64_t digest = FNV_INIT, model_digest = FNV_INIT;
    for (int i = 0; i < 500; i++) {
      unsigned short cw = (unsigned short)(0x7f | rng_below(4) << 8 | rng_below(4) << 10);
      f80 a, b;
      if (forms[f].special_only) {
        special_pair(forms[f].name, &a, &b);
      } else {
        a = random_value();
        b = random_value();
        if (f == 1 && rng_below(2)) b = make(rng_next() & 1, 16383 + rng_below(15), rng_next() | 1ull << 63);
      }
      result r;
      memset(&r, 0, sizeof r);
      forms[f].fn(&a, &b, cw, &r);
      int model = beyond_domain(forms[f].name, &a);
      unsigned short undef = r.sw & forms[f].undef;
      model_digest = fnv1a(model_digest, &undef, sizeof undef);
      r.sw = (unsigned short)(r.sw & ~forms[f].undef);
      if (model) model_digest = fnv1a(model_digest, &r, sizeof r);
      else digest = fnv1a(digest, &r, sizeof r);
      if (i < 2) {
        printf("%s%-8s ", model_if(model), forms[f].name);
        for (int k = 9; k >= 0; k--) printf("%02x", r.r0.b[k]);
        printf(" ");
        for (int k = 9; k >= 0; k--) printf("%02x", r.r1.b[k]);
        printf(" sw %04x\n", r.sw);
      }
    }
    printf("%-8s digest %016llx\n", forms[f].name, (unsigned long long)digest);
    if (forms[f].undef || !strcmp(forms[f].name, "f2xm1"))
      model_printf("%-8s digest %016llx\n", forms[f].name, (unsigned long long)model_digest);
  }
  return 0;
}
