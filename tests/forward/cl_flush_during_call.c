// A forwarded call that blocks while another thread fills the code cache
// (run with a small PHYBIN_CACHE_SIZE): the main thread waits in
// clWaitForEvents on a user event (its second call: the first found the
// function, and translated code now calls it directly); a second thread
// runs enough varied code to make phybin flush its translations
// meanwhile, then completes the event.  The waiting thread must come back from the native call
// even though the code it was called from is gone, and go on.  The same
// source built for AArch64 and run natively prints the same.
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cl_common.h"

static cl_event gate;

static int compare(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void *busy(void *arg) {
  double values[512];
  char text[64];
  unsigned long sum = 0;
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < 512; ++i) values[i] = (double)((i * 7919 + round * 104729) % 1000) / 7.0;
    qsort(values, 512, sizeof values[0], compare);
    for (int i = 0; i < 512; i += 37) {
      snprintf(text, sizeof text, "%.3f %e %g %x", values[i], values[i] * 1e5, values[i] / 3, i * round);
      sum += strlen(text) + (unsigned long)strtod(text, NULL);
    }
  }
  *(unsigned long *)arg = sum;
  check(clSetUserEventStatus(gate, CL_COMPLETE), "clSetUserEventStatus");
  return NULL;
}

int main(void) {
  struct cl_setup cl = cl_open();
  cl_int err;
  cl_event done = clCreateUserEvent(cl.context, &err);
  check(err, "clCreateUserEvent");
  check(clSetUserEventStatus(done, CL_COMPLETE), "clSetUserEventStatus");
  check(clWaitForEvents(1, &done), "clWaitForEvents (done already)");
  clReleaseEvent(done);
  gate = clCreateUserEvent(cl.context, &err);
  check(err, "clCreateUserEvent");
  unsigned long sum = 0;
  pthread_t thread;
  if (pthread_create(&thread, NULL, busy, &sum) != 0) return 2;
  check(clWaitForEvents(1, &gate), "clWaitForEvents");
  pthread_join(thread, NULL);
  cl_int status = 1;
  check(clGetEventInfo(gate, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL), "clGetEventInfo");
  printf("after the wait: event status %d, the other thread's sum %lu\n", status, sum);
  clReleaseEvent(gate);
  cl_close(&cl);
  return 0;
}
