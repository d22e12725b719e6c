// clEnqueueNativeKernel: a host function of the program that the OpenCL
// implementation runs as a command, on a thread of its own (PoCL's
// worker), with a copy of the argument block whose cl_mem fields it
// replaced by the buffers' host addresses.  The function sums and scales
// a buffer, using the stack protector, errno and a thread-local there;
// three such commands run in order, then a kernel reads what they wrote.
// The same source built for AArch64 and run natively prints the same.
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cl_common.h"

enum { kItems = 1000 };

struct block {
  int *data;  // a cl_mem here when enqueued; the buffer's host address when run
  int count;
  int factor;
  long *sum;  // the program's own memory: an ordinary pointer
};

static __thread int runs_here;
static long sums[3];
static int errnos[3];

static void CL_CALLBACK scale(void *args) {
  struct block *b = args;
  char text[32];  // an array: the canary at %fs:0x28 is checked on return
  long sum = 0;
  for (int i = 0; i < b->count; ++i) {
    sum += b->data[i];
    b->data[i] *= b->factor;
  }
  snprintf(text, sizeof text, "%ld", sum);
  *b->sum = strtol(text, NULL, 10);
  ++runs_here;
  errno = 0;
  strtol("-99999999999999999999999", NULL, 10);
  errnos[b->factor - 2] = errno;
}

int main(void) {
  struct cl_setup cl = cl_open();
  cl_int err;
  cl_device_exec_capabilities caps = 0;
  check(clGetDeviceInfo(cl.device, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof caps, &caps, NULL), "clGetDeviceInfo");
  printf("native kernels: %s\n", caps & CL_EXEC_NATIVE_KERNEL ? "yes" : "no");
  if (!(caps & CL_EXEC_NATIVE_KERNEL)) return 1;
  int host[kItems];
  for (int i = 0; i < kItems; ++i) host[i] = i % 17 - 8;
  cl_mem buffer = clCreateBuffer(cl.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
  check(err, "clCreateBuffer");
  for (int f = 2; f <= 4; ++f) {
    struct block b = {NULL, kItems, f, &sums[f - 2]};
    memcpy(&b.data, &buffer, sizeof buffer);
    const void *where = &b.data;
    check(clEnqueueNativeKernel(cl.queue, scale, &b, sizeof b, 1, &buffer, &where, 0, NULL, NULL),
          "clEnqueueNativeKernel");
  }
  cl_program program = cl_build(&cl, "__kernel void plus(__global int *x) { x[get_global_id(0)] += 1; }\n", NULL, NULL);
  cl_kernel kernel = cl_kernel_named(program, "plus");
  check(clSetKernelArg(kernel, 0, sizeof buffer, &buffer), "clSetKernelArg");
  const size_t items = kItems;
  check(clEnqueueNDRangeKernel(cl.queue, kernel, 1, NULL, &items, NULL, 0, NULL, NULL), "clEnqueueNDRangeKernel");
  check(clEnqueueReadBuffer(cl.queue, buffer, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL), "clEnqueueReadBuffer");
  for (int f = 0; f < 3; ++f)
    printf("native kernel %d: sum %ld, errno %s\n", f, sums[f], errnos[f] == ERANGE ? "ERANGE" : "WRONG");
  long total = 0;
  for (int i = 0; i < kItems; ++i) total += host[i];
  printf("x[0] %d, x[7] %d, x[%d] %d, sum %ld, runs on the main thread %d\n", host[0], host[7], kItems - 1,
         host[kItems - 1], total, runs_here);
  cl_release(&cl, program, kernel, &buffer, 1);
  return 0;
}
