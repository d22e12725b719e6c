// strtod/strtof/strtold/atof on edge inputs: leading space and signs, hex
// floats, inf/nan spellings, nan(payload), the halfway and denormal
// boundaries, overflow and underflow (ERANGE), exponent edge cases, and
// where parsing stops (the end pointer).
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const inputs[] = {
    "0", "-0", "+0.0", "1", "  \t\n 42", "-17.25", "3.14159265358979323846264338327950288",
    "1e10", "1E-10", "1e", "1e+", "1e+x", ".5", "5.", ".", "-.", "+", "", "   ", "abc",
    "0x1p0", "0x1.8p1", "0X.8P-1", "-0x1.fffffffffffffp1023", "0x1p-1074", "0x1p-1075", "0x",
    "0xg", "inf", "-INF", "Infinity", "infinit", "nan", "-NaN", "nan(123)", "nan(0x8000)",
    "nan(", "1e308", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
    "1e309", "-1e309", "2.2250738585072014e-308", "2.2250738585072011e-308", "4.9406564584124654e-324",
    "2.4703282292062327e-324", "2.4703282292062328e-324", "1e-324", "1e-400",
    "9007199254740993", "9007199254740992.5", "9007199254740993.0000000001", "0.1",
    "123456789012345678901234567890", "1e0000000000000000000000000001", "1e-99999999999999",
    "00000000000000000000001.5", "0.000000000000000000000000000000000000000001e42", "12abc",
    "1,5", "1.5.5", "--1", "1_000"};

int main(void) {
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    const char *s = inputs[i];
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    int e = errno;
    errno = 0;
    char *endf;
    float f = strtof(s, &endf);
    int ef = errno;
    errno = 0;
    char *endl;
    long double ld = strtold(s, &endl);
    int el = errno;
    unsigned long long bits;
    memcpy(&bits, &d, sizeof bits);
    printf("[%s]\n  d %.17g %a %016llx end+%ld %s\n", s, d, d, bits, (long)(end - s),
           e == ERANGE ? "ERANGE" : e ? "err" : "-");
    printf("  f %.9g %a end+%ld %s\n", (double)f, (double)f, (long)(endf - s), ef == ERANGE ? "ERANGE" : ef ? "err" : "-");
    printf("  ld %.21Lg end+%ld %s\n", ld, (long)(endl - s), el == ERANGE ? "ERANGE" : el ? "err" : "-");
  }
  printf("atof %.17g %.17g %.17g\n", atof("2.5e3xyz"), atof("junk"), atof("-0x10"));
  // Round trip: printing with %.17g and reading back gives the same bits.
  unsigned long mismatches = 0;
  unsigned long long x = 0x3ff0000000000000ull;
  for (int i = 0; i < 3000; i++) {
    double v;
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    unsigned long long bits = x & 0x7fefffffffffffffull;
    memcpy(&v, &bits, sizeof v);
    char buf[40];
    snprintf(buf, sizeof buf, "%.17g", v);
    double back = strtod(buf, NULL);
    mismatches += memcmp(&back, &v, sizeof v) != 0;
  }
  printf("round trip mismatches %lu\n", mismatches);
  return 0;
}
