// Eight threads at once, with exact totals: lock xadd counters (64 and 8
// bits), a mutex-protected counter, a condition-variable hand-off and a
// barrier between phases, and a bounded lock-free multi-producer
// multi-consumer queue (cmpxchg on sequence numbers) through which four
// producers pass 20000 numbers to four consumers.  Thread start, join and
// exit, thread-local storage and errno per thread.  Only the main thread
// prints, after joining.
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define THREADS 8
#define PER_PRODUCER 5000
#define QUEUE_SLOTS 64

static _Atomic uint64_t atomic_total;
static _Atomic uint8_t atomic_small;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_changed = PTHREAD_COND_INITIALIZER;
static uint64_t locked_total;
static int ready;
static pthread_barrier_t phase;
static __thread uint64_t tls_id;

// Vyukov's bounded MPMC queue: a cell is free for the producer of ticket
// t when its sequence is t, full for the consumer when it is t + 1.
struct cell {
  _Atomic uint64_t seq;
  uint64_t value;
};
static struct cell queue[QUEUE_SLOTS];
static _Atomic uint64_t enqueue_pos, dequeue_pos;

static void push(uint64_t value) {
  for (;;) {
    uint64_t pos = atomic_load_explicit(&enqueue_pos, memory_order_relaxed);
    struct cell *c = &queue[pos % QUEUE_SLOTS];
    uint64_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
    if (seq == pos && atomic_compare_exchange_weak(&enqueue_pos, &pos, pos + 1)) {
      c->value = value;
      atomic_store_explicit(&c->seq, pos + 1, memory_order_release);
      return;
    }
    if (seq < pos) sched_yield();  // full
  }
}

static uint64_t pop(void) {
  for (;;) {
    uint64_t pos = atomic_load_explicit(&dequeue_pos, memory_order_relaxed);
    struct cell *c = &queue[pos % QUEUE_SLOTS];
    uint64_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
    if (seq == pos + 1 && atomic_compare_exchange_weak(&dequeue_pos, &pos, pos + 1)) {
      uint64_t value = c->value;
      atomic_store_explicit(&c->seq, pos + QUEUE_SLOTS, memory_order_release);
      return value;
    }
    if (seq < pos + 1) sched_yield();  // empty
  }
}

struct result {
  uint64_t popped_sum, popped_count;
  int tls_ok, errno_ok;
};

static void *worker(void *arg) {
  const uint64_t id = (uint64_t)(uintptr_t)arg;
  struct result *r = calloc(1, sizeof *r);
  tls_id = id;
  // errno is per thread: this thread's failing call sets its own.
  errno = 0;
  if (id % 2) close(-1);
  r->errno_ok = id % 2 ? errno == EBADF : errno == 0;
  // Phase 1: everyone counts.
  for (int i = 0; i < 20000; i++) {
    atomic_fetch_add(&atomic_total, id + 1);
    if (i % 3 == 0) atomic_fetch_add(&atomic_small, 1);  // wraps: 8 * 6667 mod 256
    if (i % 16 == 0) {
      pthread_mutex_lock(&lock);
      locked_total += id;
      pthread_mutex_unlock(&lock);
    }
  }
  pthread_barrier_wait(&phase);
  // Phase 2: wait for the main thread's go.
  pthread_mutex_lock(&lock);
  while (!ready) pthread_cond_wait(&ready_changed, &lock);
  pthread_mutex_unlock(&lock);
  // Phase 3: half produce, half consume.
  if (id < THREADS / 2) {
    for (uint64_t i = 1; i <= PER_PRODUCER; i++) push(id * 1000000 + i);
  } else {
    for (int i = 0; i < PER_PRODUCER; i++) {
      r->popped_sum += pop();
      r->popped_count++;
    }
  }
  r->tls_ok = tls_id == id;
  return r;
}

int main(void) {
  pthread_t t[THREADS];
  for (int i = 0; i < QUEUE_SLOTS; i++) atomic_init(&queue[i].seq, (uint64_t)i);
  pthread_barrier_init(&phase, NULL, THREADS + 1);
  for (uintptr_t i = 0; i < THREADS; i++)
    if (pthread_create(&t[i], NULL, worker, (void *)i) != 0) return 1;
  pthread_barrier_wait(&phase);
  printf("after phase 1: atomic %" PRIu64 " small %u locked %" PRIu64 "\n", atomic_load(&atomic_total),
         (unsigned)atomic_load(&atomic_small), locked_total);
  pthread_mutex_lock(&lock);
  ready = 1;
  pthread_cond_broadcast(&ready_changed);
  pthread_mutex_unlock(&lock);
  uint64_t sum = 0, count = 0;
  int tls_ok = 0, errno_ok = 0;
  for (int i = 0; i < THREADS; i++) {
    void *ret;
    pthread_join(t[i], &ret);
    struct result *r = ret;
    sum += r->popped_sum;
    count += r->popped_count;
    tls_ok += r->tls_ok;
    errno_ok += r->errno_ok;
    free(r);
  }
  printf("queue: %" PRIu64 " values, sum %" PRIu64 "\n", count, sum);
  printf("tls ok %d, errno ok %d of %d\n", tls_ok, errno_ok, THREADS);
  return 0;
}
