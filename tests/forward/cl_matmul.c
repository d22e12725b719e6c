// Matrix multiply in tiles of local memory: C (64 x 80) = A (64 x 48) *
// B (48 x 80), floats holding small integers so that every sum is exact
// whatever order a device adds in.  Prints whether C is what the CPU
// computes, a checksum and a few entries.  The same source built for
// AArch64 and run natively prints the same.
#include "cl_common.h"

enum { kM = 64, kK = 48, kN = 80, kTile = 16 };

static const char *kSource =
    "#define TILE 16\n"
    "__kernel void matmul(__global const float *a, __global const float *b, __global float *c, int k, int n) {\n"
    "  __local float ta[TILE][TILE], tb[TILE][TILE];\n"
    "  int row = get_global_id(1), col = get_global_id(0);\n"
    "  int lr = get_local_id(1), lc = get_local_id(0);\n"
    "  float sum = 0.0f;\n"
    "  for (int t = 0; t < k; t += TILE) {\n"
    "    ta[lr][lc] = a[row * k + t + lc];\n"
    "    tb[lr][lc] = b[(t + lr) * n + col];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int i = 0; i < TILE; ++i) sum += ta[lr][i] * tb[i][lc];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  c[row * n + col] = sum;\n"
    "}\n";

static float a[kM * kK], b[kK * kN], c[kM * kN];

int main(void) {
  for (int i = 0; i < kM; ++i)
    for (int j = 0; j < kK; ++j) a[i * kK + j] = (float)((i * 7 + j * 3) % 11 - 5);
  for (int i = 0; i < kK; ++i)
    for (int j = 0; j < kN; ++j) b[i * kN + j] = (float)((i * 5 + j * 2) % 9 - 4);
  struct cl_setup cl = cl_open();
  cl_int err;
  cl_program program = cl_build(&cl, kSource, NULL, NULL);
  cl_kernel kernel = cl_kernel_named(program, "matmul");
  cl_mem da = clCreateBuffer(cl.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
  check(err, "clCreateBuffer a");
  cl_mem db = clCreateBuffer(cl.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof b, b, &err);
  check(err, "clCreateBuffer b");
  cl_mem dc = clCreateBuffer(cl.context, CL_MEM_WRITE_ONLY, sizeof c, NULL, &err);
  check(err, "clCreateBuffer c");
  const int k = kK, n = kN;
  check(clSetKernelArg(kernel, 0, sizeof da, &da), "clSetKernelArg");
  check(clSetKernelArg(kernel, 1, sizeof db, &db), "clSetKernelArg");
  check(clSetKernelArg(kernel, 2, sizeof dc, &dc), "clSetKernelArg");
  check(clSetKernelArg(kernel, 3, sizeof k, &k), "clSetKernelArg");
  check(clSetKernelArg(kernel, 4, sizeof n, &n), "clSetKernelArg");
  const size_t global[2] = {kN, kM}, local[2] = {kTile, kTile};
  check(clEnqueueNDRangeKernel(cl.queue, kernel, 2, NULL, global, local, 0, NULL, NULL), "clEnqueueNDRangeKernel");
  check(clEnqueueReadBuffer(cl.queue, dc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL), "clEnqueueReadBuffer");
  int wrong = 0;
  double checksum = 0;
  for (int i = 0; i < kM; ++i)
    for (int j = 0; j < kN; ++j) {
      float want = 0;
      for (int t = 0; t < kK; ++t) want += a[i * kK + t] * b[t * kN + j];
      wrong += c[i * kN + j] != want;
      checksum += c[i * kN + j] * (1 + (i + j) % 3);
    }
  printf("C = A * B (%d x %d): %d entries differ from the CPU's, checksum %.1f\n", kM, kN, wrong, checksum);
  printf("C[0][0] %.1f, C[5][17] %.1f, C[63][79] %.1f\n", c[0], c[5 * kN + 17], c[kM * kN - 1]);
  cl_release(&cl, program, kernel, (cl_mem[]){da, db, dc}, 3);
  return wrong != 0;
}
