// Indirect calls: tables of function pointers, callbacks, a struct of
// operations (a C "vtable"), functions returning function pointers, and
// pointers to functions with many and floating-point arguments.
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "guest_common.h"

typedef int64_t (*binop)(int64_t, int64_t);

// Wrapping arithmetic through unsigned types: no undefined behaviour.
static int64_t add(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }
static int64_t sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t mul(int64_t a, int64_t b) { return (int64_t)((uint64_t)a * (uint64_t)b); }
static int64_t mod(int64_t a, int64_t b) { return b && !(a == INT64_MIN && b == -1) ? a % b : 0; }
static int64_t xor_(int64_t a, int64_t b) { return a ^ b; }
static int64_t shl(int64_t a, int64_t b) { return (int64_t)((uint64_t)a << (b & 63)); }

static binop const table[] = {add, sub, mul, mod, xor_, shl};
static const char *const names[] = {"add", "sub", "mul", "mod", "xor", "shl"};

struct shape_ops {
  const char *name;
  double (*area)(const double *dims);
  double (*perimeter)(const double *dims);
};

static double rect_area(const double *d) { return d[0] * d[1]; }
static double rect_perim(const double *d) { return 2 * (d[0] + d[1]); }
static double circle_area(const double *d) { return 3.141592653589793 * d[0] * d[0]; }
static double circle_perim(const double *d) { return 2 * 3.141592653589793 * d[0]; }
static double tri_area(const double *d) {
  double s = (d[0] + d[1] + d[2]) / 2;
  return sqrt(s * (s - d[0]) * (s - d[1]) * (s - d[2]));
}
static double tri_perim(const double *d) { return d[0] + d[1] + d[2]; }

static const struct shape_ops shapes[] = {
    {"rect", rect_area, rect_perim}, {"circle", circle_area, circle_perim}, {"triangle", tri_area, tri_perim}};

static binop pick(int64_t selector) { return table[(uint64_t)selector % 6]; }

static void for_each(int64_t *v, int n, int64_t (*f)(int64_t, int64_t), int64_t arg) {
  for (int i = 0; i < n; i++) v[i] = f(v[i], arg);
}

static double many_args(int a, double b, int c, double d, int e, double f, int g, double h, int i, double j,
                        int k, double l, int m, double n, int o, double p, double q, double r) {
  return a + b * 2 + c * 3 + d * 4 + e * 5 + f * 6 + g * 7 + h * 8 + i * 9 + j * 10 + k * 11 + l * 12 +
         m * 13 + n * 14 + o * 15 + p * 16 + q * 17 + r * 18;
}

int main(void) {
  for (int op = 0; op < 6; op++)
    printf("%s(1000, 7) = %" PRId64 "  %s(-5, 3) = %" PRId64 "\n", names[op], table[op](1000, 7), names[op],
           table[op](-5, 3));
  double dims[][3] = {{3, 4, 0}, {2.5, 0, 0}, {3, 4, 5}};
  for (int s = 0; s < 3; s++)
    printf("%s area %.17g perimeter %.17g\n", shapes[s].name, shapes[s].area(dims[s]), shapes[s].perimeter(dims[s]));
  int64_t v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  for_each(v, 8, mul, 3);
  for_each(v, 8, sub, 1);
  for_each(v, 8, pick(4), 0x55);
  for (int i = 0; i < 8; i++) printf("%" PRId64 " ", v[i]);
  printf("\n");
  uint64_t h = FNV_INIT;
  int64_t acc = 1;
  rng_seed(5);
  for (int i = 0; i < 100000; i++) {
    uint64_t r = rng_next();
    acc = pick((int64_t)r)(acc, (int64_t)(r >> 40) | 1);
    h = fnv1a_u64(h, (uint64_t)acc);
  }
  printf("acc %" PRId64 " hash %016" PRIx64 "\n", acc, h);
  double (*volatile fp)(int, double, int, double, int, double, int, double, int, double, int, double, int,
                        double, int, double, double, double) = many_args;
  printf("many_args %.17g\n", fp(1, 2.5, 3, 4.5, 5, 6.5, 7, 8.5, 9, 10.5, 11, 12.5, 13, 14.5, 15, 16.5, 17.5, 18.5));
  double (*volatile mathf[])(double) = {sin, cos, sqrt, exp, log, fabs, floor};
  for (int i = 0; i < 7; i++) printf("math[%d](0.75) = %.17g\n", i, mathf[i](0.75));
  return 0;
}
