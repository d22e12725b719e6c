// Ordinary C with float and double, as GCC compiles it for SSE2 at any
// optimisation level (scalar and, at -O3, vectorised): an n-body step,
// Mandelbrot, a matrix product, Horner polynomials, Kahan and pairwise
// sums, float <-> double <-> integer casts, fabs/copysign/fmin/fmax,
// floor/ceil/trunc/round, sorting by a float key, and NaN-aware branches.
// Results are printed with %a so every bit counts.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest_common.h"

#define NB 5
static double pos[NB][3], vel[NB][3], mass[NB];

static void nbody(int steps) {
  for (int i = 0; i < NB; i++) {
    for (int k = 0; k < 3; k++) {
      pos[i][k] = (double)rng_below(2000) / 100.0 - 10.0;
      vel[i][k] = (double)rng_below(200) / 1000.0 - 0.1;
    }
    mass[i] = 1.0 + i * 0.25;
  }
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < NB; i++)
      for (int j = i + 1; j < NB; j++) {
        double d[3], d2 = 0.01;
        for (int k = 0; k < 3; k++) {
          d[k] = pos[i][k] - pos[j][k];
          d2 += d[k] * d[k];
        }
        double mag = 0.01 / (d2 * sqrt(d2));
        for (int k = 0; k < 3; k++) {
          vel[i][k] -= d[k] * mass[j] * mag;
          vel[j][k] += d[k] * mass[i] * mag;
        }
      }
    for (int i = 0; i < NB; i++)
      for (int k = 0; k < 3; k++) pos[i][k] += 0.01 * vel[i][k];
  }
  double e = 0;
  for (int i = 0; i < NB; i++) e += 0.5 * mass[i] * (vel[i][0] * vel[i][0] + vel[i][1] * vel[i][1] + vel[i][2] * vel[i][2]);
  printf("nbody %a %a %a\n", e, pos[0][0], vel[NB - 1][2]);
}

static void mandelbrot(void) {
  uint64_t h = FNV_INIT;
  for (int y = 0; y < 24; y++)
    for (int x = 0; x < 64; x++) {
      float cr = -2.0f + x * (2.5f / 64), ci = -1.2f + y * (2.4f / 24);
      float zr = 0, zi = 0;
      int n = 0;
      while (n < 200 && zr * zr + zi * zi < 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2 * zr * zi + ci;
        zr = t;
        n++;
      }
      h = fnv1a_u64(h, (uint64_t)n);
    }
  printf("mandelbrot %016llx\n", (unsigned long long)h);
}

#define M 24
static float fa[M][M], fb[M][M], fc[M][M];
static double da[M * M], db[M * M];

static void matrix(void) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) {
      fa[i][j] = (float)(rng_below(1000)) / 37.0f - 13.0f;
      fb[i][j] = (float)(rng_below(1000)) / 91.0f;
    }
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) {
      float s = 0;
      for (int k = 0; k < M; k++) s += fa[i][k] * fb[k][j];
      fc[i][j] = s;
    }
  float tr = 0, mx = -INFINITY, mn = INFINITY;
  for (int i = 0; i < M; i++) {
    tr += fc[i][i];
    for (int j = 0; j < M; j++) {
      mx = fc[i][j] > mx ? fc[i][j] : mx;
      mn = fminf(mn, fc[i][j]);
    }
  }
  for (int i = 0; i < M * M; i++) {
    da[i] = fa[i / M][i % M];
    db[i] = da[i] * 0.5 + (double)fc[i % M][i / M];
  }
  double dot = 0;
  for (int i = 0; i < M * M; i++) dot += da[i] * db[i];
  printf("matrix %a %a %a %a\n", (double)tr, (double)mx, (double)mn, dot);
}

static double horner(const double *c, int n, double x) {
  double r = 0;
  for (int i = n - 1; i >= 0; i--) r = r * x + c[i];
  return r;
}

static void sums(void) {
  static double v[1000];
  for (int i = 0; i < 1000; i++) v[i] = 1.0 / (i + 1) * ((i & 1) ? -1 : 1) + 1e-9 * i;
  double naive = 0, kahan = 0, comp = 0;
  for (int i = 0; i < 1000; i++) {
    naive += v[i];
    double y = v[i] - comp, t = kahan + y;
    comp = (t - kahan) - y;
    kahan = t;
  }
  float fs = 0;
  for (int i = 0; i < 1000; i++) fs += (float)v[i];
  static const double c[] = {1.0, -0.5, 1.0 / 3, -0.25, 0.2, -1.0 / 6};
  printf("sums %a %a %a %a %a\n", naive, kahan, (double)fs, horner(c, 6, 0.75), horner(c, 6, -3.5));
}

