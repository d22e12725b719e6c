// Event callbacks, which PoCL calls on a worker thread of its own (not the
// caller's): each kernel waits on a user event, so it runs, and its
// completion is noticed, after clSetEventCallback returned.  A callback
// uses the guest's stack protector, errno, a thread-local variable, stdio
// and an OpenCL call of its own, then tells the main thread by a
// condition variable.  The main thread prints what each callback saw, in
// a fixed order.  The same source built for AArch64 and run natively
// prints the same.
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cl_common.h"

enum { kKernels = 4, kItems = 256 };

struct seen {
  int index;
  cl_int status;         // what the callback was given
  cl_int queried;        // clGetEventInfo's status, from inside the callback
  int on_main_thread;
  int tls_ok, errno_seen;
  char note[48];         // written with snprintf into a stack array first
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_done = PTHREAD_COND_INITIALIZER;
static int finished;
static pthread_t main_thread;
static struct seen seen[kKernels];
static __thread int tls_mark;

static int tls_round_trip(int value) {
  tls_mark = value;
  return tls_mark == value;
}

static void CL_CALLBACK on_complete(cl_event event, cl_int status, void *user) {
  struct seen *s = user;
  char note[48];  // an array: the canary at %fs:0x28 is checked on return
  snprintf(note, sizeof note, "kernel %d done", s->index);
  s->status = status;
  s->on_main_thread = pthread_equal(pthread_self(), main_thread);
  s->tls_ok = tls_round_trip(1000 + s->index);
  errno = 0;
  strtol("99999999999999999999999", NULL, 10);  // overflows: ERANGE in this thread's errno
  s->errno_seen = errno;
  check(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s->queried, &s->queried, NULL),
        "clGetEventInfo in a callback");
  memcpy(s->note, note, sizeof note);
  pthread_mutex_lock(&lock);
  ++finished;
  pthread_cond_signal(&all_done);
  pthread_mutex_unlock(&lock);
}

int main(void) {
  main_thread = pthread_self();
  struct cl_setup cl = cl_open();
  cl_int err;
  cl_program program = cl_build(
      &cl, "__kernel void triple(__global int *x, int add) { size_t i = get_global_id(0); x[i] = x[i] * 3 + add; }\n",
      NULL, NULL);
  cl_kernel kernel = cl_kernel_named(program, "triple");
  int host[kItems];
  for (int i = 0; i < kItems; ++i) host[i] = i - kItems / 2;
  cl_mem buffer = clCreateBuffer(cl.context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof host, host, &err);
  check(err, "clCreateBuffer");
  cl_event gate = clCreateUserEvent(cl.context, &err);
  check(err, "clCreateUserEvent");
  cl_event done[kKernels];
  for (int k = 0; k < kKernels; ++k) {
    seen[k].index = k;
    const int add = k;
    const size_t items = kItems;
    check(clSetKernelArg(kernel, 0, sizeof buffer, &buffer), "clSetKernelArg");
    check(clSetKernelArg(kernel, 1, sizeof add, &add), "clSetKernelArg");
    check(clEnqueueNDRangeKernel(cl.queue, kernel, 1, NULL, &items, NULL, k == 0 ? 1 : 0, k == 0 ? &gate : NULL,
                                 &done[k]),
          "clEnqueueNDRangeKernel");
    check(clSetEventCallback(done[k], CL_COMPLETE, on_complete, &seen[k]), "clSetEventCallback");
  }
  check(clFlush(cl.queue), "clFlush");
  printf("callbacks before the gate opens: %d\n", finished);
  check(clSetUserEventStatus(gate, CL_COMPLETE), "clSetUserEventStatus");
  pthread_mutex_lock(&lock);
  while (finished < kKernels) pthread_cond_wait(&all_done, &lock);
  pthread_mutex_unlock(&lock);
  check(clEnqueueReadBuffer(cl.queue, buffer, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL), "clEnqueueReadBuffer");
  for (int k = 0; k < kKernels; ++k)
    printf("callback %d: '%s', status %d, queried %d, on the main thread %s, TLS %s, errno %s\n", k, seen[k].note,
           seen[k].status, seen[k].queried, seen[k].on_main_thread ? "yes" : "no", seen[k].tls_ok ? "ok" : "WRONG",
           seen[k].errno_seen == ERANGE ? "ERANGE" : "WRONG");
  long sum = 0;
  for (int i = 0; i < kItems; ++i) sum += host[i];
  printf("x[0] %d, x[1] %d, x[%d] %d, sum %ld\n", host[0], host[1], kItems - 1, host[kItems - 1], sum);
  for (int k = 0; k < kKernels; ++k) clReleaseEvent(done[k]);
  clReleaseEvent(gate);
  cl_release(&cl, program, kernel, &buffer, 1);
  return 0;
}
