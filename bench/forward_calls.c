/* bench/run's forwarded call: N calls of clGetPlatformIDs (after the first,
 * a trivial call), so that the cost of one call is the difference of two
 * runs.  Built for x86-64 against phybin's guest side of libOpenCL.so.1 and
 * for AArch64 against the native one. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  cl_platform_id p; cl_uint np = 0; long ok = 0;
  for (int i = 0; i < n; ++i) ok += clGetPlatformIDs(1, &p, &np) == CL_SUCCESS;
  printf("%ld\n", ok);
  return 0;
}
