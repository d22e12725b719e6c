// Code one thread writes while another runs it, as a JIT with a compiler
// thread does: the writer patches the immediate of `mov eax, imm32; ret`
// in an executable buffer, then publishes a version number; the runner,
// which has been calling that code all along, waits for the version, runs
// CPUID (the serialisation x86 asks of cross-modifying code) and must see
// the new immediate.  Also a whole new function written into a fresh part
// of the buffer and called by the other thread.
#include <cpuid.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define ROUNDS 200

static unsigned char* code;
static atomic_int version;
static atomic_int seen;

typedef int (*fn)(void);

static void write_function(unsigned char* at, int value) {
  unsigned char body[] = {0xb8, 0, 0, 0, 0, 0xc3};  // mov eax, imm32; ret
  memcpy(body + 1, &value, 4);
  memcpy(at, body, sizeof body);
}

static void serialize(void) {
  unsigned a, b, c, d;
  __cpuid(0, a, b, c, d);
}

static void* runner(void* arg) {
  (void)arg;
  long mismatches = 0;
  for (int round = 1; round <= ROUNDS; ++round) {
    while (atomic_load(&version) < round) {
      ((fn)code)();  // the old code, still running while the writer writes
    }
    serialize();
    if (((fn)code)() != round * 1000) ++mismatches;
    if (((fn)(code + 64 * (round % 8 + 1)))() != round * 7) ++mismatches;
    atomic_store(&seen, round);
  }
  printf("runner: %d rounds, %ld mismatches\n", ROUNDS, mismatches);
  return NULL;
}

int main(void) {
  code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return 1;
  write_function(code, 0);
  pthread_t t;
  pthread_create(&t, NULL, runner, NULL);
  for (int round = 1; round <= ROUNDS; ++round) {
    while (atomic_load(&seen) < round - 1) {
    }
    write_function(code, round * 1000);
    write_function(code + 64 * (round % 8 + 1), round * 7);
    atomic_store(&version, round);
  }
  pthread_join(t, NULL);
  printf("writer: done\n");
  return 0;
}
