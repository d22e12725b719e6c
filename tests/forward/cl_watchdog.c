// A forwarded call that never returns: clWaitForEvents on a user event no
// one completes.  Run with PHYBIN_WATCHDOG (run_watchdog_test.sh): phybin
// must report the call, and stop the program when asked to.
#include "cl_common.h"

int main(void) {
  struct cl_setup cl = cl_open();
  cl_int err;
  cl_event never = clCreateUserEvent(cl.context, &err);
  check(err, "clCreateUserEvent");
  printf("waiting for an event no one completes\n");
  fflush(stdout);
  check(clWaitForEvents(1, &never), "clWaitForEvents");
  printf("the wait ended\n");
  return 1;
}
