// The legacy vsyscall page at 0xffffffffff600000, as old static binaries
// call it: gettimeofday, time and getcpu through their fixed addresses
// (Linux emulates them by default), compared with the system calls; a
// call to another address in the page is SIGSEGV, as under Linux.
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

typedef long (*gettimeofday_fn)(struct timeval *, void *);
typedef long (*time_fn)(long *);
typedef long (*getcpu_fn)(unsigned *, unsigned *, void *);

static sigjmp_buf back;
static void on_segv(int sig) {
  (void)sig;
  siglongjmp(back, 1);
}

int main(void) {
  struct timeval tv = {0, 0};
  long r = ((gettimeofday_fn)0xffffffffff600000ul)(&tv, NULL);
  struct timeval now;
  gettimeofday(&now, NULL);
  long diff = (now.tv_sec - tv.tv_sec) * 1000000 + (now.tv_usec - tv.tv_usec);
  printf("gettimeofday: %ld, within 10 s of the system call: %d\n", r, diff >= 0 && diff < 10000000);
  long t_out = 0;
  long t = ((time_fn)0xffffffffff600400ul)(&t_out);
  long t2 = time(NULL);
  printf("time: same as stored %d, within 10 s %d\n", t == t_out, t2 - t >= 0 && t2 - t < 10);
  unsigned cpu = 999, node = 999;
  r = ((getcpu_fn)0xffffffffff600800ul)(&cpu, &node, NULL);
  unsigned cpu2 = 998, node2 = 998;
  syscall(SYS_getcpu, &cpu2, &node2, NULL);
  printf("getcpu: %ld, cpu set %d, node set %d\n", r, cpu != 999, node != 999);
  signal(SIGSEGV, on_segv);
  if (sigsetjmp(back, 1) == 0) {
    ((time_fn)0xffffffffff600100ul)(NULL);
    printf("0xffffffffff600100: returned\n");
  } else {
    printf("0xffffffffff600100: SIGSEGV\n");
  }
  return 0;
}
