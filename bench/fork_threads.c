// bench/run's fork suite: fork from a process whose other threads run.
//
//   fork_threads FORKS [THREADS]
//
// THREADS workers (default 8) run arithmetic on data of their own, in a
// loop, from before the first fork until after the last; the main thread
// forks FORKS times (the child _exits at once, the parent waits for it).
// How much the workers do depends on how long the forks take, so the
// harness counts the main thread and the children only (bench/tools/
// forkcount.c, first_thread=1), and a fork's cost is the difference
// between two numbers of forks.  Prints what it did, which does not depend
// on scheduling.
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kMaxThreads = 64, kWords = 64 };

struct Worker {
  pthread_t thread;
  uint64_t data[kWords];
  long rounds;
} __attribute__((aligned(128)));  // no two workers share a cache line

static struct Worker workers[kMaxThreads];
static pthread_barrier_t started;
static atomic_int stop;

// A round: a dependent chain of multiplies, shifts and adds over the words.
static void round_of(uint64_t *data) {
  uint64_t carry = data[kWords - 1];
  for (int i = 0; i < kWords; ++i) {
    carry = carry * 6364136223846793005u + data[i];
    data[i] = carry ^ (carry >> 29);
  }
}

// One round before the barrier: each worker is in its loop, translated,
// when the first fork comes.
static void *work(void *arg) {
  struct Worker *w = arg;
  round_of(w->data);
  pthread_barrier_wait(&started);
  for (w->rounds = 1; !atomic_load_explicit(&stop, memory_order_relaxed); ++w->rounds) round_of(w->data);
  return NULL;
}

static int fork_and_wait(long forks) {
  for (long i = 0; i < forks; ++i) {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status)) {
      fprintf(stderr, "fork_threads: fork %ld failed\n", i);
      return 1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  const long forks = argc > 1 ? atol(argv[1]) : 0;
  const int threads = argc > 2 ? atoi(argv[2]) : 8;
  if (forks < 0 || threads < 1 || threads > kMaxThreads) {
    fprintf(stderr, "usage: fork_threads FORKS [THREADS 1-%d]\n", kMaxThreads);
    return 64;
  }
  fflush(stdout);  // nothing buffered may be copied into the children
  pthread_barrier_init(&started, NULL, (unsigned)threads + 1);
  for (int t = 0; t < threads; ++t) {
    for (int i = 0; i < kWords; ++i) workers[t].data[i] = (uint64_t)(t * kWords + i + 1);
    pthread_create(&workers[t].thread, NULL, work, &workers[t]);
  }
  pthread_barrier_wait(&started);
  const int status = fork_and_wait(forks);
  atomic_store(&stop, 1);
  long rounds = 0;
  for (int t = 0; t < threads; ++t) {
    pthread_join(workers[t].thread, NULL);
    rounds += workers[t].rounds;
  }
  printf("%ld forks while %d threads ran\n", forks, threads);
  fprintf(stderr, "fork_threads: the workers ran %ld rounds\n", rounds);
  return status;
}