static void casts(void) {
  static const double vals[] = {0.0, -0.0, 0.4, 0.5, 0.6, 1.5, 2.5, -1.5, -2.5, 1e9, -1e9, 4294967295.0,
                                123456.789, -7.999999, 65535.5, 3.0e-5};
  uint64_t h = FNV_INIT;
  for (unsigned i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    double d = vals[i];
    float f = (float)d;
    long long ll = (long long)d;
    unsigned long long ull = d >= 0 ? (unsigned long long)d : 0;
    int n = fabs(d) < 2e9 ? (int)d : 0;
    short sh = fabs(d) < 30000 ? (short)d : 0;
    unsigned char uc = d >= 0 && d < 255 ? (unsigned char)d : 0;
    h = fnv1a_u64(h, (uint64_t)ll);
    h = fnv1a_u64(h, ull);
    h = fnv1a_u64(h, (uint64_t)n);
    h = fnv1a_u64(h, (uint64_t)sh);
    h = fnv1a_u64(h, uc);
    printf("cast %a %a %a %a %a %a %a\n", (double)f, floor(d), ceil(d), trunc(d), round(d), rint(d), nearbyint(d));
    printf("back %a %a %a\n", (double)ll, (double)(float)n, (double)ull);
  }
  unsigned long long big = 0xfedcba9876543210ull;
  printf("u64 %a %a %016llx\n", (double)big, (double)(float)big, (unsigned long long)h);
}

static void signs(void) {
  static const double vals[] = {1.0, -2.0, 0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-310};
  for (unsigned i = 0; i < 8; i++)
    for (unsigned j = 0; j < 8; j++) {
      double a = vals[i], b = vals[j];
      double r[6] = {fabs(a), copysign(a, b), fmin(a, b), fmax(a, b), a < b ? a : b, a > b ? a : b};
      uint64_t u[6];
      memcpy(u, r, sizeof u);
      printf("sign %u %u %llx %llx %llx %llx %llx %llx %d%d%d\n", i, j, (unsigned long long)u[0],
             (unsigned long long)u[1], (unsigned long long)u[2], (unsigned long long)u[3], (unsigned long long)u[4],
             (unsigned long long)u[5], isnan(a) != 0, signbit(a) != 0, a == b);
    }
}

static int by_key(const void *x, const void *y) {
  float a = *(const float *)x, b = *(const float *)y;
  return (a > b) - (a < b);
}

static void sorting(void) {
  static float keys[300];
  for (int i = 0; i < 300; i++) keys[i] = (float)((int)rng_below(100000) - 50000) / 7.0f;
  qsort(keys, 300, sizeof keys[0], by_key);
  uint64_t h = FNV_INIT;
  for (int i = 0; i < 300; i++) h = fnv1a(h, &keys[i], sizeof keys[i]);
  printf("sort %a %a %016llx\n", (double)keys[0], (double)keys[299], (unsigned long long)h);
}

// Vectorisable loops (GCC -O3 uses packed SSE2 here).
static void loops(void) {
  static float x[256], y[256];
  static double p[256], q[256];
  static int iv[256];
  for (int i = 0; i < 256; i++) {
    x[i] = (float)i * 0.37f - 20.0f;
    p[i] = (double)i * -1.3 + 7.0;
    iv[i] = (int)rng_below(1000) - 500;
  }
  for (int i = 0; i < 256; i++) y[i] = x[i] * x[i] + 3.0f * x[i] - (float)iv[i];
  for (int i = 0; i < 256; i++) q[i] = p[i] > 0 ? sqrt(p[i]) : -p[i] / 3.0;
  float sy = 0, my = -INFINITY;
  double sq = 0;
  int mi = 0;
  for (int i = 0; i < 256; i++) {
    sy += y[i];
    my = y[i] > my ? y[i] : my;
    sq += q[i];
    iv[i] = (int)(y[i] / 16.0f);
    mi = iv[i] > mi ? iv[i] : mi;
  }
  printf("loops %a %a %a %d\n", (double)sy, (double)my, sq, mi);
}

int main(void) {
  rng_seed(42);
  nbody(200);
  mandelbrot();
  matrix();
  sums();
  casts();
  signs();
  sorting();
  loops();
  return 0;
}
