// MXCSR is each thread's own: two threads compute the same sums of tiny
// (denormal) floats at the same time, one with flush-to-zero and
// denormals-are-zero set, the other with x86's default; then each switches
// to the other mode.  phybin translates for one MXCSR mode at a time and
// flushes its translations to switch, here while the other thread runs.
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <xmmintrin.h>

#define ROUNDS 40

static pthread_barrier_t barrier;

static float tiny_sum(int seed) {
  volatile float x = 1e-38f * (float)(seed % 7 + 1);
  float s = 0.0f;
  for (int i = 0; i < 200; ++i) s += x * 0.5f + (float)i * 1e-40f;
  return s;
}

struct result {
  uint32_t bits[ROUNDS];
};

static void* worker(void* arg) {
  const int flush = (int)(intptr_t)arg;
  static struct result results[2];
  struct result* r = &results[flush];
  for (int round = 0; round < ROUNDS; ++round) {
    const int on = (round / 10 + flush) % 2;
    _mm_setcsr(on ? (_mm_getcsr() | 0x8040) : (_mm_getcsr() & ~0x8040u));
    pthread_barrier_wait(&barrier);
    float s = tiny_sum(round + flush);
    memcpy(&r->bits[round], &s, sizeof s);
  }
  return r;
}

int main(void) {
  pthread_barrier_init(&barrier, NULL, 2);
  pthread_t t[2];
  for (intptr_t i = 0; i < 2; ++i) pthread_create(&t[i], NULL, worker, (void*)i);
  for (int i = 0; i < 2; ++i) {
    struct result* r;
    pthread_join(t[i], (void**)&r);
    printf("thread %d:", i);
    for (int round = 0; round < ROUNDS; round += 5) printf(" %08x", r->bits[round]);
    printf("\n");
  }
  return 0;
}
