// Guest functions an OpenCL implementation calls back on the caller's
// thread (PoCL does so for these): the build notification of
// clBuildProgram, and memory-object destructor callbacks, which run when
// the last reference goes.  Each prints what it was given and what the
// program gave it as user data, and uses the guest's stack protector,
// errno and stdio: a real guest context.  The same source built for
// AArch64 and run natively prints the same.
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int notified, destroyed;

static void CL_CALLBACK on_built(cl_program program, void *user) {
  char note[64];  // an array: the stack protector's canary (%fs:0x28) is checked
  snprintf(note, sizeof note, "built, user data '%s'", (const char *)user);
  cl_build_status status = CL_BUILD_NONE;
  cl_device_id device;
  clGetProgramInfo(program, CL_PROGRAM_DEVICES, sizeof device, &device, NULL);  // a call from inside the callback
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL);
  errno = 0;
  printf("callback: %s, status %d, errno %d\n", note, (int)status, errno);
  ++notified;
}

static void CL_CALLBACK on_destroyed(cl_mem mem, void *user) {
  (void)mem;
  printf("callback: buffer %d destroyed\n", *(int *)user);
  ++destroyed;
}

static void check(cl_int err, const char *what) {
  if (err != CL_SUCCESS) {
    printf("%s failed: %d\n", what, err);
    exit(1);
  }
}

int main(void) {
  cl_platform_id platform;
  cl_device_id device;
  check(clGetPlatformIDs(1, &platform, NULL), "clGetPlatformIDs");
  check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), "clGetDeviceIDs");
  cl_int err;
  cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
  check(err, "clCreateContext");
  const char *source = "__kernel void twice(__global int *x) { x[get_global_id(0)] *= 2; }\n";
  cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
  check(err, "clCreateProgramWithSource");
  static char user[] = "phybin";
  check(clBuildProgram(program, 1, &device, "", on_built, user), "clBuildProgram");
  printf("after the build: %d notification(s)\n", notified);
  static int ids[3] = {1, 2, 3};
  for (int i = 0; i < 3; ++i) {
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 64, NULL, &err);
    check(err, "clCreateBuffer");
    check(clSetMemObjectDestructorCallback(buffer, on_destroyed, &ids[i]), "clSetMemObjectDestructorCallback");
    check(clReleaseMemObject(buffer), "clReleaseMemObject");
  }
  printf("after the releases: %d destructor callback(s)\n", destroyed);
  clReleaseProgram(program);
  clReleaseContext(context);
  return notified == 1 ? 0 : 1;
}
