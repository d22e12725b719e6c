// printf's integer conversions: %d %i %u %x %X %o %c with the length
// modifiers hh h l ll j z t, field widths, precisions (also from *),
// and the flags - + space 0 #, on the extreme values of each type.
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

static const char *const int_formats[] = {
    "%d", "%5d", "%-5d|", "%05d", "%+d", "% d", "%.3d", "%8.3d", "%-8.3d|", "%+08d",
    "%.0d", "%x", "%#x", "%#X", "%08x", "%#010x", "%o", "%#o", "%u", "%i", "%#.5o", "%+.0d"};

static void ints(int v) {
  printf("%11d:", v);
  for (size_t i = 0; i < sizeof int_formats / sizeof int_formats[0]; i++) {
    printf(" ");
    printf(int_formats[i], v);
  }
  printf("\n");
}

int main(void) {
  static const int values[] = {0, 1, -1, 7, -7, 42, 255, -256, 4096, 99999, INT_MAX, INT_MIN};
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) ints(values[i]);

  static const long long ll[] = {0, 1, -1, LLONG_MAX, LLONG_MIN, 1234567890123456789ll,
                                 -987654321098765432ll, 0x100000000ll};
  for (size_t i = 0; i < sizeof ll / sizeof ll[0]; i++) {
    long long v = ll[i];
    printf("%lld %llu %llx %llo %+25lld %-25lld| %.20lld %#llx\n", v, (unsigned long long)v,
           (unsigned long long)v, (unsigned long long)v, v, v, v, (unsigned long long)v);
    printf("  %ld %lu %lX %jd %ju %zd %zu %tx\n", (long)v, (unsigned long)v, (unsigned long)v,
           (intmax_t)v, (uintmax_t)v, (ssize_t)v, (size_t)v, (ptrdiff_t)v);
  }

  static const int small[] = {0, 1, 127, 128, 255, 256, -1, -128, -129, 32767, 32768, 65535, 65536, -32769};
  for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
    int v = small[i];
    printf("%6d: hhd %hhd hhu %hhu hhx %hhx hd %hd hu %hu hx %hx\n", v, (signed char)v,
           (unsigned char)v, (unsigned char)v, (short)v, (unsigned short)v, (unsigned short)v);
  }

  for (int w = 0; w <= 12; w += 3)
    for (int p = -1; p <= 6; p += 2) printf("[%*.*d] [%-*.*x] [%*d]\n", w, p, 1234, w, p, 0xbeef, -w, 5);

  printf("chars: [%c] [%3c] [%-3c] [%c]\n", 'A', 'b', 'c', 0x7e);
  printf("percent %% and [%5s] [%-5s] [%.2s] [%.*s]\n", "ab", "cd", "efgh", 3, "ijklmn");
  printf("fixed-width types: %" PRId8 " %" PRIu16 " %" PRIx32 " %" PRIo64 " %" PRIdFAST16 "\n",
         (int8_t)-5, (uint16_t)65000, (uint32_t)0xdeadbeef, (uint64_t)01234567, (int_fast16_t)-300);
  int count = 0, count2 = 0;
  printf("count%n here%n\n", &count, &count2);
  printf("counted %d %d\n", count, count2);
  int total = printf("%s-%d-%x\n", "return", 123, 0xabc);
  printf("printf returned %d\n", total);
  return 0;
}
