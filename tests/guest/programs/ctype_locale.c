// <ctype.h> in the C locale for every byte value (table lookups through
// __ctype_b_loc, which static glibc initialises per thread), toupper and
// tolower, plus conversions that depend on the locale being "C": strtod's
// decimal point, printf's %'d grouping (none in C), and strcoll==strcmp.
#include <ctype.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  printf("setlocale C: %s\n", setlocale(LC_ALL, "C"));
  for (int c = 0; c < 256; c += 16) {
    printf("%02x:", c);
    for (int k = c; k < c + 16; k++) {
      int mask = (isalpha(k) != 0) | (isdigit(k) != 0) << 1 | (isspace(k) != 0) << 2 | (ispunct(k) != 0) << 3 |
                 (isupper(k) != 0) << 4 | (islower(k) != 0) << 5 | (isxdigit(k) != 0) << 6 | (iscntrl(k) != 0) << 7 |
                 (isprint(k) != 0) << 8 | (isgraph(k) != 0) << 9 | (isblank(k) != 0) << 10 | (isalnum(k) != 0) << 11;
      printf(" %03x", mask);
    }
    printf("\n");
  }
  char up[96], low[96];
  for (int c = 32; c < 127; c++) {
    up[c - 32] = (char)toupper(c);
    low[c - 32] = (char)tolower(c);
  }
  up[95] = low[95] = 0;
  printf("upper: %s\nlower: %s\n", up, low);
  printf("toupper(0xe9) %d tolower(EOF) %d\n", toupper(0xe9), tolower(EOF));
  printf("strtod comma %.17g dot %.17g\n", strtod("1,5", NULL), strtod("1.5", NULL));
  printf("grouping [%'d]\n", 1234567);
  printf("strcoll sign %d strcmp sign %d\n", strcoll("abc", "abd") < 0, strcmp("abc", "abd") < 0);
  char dst[16];
  size_t n = strxfrm(dst, "hello", sizeof dst);
  printf("strxfrm %zu [%s]\n", n, dst);
  struct lconv *lc = localeconv();
  printf("decimal_point [%s] thousands_sep [%s]\n", lc->decimal_point, lc->thousands_sep);
  return 0;
}
