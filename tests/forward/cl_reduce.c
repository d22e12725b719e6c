// A reduction with local memory through forwarded OpenCL: each work-group
// sums its slice in __local memory (clSetKernelArg with a size and no
// value), the host adds the partial sums; then the same data squared, in
// floats, read back with a mapped buffer.  Checked against sums the host
// works out; the AArch64 build prints the same.
#include "cl_common.h"

#define N 8192
#define GROUP 64

static const char *kSource =
    "__kernel void sum(__global const int *in, __global int *out, __local int *scratch) {\n"
    "  size_t l = get_local_id(0);\n"
    "  scratch[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {\n"
    "    if (l < s) scratch[l] += scratch[l + s];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) out[get_group_id(0)] = scratch[0];\n"
    "}\n"
    "__kernel void square(__global float *x) { size_t i = get_global_id(0); x[i] = x[i] * x[i]; }\n";

int main(void) {
  struct cl_setup cl = cl_open();
  cl_context context = cl.context;
  cl_command_queue queue = cl.queue;
  cl_int err;
  cl_program program = cl_build(&cl, kSource, NULL, NULL);
  cl_kernel sum = cl_kernel_named(program, "sum");
  cl_kernel square = cl_kernel_named(program, "square");

  static int data[N], partial[N / GROUP];
  long long expected = 0;
  for (int i = 0; i < N; ++i) expected += data[i] = (i * 37) % 1001 - 500;
  cl_mem in = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
  check(err, "clCreateBuffer in");
  cl_mem out = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof partial, NULL, &err);
  check(err, "clCreateBuffer out");
  check(clSetKernelArg(sum, 0, sizeof in, &in), "clSetKernelArg 0");
  check(clSetKernelArg(sum, 1, sizeof out, &out), "clSetKernelArg 1");
  check(clSetKernelArg(sum, 2, GROUP * sizeof(int), NULL), "clSetKernelArg local");
  const size_t global = N, local = GROUP;
  cl_event done;
  check(clEnqueueNDRangeKernel(queue, sum, 1, NULL, &global, &local, 0, NULL, &done), "clEnqueueNDRangeKernel sum");
  check(clWaitForEvents(1, &done), "clWaitForEvents");
  cl_int status;
  check(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL), "clGetEventInfo");
  check(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof partial, partial, 0, NULL, NULL), "clEnqueueReadBuffer");
  long long total = 0;
  for (int g = 0; g < N / GROUP; ++g) total += partial[g];
  printf("sum of %d by %d groups of %d: %lld (expected %lld), event status %d\n", N, N / GROUP, GROUP, total,
         expected, (int)status);

  cl_mem xs = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, N * sizeof(float), NULL, &err);
  check(err, "clCreateBuffer xs");
  float *x = clEnqueueMapBuffer(queue, xs, CL_TRUE, CL_MAP_WRITE, 0, N * sizeof(float), 0, NULL, NULL, &err);
  check(err, "clEnqueueMapBuffer write");
  for (int i = 0; i < N; ++i) x[i] = (float)(i % 97) * 0.25f;
  check(clEnqueueUnmapMemObject(queue, xs, x, 0, NULL, NULL), "clEnqueueUnmapMemObject");
  check(clSetKernelArg(square, 0, sizeof xs, &xs), "clSetKernelArg square");
  check(clEnqueueNDRangeKernel(queue, square, 1, NULL, &global, NULL, 0, NULL, NULL), "clEnqueueNDRangeKernel square");
  x = clEnqueueMapBuffer(queue, xs, CL_TRUE, CL_MAP_READ, 0, N * sizeof(float), 0, NULL, NULL, &err);
  check(err, "clEnqueueMapBuffer read");
  double squares = 0;
  int wrong = 0;
  for (int i = 0; i < N; ++i) {
    const float v = (float)(i % 97) * 0.25f;
    squares += x[i];
    wrong += x[i] != v * v;
  }
  check(clEnqueueUnmapMemObject(queue, xs, x, 0, NULL, NULL), "clEnqueueUnmapMemObject");
  check(clFinish(queue), "clFinish");
  printf("squares: %d wrong, sum %.2f\n", wrong, squares);
  clReleaseEvent(done);
  clReleaseKernel(square);
  cl_release(&cl, program, sum, (cl_mem[]){in, out, xs}, 3);
  return total != expected || wrong != 0;
}
