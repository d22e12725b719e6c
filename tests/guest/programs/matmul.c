// Dense linear algebra in double: matrix multiply in three loop orders
// (the i-k-j one vectorises at -O2), a transpose, LU decomposition with
// partial pivoting solving Ax = b, and the residual, printed with %.17g.
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

#define N 64

static double A[N][N], B[N][N], C1[N][N], C2[N][N], C3[N][N], LU[N][N];

static void mul_ijk(double c[N][N]) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int k = 0; k < N; k++) s += A[i][k] * B[k][j];
      c[i][j] = s;
    }
}

static void mul_ikj(double c[N][N]) {
  memset(c, 0, sizeof(double) * N * N);
  for (int i = 0; i < N; i++)
    for (int k = 0; k < N; k++) {
      double a = A[i][k];
      for (int j = 0; j < N; j++) c[i][j] += a * B[k][j];
    }
}

static void mul_transposed(double c[N][N]) {
  static double BT[N][N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) BT[j][i] = B[i][j];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int k = 0; k < N; k++) s += A[i][k] * BT[j][k];
      c[i][j] = s;
    }
}

static double checksum(double m[N][N]) {
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) s += m[i][j] * (double)((i * 7 + j * 3) % 11 - 5);
  return s;
}

static uint64_t bits_hash(double m[N][N]) { return fnv1a(FNV_INIT, m, sizeof(double) * N * N); }

// Solves A x = b in place by LU with partial pivoting.
static void solve(double *x, const double *b) {
  int perm[N];
  memcpy(LU, A, sizeof LU);
  for (int i = 0; i < N; i++) perm[i] = i;
  for (int k = 0; k < N; k++) {
    int p = k;
    for (int i = k + 1; i < N; i++)
      if (fabs(LU[i][k]) > fabs(LU[p][k])) p = i;
    if (p != k) {
      double tmp[N];
      memcpy(tmp, LU[k], sizeof tmp);
      memcpy(LU[k], LU[p], sizeof tmp);
      memcpy(LU[p], tmp, sizeof tmp);
      int t = perm[k];
      perm[k] = perm[p];
      perm[p] = t;
    }
    for (int i = k + 1; i < N; i++) {
      LU[i][k] /= LU[k][k];
      for (int j = k + 1; j < N; j++) LU[i][j] -= LU[i][k] * LU[k][j];
    }
  }
  double y[N];
  for (int i = 0; i < N; i++) {
    y[i] = b[perm[i]];
    for (int j = 0; j < i; j++) y[i] -= LU[i][j] * y[j];
  }
  for (int i = N - 1; i >= 0; i--) {
    x[i] = y[i];
    for (int j = i + 1; j < N; j++) x[i] -= LU[i][j] * x[j];
    x[i] /= LU[i][i];
  }
}

int main(void) {
  rng_seed(64);
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      A[i][j] = (double)(rng_u32() % 2001) / 1000.0 - 1.0 + (i == j ? 8.0 : 0.0);
      B[i][j] = 1.0 / (i + j + 1.0);
    }
  mul_ijk(C1);
  mul_ikj(C2);
  mul_transposed(C3);
  printf("ijk checksum %.17g hash %016" PRIx64 "\n", checksum(C1), bits_hash(C1));
  printf("ikj checksum %.17g hash %016" PRIx64 "\n", checksum(C2), bits_hash(C2));
  printf("trn checksum %.17g hash %016" PRIx64 "\n", checksum(C3), bits_hash(C3));
  printf("C[0][0] %.17g C[17][42] %.17g C[63][63] %.17g\n", C1[0][0], C1[17][42], C1[N - 1][N - 1]);
  double b[N], x[N];
  for (int i = 0; i < N; i++) b[i] = sin(i * 0.5);
  solve(x, b);
  double resid = 0;
  for (int i = 0; i < N; i++) {
    double s = 0;
    for (int j = 0; j < N; j++) s += A[i][j] * x[j];
    resid = fmax(resid, fabs(s - b[i]));
  }
  printf("x[0] %.17g x[31] %.17g x[63] %.17g\n", x[0], x[31], x[N - 1]);
  printf("residual below 1e-12: %d (hash of x %016" PRIx64 ")\n", resid < 1e-12, fnv1a(FNV_INIT, x, sizeof x));
  return 0;
}
