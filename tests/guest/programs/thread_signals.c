// Signals and threads: pthread_kill reaches the thread it names (the
// handler runs there: it sees that thread's TLS), a thread's signal mask
// is its own (a signal blocked in one thread is taken by the other), and
// a fault in a thread runs the handler on that thread, on the thread's
// own alternate stack, and the handler longjmps out.  Only the main thread prints, after joining.
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static __thread int whoami;
static volatile int usr1_seen_by[3], usr2_seen_by[3];
static __thread sigjmp_buf fault_return;
static volatile int faults_in[3], on_own_altstack[3];
static __thread char *altstack_base;
#define ALTSTACK_BYTES 65536
static pthread_barrier_t sync_point;
static int *volatile unmapped = (int *)8;

static void on_usr1(int sig) {
  (void)sig;
  usr1_seen_by[whoami]++;
}

static void on_usr2(int sig) {
  (void)sig;
  usr2_seen_by[whoami]++;
}

static void on_segv(int sig) {
  (void)sig;
  char here;
  faults_in[whoami]++;
  on_own_altstack[whoami] = altstack_base && &here >= altstack_base && &here < altstack_base + ALTSTACK_BYTES;
  siglongjmp(fault_return, 1);
}

static void *worker(void *arg) {
  whoami = (int)(long)arg;
  if (whoami == 2) {  // blocks SIGUSR2: a process-wide one goes to another thread
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
  }
  pthread_barrier_wait(&sync_point);  // 1: masks set
  pthread_barrier_wait(&sync_point);  // 2: signals sent
  // A fault of this thread: its own handler run, on its own alternate
  // stack (sigaltstack is per thread), and its own jump back.
  stack_t ss = {.ss_sp = altstack_base = malloc(ALTSTACK_BYTES), .ss_size = ALTSTACK_BYTES, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  if (sigsetjmp(fault_return, 1) == 0) *unmapped = whoami;
  return NULL;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, NULL);
  sa.sa_handler = on_usr2;
  sigaction(SIGUSR2, &sa, NULL);
  sa.sa_handler = on_segv;
  sa.sa_flags = SA_NODEFER | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, NULL);
  whoami = 0;
  pthread_barrier_init(&sync_point, NULL, 3);
  pthread_t t1, t2;
  pthread_create(&t1, NULL, worker, (void *)1L);
  pthread_create(&t2, NULL, worker, (void *)2L);
  // The main thread blocks SIGUSR2 too: only thread 1 may take it.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  pthread_barrier_wait(&sync_point);
  pthread_kill(t2, SIGUSR1);
  pthread_kill(t1, SIGUSR1);
  kill(getpid(), SIGUSR2);
  // The threads wait in the barrier meanwhile: each takes its signal there.
  usleep(100000);
  pthread_barrier_wait(&sync_point);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("SIGUSR1 by thread: main %d, 1 %d, 2 %d\n", usr1_seen_by[0], usr1_seen_by[1], usr1_seen_by[2]);
  printf("SIGUSR2 (process-wide, blocked in main and 2): main %d, 1 %d, 2 %d\n", usr2_seen_by[0], usr2_seen_by[1],
         usr2_seen_by[2]);
  printf("faults handled on their own thread: main %d, 1 %d, 2 %d\n", faults_in[0], faults_in[1], faults_in[2]);
  printf("on the thread's own alternate stack: 1 %d, 2 %d\n", on_own_altstack[1], on_own_altstack[2]);
  return 0;
}
