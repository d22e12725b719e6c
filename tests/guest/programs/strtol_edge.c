// strtol/strtoul/strtoll/strtoull/atoi/atol on edge inputs: every base
// from 0 to 36, prefixes (0x, 0), signs on unsigned conversions (which
// negate), overflow clamping with ERANGE, invalid bases (EINVAL), and the
// end pointer of partial and empty parses.
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const inputs[] = {
    "0", "-0", "42", "-42", "+42", "  \t 123", "0x1f", "0X1F", "0x", "0xg", "017", "08", "0b101",
    "1e5", "zz", "ZZ", "-zz", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "-9223372036854775809", "18446744073709551615", "18446744073709551616", "-1", "-18446744073709551615",
    "-18446744073709551616", "2147483647", "2147483648", "-2147483649", "4294967296",
    "99999999999999999999999999", "", " ", "-", "+-1", "12abc", "0x7fffffffffffffff",
    "0xffffffffffffffff", "0x10000000000000000", "-0x8000000000000000", "1_000", "   -0x10  "};
static const int bases[] = {0, 2, 8, 10, 16, 36};

static const char *err_name(int e) { return e == ERANGE ? "ERANGE" : e == EINVAL ? "EINVAL" : e ? "err" : "ok"; }

int main(void) {
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    const char *s = inputs[i];
    printf("[%s]\n", s);
    for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
      char *e1, *e2, *e3, *e4;
      errno = 0;
      long l = strtol(s, &e1, bases[b]);
      int er1 = errno;
      errno = 0;
      unsigned long ul = strtoul(s, &e2, bases[b]);
      int er2 = errno;
      errno = 0;
      long long ll = strtoll(s, &e3, bases[b]);
      int er3 = errno;
      errno = 0;
      unsigned long long ull = strtoull(s, &e4, bases[b]);
      int er4 = errno;
      printf("  b%-2d l %ld/+%ld/%s ul %lu/+%ld/%s ll %lld/%s ull %llu/+%ld/%s\n", bases[b], l,
             (long)(e1 - s), err_name(er1), ul, (long)(e2 - s), err_name(er2), ll, err_name(er3), ull,
             (long)(e4 - s), err_name(er4));
    }
    printf("  atoi %d atol %ld atoll %lld\n", atoi(s), atol(s), atoll(s));
  }
  // Every base on one string, and invalid bases.
  for (int base = 2; base <= 36; base++) {
    char *end;
    errno = 0;
    const char *digits = "1zZ9aB_";
    unsigned long long v = strtoull(digits, &end, base);
    printf("base %2d -> %llu used %ld\n", base, v, (long)(end - digits));
  }
  static const int bad_bases[] = {1, 37, -1, 100};
  for (size_t i = 0; i < sizeof bad_bases / sizeof bad_bases[0]; i++) {
    char *end = NULL;
    const char *s = "123";
    errno = 0;
    long v = strtol(s, &end, bad_bases[i]);
    int e = errno;
    // glibc leaves the end pointer alone on EINVAL; print only whether it moved.
    printf("bad base %d -> %ld %s end %s\n", bad_bases[i], v, err_name(e), end == NULL ? "untouched" : "set");
  }
  printf("intmax %jd %ju\n", strtoimax("-123456789012", NULL, 10), strtoumax("777", NULL, 8));
  return 0;
}
