// Variadic functions: more integer and floating-point arguments than fit
// in registers (so va_arg walks the register save area and then the
// stack, with %al holding the vector-register count), va_copy, long
// double and struct arguments, and a hand-written mini printf.
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct pair {
  int a;
  double b;
};

struct big {
  long x[5];
};

static long sum_ints(int n, ...) {
  va_list ap;
  va_start(ap, n);
  long s = 0;
  for (int i = 0; i < n; i++) s = s * 3 + va_arg(ap, int);
  va_end(ap);
  return s;
}

static double sum_doubles(int n, ...) {
  va_list ap;
  va_start(ap, n);
  double s = 0;
  for (int i = 0; i < n; i++) s = s * 1.5 + va_arg(ap, double);
  va_end(ap);
  return s;
}

// Types chosen by a format string, read twice through va_copy.
static void mixed(const char *types, ...) {
  va_list ap, again;
  va_start(ap, types);
  va_copy(again, ap);
  printf("mixed(%s):", types);
  for (const char *t = types; *t; t++) {
    switch (*t) {
      case 'i': printf(" i%d", va_arg(ap, int)); break;
      case 'l': printf(" l%ld", va_arg(ap, long)); break;
      case 'd': printf(" d%.17g", va_arg(ap, double)); break;
      case 'L': printf(" L%.21Lg", va_arg(ap, long double)); break;
      case 's': printf(" s%s", va_arg(ap, const char *)); break;
      case 'p': { struct pair p = va_arg(ap, struct pair); printf(" p{%d,%g}", p.a, p.b); break; }
      case 'b': { struct big b = va_arg(ap, struct big); printf(" b{%ld..%ld}", b.x[0], b.x[4]); break; }
    }
  }
  // Second pass: only count integers and sum doubles.
  int ints = 0;
  double dsum = 0;
  for (const char *t = types; *t; t++) {
    switch (*t) {
      case 'i': va_arg(again, int); ints++; break;
      case 'l': va_arg(again, long); ints++; break;
      case 'd': dsum += va_arg(again, double); break;
      case 'L': va_arg(again, long double); break;
      case 's': va_arg(again, const char *); break;
      case 'p': va_arg(again, struct pair); break;
      case 'b': va_arg(again, struct big); break;
    }
  }
  printf(" | ints %d dsum %.17g\n", ints, dsum);
  va_end(again);
  va_end(ap);
}

static int mini_printf(char *out, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *o = out;
  for (const char *f = fmt; *f; f++) {
    if (*f != '%') { *o++ = *f; continue; }
    switch (*++f) {
      case 'd': o += sprintf(o, "<%d>", va_arg(ap, int)); break;
      case 'f': o += sprintf(o, "<%.3f>", va_arg(ap, double)); break;
      case 's': o += sprintf(o, "<%s>", va_arg(ap, char *)); break;
      default: *o++ = *f;
    }
  }
  *o = 0;
  va_end(ap);
  return (int)(o - out);
}

static int forward(char *buf, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vsnprintf(buf, n, fmt, ap);
  va_end(ap);
  return r;
}

int main(void) {
  printf("sum_ints %ld %ld %ld\n", sum_ints(0), sum_ints(3, 1, 2, 3),
         sum_ints(12, 1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12));
  printf("sum_doubles %.17g %.17g\n", sum_doubles(2, 0.5, 0.25),
         sum_doubles(12, 1.1, 2.2, 3.3, 4.4, 5.5, 6.6, 7.7, 8.8, 9.9, 10.1, 11.11, 12.12));
  struct pair p = {7, 2.5};
  struct big b = {{10, 20, 30, 40, 50}};
  mixed("idLsp", 1, 2.5, 3.25L, "four", p);
  mixed("dddddddddidi", 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10, 11.0, 12);
  mixed("iiiiiiiilbLd", 1, 2, 3, 4, 5, 6, 7, 8, 9L, b, 1e-4000L, -0.0);
  mixed("pbpsL", p, b, p, "end", 1.0L / 3);
  char buf[256];
  int n = mini_printf(buf, "x=%d y=%f s=%s %% done", -42, 3.14159, "str");
  printf("mini %d [%s]\n", n, buf);
  n = forward(buf, sizeof buf, "%s|%d|%.2f|%c|%lld|%Lf", "fw", 1, 2.0, 'c', -9LL, 1.5L);
  printf("forward %d [%s]\n", n, buf);
  return 0;
}
