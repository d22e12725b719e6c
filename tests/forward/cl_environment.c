// The variables OpenCL's runtime reads reach it as the program set them:
// before its first OpenCL call the program asks PoCL for its "basic"
// device instead of the default "pthread" one (POCL_DEVICES, read when
// PoCL starts), then prints the device it got and runs a kernel there.
// The same source built for AArch64 and run natively prints the same.
#include <stdlib.h>

#include "cl_common.h"

int main(void) {
  if (setenv("POCL_DEVICES", "basic", 1) != 0) return 2;
  struct cl_setup cl = cl_open();
  char name[256] = "";
  cl_uint units = 0;
  check(clGetDeviceInfo(cl.device, CL_DEVICE_NAME, sizeof name, name, NULL), "clGetDeviceInfo");
  check(clGetDeviceInfo(cl.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL), "clGetDeviceInfo");
  printf("device: %.5s, %u compute unit(s)\n", name, units);
  cl_program program = cl_build(&cl, "__kernel void fill(__global int *x) { x[get_global_id(0)] = 7; }\n", NULL, NULL);
  cl_int err;
  cl_kernel kernel = cl_kernel_named(program, "fill");
  int out[16] = {0};
  cl_mem buffer = clCreateBuffer(cl.context, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
  check(err, "clCreateBuffer");
  check(clSetKernelArg(kernel, 0, sizeof buffer, &buffer), "clSetKernelArg");
  const size_t items = 16;
  check(clEnqueueNDRangeKernel(cl.queue, kernel, 1, NULL, &items, NULL, 0, NULL, NULL), "clEnqueueNDRangeKernel");
  check(clEnqueueReadBuffer(cl.queue, buffer, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), "clEnqueueReadBuffer");
  printf("x[0] %d, x[15] %d\n", out[0], out[15]);
  cl_release(&cl, program, kernel, &buffer, 1);
  return 0;
}
