// <fenv.h> and <fpu_control.h> with long double: the rounding mode
// (fesetround) and the x87 precision control (_FPU_SETCW) applied to
// long double arithmetic and conversions; exception flags raised by x87
// operations (fetestexcept), feclearexcept, feraiseexcept (glibc raises
// them with x87 instructions), fegetexceptflag/fesetexceptflag,
// fegetenv/fesetenv, feholdexcept/feupdateenv (fnstenv/fldenv inside).
#include <fenv.h>
#include <fpu_control.h>
#include <stdio.h>

// The x87's denormal-operand flag (glibc's __FE_DENORM; fetestexcept
// does not report it, FSW does).
#define FE_DENORM 0x02

static volatile long double one = 1.0L, three = 3.0L, zero = 0.0L, huge = 1e4930L, tiny = 1e-4930L;

static void show_flags(const char *label) {
  unsigned short sw;
  __asm__ volatile("fnstsw %0" : "=m"(sw));
  int f = fetestexcept(FE_ALL_EXCEPT) | (sw & FE_DENORM);
  printf("%-22s %s%s%s%s%s%s\n", label, f & FE_INVALID ? "I" : "-", f & FE_DENORM ? "D" : "-",
         f & FE_DIVBYZERO ? "Z" : "-", f & FE_OVERFLOW ? "O" : "-", f & FE_UNDERFLOW ? "U" : "-",
         f & FE_INEXACT ? "P" : "-");
}

static void arithmetic(const char *label) {
  volatile long double third = one / three, big = huge * 10, small = tiny / 1e30L;
  volatile long double x = 2.5L, y = -2.5L, z = 1e19L / 3;
  printf("%-10s 1/3 %La big %La small %La rint %La %La i64 %lld\n", label, third, big, small, __builtin_rintl(x),
         __builtin_rintl(y), (long long)__builtin_llrintl(z));
}

int main(void) {
  static const int modes[] = {FE_TONEAREST, FE_DOWNWARD, FE_UPWARD, FE_TOWARDZERO};
  static const char *names[] = {"nearest", "down", "up", "zero"};
  for (int i = 0; i < 4; i++) {
    fesetround(modes[i]);
    arithmetic(names[i]);
    printf("%-10s getround ok %d\n", "", fegetround() == modes[i]);
  }
  fesetround(FE_TONEAREST);

  // Precision control: the same operations with 24- and 53-bit results.
  fpu_control_t saved, cw;
  _FPU_GETCW(saved);
  static const fpu_control_t pcs[] = {_FPU_SINGLE, _FPU_DOUBLE, _FPU_EXTENDED};
  for (int i = 0; i < 3; i++) {
    cw = (saved & ~_FPU_EXTENDED) | pcs[i];
    _FPU_SETCW(cw);
    volatile long double q = one / three, s = q * q + one, r = __builtin_sqrtl(three);
    printf("pc %d: %La %La %La\n", i, q, s, r);
  }
  _FPU_SETCW(saved);

  feclearexcept(FE_ALL_EXCEPT | FE_DENORM);
  show_flags("cleared");
  volatile long double r = one / three;
  show_flags("1/3");
  feclearexcept(FE_ALL_EXCEPT);
  r = one / zero;
  show_flags("1/0");
  feclearexcept(FE_ALL_EXCEPT);
  r = zero / zero;
  show_flags("0/0");
  feclearexcept(FE_ALL_EXCEPT);
  r = huge * huge;
  show_flags("overflow");
  feclearexcept(FE_ALL_EXCEPT);
  r = tiny * tiny;
  show_flags("underflow");
  feclearexcept(FE_ALL_EXCEPT | FE_DENORM);
  r = tiny / 1e20L;
  feclearexcept(FE_ALL_EXCEPT | FE_DENORM);
  r = r + one;
  show_flags("denormal operand");
  (void)r;
  feclearexcept(FE_ALL_EXCEPT);
  feraiseexcept(FE_OVERFLOW | FE_INEXACT);
  show_flags("feraiseexcept O|P");
  fexcept_t saved_flags;
  fegetexceptflag(&saved_flags, FE_ALL_EXCEPT);
  feclearexcept(FE_ALL_EXCEPT);
  fesetexceptflag(&saved_flags, FE_OVERFLOW);
  show_flags("fesetexceptflag O");

  fenv_t env, held;
  fesetround(FE_UPWARD);
  fegetenv(&env);
  fesetround(FE_DOWNWARD);
  fesetenv(&env);
  printf("fesetenv restores round: %d\n", fegetround() == FE_UPWARD);
  feholdexcept(&held);
  r = one / zero;
  show_flags("held 1/0");
  feupdateenv(&held);
  show_flags("after feupdateenv");
  fesetenv(FE_DFL_ENV);
  show_flags("FE_DFL_ENV");
  printf("round nearest again: %d\n", fegetround() == FE_TONEAREST);
  return 0;
}
