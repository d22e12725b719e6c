// snprintf's contract: the return value is the length the output would
// have had, the buffer is always terminated when size > 0, size 0 writes
// nothing; plus vsnprintf through a wrapper, positional arguments (%1$s),
// %s with precision on unterminated arrays, and long outputs.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// Truncated output is the point of this program.
#pragma GCC diagnostic ignored "-Wformat-truncation"

static int wrapped(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return r;
}

static void dump(const char *label, const char *buf, size_t size) {
  printf("%-10s", label);
  for (size_t i = 0; i < size; i++) {
    unsigned char c = (unsigned char)buf[i];
    if (c >= 32 && c < 127) printf("%c", c);
    else printf("\\x%02x", c);
  }
  printf("\n");
}

int main(void) {
  char buf[64];
  for (size_t size = 0; size <= 12; size++) {
    memset(buf, '#', sizeof buf);
    int r = snprintf(buf, size, "hello %d world", 42);
    printf("size %2zu ret %d ", size, r);
    dump("buf:", buf, 16);
  }
  memset(buf, '#', sizeof buf);
  int r = snprintf(NULL, 0, "%s=%08.3f", "pi", 3.14159);
  printf("NULL,0 -> %d\n", r);
  r = wrapped(buf, 10, "%s|%s|%s", "alpha", "beta", "gamma");
  printf("vsnprintf ret %d [%s]\n", r, buf);
  r = snprintf(buf, sizeof buf, "%2$s %1$s %2$s %3$d", "one", "two", 3);
  printf("positional ret %d [%s]\n", r, buf);
  char raw[4] = {'a', 'b', 'c', 'd'};  // not terminated: precision stops the read
  r = snprintf(buf, sizeof buf, "[%.4s] [%.2s] [%.0s]", raw, raw, raw);
  printf("precision ret %d [%s]\n", r, buf);
  r = snprintf(buf, sizeof buf, "%-10s|%10s|%*s|%-*s|", "left", "right", 6, "w6", 6, "l6");
  printf("widths ret %d [%s]\n", r, buf);
  r = snprintf(buf, sizeof buf, "%c%c%c", 'x', 0, 'y');  // embedded NUL
  printf("embedded NUL ret %d ", r);
  dump("", buf, 4);

  // Output far larger than the buffer: the count must still be exact.
  static char big[100000];
  memset(big, 'z', sizeof big - 1);
  r = snprintf(buf, sizeof buf, "%s%s", big, big);
  printf("huge ret %d tail [%s]\n", r, buf + 60);
  static char out[5000];
  r = snprintf(out, sizeof out, "%0*d|%.*f|%4000s|", 300, 7, 200, 1.0 / 7, "end");
  printf("long ret %d len %zu start [%.20s] end [%s]\n", r, strlen(out), out, out + strlen(out) - 8);
  size_t sum = 0;
  for (int i = 0; i < 2000; i++) {
    r = snprintf(buf, (size_t)(i % 40), "%d:%x:%o:%s", i * 7919, i, i, i % 2 ? "odd" : "even");
    sum += (size_t)r + strlen(buf);
  }
  printf("loop sum %zu\n", sum);
  r = snprintf(buf, sizeof buf, "%5.2s|%-5.1s|%.3d|%+.2e", "abc", "xyz", -7, 12345.678);
  printf("mixed ret %d [%s]\n", r, buf);
  return 0;
}
