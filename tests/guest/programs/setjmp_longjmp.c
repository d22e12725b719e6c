// setjmp/longjmp: jumps out of deep recursion, nested jump buffers, the
// value 0 turned into 1, volatile locals kept across the jump, and
// sigsetjmp/siglongjmp saving and restoring the signal mask.
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>

static jmp_buf outer, inner;
static int depth_reached;

// Every path ends in longjmp, which GCC sees as endless recursion.
#pragma GCC diagnostic ignored "-Winfinite-recursion"
static void dive(int depth, int limit) {
  depth_reached = depth;
  if (depth == limit) longjmp(outer, depth);
  dive(depth + 1, limit);
}

static int try_inner(int value) {
  volatile int counter = 0;
  int r = setjmp(inner);
  counter++;
  if (r == 0) {
    if (value >= 0) longjmp(inner, value);  // value 0 must come back as 1
    return -1;
  }
  printf("inner got %d after %d passes\n", r, counter);
  return r;
}

static int nested(void) {
  jmp_buf saved;
  int r = setjmp(saved);
  if (r == 0) {
    jmp_buf *target = &saved;
    for (int i = 0; i < 3; i++) try_inner(i);
    longjmp(*target, 77);
  }
  return r;
}

static sigjmp_buf sigbuf;

static void mask_demo(int save) {
  sigset_t set, now;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  if (sigsetjmp(sigbuf, save) == 0) {
    sigprocmask(SIG_BLOCK, &set, NULL);
    siglongjmp(sigbuf, 1);
  }
  sigprocmask(SIG_BLOCK, NULL, &now);
  printf("savemask=%d SIGUSR1 blocked after siglongjmp: %d\n", save, sigismember(&now, SIGUSR1));
}

int main(void) {
  for (volatile int limit = 1; limit <= 10000; limit *= 10) {
    volatile int local = limit * 2;
    int r = setjmp(outer);
    if (r == 0) {
      dive(0, limit);
      printf("not reached\n");
    } else {
      printf("jumped from depth %d (r=%d, local=%d, reached=%d)\n", limit, r, local,
             depth_reached);
    }
  }
  printf("nested returned %d\n", nested());
  mask_demo(1);
  mask_demo(0);
  volatile long acc = 0;
  jmp_buf loop;
  int n = setjmp(loop);
  acc += n;
  if (n < 100) longjmp(loop, n + 1);
  printf("loop via longjmp acc %ld\n", acc);
  return 0;
}
