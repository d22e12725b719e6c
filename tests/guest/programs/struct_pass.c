// Structures passed and returned by value under the System V ABI: small
// integer structs in one or two registers, mixed int/double structs split
// across rax/xmm0, float pairs packed in one xmm, large structs through
// memory (hidden return pointer), arrays inside structs, and assignment
// of big structs (rep movs or inline copies).
#include <stdio.h>
#include <string.h>

struct i2 { int a, b; };
struct l2 { long a, b; };
struct mix { int i; double d; };
struct dmix { double d; long l; };
struct f4 { float a, b, c, d; };
struct chars { char c[3]; };
struct big { long v[9]; double w; };
struct nested { struct i2 p; struct mix m; short s; };

static struct i2 swap_i2(struct i2 x) { return (struct i2){x.b, x.a}; }
static struct l2 add_l2(struct l2 x, struct l2 y) { return (struct l2){x.a + y.a, x.b + y.b}; }
static struct mix scale_mix(struct mix m, double k) { return (struct mix){m.i * 2, m.d * k}; }
static struct dmix make_dmix(long l) { return (struct dmix){l / 3.0, l * 3}; }
static struct f4 norm_f4(struct f4 v) {
  float s = v.a + v.b + v.c + v.d;
  return (struct f4){v.a / s, v.b / s, v.c / s, v.d / s};
}
static struct chars rot_chars(struct chars c) { return (struct chars){{c.c[1], c.c[2], c.c[0]}}; }

static struct big fill_big(long seed) {
  struct big b;
  for (int i = 0; i < 9; i++) b.v[i] = seed * (i + 1) - i;
  b.w = seed / 7.0;
  return b;
}

static long sum_big(struct big b) {
  long s = 0;
  for (int i = 0; i < 9; i++) s += b.v[i];
  b.v[0] = 9999;  // modifies the callee's copy only
  return s;
}

static struct nested pass_nested(struct nested n, int k) {
  n.p = swap_i2(n.p);
  n.m = scale_mix(n.m, k);
  n.s = (short)(n.s * k);
  return n;
}

// Six integer registers used up: the struct goes on the stack.
static double late_struct(long a, long b, long c, long d, long e, long f, struct mix m, struct i2 i) {
  return (double)(a + b + c + d + e + f) + m.d + m.i + i.a * 10 + i.b;
}

int main(void) {
  struct i2 a = swap_i2((struct i2){1, -2});
  printf("i2 %d %d\n", a.a, a.b);
  struct l2 l = add_l2((struct l2){1L << 40, -5}, (struct l2){3, 1L << 50});
  printf("l2 %ld %ld\n", l.a, l.b);
  struct mix m = scale_mix((struct mix){21, 0.5}, 3.0);
  printf("mix %d %.17g\n", m.i, m.d);
  struct dmix d = make_dmix(100);
  printf("dmix %.17g %ld\n", d.d, d.l);
  struct f4 f = norm_f4((struct f4){1, 2, 3, 4});
  printf("f4 %.9g %.9g %.9g %.9g\n", (double)f.a, (double)f.b, (double)f.c, (double)f.d);
  struct chars c = rot_chars((struct chars){{'x', 'y', 'z'}});
  printf("chars %c%c%c\n", c.c[0], c.c[1], c.c[2]);
  struct big b = fill_big(12345);
  long s = sum_big(b);
  printf("big sum %ld v0 %ld w %.17g\n", s, b.v[0], b.w);
  struct big copies[16];
  for (int i = 0; i < 16; i++) copies[i] = fill_big(i);
  struct big t = copies[3];
  copies[3] = copies[12];
  copies[12] = t;
  long total = 0;
  for (int i = 0; i < 16; i++) total = total * 7 + sum_big(copies[i]);
  printf("copies total %ld\n", total);
  struct nested n = pass_nested((struct nested){{5, 6}, {7, 1.25}, -300}, 3);
  printf("nested %d %d %d %.17g %d\n", n.p.a, n.p.b, n.m.i, n.m.d, n.s);
  printf("late %.17g\n", late_struct(1, 2, 3, 4, 5, 6, (struct mix){7, 0.125}, (struct i2){8, 9}));
  struct big z;
  memset(&z, 0, sizeof z);
  z = (struct big){{1, 2, 3}, 4.5};
  printf("compound %ld %ld %ld %.17g\n", z.v[0], z.v[2], z.v[8], z.w);
  return 0;
}
