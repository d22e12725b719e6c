// Message passing, the litmus test x86's ordering (TSO) decides: one
// thread stores data, then a flag, with plain stores; the other waits for
// the flag with plain loads, then reads the data.  x86 never lets the
// reader see the new flag with old data.  An ARM64 CPU may, unless the
// translation keeps x86's order (PHYBIN_TSO): under PHYBIN_TSO=off this
// can fail on a multi-core ARM64 machine; under qemu on an x86-64 build
// machine it passes either way (qemu's own accesses follow the host's
// TSO).  The waits yield: on a loaded build machine a spinning thread
// would hold its core for a whole time slice.
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>

#define ROUNDS 20000

// Plain accesses through volatile: the compiler keeps each one and its
// order, emitting ordinary movs (no fences, no lock prefixes).
static volatile uint64_t data, flag;
static uint64_t violations;

static void *writer(void *arg) {
  (void)arg;
  for (uint64_t i = 1; i <= ROUNDS; i++) {
    data = i;
    flag = i;
    while (flag != 0) sched_yield();  // the reader hands the turn back
  }
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  for (uint64_t i = 1; i <= ROUNDS; i++) {
    uint64_t f;
    while ((f = flag) == 0) sched_yield();
    if (data < f) violations++;
    flag = 0;
  }
  return NULL;
}

int main(void) {
  pthread_t w, r;
  pthread_create(&r, NULL, reader, NULL);
  pthread_create(&w, NULL, writer, NULL);
  pthread_join(w, NULL);
  pthread_join(r, NULL);
  printf("message passing: %d rounds, %llu times the flag was seen before its data\n", ROUNDS,
         (unsigned long long)violations);
  return 0;
}
