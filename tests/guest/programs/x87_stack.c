// The x87 register stack and state by inline asm: stack overflow and
// underflow (IE+SF, C1, the indefinite), fxch/fld/fst/arithmetic on empty
// registers, ffree/ffreep, fincstp/fdecstp, fninit, fnclex, and the
// 28-byte fnstenv/fldenv and 108-byte fnsave/frstor images (tag word
// computed from contents; the instruction/data pointer fields, which hold
// addresses, are blanked).  fnstenv masks all exceptions, fnsave
// reinitializes: both show in FCW afterwards.  On model lines
// (guest_common.h): the condition codes the last instruction leaves
// undefined, the image's reserved upper halves and FDS (Intel stores 0,
// AMD the data segment of the last memory operand).
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

#define CLOBBERS "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)", "memory"

static unsigned char scratch[16];
static const long double values[8] = {1.0L, -2.5L, 0.0L, 1e-4940L, 3.0L, -0.0L, 1e4000L, 7.0L};

static unsigned get16(const unsigned char *p) { return (unsigned)(p[0] | p[1] << 8); }

// Prints the 28-byte environment at img.  `cc` are the condition codes
// (C3 C2 C1 C0 = 0x4700) the manuals define at that point.
static void show_env(const char *label, const unsigned char *img, unsigned cc) {
  unsigned sw = get16(img + 4);
  printf("%-18s env cw %04x sw %04x tw %04x\n", label, get16(img), sw & ~(0x4700u & ~cc), get16(img + 8));
  model_printf("%-18s cc %04x reserved %04x %04x %04x fds %04x%04x\n", label, sw & 0x4700 & ~cc, get16(img + 2),
               get16(img + 6), get16(img + 10), get16(img + 26), get16(img + 24));
}

// Prints an fnsave image: environment and registers.
static void show_save(const char *label, const unsigned char *img, unsigned cc) {
  show_env(label, img, cc);
  printf("%-18s regs", "");
  for (int r = 0; r < 8; r++) {
    printf(" ");
    for (int i = 9; i >= 0; i--) printf("%02x", img[28 + 10 * r + i]);
  }
  printf("\n");
}

// Runs `body` after fninit (exceptions masked), then fnsave's the state
// and fnstcw's the control word that fnsave left.  `cc`: see show_save.
#define CASE(label, cc, body)                                                                   \
  {                                                                                             \
    unsigned char img[108];                                                                     \
    unsigned short cw;                                                                          \
    memset(img, 0xee, sizeof img);                                                              \
    __asm__ volatile("fninit\n" body "\n fnsave %[img]\n fnstcw %[cw]\n fninit"                 \
                     : [img] "=m"(img), [cw] "=m"(cw)                                           \
                     : [v] "r"(values), [s] "m"(scratch)                                        \
                     : CLOBBERS);                                                               \
    show_save(label, img, cc);                                                                  \
    printf("%-18s cw after %04x\n", "", cw);                                                    \
  }

// What each case's last instruction defines of C3 C2 C1 C0: fcom, fucompp
// and fxam all four; ffree, ffreep and fnclex none; the rest only C1.
#define C1 0x0200u
#define NONE 0u
#define ALL 0x4700u

#define PUSH8 "fldt 0(%[v])\n fldt 16(%[v])\n fldt 32(%[v])\n fldt 48(%[v])\n fldt 64(%[v])\n fldt 80(%[v])\n fldt 96(%[v])\n fldt 112(%[v])\n"

static void environment_round_trip(void) {
  unsigned char env[28], env2[28];
  unsigned short cw_after, cw_loaded, sw_loaded;
  __asm__ volatile(
      "fninit\n fld1\n fldz\n fdivr %%st(1), %%st\n fnstenv %[env]\n fnstcw %[cwa]\n"
      " fninit\n fldenv %[env]\n fnstcw %[cwl]\n fnstsw %[swl]\n fnstenv %[env2]\n fninit"
      : [env] "=m"(env), [env2] "=m"(env2), [cwa] "=m"(cw_after), [cwl] "=m"(cw_loaded), [swl] "=m"(sw_loaded)
      :
      : CLOBBERS);
  memset(env + 12, 0, 12);
  memset(env2 + 12, 0, 12);
  // fdivr leaves C3 C2 C0 undefined.
  printf("fnstenv: cw after %04x, after fldenv cw %04x sw %04x, images %s\n", cw_after, cw_loaded,
         sw_loaded & ~0x4500u, memcmp(env, env2, 28) ? "differ" : "equal");
  show_env("fnstenv image", env, C1);
}

