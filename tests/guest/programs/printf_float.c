// printf's floating-point conversions %f %e %g %a (and upper-case forms)
// with widths, precisions and flags, on ordinary values, powers of ten,
// halfway cases, the extremes of double, denormals, infinities, NaNs made
// at run time (x86's default NaN is negative: "-nan") and negative zero.
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const formats[] = {"%f", "%.0f", "%.1f", "%.3f", "%12.4f", "%-12.2f|", "%+f",
                                      "% .2f", "%012.3f", "%#.0f", "%e", "%.0e", "%.3E", "%+.10e",
                                      "%g", "%.3g", "%#g", "%.10g", "%G", "%.17g", "%a", "%.3a",
                                      "%A", "%.0a"};
#define NFORMATS (sizeof formats / sizeof formats[0])

static void show(const char *label, double v) {
  char buf[512];
  printf("%s:", label);
  for (size_t i = 0; i < NFORMATS; i++) {
    // %f of 1e300 is 300 digits long; keep lines readable but complete.
    snprintf(buf, sizeof buf, formats[i], v);
    printf(" %s", buf);
  }
  printf("\n");
}

int main(void) {
  static const double values[] = {
      0.0, 1.0, -1.0, 0.5, 0.1, 0.2, 0.3, 1.0 / 3.0, 2.0 / 3.0, 3.14159265358979323846,
      2.718281828459045, 123456.789, -98765.4321, 1e10, 1e-10, 1e22, 1e23, 1e-5, 9.5, 10.5,
      0.125, 0.375, 2.5, 3.5, -2.5, 0.05, 0.15, 0.25, 0.35, 999999.5, 1e15 + 0.3, 4294967296.0,
      9007199254740993.0, 1.7976931348623157e308, 2.2250738585072014e-308, 4.9406564584124654e-324,
      1.5e-320, -3e-310, 1e300, 1e-300, 6.02214076e23, 1.602176634e-19, 100.0, 1e6, 1e7, 0.0001,
      0.00001, 123e-7};
  char label[32];
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    snprintf(label, sizeof label, "v%zu", i);
    show(label, values[i]);
  }
  volatile double zero = 0.0, one = 1.0;
  double inf = one / zero, nan_rt = zero / zero, nan_sub = inf - inf;
  show("+inf", inf);
  show("-inf", -inf);
  show("0/0", nan_rt);
  show("inf-inf", nan_sub);
  show("-(0/0)", -nan_rt);
  show("NAN", NAN);
  show("-NAN", -NAN);
  show("sqrt(-1)", sqrt(-one));
  show("-0.0", -zero);
  show("0*-1", zero * -one);
  show("DBL_MIN/2", DBL_MIN / 2);
  show("DBL_EPSILON", DBL_EPSILON);
  show("FLT_MAX", (double)FLT_MAX);
  show("FLT_MIN", (double)FLT_MIN);
  show("float 0.1f", (double)0.1f);
  float f = 16777217.0f;
  show("float 2^24+1", (double)f);
  // Widths larger than the output, and precisions beyond 17 digits.
  printf("[%30.20f] [%-30.25e] [%.40f]\n", 0.1, 0.1, 1.0 / 3.0);
  printf("[%.60f]\n", 5e-324);
  printf("[%5.1f] [%5.1f] [%.0f] [%.0f] [%.0f]\n", 0.05, 0.15, 0.5, 1.5, 2.5);
  unsigned long long bits;
  double d = nan_rt;
  memcpy(&bits, &d, sizeof bits);
  printf("0/0 bits %016llx\n", bits);
  return 0;
}
