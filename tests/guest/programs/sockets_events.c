// Sockets and the file-descriptor event calls: socketpair with SCM_RIGHTS
// and SCM_CREDENTIALS, AF_UNIX stream sockets (a path and the abstract
// namespace) between two processes, TCP and UDP on loopback, sendmmsg and
// recvmmsg, socket options, shutdown; timerfd, signalfd, inotify and a
// POSIX timer.  Only values that do not depend on the run are printed
// (no port numbers, pids or times).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHECK(x)                                                        \
  do {                                                                  \
    if (!(x)) {                                                         \
      printf("FAILED %s at line %d: %s\n", #x, __LINE__, strerror(errno)); \
      exit(1);                                                          \
    }                                                                   \
  } while (0)

static void pass_descriptor(void) {
  int sv[2], pipefd[2];
  CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
  CHECK(pipe(pipefd) == 0);
  int on = 1;
  CHECK(setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on) == 0);
  char byte = 'x';
  struct iovec iov = {&byte, 1};
  union {
    char buf[CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof control);
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.buf;
  msg.msg_controllen = CMSG_SPACE(sizeof(int));
  struct cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &pipefd[1], sizeof(int));
  CHECK(sendmsg(sv[0], &msg, 0) == 1);
  close(pipefd[1]);

  char got = 0;
  struct iovec riov = {&got, 1};
  memset(&control, 0, sizeof control);
  struct msghdr rmsg = {0};
  rmsg.msg_iov = &riov;
  rmsg.msg_iovlen = 1;
  rmsg.msg_control = control.buf;
  rmsg.msg_controllen = sizeof control.buf;
  CHECK(recvmsg(sv[1], &rmsg, 0) == 1);
  int received = -1, creds = 0;
  for (struct cmsghdr* r = CMSG_FIRSTHDR(&rmsg); r; r = CMSG_NXTHDR(&rmsg, r)) {
    if (r->cmsg_type == SCM_RIGHTS) memcpy(&received, CMSG_DATA(r), sizeof received);
    if (r->cmsg_type == SCM_CREDENTIALS) {
      struct ucred u;
      memcpy(&u, CMSG_DATA(r), sizeof u);
      creds = u.pid == getpid() && u.uid == getuid();
    }
  }
  CHECK(received >= 0);
  CHECK(write(received, "through a passed fd", 19) == 19);
  close(received);
  char text[32] = {0};
  CHECK(read(pipefd[0], text, sizeof text - 1) == 19);
  printf("socketpair: byte %c, descriptor passed, wrote \"%s\", credentials %s\n", got, text,
         creds ? "ours" : "wrong");
  close(pipefd[0]);
  close(sv[0]);
  close(sv[1]);
}

// A server in a child process answers one line in upper case.
static void serve_one(int listener) {
  int conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
  if (conn < 0) _exit(2);
  char buf[64];
  ssize_t n = recv(conn, buf, sizeof buf, 0);
  for (ssize_t i = 0; i < n; ++i)
    if (buf[i] >= 'a' && buf[i] <= 'z') buf[i] -= 32;
  send(conn, buf, (size_t)n, MSG_NOSIGNAL);
  shutdown(conn, SHUT_WR);
  close(conn);
  _exit(0);
}

static void client_round(int family, const struct sockaddr* addr, socklen_t len, const char* what) {
  int s = socket(family, SOCK_STREAM, 0);
  CHECK(s >= 0);
  CHECK(connect(s, addr, len) == 0);
  CHECK(send(s, "hello over a socket", 19, 0) == 19);
  char buf[64] = {0};
  ssize_t total = 0, n;
  while ((n = recv(s, buf + total, sizeof buf - 1 - (size_t)total, 0)) > 0) total += n;
  printf("%s: \"%s\" (%zd bytes, then end of stream)\n", what, buf, total);
  close(s);
}

