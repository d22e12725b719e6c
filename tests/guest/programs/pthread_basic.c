// Threads with deterministic output: four workers sum disjoint ranges and
// return results through pthread_join, a mutex-protected shared counter,
// a condition variable hand-off (ping-pong) with a fixed order, thread-
// local storage, and pthread_once.  Only the main thread prints.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define WORKERS 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_changed = PTHREAD_COND_INITIALIZER;
static long shared_counter;
static int turn;  // whose move in the ping-pong: 0 or 1
static long pingpong_log[40];
static int log_len;
static __thread long tls_value;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int once_runs;

static void init_once(void) { once_runs++; }

struct job {
  uint64_t from, to;
  uint64_t result;
};

static void *worker(void *arg) {
  struct job *j = arg;
  pthread_once(&once, init_once);
  tls_value = (long)j->from;
  uint64_t sum = 0;
  for (uint64_t i = j->from; i < j->to; i++) sum += i * i % 7919;
  j->result = sum;
  for (int i = 0; i < 10000; i++) {
    pthread_mutex_lock(&lock);
    shared_counter++;
    pthread_mutex_unlock(&lock);
  }
  // tls_value must still be this thread's own value.
  return (void *)(intptr_t)(tls_value == (long)j->from);
}

static void *player(void *arg) {
  int me = (int)(intptr_t)arg;
  for (int round = 0; round < 20; round++) {
    pthread_mutex_lock(&lock);
    while (turn != me) pthread_cond_wait(&turn_changed, &lock);
    pingpong_log[log_len++] = me * 1000 + round;
    turn = 1 - me;
    pthread_cond_broadcast(&turn_changed);
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

int main(void) {
  pthread_t threads[WORKERS];
  struct job jobs[WORKERS];
  for (int i = 0; i < WORKERS; i++) {
    jobs[i].from = (uint64_t)i * 50000;
    jobs[i].to = jobs[i].from + 50000;
    pthread_create(&threads[i], NULL, worker, &jobs[i]);
  }
  uint64_t total = 0;
  for (int i = 0; i < WORKERS; i++) {
    void *ret;
    pthread_join(threads[i], &ret);
    printf("worker %d sum %llu tls ok %d\n", i, (unsigned long long)jobs[i].result, (int)(intptr_t)ret);
    total += jobs[i].result;
  }
  printf("total %llu counter %ld once_runs %d\n", (unsigned long long)total, shared_counter, once_runs);

  pthread_t a, b;
  pthread_create(&a, NULL, player, (void *)(intptr_t)0);
  pthread_create(&b, NULL, player, (void *)(intptr_t)1);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("ping-pong:");
  for (int i = 0; i < log_len; i++) printf(" %ld", pingpong_log[i]);
  printf("\n");
  tls_value = 99;
  printf("main tls %ld\n", tls_value);
  return 0;
}
