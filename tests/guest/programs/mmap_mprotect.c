// Memory mapping: anonymous private and shared mappings, MAP_FIXED over
// part of a mapping, mprotect to read-only with a write that faults (caught
// by a SIGSEGV handler), munmap of a middle page (the rest stays), mremap
// growing and moving, a file mapping in a temporary file, and brk via sbrk.
#define _GNU_SOURCE  // mremap
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static sigjmp_buf env;
static void on_segv(int sig) {
  (void)sig;
  siglongjmp(env, 1);
}

static int try_write(volatile char *p, char v) {
  if (sigsetjmp(env, 1) == 0) {
    *p = v;
    return 1;
  }
  return 0;
}

static int try_read(volatile char *p) {
  if (sigsetjmp(env, 1) == 0) {
    (void)*p;
    return 1;
  }
  return 0;
}

int main(void) {
  signal(SIGSEGV, on_segv);
  long page = sysconf(_SC_PAGESIZE);
  size_t len = (size_t)page * 8;
  char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  printf("mmap ok %d zero-filled %d\n", m != MAP_FAILED, m[0] == 0 && m[len - 1] == 0);
  for (size_t i = 0; i < len; i++) m[i] = (char)(i / (size_t)page);
  mprotect(m + page, (size_t)page, PROT_READ);
  printf("write to read-only page: %s\n", try_write(m + page + 5, 1) ? "allowed" : "faulted");
  printf("read from read-only page: %s, value %d\n", try_read(m + page + 5) ? "ok" : "faulted", m[page + 5]);
  mprotect(m + page, (size_t)page, PROT_NONE);
  printf("read from PROT_NONE page: %s\n", try_read(m + page) ? "ok" : "faulted");
  mprotect(m + page, (size_t)page, PROT_READ | PROT_WRITE);
  printf("after restoring: write %s\n", try_write(m + page, 9) ? "ok" : "faulted");

  munmap(m + 3 * page, (size_t)page);
  printf("unmapped middle page: read %s; neighbours %d %d\n", try_read(m + 3 * page) ? "ok" : "faulted", m[2 * page],
         m[4 * page]);
  char *fixed = mmap(m + 3 * page, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  printf("MAP_FIXED refill at same place %d, zero %d\n", fixed == m + 3 * page, fixed[0] == 0);

  char *grown = mremap(m, len, len * 4, MREMAP_MAYMOVE);
  printf("mremap ok %d kept %d %d new tail zero %d\n", grown != MAP_FAILED, grown[page * 2], grown[page * 7],
         grown[len * 4 - 1] == 0);
  munmap(grown, len * 4);

  // Shared anonymous mapping seen by a child process.
  int *shared = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  *shared = 1;
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    *shared = 4242;
    _exit(0);
  }
  int st;
  waitpid(pid, &st, 0);
  printf("shared mapping after child: %d\n", *shared);

  char path[] = "/tmp/phybin-mmap-XXXXXX";
  int fd = mkstemp(path);
  unlink(path);
  ftruncate(fd, page * 2);
  char *fm = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  strcpy(fm + page, "written through the mapping");
  msync(fm, (size_t)page * 2, MS_SYNC);
  char back[64] = {0};
  pread(fd, back, sizeof back - 1, page);
  printf("file mapping round trip: [%s]\n", back);
  munmap(fm, (size_t)page * 2);
  close(fd);

  void *b0 = sbrk(0);
  void *b1 = sbrk(page * 4);
  memset(b1, 7, (size_t)page * 4);
  void *b2 = sbrk(0);
  printf("sbrk grew by %ld, old break returned %d\n", (long)((char *)b2 - (char *)b0), b1 == b0);
  sbrk(-page * 4);
  printf("sbrk shrank back %d\n", sbrk(0) == b0);
  return 0;
}