static void stream_server(int family, struct sockaddr* addr, socklen_t len, const char* what) {
  int l = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  CHECK(l >= 0);
  int on = 1;
  if (family == AF_INET) CHECK(setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) == 0);
  CHECK(bind(l, addr, len) == 0);
  CHECK(listen(l, 4) == 0);
  socklen_t alen = len;
  CHECK(getsockname(l, addr, &alen) == 0);  // the port the kernel chose
  pid_t pid = fork();
  if (pid == 0) serve_one(l);
  client_round(family, addr, alen, what);
  int status = 0;
  waitpid(pid, &status, 0);
  printf("  server exit %d\n", WEXITSTATUS(status));
  close(l);
}

static void unix_and_tcp(void) {
  struct sockaddr_un un = {0};
  un.sun_family = AF_UNIX;
  snprintf(un.sun_path, sizeof un.sun_path, "/tmp/phybin-sock-%d", getpid());
  unlink(un.sun_path);
  stream_server(AF_UNIX, (struct sockaddr*)&un, sizeof un, "AF_UNIX path");
  unlink(un.sun_path);

  struct sockaddr_un abstract = {0};
  abstract.sun_family = AF_UNIX;
  int n = snprintf(abstract.sun_path + 1, sizeof abstract.sun_path - 1, "phybin-abstract-%d", getpid());
  stream_server(AF_UNIX, (struct sockaddr*)&abstract, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n),
                "AF_UNIX abstract");

  struct sockaddr_in in = {0};
  in.sin_family = AF_INET;
  in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  in.sin_port = 0;
  stream_server(AF_INET, (struct sockaddr*)&in, sizeof in, "TCP loopback");
}

static void udp_batches(void) {
  int a = socket(AF_INET, SOCK_DGRAM, 0), b = socket(AF_INET, SOCK_DGRAM, 0);
  CHECK(a >= 0 && b >= 0);
  struct sockaddr_in addr = {0};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  CHECK(bind(b, (struct sockaddr*)&addr, sizeof addr) == 0);
  CHECK(getsockname(b, (struct sockaddr*)&addr, &len) == 0);
  CHECK(sendto(a, "single", 6, 0, (struct sockaddr*)&addr, len) == 6);
  char buf[32] = {0};
  struct sockaddr_in from;
  socklen_t flen = sizeof from;
  CHECK(recvfrom(b, buf, sizeof buf, 0, (struct sockaddr*)&from, &flen) == 6);
  printf("udp: \"%s\" from loopback %s\n", buf, from.sin_addr.s_addr == htonl(INADDR_LOOPBACK) ? "yes" : "no");

  CHECK(connect(a, (struct sockaddr*)&addr, len) == 0);
  const char* words[3] = {"one", "two!", "three"};
  struct mmsghdr out[3];
  struct iovec oiov[3];
  memset(out, 0, sizeof out);
  for (int i = 0; i < 3; ++i) {
    oiov[i].iov_base = (void*)words[i];
    oiov[i].iov_len = strlen(words[i]);
    out[i].msg_hdr.msg_iov = &oiov[i];
    out[i].msg_hdr.msg_iovlen = 1;
  }
  CHECK(sendmmsg(a, out, 3, 0) == 3);
  struct mmsghdr in[3];
  struct iovec iiov[3];
  char bufs[3][16];
  memset(in, 0, sizeof in);
  memset(bufs, 0, sizeof bufs);
  for (int i = 0; i < 3; ++i) {
    iiov[i].iov_base = bufs[i];
    iiov[i].iov_len = sizeof bufs[i];
    in[i].msg_hdr.msg_iov = &iiov[i];
    in[i].msg_hdr.msg_iovlen = 1;
  }
  CHECK(recvmmsg(b, in, 3, MSG_WAITFORONE, NULL) >= 1);
  printf("mmsg: sent %u+%u+%u bytes, first received \"%s\" (%u)\n", out[0].msg_len, out[1].msg_len, out[2].msg_len,
         bufs[0], in[0].msg_len);
  int type = 0;
  socklen_t tlen = sizeof type;
  CHECK(getsockopt(a, SOL_SOCKET, SO_TYPE, &type, &tlen) == 0);
  struct timeval tv = {1, 500000}, back = {0, 0};
  CHECK(setsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) == 0);
  socklen_t blen = sizeof back;
  CHECK(getsockopt(b, SOL_SOCKET, SO_RCVTIMEO, &back, &blen) == 0);
  printf("options: SO_TYPE dgram %s, SO_RCVTIMEO %ld.%06ld (%u bytes)\n", type == SOCK_DGRAM ? "yes" : "no",
         (long)back.tv_sec, (long)back.tv_usec, blen);
  errno = 0;
  const int bad = socket(12345, SOCK_STREAM, 0);
  printf("bad socket family: %d %s\n", bad, strerror(errno));
  close(a);
  close(b);
}

