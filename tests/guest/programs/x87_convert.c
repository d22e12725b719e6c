// x87 loads and stores by inline asm, bit for bit with FSW: fld m32/m64/
// m80 (signaling NaNs, denormals), fild m16/m32/m64, fbld, fst/fstp to
// float32/float64/m80 (rounding, overflow, underflow to denormals),
// fist/fistp m16/m32/m64 and fisttp (rounding modes, the integer
// indefinite), fbstp, and the constants fld1 ... fldln2 in every rounding
// mode.  C3/C2/C0 are set beforehand: the SDM and the APM leave them
// undefined after these instructions, both CPUs keep them and so does
// phybin, so they go on model lines (guest_common.h).  Digests per form, a
// few values in full.
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

typedef struct {
  unsigned char b[10];
} f80;

typedef struct {
  unsigned char out[16];
  f80 st0;
  unsigned short sw;
} result;

#define CLOBBERS "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)", "memory"

// Loads: `insn` pushes from m; ST0 and FSW are kept.
#define LOAD(fn, insn)                                                                            \
  static void fn(const unsigned char *m, unsigned short cw, result *r) {                          \
    __asm__ volatile("fninit\n fldz\n fdiv %%st(0), %%st\n fucomp %%st(0)\n fnclex\n fldcw %[cw]\n " \
                     insn " %[m]\n fnstsw %[sw]\n fstpt %[st0]\n fninit"                               \
                     : [st0] "=m"(r->st0), [sw] "=m"(r->sw)                                       \
                     : [cw] "m"(cw), [m] "m"(*(const f80 *)m)                                     \
                     : CLOBBERS);                                                                 \
  }
LOAD(ld_m32, "flds")
LOAD(ld_m64, "fldl")
LOAD(ld_m80, "fldt")
LOAD(ld_i16, "filds")
LOAD(ld_i32, "fildl")
LOAD(ld_i64, "fildll")
LOAD(ld_bcd, "fbld")

// Stores: ST0 = a is stored by `insn` to r->out; what is left in ST0
// (after the non-popping forms) is kept too.
#define STORE(fn, insn)                                                                           \
  static void fn(const unsigned char *a, unsigned short cw, result *r) {                          \
    __asm__ volatile("fninit\n fldz\n fdiv %%st(0), %%st\n fucomp %%st(0)\n fnclex\n fldcw %[cw]\n" \
                     " fldz\n fldt %[a]\n " insn " %[out]\n fnstsw %[sw]\n"                            \
                     " fstpt %[st0]\n fninit"                                                     \
                     : [out] "+m"(r->out), [st0] "=m"(r->st0), [sw] "=m"(r->sw)                   \
                     : [cw] "m"(cw), [a] "m"(*(const f80 *)a)                                     \
                     : CLOBBERS);                                                                 \
  }
STORE(st_m32, "fsts")
STORE(st_m64, "fstl")
STORE(stp_m32, "fstps")
STORE(stp_m64, "fstpl")
STORE(stp_m80, "fstpt")
STORE(ist_i16, "fists")
STORE(ist_i32, "fistl")
STORE(istp_i16, "fistps")
STORE(istp_i32, "fistpl")
STORE(istp_i64, "fistpll")
STORE(istt_i16, "fisttps")
STORE(istt_i32, "fisttpl")
STORE(istt_i64, "fisttpll")
STORE(bstp, "fbstp")

typedef void (*form_fn)(const unsigned char *, unsigned short, result *);
struct form {
  const char *name;
  form_fn fn;
  int kind;  // operand generator: 0 f32, 1 f64, 2 m80, 3 int, 4 bcd, 5 value to store
};
static const struct form forms[] = {
    {"flds", ld_m32, 0},      {"fldl", ld_m64, 1},       {"fldt", ld_m80, 2},         {"filds", ld_i16, 3},
    {"fildl", ld_i32, 3},     {"fildll", ld_i64, 3},     {"fbld", ld_bcd, 4},         {"fsts", st_m32, 5},
    {"fstl", st_m64, 5},      {"fstps", stp_m32, 5},     {"fstpl", stp_m64, 5},       {"fstpt", stp_m80, 5},
    {"fists", ist_i16, 5},    {"fistl", ist_i32, 5},     {"fistps", istp_i16, 5},     {"fistpl", istp_i32, 5},
    {"fistpll", istp_i64, 5}, {"fisttps", istt_i16, 5},  {"fisttpl", istt_i32, 5},    {"fisttpll", istt_i64, 5},
    {"fbstp", bstp, 5},
};

static void put_f80(unsigned char *p, int sign, unsigned exp, uint64_t sig) {
  memcpy(p, &sig, 8);
  unsigned short se = (unsigned short)((sign ? 0x8000 : 0) | exp);
  memcpy(p + 8, &se, 2);
}

