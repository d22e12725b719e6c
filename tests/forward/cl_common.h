// What the forward tests' OpenCL programs share: the first device of the
// first platform with a context and a queue, and programs built from
// source.  Any failing call ends the program, printing its name and code
// (the same on both builds, so the comparison shows it).
#ifndef PHYBIN_TESTS_FORWARD_CL_COMMON_H
#define PHYBIN_TESTS_FORWARD_CL_COMMON_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static inline void check(cl_int err, const char *what) {
  if (err != CL_SUCCESS) {
    printf("%s failed: %d\n", what, err);
    exit(1);
  }
}

struct cl_setup {
  cl_platform_id platform;
  cl_device_id device;
  cl_context context;
  cl_command_queue queue;
};

static inline struct cl_setup cl_open(void) {
  struct cl_setup s;
  cl_int err;
  check(clGetPlatformIDs(1, &s.platform, NULL), "clGetPlatformIDs");
  check(clGetDeviceIDs(s.platform, CL_DEVICE_TYPE_ALL, 1, &s.device, NULL), "clGetDeviceIDs");
  s.context = clCreateContext(NULL, 1, &s.device, NULL, NULL, &err);
  check(err, "clCreateContext");
  s.queue = clCreateCommandQueue(s.context, s.device, 0, &err);
  check(err, "clCreateCommandQueue");
  return s;
}

// `source` built for the device; `notify` (may be NULL) is the build's
// callback, given `user`.
static inline cl_program cl_build(const struct cl_setup *s, const char *source,
                           void(CL_CALLBACK *notify)(cl_program, void *), void *user) {
  cl_int err;
  cl_program program = clCreateProgramWithSource(s->context, 1, &source, NULL, &err);
  check(err, "clCreateProgramWithSource");
  check(clBuildProgram(program, 1, &s->device, "", notify, user), "clBuildProgram");
  return program;
}

// The kernel `name` of `program`.
static inline cl_kernel cl_kernel_named(cl_program program, const char *name) {
  cl_int err;
  cl_kernel kernel = clCreateKernel(program, name, &err);
  if (err != CL_SUCCESS) {
    printf("clCreateKernel %s failed: %d\n", name, err);
    exit(1);
  }
  return kernel;
}

static inline void cl_close(struct cl_setup *s) {
  clReleaseCommandQueue(s->queue);
  clReleaseContext(s->context);
}

// The end of a program: its `count` buffers, its kernel, its program, then
// the setup.
static inline void cl_release(struct cl_setup *s, cl_program program, cl_kernel kernel, const cl_mem *mems,
                              int count) {
  for (int i = 0; i < count; ++i) clReleaseMemObject(mems[i]);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  cl_close(s);
}

#endif
