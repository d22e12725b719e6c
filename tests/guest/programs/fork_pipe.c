// Processes: fork with a pipe from child to parent, waitpid statuses for a
// normal exit, a kill by signal and an _exit inside a grandchild, dup2 of
// the pipe onto stdout in a child, and execution order made deterministic
// by waiting (only the parent prints, after the children have finished).
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void describe(const char *what, int status) {
  if (WIFEXITED(status)) printf("%s: exited %d\n", what, WEXITSTATUS(status));
  else if (WIFSIGNALED(status)) printf("%s: killed by signal %d\n", what, WTERMSIG(status));
  else printf("%s: other %d\n", what, status);
}

int main(void) {
  fflush(stdout);  // nothing buffered may be duplicated into children
  int fds[2];
  pipe(fds);
  pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    char msg[64];
    int n = snprintf(msg, sizeof msg, "hello from child, 6*7=%d", 6 * 7);
    write(fds[1], msg, (size_t)n);
    close(fds[1]);
    _exit(7);
  }
  close(fds[1]);
  char buf[128] = {0};
  ssize_t total = 0, r;
  while ((r = read(fds[0], buf + total, sizeof buf - 1 - (size_t)total)) > 0) total += r;
  close(fds[0]);
  int status;
  pid_t waited = waitpid(child, &status, 0);
  printf("parent read %zd bytes: [%s]\n", total, buf);
  printf("waitpid returned the child: %d\n", waited == child);
  describe("first child", status);

  child = fork();
  if (child == 0) {
    raise(SIGTERM);
    _exit(0);
  }
  waitpid(child, &status, 0);
  describe("second child", status);

  // Child whose stdout is the pipe; it uses printf, the parent counts lines.
  pipe(fds);
  child = fork();
  if (child == 0) {
    dup2(fds[1], STDOUT_FILENO);
    close(fds[0]);
    close(fds[1]);
    for (int i = 0; i < 100; i++) printf("line %d\n", i);
    exit(0);  // flushes stdio into the pipe
  }
  close(fds[1]);
  long bytes = 0, lines = 0;
  while ((r = read(fds[0], buf, sizeof buf)) > 0) {
    bytes += r;
    for (ssize_t i = 0; i < r; i++) lines += buf[i] == '\n';
  }
  close(fds[0]);
  waitpid(child, &status, 0);
  printf("third child wrote %ld bytes in %ld lines\n", bytes, lines);
  describe("third child", status);

  // Grandchild: the child forks again and reports the grandchild's status.
  child = fork();
  if (child == 0) {
    pid_t g = fork();
    if (g == 0) _exit(33);
    int gs;
    waitpid(g, &gs, 0);
    _exit(WIFEXITED(gs) ? WEXITSTATUS(gs) + 1 : 99);
  }
  waitpid(child, &status, 0);
  describe("child of grandchild", status);
  printf("no more children: %d\n", waitpid(-1, &status, WNOHANG) == -1);
  return 0;
}