// A value to store: near the float32/float64/integer ranges, or any class.
static void store_operand(unsigned char *p) {
  static const int edges[] = {-149, -126, 127, -1074, -1022, 1023, 0, 15, 31, 63, 59, -1};
  int sign = rng_next() & 1;
  uint64_t sig = rng_next() | 1ull << 63;
  if (rng_below(3) == 0) sig &= ~0ull << rng_below(64);
  switch (rng_below(10)) {
    case 0: put_f80(p, sign, 0x7fff, rng_below(2) ? 1ull << 63 : sig); return;
    case 1: put_f80(p, sign, 0, rng_below(2) ? 0 : sig >> rng_below(64)); return;
    case 2: put_f80(p, sign, 1 + rng_below(0x7ffe), sig & ~(1ull << 63)); return;
    default: break;
  }
  int e = edges[rng_below(12)] + (int)rng_below(9) - 4;
  put_f80(p, sign, (unsigned)(16383 + e), sig);
}

static void make_operand(int kind, unsigned char *p) {
  uint64_t v = rng_next();
  memset(p, 0, 16);
  switch (kind) {
    case 0:
      if (rng_below(3) == 0) v &= 0x807fffffull;
      if (rng_below(4) == 0) v |= 0x7f800000ull;
      memcpy(p, &v, 4);
      break;
    case 1:
      if (rng_below(3) == 0) v &= 0x800fffffffffffffull;
      if (rng_below(4) == 0) v |= 0x7ff0000000000000ull;
      memcpy(p, &v, 8);
      break;
    case 2: store_operand(p); break;
    case 3:
      if (rng_below(2)) v = (uint64_t)((int64_t)v >> rng_below(64));
      memcpy(p, &v, 8);
      break;
    case 4:
      for (int i = 0; i < 9; i++) p[i] = (unsigned char)(rng_below(10) << 4 | rng_below(10));
      p[9] = rng_below(2) ? 0x80 : 0;
      break;
    default: store_operand(p); break;
  }
}

static void print_bytes(const unsigned char *p, int n) {
  for (int i = n - 1; i >= 0; i--) printf("%02x", p[i]);
}

// The seven constants under each rounding mode.
static void constants(void) {
  for (unsigned rc = 0; rc < 4; rc++) {
    unsigned short cw = (unsigned short)(0x37f | rc << 10), sw;
    f80 k[7];
    __asm__ volatile("fninit\n fldcw %[cw]\n fld1\n fldz\n fldpi\n fldl2e\n fldl2t\n fldlg2\n fldln2\n fnstsw %[sw]\n"
                     " fstpt %[k6]\n fstpt %[k5]\n fstpt %[k4]\n fstpt %[k3]\n fstpt %[k2]\n fstpt %[k1]\n"
                     " fstpt %[k0]\n fninit"
                     : [k0] "=m"(k[0]), [k1] "=m"(k[1]), [k2] "=m"(k[2]), [k3] "=m"(k[3]), [k4] "=m"(k[4]),
                       [k5] "=m"(k[5]), [k6] "=m"(k[6]), [sw] "=m"(sw)
                     : [cw] "m"(cw)
                     : CLOBBERS);
    printf("constants rc=%u sw=%04x:", rc, sw & ~0x4500u);
    model_printf("constants rc=%u c3c2c0 %04x\n", rc, sw & 0x4500u);
    for (int i = 0; i < 7; i++) {
      printf(" ");
      print_bytes(k[i].b, 10);
    }
    printf("\n");
  }
}

int main(void) {
  rng_seed(2024);
  constants();
  for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
    uint64_t digest = FNV_INIT, model_digest = FNV_INIT;
    for (int i = 0; i < 600; i++) {
      unsigned short cw = (unsigned short)(0x7f | rng_below(4) << 8 | rng_below(4) << 10);
      unsigned char m[16];
      make_operand(forms[f].kind, m);
      result r;
      memset(&r, 0, sizeof r);
      forms[f].fn(m, cw, &r);
      unsigned short cc = r.sw & 0x4500;
      r.sw &= (unsigned short)~0x4500;
      digest = fnv1a(digest, &r, sizeof r);
      model_digest = fnv1a(model_digest, &cc, sizeof cc);
      if (i < 2) {
        printf("%-9s cw=%04x in ", forms[f].name, cw);
        print_bytes(m, 10);
        printf(" -> out ");
        print_bytes(r.out, 10);
        printf(" st0 ");
        print_bytes(r.st0.b, 10);
        printf(" sw %04x\n", r.sw);
      }
    }
    printf("%-9s digest %016llx\n", forms[f].name, (unsigned long long)digest);
    model_printf("%-9s c3c2c0 digest %016llx\n", forms[f].name, (unsigned long long)model_digest);
  }
  return 0;
}
