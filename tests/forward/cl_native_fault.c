// A fault inside the OpenCL library, seen as the program would see it
// natively: clGetPlatformInfo is given a bad address for its answer (its
// second call: translated code now calls it directly), the library's copy
// faults, and the program's SIGSEGV handler gets the fault at that address
// and jumps out.  Then the program goes on with OpenCL and, run with a
// small code cache, makes phybin flush its translations: nothing of the
// abandoned call may linger.  The same source built for AArch64 and run
// natively prints the same.
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "cl_common.h"

#define BAD_ADDRESS ((void *)0x1000)

static sigjmp_buf escape;
static volatile int faults, at_bad_address;

static void on_fault(int sig, siginfo_t *info, void *context) {
  (void)sig;
  (void)context;
  ++faults;
  at_bad_address = info->si_addr == BAD_ADDRESS;
  siglongjmp(escape, 1);
}

int main(void) {
  struct cl_setup cl = cl_open();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigaction(SIGSEGV, &sa, NULL);
  char name[64] = "";
  check(clGetPlatformInfo(cl.platform, CL_PLATFORM_NAME, sizeof name, name, NULL), "clGetPlatformInfo");
  for (int round = 0; round < 2; ++round)
    if (sigsetjmp(escape, 1) == 0)
      clGetPlatformInfo(cl.platform, CL_PLATFORM_NAME, sizeof name, BAD_ADDRESS, NULL);
  printf("platform %s; faults caught %d, at the bad address %s\n", name, faults, at_bad_address ? "yes" : "no");
  cl_int err;
  cl_program program = cl_build(&cl, "__kernel void inc(__global int *x) { x[get_global_id(0)] += 1; }\n", NULL, NULL);
  cl_kernel kernel = cl_kernel_named(program, "inc");
  int data[256];
  for (int i = 0; i < 256; ++i) data[i] = i;
  cl_mem buffer = clCreateBuffer(cl.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof data, data, &err);
  check(err, "clCreateBuffer");
  check(clSetKernelArg(kernel, 0, sizeof buffer, &buffer), "clSetKernelArg");
  const size_t items = 256;
  for (int round = 0; round < 20; ++round) {
    check(clEnqueueNDRangeKernel(cl.queue, kernel, 1, NULL, &items, NULL, 0, NULL, NULL), "clEnqueueNDRangeKernel");
    check(clFinish(cl.queue), "clFinish");
    char text[64];
    snprintf(text, sizeof text, "%d %f %e", round, round / 3.0, round * 1e10);  // more code to translate
  }
  check(clEnqueueReadBuffer(cl.queue, buffer, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL), "clEnqueueReadBuffer");
  printf("x[0] %d, x[255] %d\n", data[0], data[255]);
  cl_release(&cl, program, kernel, &buffer, 1);
  return 0;
}
