// Asynchronous signals: SIGALRM ending loops that make no system calls
// (a direct self-loop and a loop of indirect calls), a blocking read
// interrupted with and without SA_RESTART, sigsuspend, the handler mask
// (sa_mask holding back a signal raised inside a handler or pending with
// it, nested delivery without it, SA_NODEFER, a handler changing
// uc_sigmask), SIGCHLD from a child, SIGSEGV sent with kill while blocked,
// a stack overflow caught on the alternate stack.
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

static volatile sig_atomic_t alarms, depth, max_depth, calls, chld;
static int pipe_fd[2];
static char order[64];
static volatile int order_len;

static void note(char c) { order[order_len++] = c; }

static void install(int sig, void (*fn)(int, siginfo_t *, void *), int flags, int masked) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = fn;
  sa.sa_flags = SA_SIGINFO | flags;
  sigemptyset(&sa.sa_mask);
  if (masked) sigaddset(&sa.sa_mask, masked);
  sigaction(sig, &sa, NULL);
}

static void on_alarm(int sig, siginfo_t *info, void *ctx) {
  (void)sig, (void)info, (void)ctx;
  alarms++;
  if (write(pipe_fd[1], "x", 1) != 1) alarms = -100;
}

static void arm_timer(void) {
  struct itimerval t = {{0, 0}, {0, 20000}};
  setitimer(ITIMER_REAL, &t, NULL);
}

static long step(long x) { return x * 3 + 1; }
static long (*volatile step_ptr)(long) = step;

static void on_usr(int sig, siginfo_t *info, void *ctx) {
  (void)info;
  if (sig == SIGUSR1) {
    note('[');
    raise(SIGUSR2);
    note(']');
    ((ucontext_t *)ctx)->uc_sigmask.__val[0] |= 1ul << (SIGTERM - 1);
  } else {
    note('2');
  }
}

static void on_mark(int sig, siginfo_t *info, void *ctx) {
  sigset_t pending;
  (void)info, (void)ctx;
  note(sig == SIGUSR1 ? '1' : '2');
  sigpending(&pending);
  if (sig == SIGUSR1 && sigismember(&pending, SIGUSR2)) note('p');
}

static void on_nodefer(int sig, siginfo_t *info, void *ctx) {
  (void)info, (void)ctx;
  depth++;
  if (depth > max_depth) max_depth = depth;
  if (++calls < 3) raise(sig);
  depth--;
}

static void on_chld(int sig, siginfo_t *info, void *ctx) {
  (void)sig, (void)ctx;
  chld += info->si_code == CLD_EXITED && info->si_status == 7;
}

static sigjmp_buf recover;
static volatile int segv_code = 99, on_alt;
static char alt[1 << 16];
static void on_segv(int sig, siginfo_t *info, void *ctx) {
  char here;
  (void)sig, (void)ctx;
  segv_code = info->si_code;
  on_alt = &here >= alt && &here < alt + sizeof alt;
  siglongjmp(recover, 1);
}

#pragma GCC diagnostic ignored "-Winfinite-recursion"
static int recurse(volatile char *p) {
  volatile char pad[256];
  pad[0] = *p;
  return recurse(pad) + pad[1];
}

int main(void) {
  pipe(pipe_fd);
  install(SIGALRM, on_alarm, 0, 0);
  arm_timer();
  while (!alarms) {
  }
  printf("alarm ended a spin loop: %d\n", alarms);
  alarms = 0;
  long x = 1;
  arm_timer();
  while (!alarms) x = step_ptr(x) & 0xffff;
  printf("alarm ended a loop of indirect calls: %d\n", alarms);
  char c = 0;
  read(pipe_fd[0], &c, 1);
  read(pipe_fd[0], &c, 1);

  install(SIGALRM, on_alarm, SA_RESTART, 0);
  arm_timer();
  errno = 0;
  ssize_t n = read(pipe_fd[0], &c, 1);
  printf("SA_RESTART read: %zd '%c' errno %d alarms %d\n", n, c, errno, alarms);
  install(SIGALRM, on_alarm, 0, 0);
  arm_timer();
  n = read(pipe_fd[0], &c, 1);
  int e = errno;
  printf("plain read: %zd errno EINTR %d alarms %d\n", n, e == EINTR, alarms);
  n = read(pipe_fd[0], &c, 1);
  printf("then read: %zd '%c'\n", n, c);

  install(SIGUSR1, on_usr, 0, 0);
  sigset_t block, old, now;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigprocmask(SIG_BLOCK, &block, &old);
  kill(getpid(), SIGUSR1);
  install(SIGUSR2, on_usr, 0, 0);
  sigset_t wait_mask;
  sigemptyset(&wait_mask);
  int r = sigsuspend(&wait_mask);
  e = errno;
  sigprocmask(SIG_SETMASK, NULL, &now);
  printf("sigsuspend: %d EINTR %d order %s USR1 still blocked %d SIGTERM blocked by the handler %d\n", r,
         e == EINTR, order, sigismember(&now, SIGUSR1), sigismember(&now, SIGTERM));
  sigprocmask(SIG_SETMASK, &old, NULL);
  order_len = 0;
  memset(order, 0, sizeof order);
  install(SIGUSR1, on_usr, 0, SIGUSR2);
  raise(SIGUSR1);
  printf("sa_mask holds SIGUSR2 back: %s\n", order);
  order_len = 0;
  memset(order, 0, sizeof order);
  install(SIGUSR1, on_mark, 0, SIGUSR2);
  install(SIGUSR2, on_mark, 0, 0);
  sigaddset(&block, SIGUSR2);
  sigprocmask(SIG_BLOCK, &block, &old);
  raise(SIGUSR2);
  raise(SIGUSR1);
  sigprocmask(SIG_SETMASK, &old, NULL);
  printf("two pending: the lower first, the other pending behind its sa_mask: %s\n", order);

  install(SIGUSR2, on_nodefer, SA_NODEFER, 0);
  raise(SIGUSR2);
  printf("SA_NODEFER nesting depth %d\n", max_depth);
  max_depth = 0;
  calls = 0;
  install(SIGUSR2, on_nodefer, 0, 0);
  raise(SIGUSR2);
  printf("default: depth %d, %d calls one after the other\n", max_depth, calls);

  install(SIGCHLD, on_chld, SA_RESTART, 0);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) _exit(7);
  int st;
  waitpid(pid, &st, 0);
  printf("SIGCHLD for the child's exit: %d, status %d\n", chld, WEXITSTATUS(st));

  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  install(SIGSEGV, on_segv, SA_ONSTACK, 0);
  if (sigsetjmp(recover, 1) == 0) {  // blocked, SIGSEGV from kill waits for the unblock
    sigemptyset(&block);
    sigaddset(&block, SIGSEGV);
    sigprocmask(SIG_BLOCK, &block, NULL);
    kill(getpid(), SIGSEGV);
    sigpending(&now);
    printf("SIGSEGV sent by kill while blocked: pending %d, not handled %d\n", sigismember(&now, SIGSEGV),
           segv_code == 99);
    sigprocmask(SIG_UNBLOCK, &block, NULL);
  }
  printf("handled once unblocked: si_code SI_USER %d\n", segv_code == SI_USER);
  volatile char seed = 1;
  if (sigsetjmp(recover, 1) == 0) recurse(&seed);
  printf("stack overflow caught on the alternate stack: %d, SEGV_MAPERR or ACCERR %d\n", on_alt,
         segv_code == SEGV_MAPERR || segv_code == SEGV_ACCERR);
  return 0;
}