// fldenv with a hand-made image: control word, TOP and tags come from it.
static void handmade_environment(void) {
  unsigned int env[7] = {0xffff0f7f, 0xffff3a21, 0xffff0fff, 0, 0, 0, 0xffff0000};
  unsigned short cw, sw;
  long double st0, st1;
  __asm__ volatile("fninit\n fldenv %[env]\n fnstcw %[cw]\n fnstsw %[sw]\n fld1\n fldz\n fstpt %[a]\n fstpt %[b]\n fninit"
                   : [cw] "=m"(cw), [sw] "=m"(sw), [a] "=m"(st0), [b] "=m"(st1)
                   : [env] "m"(env)
                   : CLOBBERS);
  printf("handmade fldenv: cw %04x sw %04x st0 %Lg st1 %Lg\n", cw, sw, st0, st1);
}

static void save_restore(void) {
  unsigned char img[108], img2[108];
  __asm__ volatile("fninit\n" PUSH8 "fnsave %[img]\n fld1\n frstor %[img]\n fxch %%st(3)\n fnsave %[img2]\n fninit"
                   : [img] "=m"(img), [img2] "=m"(img2)
                   : [v] "r"(values)
                   : CLOBBERS);
  show_save("frstor+fxch", img2, C1);
}

int main(void) {
  CASE("push 8", C1, PUSH8)
  CASE("push 9 (overflow)", C1, PUSH8 "fld1")
  CASE("push 10", C1, PUSH8 "fldpi\n fldz")
  CASE("fstp empty", C1, "fld1\n fstp %%st(0)\n fstp %%st(0)")
  CASE("fst m empty", C1, "fstps %[s]\n flds %[s]")
  CASE("fadd empty", C1, "fld1\n fadd %%st(3), %%st")
  CASE("faddp empty", C1, "faddp")
  CASE("fxch empty", C1, "fld1\n fxch %%st(2)")
  CASE("fld empty st3", C1, "fldpi\n fld %%st(3)")
  CASE("ffree", NONE, PUSH8 "ffree %%st(2)\n ffree %%st(0)")
  CASE("ffreep", NONE, PUSH8 "ffreep %%st(1)")
  CASE("fincstp", C1, "fld1\n fldz\n fincstp\n fincstp\n fincstp")
  CASE("fdecstp", C1, "fld1\n fdecstp\n fdecstp")
  CASE("fdecstp + fld", C1, "fld1\n fdecstp\n fldpi")
  CASE("fnclex", NONE, "fldz\n fdivr %%st(0), %%st\n fld1\n fld1\n fdiv %%st(3), %%st\n fnclex")
  CASE("fxtract overflow", C1, PUSH8 "fincstp\n fld1\n fxtract")
  CASE("fptan empty", C1, "fptan")
  CASE("fsincos overflow", C1, PUSH8 "fsincos")
  CASE("fcom empty", ALL, "fld1\n fcom %%st(5)")
  CASE("fucompp empty", ALL, "fld1\n fucompp")
  CASE("fist empty", C1, "fistpl %[s]\n fildl %[s]")
  CASE("fbstp empty", C1, "fbstp %[s]\n fbld %[s]")
  CASE("fsqrt empty", C1, "fsqrt")
  CASE("fscale empty", C1, "fld1\n fscale")
  CASE("fpatan empty", C1, "fld1\n fpatan")
  CASE("fchs/fabs empty", C1, "fchs\n fabs")
  CASE("fxam empty", ALL, "fld1\n fstp %%st(0)\n fxam")
  CASE("c1 after rounding", C1, "fld1\n fldpi\n fdiv %%st(1), %%st\n fldl2e\n fmul %%st(0), %%st")
  CASE("c1 after fld", C1, "fld1\n fldpi\n fdiv %%st(1), %%st\n fld1")
  CASE("fstp st(3)", C1, PUSH8 "fstp %%st(3)")
  CASE("fst st(5)", C1, "fldpi\n fld1\n fst %%st(5)")
  environment_round_trip();
  handmade_environment();
  save_restore();
  return 0;
}