static volatile sig_atomic_t timer_hits;
static void on_timer(int sig) { timer_hits += sig == SIGUSR2; }

static void event_descriptors(void) {
  int t = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  CHECK(t >= 0);
  struct itimerspec its = {{0, 2000000}, {0, 1000000}};
  CHECK(timerfd_settime(t, 0, &its, NULL) == 0);
  uint64_t expirations = 0;
  CHECK(read(t, &expirations, sizeof expirations) == 8);
  struct itimerspec cur;
  CHECK(timerfd_gettime(t, &cur) == 0);
  printf("timerfd: expired %s, interval %ld ns\n", expirations >= 1 ? "yes" : "no", cur.it_interval.tv_nsec);
  close(t);

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  CHECK(sigprocmask(SIG_BLOCK, &set, NULL) == 0);
  int sfd = signalfd(-1, &set, SFD_CLOEXEC);
  CHECK(sfd >= 0);
  CHECK(kill(getpid(), SIGUSR1) == 0);
  struct signalfd_siginfo si;
  CHECK(read(sfd, &si, sizeof si) == sizeof si);
  printf("signalfd: signal %u, code SI_USER %s, from us %s\n", si.ssi_signo, si.ssi_code == SI_USER ? "yes" : "no",
         si.ssi_pid == (uint32_t)getpid() ? "yes" : "no");
  close(sfd);
  CHECK(sigprocmask(SIG_UNBLOCK, &set, NULL) == 0);

  char dir[] = "/tmp/phybin-inotify-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  int in = inotify_init1(IN_CLOEXEC);
  CHECK(in >= 0);
  int wd = inotify_add_watch(in, dir, IN_CREATE | IN_DELETE);
  CHECK(wd >= 0);
  char path[64];
  snprintf(path, sizeof path, "%s/created.txt", dir);
  close(open(path, O_CREAT | O_WRONLY, 0600));
  unlink(path);
  char buf[4096] __attribute__((aligned(8)));
  ssize_t n = read(in, buf, sizeof buf);
  printf("inotify:");
  for (char* p = buf; p < buf + n;) {
    struct inotify_event* e = (struct inotify_event*)p;
    printf(" %s %s", e->mask & IN_CREATE ? "create" : e->mask & IN_DELETE ? "delete" : "other", e->name);
    p += sizeof *e + e->len;
  }
  printf("\n");
  close(in);
  rmdir(dir);

  struct sigaction sa = {0};
  sa.sa_handler = on_timer;
  CHECK(sigaction(SIGUSR2, &sa, NULL) == 0);
  // Blocked until sigsuspend waits for it: the race-free way to wait for
  // one signal (a check and pause() lose one that comes in between).
  sigset_t usr2, old;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  CHECK(sigprocmask(SIG_BLOCK, &usr2, &old) == 0);
  struct sigevent sev = {0};
  sev.sigev_notify = SIGEV_SIGNAL;
  sev.sigev_signo = SIGUSR2;
  timer_t timer;
  CHECK(timer_create(CLOCK_MONOTONIC, &sev, &timer) == 0);
  struct itimerspec once = {{0, 0}, {0, 1000000}};
  CHECK(timer_settime(timer, 0, &once, NULL) == 0);
  while (timer_hits == 0) sigsuspend(&old);
  CHECK(sigprocmask(SIG_SETMASK, &old, NULL) == 0);
  printf("timer_create: handler ran %d time(s), overrun %d\n", (int)timer_hits, timer_getoverrun(timer));
  CHECK(timer_delete(timer) == 0);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  pass_descriptor();
  unix_and_tcp();
  udp_batches();
  event_descriptors();
  return 0;
}
