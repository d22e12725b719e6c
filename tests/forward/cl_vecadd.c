// An x86-64 OpenCL program whose calls phybin forwards to the native
// AArch64 OpenCL (PoCL's CPU device in the ARM64 world): it lists the
// platform and device, builds a kernel, adds two vectors and a scaled
// third on the device, and checks every element against the host's sums.
// The same source built for AArch64 and run natively prints the same.
#include "cl_common.h"

#define N 4096

static const char *kSource =
    "__kernel void add(__global const int *a, __global const int *b, __global int *c, int k) {\n"
    "  size_t i = get_global_id(0);\n"
    "  c[i] = a[i] + k * b[i];\n"
    "}\n";

int main(void) {
  cl_platform_id platform;
  cl_uint platforms = 0;
  check(clGetPlatformIDs(1, &platform, &platforms), "clGetPlatformIDs");
  char name[256] = "";
  check(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, NULL), "clGetPlatformInfo");
  printf("platforms %u, first: %s\n", platforms, name);
  cl_device_id device;
  cl_uint devices = 0;
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &devices), "clGetDeviceIDs");
  cl_uint units = 0;
  check(clGetDeviceInfo(device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL), "clGetDeviceInfo");
  printf("devices %u, compute units > 0: %s\n", devices, units > 0 ? "yes" : "no");

  struct cl_setup cl = cl_open();
  cl_context context = cl.context;
  cl_command_queue queue = cl.queue;
  cl_int err;
  cl_program program = cl_build(&cl, kSource, NULL, NULL);
  cl_kernel kernel = cl_kernel_named(program, "add");

  static int a[N], b[N], c[N];
  for (int i = 0; i < N; ++i) a[i] = i * 7 - 1000, b[i] = (i * 13) % 101;
  cl_mem da = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
  check(err, "clCreateBuffer a");
  cl_mem db = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof b, b, &err);
  check(err, "clCreateBuffer b");
  cl_mem dc = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof c, NULL, &err);
  check(err, "clCreateBuffer c");
  const int k = 3;
  check(clSetKernelArg(kernel, 0, sizeof da, &da), "clSetKernelArg 0");
  check(clSetKernelArg(kernel, 1, sizeof db, &db), "clSetKernelArg 1");
  check(clSetKernelArg(kernel, 2, sizeof dc, &dc), "clSetKernelArg 2");
  check(clSetKernelArg(kernel, 3, sizeof k, &k), "clSetKernelArg 3");
  const size_t global = N;
  check(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL), "clEnqueueNDRangeKernel");
  check(clEnqueueReadBuffer(queue, dc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL), "clEnqueueReadBuffer");
  long long sum = 0;
  int wrong = 0;
  for (int i = 0; i < N; ++i) {
    sum += c[i];
    wrong += c[i] != a[i] + k * b[i];
  }
  printf("vector add of %d: %d wrong, sum %lld\n", N, wrong, sum);
  cl_release(&cl, program, kernel, (cl_mem[]){da, db, dc}, 3);
  return wrong != 0;
}
