// The x87 register stack and state by inline asm: stack overflow and
// underflow (IE+SF, C1, the indefinite), fxch/fld/fst/arithmetic on empty
// registers, ffree/ffreep, fincstp/fdecstp, fninit, fnclex, and the
// 28-byte fnstenv/fldenv and 108-byte fnsave/frstor images (tag word
// computed from contents; the instruction/data pointer fields, which hold
// addresses, are blanked).  fnstenv masks all exceptions, fnsave
// reinitializes: both show in FCW afterwards.
#include <stdio.h>
#include <string.h>

#define CLOBBERS "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)", "memory"

static unsigned char scratch[16];
static const long double values[8] = {1.0L, -2.5L, 0.0L, 1e-4940L, 3.0L, -0.0L, 1e4000L, 7.0L};

// Prints an fnsave image: environment (pointers blanked) and registers.
static void show_save(const char *label, unsigned char *img) {
  memset(img + 12, 0, 12);
  printf("%-18s env", label);
  for (int i = 0; i < 28; i += 4) printf(" %02x%02x%02x%02x", img[i + 3], img[i + 2], img[i + 1], img[i]);
  printf("\n%-18s regs", "");
  for (int r = 0; r < 8; r++) {
    printf(" ");
    for (int i = 9; i >= 0; i--) printf("%02x", img[28 + 10 * r + i]);
  }
  printf("\n");
}

// Runs `body` after fninit (exceptions masked), then fnsave's the state
// and fnstcw's the control word that fnsave left.
#define CASE(label, body)                                                                       \
  {                                                                                             \
    unsigned char img[108];                                                                     \
    unsigned short cw;                                                                          \
    memset(img, 0xee, sizeof img);                                                              \
    __asm__ volatile("fninit\n" body "\n fnsave %[img]\n fnstcw %[cw]\n fninit"                 \
                     : [img] "=m"(img), [cw] "=m"(cw)                                           \
                     : [v] "r"(values), [s] "m"(scratch)                                        \
                     : CLOBBERS);                                                               \
    show_save(label, img);                                                                      \
    printf("%-18s cw after %04x\n", "", cw);                                                    \
  }

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
  printf("fnstenv: cw after %04x, after fldenv cw %04x sw %04x, images %s\n", cw_after, cw_loaded, sw_loaded,
         memcmp(env, env2, 28) ? "differ" : "equal");
  for (int i = 0; i < 28; i++) printf("%02x", env[i]);
  printf("\n");
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
  show_save("frstor+fxch", img2);
}

int main(void) {
  CASE("push 8", PUSH8)
  CASE("push 9 (overflow)", PUSH8 "fld1")
  CASE("push 10", PUSH8 "fldpi\n fldz")
  CASE("fstp empty", "fld1\n fstp %%st(0)\n fstp %%st(0)")
  CASE("fst m empty", "fstps %[s]\n flds %[s]")
  CASE("fadd empty", "fld1\n fadd %%st(3), %%st")
  CASE("faddp empty", "faddp")
  CASE("fxch empty", "fld1\n fxch %%st(2)")
  CASE("fld empty st3", "fldpi\n fld %%st(3)")
  CASE("ffree", PUSH8 "ffree %%st(2)\n ffree %%st(0)")
  CASE("ffreep", PUSH8 "ffreep %%st(1)")
  CASE("fincstp", "fld1\n fldz\n fincstp\n fincstp\n fincstp")
  CASE("fdecstp", "fld1\n fdecstp\n fdecstp")
  CASE("fdecstp + fld", "fld1\n fdecstp\n fldpi")
  CASE("fnclex", "fldz\n fdivr %%st(0), %%st\n fld1\n fld1\n fdiv %%st(3), %%st\n fnclex")
  CASE("fxtract overflow", PUSH8 "fincstp\n fld1\n fxtract")
  CASE("fptan empty", "fptan")
  CASE("fsincos overflow", PUSH8 "fsincos")
  CASE("fcom empty", "fld1\n fcom %%st(5)")
  CASE("fucompp empty", "fld1\n fucompp")
  CASE("fist empty", "fistpl %[s]\n fildl %[s]")
  CASE("fbstp empty", "fbstp %[s]\n fbld %[s]")
  CASE("fsqrt empty", "fsqrt")
  CASE("fscale empty", "fld1\n fscale")
  CASE("fpatan empty", "fld1\n fpatan")
  CASE("fchs/fabs empty", "fchs\n fabs")
  CASE("fxam empty", "fld1\n fstp %%st(0)\n fxam")
  CASE("c1 after rounding", "fld1\n fldpi\n fdiv %%st(1), %%st\n fldl2e\n fmul %%st(0), %%st")
  CASE("c1 after fld", "fld1\n fldpi\n fdiv %%st(1), %%st\n fld1")
  CASE("fstp st(3)", PUSH8 "fstp %%st(3)")
  CASE("fst st(5)", "fldpi\n fld1\n fst %%st(5)")
  environment_round_trip();
  handmade_environment();
  save_restore();
  return 0;
}
