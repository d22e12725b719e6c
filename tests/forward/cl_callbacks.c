// Guest functions an OpenCL implementation calls back on the caller's
// thread (PoCL does so for these): the build notification of
// clBuildProgram, and memory-object destructor callbacks, which run when
// the last reference goes.  Each prints what it was given and what the
// program gave it as user data, and uses the guest's stack protector,
// errno and stdio: a real guest context.  The same source built for
// AArch64 and run natively prints the same.
#include <errno.h>
#include <string.h>

#include "cl_common.h"

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

int main(void) {
  struct cl_setup cl = cl_open();
  cl_context context = cl.context;
  cl_int err;
  static char user[] = "phybin";
  cl_program program =
      cl_build(&cl, "__kernel void twice(__global int *x) { x[get_global_id(0)] *= 2; }\n", on_built, user);
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
  cl_close(&cl);
  return notified == 1 ? 0 : 1;
}
