// Threads that map, unmap and protect memory while other threads run code
// in it and read it: 6 threads call functions in 8 pages and read them in
// a loop, while 2 threads unmap and map the pages again (MAP_FIXED, the
// code written anew), take PROT_EXEC away and give it back, and make them
// PROT_NONE for a moment.  A call or read that meets a page in the wrong
// state faults, and the thread's SIGSEGV handler goes on with the next
// one; a call that runs returns its page's number.  Only what does not
// depend on timing is printed.
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGES 8
#define RUNNERS 6
#define CHURNERS 2
#define CALLS 20000
#define CHANGES 3000

static char *region;
static __thread sigjmp_buf back;
static volatile int wrong_results;

static void on_segv(int sig) {
  (void)sig;
  siglongjmp(back, 1);
}

// mov $page, %eax; ret, padded with nops over the whole page.
static void write_code(char *p, int page) {
  memset(p, 0x90, 4096);
  p[0] = (char)0xb8;
  memcpy(p + 1, &page, 4);
  p[5] = (char)0xc3;
}

static void *run(void *arg) {
  uint64_t seed = (uint64_t)(uintptr_t)arg * 0x9E3779B97F4A7C15ull + 1;
  for (volatile int i = 0; i < CALLS; i++) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    const int page = (int)(seed % PAGES);
    if (sigsetjmp(back, 1)) continue;
    char *p = region + page * 4096;
    if (seed & 0x100) {
      if (((int (*)(void))p)() != page) wrong_results++;
    } else if (p[seed % 4096] == 0x42) {
      wrong_results++;  // no byte of the code is 0x42
    }
  }
  return NULL;
}

static void *churn(void *arg) {
  uint64_t seed = (uint64_t)(uintptr_t)arg * 0xD1B54A32D192ED03ull + 7;
  for (int i = 0; i < CHANGES; i++) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    // Each churner has pages of its own: two changing one page at once
    // could fault each other.
    const int page = (int)(seed % (PAGES / CHURNERS)) * CHURNERS + (int)((uintptr_t)arg - 1);
    char *p = region + page * 4096;
    switch (seed >> 60 & 3) {
      case 0:
        munmap(p, 4096);
        mmap(p, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        write_code(p, page);
        mprotect(p, 4096, PROT_READ | PROT_EXEC);
        break;
      case 1:
        mprotect(p, 4096, PROT_READ);
        mprotect(p, 4096, PROT_READ | PROT_EXEC);
        break;
      case 2:
        mprotect(p, 4096, PROT_NONE);
        mprotect(p, 4096, PROT_READ | PROT_EXEC);
        break;
      default:
        mprotect(p, 4096, PROT_READ | PROT_WRITE);
        write_code(p, page);
        mprotect(p, 4096, PROT_READ | PROT_EXEC);
        break;
    }
  }
  return NULL;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_segv;
  sa.sa_flags = SA_NODEFER;
  sigaction(SIGSEGV, &sa, NULL);
  sigaction(SIGBUS, &sa, NULL);
  region = mmap(0, PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  for (int i = 0; i < PAGES; i++) write_code(region + i * 4096, i);
  mprotect(region, PAGES * 4096, PROT_READ | PROT_EXEC);
  pthread_t runners[RUNNERS], churners[CHURNERS];
  for (long i = 0; i < RUNNERS; i++) pthread_create(&runners[i], NULL, run, (void *)(i + 1));
  for (long i = 0; i < CHURNERS; i++) pthread_create(&churners[i], NULL, churn, (void *)(i + 1));
  for (int i = 0; i < RUNNERS; i++) pthread_join(runners[i], NULL);
  for (int i = 0; i < CHURNERS; i++) pthread_join(churners[i], NULL);
  printf("%d runners made %d calls and reads each, %d churners %d changes each\n", RUNNERS, CALLS, CHURNERS,
         CHANGES);
  printf("wrong results: %d\n", wrong_results);
  for (int i = 0; i < PAGES; i++)
    if (((int (*)(void))(region + i * 4096))() != i) printf("page %d returns another number\n", i);
  printf("every page runs its code at the end\n");
  return 0;
}
