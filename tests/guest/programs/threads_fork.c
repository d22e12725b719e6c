// fork while other threads run: the child has one thread, the one that
// called fork, whatever the others were doing (translating, flushing the
// code cache, holding a lock).  Each child translates new code (with a
// small code cache it flushes), forks a grandchild, and reports a checksum
// through its exit status.  Only the parent prints, after waiting.
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest_common.h"

enum { kWorkers = 3, kChildren = 12 };
static atomic_int stop;
static atomic_long rounds;

static int compare_ints(const void *a, const void *b) {
  const int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

// Varied work: sorting, formatting floats, parsing them back.
static uint64_t work(uint64_t seed, int n) {
  rng_seed(seed);
  int *values = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) values[i] = (int)rng_below(100000);
  qsort(values, (size_t)n, sizeof *values, compare_ints);
  uint64_t h = FNV_INIT;
  char text[64];
  for (int i = 0; i < n; i += 7) {
    snprintf(text, sizeof text, "%.6g|%x", values[i] / 7.0, (unsigned)values[i]);
    h = fnv1a(h, text, strlen(text));
    h ^= (uint64_t)(strtod(text, NULL) * 1000.0);
  }
  free(values);
  return h;
}

static void *worker(void *arg) {
  uint64_t seed = (uint64_t)(uintptr_t)arg;
  while (!atomic_load(&stop)) {
    seed = work(seed, 300) | 1;
    atomic_fetch_add(&rounds, 1);
  }
  return NULL;
}

// What a child computes, and a grandchild it forks.  (A child does not
// start threads of its own: qemu-user 7.2, under which the tests run on
// x86-64 build machines, fails an assertion there even for a native
// AArch64 program.)
static int child_digest(int i) {
  const uint64_t mine = work(1000 + (uint64_t)i, 2000);
  const pid_t grandchild = fork();
  if (grandchild == 0) _exit((int)(work(5000 + (uint64_t)i, 800) % 200));
  int status = 0;
  if (grandchild < 0 || waitpid(grandchild, &status, 0) != grandchild || !WIFEXITED(status)) return 254;
  return (int)((mine ^ (uint64_t)WEXITSTATUS(status)) % 250);
}

int main(void) {
  fflush(stdout);  // nothing buffered may be duplicated into children
  pthread_t workers[kWorkers];
  for (int i = 0; i < kWorkers; ++i) pthread_create(&workers[i], NULL, worker, (void *)(uintptr_t)(i + 1));
  int statuses[kChildren];
  for (int i = 0; i < kChildren; ++i) {
    while (atomic_load(&rounds) < 2 * i) sched_yield();  // forks land while the workers run
    const pid_t child = fork();
    if (child == 0) _exit(child_digest(i));
    if (child < 0 || waitpid(child, &statuses[i], 0) != child) statuses[i] = -1;
  }
  atomic_store(&stop, 1);
  for (int i = 0; i < kWorkers; ++i) pthread_join(workers[i], NULL);
  for (int i = 0; i < kChildren; ++i) {
    const int expected = child_digest(i);
    const int s = statuses[i];
    if (s >= 0 && WIFEXITED(s)) printf("child %2d: exit %3d, %s\n", i, WEXITSTATUS(s),
                                       WEXITSTATUS(s) == expected ? "as computed here" : "DIFFERENT");
    else printf("child %2d: status %#x\n", i, s);
  }
  return 0;
}
