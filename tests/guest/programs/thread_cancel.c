// pthread_cancel and the set-ID broadcast, which glibc builds on its own
// signals 32 (SIGCANCEL) and 33 (SIGSETXID): deferred cancellation at
// pthread_testcancel, asynchronous cancellation of a busy loop that makes
// no call at all, cancellation inside blocking read, nanosleep and
// pthread_cond_wait (each with its cleanup handler), a thread that disables
// cancellation until it is ready, and setuid/setgid in a process of 4
// threads, after which every thread (asked with raw per-thread system calls)
// has the new IDs.  Run as root, the IDs change to nobody's in a child;
// otherwise the calls set the IDs the process already has.
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int cleanups;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t ready;
static int pipe_fds[2];

static void count_cleanup(void *arg) { cleanups += (int)(long)arg; }
static void unlock_cleanup(void *arg) {
  pthread_mutex_unlock(arg);
  cleanups += 1;
}

static void *deferred(void *arg) {
  (void)arg;
  pthread_cleanup_push(count_cleanup, (void *)1);
  pthread_barrier_wait(&ready);
  for (;;) pthread_testcancel();
  pthread_cleanup_pop(0);
  return NULL;
}

static volatile unsigned long spins;
static void *asynchronous(void *arg) {
  (void)arg;
  pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
  pthread_cleanup_push(count_cleanup, (void *)10);
  pthread_barrier_wait(&ready);
  for (;;) spins = spins * 3 + 1;
  pthread_cleanup_pop(0);
  return NULL;
}

static void *in_read(void *arg) {
  (void)arg;
  char c;
  pthread_cleanup_push(count_cleanup, (void *)100);
  pthread_barrier_wait(&ready);
  read(pipe_fds[0], &c, 1);
  pthread_cleanup_pop(0);
  return (void *)1;
}

static void *in_nanosleep(void *arg) {
  (void)arg;
  struct timespec long_time = {3600, 0};
  pthread_cleanup_push(count_cleanup, (void *)1000);
  pthread_barrier_wait(&ready);
  nanosleep(&long_time, NULL);
  pthread_cleanup_pop(0);
  return (void *)1;
}

static void *in_cond_wait(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  pthread_cleanup_push(unlock_cleanup, &lock);
  pthread_barrier_wait(&ready);
  for (;;) pthread_cond_wait(&never, &lock);
  pthread_cleanup_pop(1);
  return NULL;
}

static void *disabled_first(void *arg) {
  (void)arg;
  int old;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
  pthread_barrier_wait(&ready);
  struct timespec short_time = {0, 20 * 1000 * 1000};
  nanosleep(&short_time, NULL);  // cancelled meanwhile: no effect yet
  pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, &old);
  pthread_testcancel();
  return (void *)1;
}

static void cancel_one(const char *name, void *(*fn)(void *)) {
  pthread_t t;
  cleanups = 0;
  pthread_barrier_init(&ready, NULL, 2);
  pthread_create(&t, NULL, fn, NULL);
  pthread_barrier_wait(&ready);
  struct timespec settle = {0, 10 * 1000 * 1000};
  nanosleep(&settle, NULL);  // let it reach its blocking call
  int r = pthread_cancel(t);
  void *result;
  pthread_join(t, &result);
  printf("%-14s cancel %d, %s, cleanup %d\n", name, r, result == PTHREAD_CANCELED ? "cancelled" : "returned",
         cleanups);
  pthread_barrier_destroy(&ready);
}

static pthread_barrier_t ids_set, ids_read;
static volatile long seen_uid[4], seen_gid[4];
static void *report_ids(void *arg) {
  long i = (long)arg;
  pthread_barrier_wait(&ids_set);
  seen_uid[i] = syscall(SYS_getuid);  // this thread's own credentials
  seen_gid[i] = syscall(SYS_getgid);
  pthread_barrier_wait(&ids_read);
  return NULL;
}

static int set_ids_in_threads(uid_t uid, gid_t gid) {
  pthread_t t[3];
  pthread_barrier_init(&ids_set, NULL, 4);
  pthread_barrier_init(&ids_read, NULL, 4);
  for (long i = 1; i < 4; ++i) pthread_create(&t[i - 1], NULL, report_ids, (void *)i);
  int r = setgid(gid) | setuid(uid);
  pthread_barrier_wait(&ids_set);
  seen_uid[0] = syscall(SYS_getuid);
  seen_gid[0] = syscall(SYS_getgid);
  pthread_barrier_wait(&ids_read);
  for (int i = 0; i < 3; ++i) pthread_join(t[i], NULL);
  int all = 1;
  for (int i = 0; i < 4; ++i) all &= seen_uid[i] == (long)uid && seen_gid[i] == (long)gid;
  printf("setgid+setuid with 4 threads: %d, every thread has the IDs: %s\n", r, all ? "yes" : "no");
  return all && r == 0;
}

int main(void) {
  pipe(pipe_fds);
  cancel_one("testcancel", deferred);
  cancel_one("asynchronous", asynchronous);
  cancel_one("read", in_read);
  cancel_one("nanosleep", in_nanosleep);
  cancel_one("cond_wait", in_cond_wait);
  cancel_one("disabled", disabled_first);
  pthread_mutex_lock(&lock);  // the cond_wait thread's cleanup unlocked it
  pthread_mutex_unlock(&lock);
  printf("mutex usable after cancelled wait: yes\n");
  fflush(stdout);
  if (geteuid() != 0) return set_ids_in_threads(getuid(), getgid()) ? 0 : 1;
  pid_t child = fork();
  if (child == 0) {
    int ok = set_ids_in_threads(65534, 65534);
    fflush(stdout);
    _exit(ok ? 0 : 1);
  }
  int status;
  waitpid(child, &status, 0);
  printf("child: %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
