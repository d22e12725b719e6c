// POSIX message queues (priorities, attributes, a full queue with
// O_NONBLOCK, a timed receive that times out) and pidfds (pidfd_open of a
// child, pidfd_send_signal, waitid(P_PIDFD), pidfd_getfd of the child's
// pipe end).  Through raw system calls where glibc 2.36 has no wrapper.
// Not mq_notify: qemu-user, under which the tests run on x86-64 machines,
// answers ENOSYS for it (phybin passes it to the host kernel).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD 3
#endif

static void message_queues(void) {
  char name[64];
  snprintf(name, sizeof name, "/phybin-test-%d", (int)getpid());
  struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = 64};
  mqd_t q = mq_open(name, O_CREAT | O_EXCL | O_RDWR | O_NONBLOCK, 0600, &attr);
  if (q == (mqd_t)-1) {
    printf("mq_open: %s\n", strerror(errno));
    return;
  }
  const char* texts[] = {"low", "high", "middle", "low again"};
  const unsigned prios[] = {1, 9, 5, 1};
  for (int i = 0; i < 4; ++i) mq_send(q, texts[i], strlen(texts[i]) + 1, prios[i]);
  printf("fifth send on a full queue: %s\n", mq_send(q, "x", 2, 0) < 0 ? strerror(errno) : "sent");
  mq_getattr(q, &attr);
  printf("attributes: maxmsg %ld, msgsize %ld, curmsgs %ld, nonblocking %d\n", attr.mq_maxmsg, attr.mq_msgsize,
         attr.mq_curmsgs, (attr.mq_flags & O_NONBLOCK) != 0);
  char buf[64];
  unsigned prio;
  for (int i = 0; i < 4; ++i) {
    ssize_t n = mq_receive(q, buf, sizeof buf, &prio);
    printf("received %zd bytes, priority %u: %s\n", n, prio, buf);
  }
  struct mq_attr blocking = {0};
  mq_setattr(q, &blocking, NULL);
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_nsec += 20 * 1000 * 1000;
  if (deadline.tv_nsec >= 1000000000) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1000000000;
  }
  printf("timed receive on an empty queue: %s\n",
         mq_timedreceive(q, buf, sizeof buf, &prio, &deadline) < 0 ? strerror(errno) : "a message");
  mq_close(q);
  const int first = mq_unlink(name);
  const int again = mq_unlink(name);
  printf("mq_unlink: %d, again: %s\n", first, again < 0 ? strerror(errno) : "removed");
}

static void pidfds(void) {
  int fds[2];
  if (pipe(fds) != 0) return;
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    pause();
    _exit(3);
  }
  int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
  if (pidfd < 0) {
    printf("pidfd_open: %s\n", strerror(errno));
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    return;
  }
  int copy = (int)syscall(SYS_pidfd_getfd, pidfd, fds[1], 0);
  if (copy >= 0) {
    write(copy, "via the child's descriptor", 27);
    close(copy);
    char text[32] = {0};
    read(fds[0], text, sizeof text - 1);
    printf("pidfd_getfd: %s\n", text);
  } else {
    printf("pidfd_getfd: %s\n", strerror(errno));  // needs ptrace rights
  }
  printf("pidfd_send_signal: %ld\n", (long)syscall(SYS_pidfd_send_signal, pidfd, SIGTERM, NULL, 0));
  siginfo_t info = {0};
  int r = waitid(P_PIDFD, (id_t)pidfd, &info, WEXITED);
  printf("waitid(P_PIDFD): %d, killed by signal %d\n", r, info.si_code == CLD_KILLED ? info.si_status : 0);
  close(pidfd);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  message_queues();
  pidfds();
  return 0;
}
