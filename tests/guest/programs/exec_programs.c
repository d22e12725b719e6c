// execve as programs use it: the program starting itself again (through
// /proc/self/exe and by its path) with its own argv[0], a "#!" script run by
// the host's shell, a "#!" script whose interpreter is this x86-64 program
// (with the interpreter's argument and the script's arguments), execveat
// with a directory descriptor and with AT_EMPTY_PATH (fexecve), posix_spawn
// and posix_spawnp (glibc's clone with CLONE_VM | CLONE_VFORK and a stack of
// its own), and the errors: a missing file, a file without execute
// permission, a file in no known format, an empty path.  The signal mask
// survives execve, SIGSEGV and SIGBUS included (phybin keeps those two
// unblocked on the host), into this program and into a native one.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <spawn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

static char self[4096];
static char dir[] = "/tmp/phybin-exec-XXXXXX";

// Paths in the work directory by their base name (the directory is random).
static const char* shown(char* arg) { return strstr(arg, "/phybin-exec-") ? basename(arg) : arg; }

// Child mode: what this image was started with.
static int child_main(int argc, char** argv) {
  printf("  child argc=%d argv0=%s", argc, shown(argv[0]));
  for (int i = 1; i < argc; ++i) printf(" [%s]", shown(argv[i]));
  const char* marker = getenv("EXEC_MARKER");
  printf(" marker=%s", marker ? marker : "(none)");
  sigset_t mask;
  sigprocmask(SIG_BLOCK, NULL, &mask);
  printf(" blocked:%s%s%s\n", sigismember(&mask, SIGSEGV) ? " SEGV" : "", sigismember(&mask, SIGBUS) ? " BUS" : "",
         sigismember(&mask, SIGUSR1) ? " USR1" : "");
  return 40 + argc;
}

// Forks, runs `start` in the child (which execs), reports how it ended.
static void run(const char* what, void (*start)(void)) {
  printf("%s:\n", what);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    start();
    printf("  exec failed: %s\n", strerror(errno));
    fflush(stdout);
    _exit(99);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) printf("  exit %d\n", WEXITSTATUS(status));
  else printf("  signal %d\n", WTERMSIG(status));
}

static char* env_with_marker[] = {"EXEC_MARKER=passed", "PATH=/usr/bin:/bin", NULL};

static void start_proc_self_exe(void) {
  char* argv[] = {"renamed-child", "--child", "one", NULL};
  execve("/proc/self/exe", argv, env_with_marker);
}

static void block_some_signals(void) {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGSEGV);
  sigaddset(&mask, SIGBUS);
  sigaddset(&mask, SIGUSR1);
  sigprocmask(SIG_BLOCK, &mask, NULL);
}

static void start_with_signals_blocked(void) {
  block_some_signals();
  char* argv[] = {"masked", "--child", NULL};
  execve(self, argv, env_with_marker);
}

// A native program (the machine's python3; in the ARM64 world an AArch64
// one) reports whether it starts with SIGUSR1 blocked.  Not SIGSEGV and
// SIGBUS: phybin blocks them on the host right before it starts a native
// program, but qemu-user, under which the ARM64 world runs on x86-64
// machines, never blocks them on its host and so drops them at execve.
static void start_native_with_signals_blocked(void) {
  block_some_signals();
  char* argv[] = {"python3", "-c",
                  "import signal; print('  native program: SIGUSR1 blocked', "
                  "signal.SIGUSR1 in signal.pthread_sigmask(signal.SIG_BLOCK, []))",
                  NULL};
  execve("/usr/bin/python3", argv, env_with_marker);
}

static void start_by_path(void) {
  char* argv[] = {self, "--child", NULL};
  execve(self, argv, environ);
}

static void start_shell_script(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s/shell.sh", dir);
  char* argv[] = {"shell.sh", "alpha", "beta gamma", NULL};
  execve(path, argv, env_with_marker);
}

static void start_self_script(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s/self.script", dir);
  char* argv[] = {"ignored-argv0", "x", NULL};
  execve(path, argv, env_with_marker);
}

static void start_nested_script(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s/nested.script", dir);
  char* argv[] = {"nested", NULL};
  execve(path, argv, env_with_marker);
}

static void start_execveat_dirfd(void) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  char* argv[] = {"via-dirfd", "--child", NULL};
  syscall(SYS_execveat, fd, "copy", argv, env_with_marker, 0);
}

static void start_fexecve(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s/copy", dir);
  int fd = open(path, O_RDONLY);
  char* argv[] = {"via-fd", "--child", NULL};
  fexecve(fd, argv, env_with_marker);
}

// posix_spawn does the fork and the exec itself: no run().
static void spawn(const char* what, int search, const char* file, char* const argv[]) {
  printf("%s:\n", what);
  fflush(stdout);
  pid_t pid = 0;
  int r = search ? posix_spawnp(&pid, file, NULL, NULL, argv, env_with_marker)
                 : posix_spawn(&pid, file, NULL, NULL, argv, env_with_marker);
  if (r != 0) {
    printf("  posix_spawn: %s\n", strerror(r));
    return;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) printf("  exit %d\n", WEXITSTATUS(status));
  else printf("  signal %d\n", WTERMSIG(status));
}

static void expect_error(const char* what, const char* name) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char* argv[] = {(char*)name, NULL};
  errno = 0;
  int r = execve(*name ? path : "", argv, environ);
  printf("%s: %d %s\n", what, r, strerror(errno));
}

static void write_file(const char* name, const char* text, mode_t mode) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE* f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  chmod(path, mode);
}

static void copy_self(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s/copy", dir);
  FILE* in = fopen(self, "rb");
  FILE* out = fopen(path, "wb");
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
  fclose(in);
  fclose(out);
  chmod(path, 0755);
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--child") == 0) return child_main(argc, argv);
  if (argc > 1 && strcmp(argv[1], "--interp") == 0) return child_main(argc, argv);
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0 || !mkdtemp(dir)) return 1;
  self[n] = '\0';
  char text[8400];
  write_file("shell.sh", "#!/bin/sh\necho \"  shell argc=$# [$1] [$2] marker=$EXEC_MARKER\"\nexit 7\n", 0755);
  snprintf(text, sizeof text, "#! %s  --interp \nignored\n", self);
  write_file("self.script", text, 0755);
  snprintf(text, sizeof text, "#!%s/self.script\n", dir);
  write_file("nested.script", text, 0755);
  write_file("not_executable", "#!/bin/sh\n", 0644);
  write_file("garbage", "this is no program\n", 0755);
  copy_self();

  run("/proc/self/exe with a new argv[0]", start_proc_self_exe);
  run("own path", start_by_path);
  run("shell script", start_shell_script);
  run("script run by this program", start_self_script);
  run("script whose interpreter is a script", start_nested_script);
  run("execveat with a directory", start_execveat_dirfd);
  run("fexecve", start_fexecve);
  run("signals blocked across execve", start_with_signals_blocked);
  run("signals blocked across execve of a native program", start_native_with_signals_blocked);
  char* spawn_self[] = {"spawned", "--child", "by posix_spawn", NULL};
  spawn("posix_spawn", 0, self, spawn_self);
  char* spawn_sh[] = {"sh", "-c", "echo \"  sh says $EXEC_MARKER\"; exit 3", NULL};
  spawn("posix_spawnp", 1, "sh", spawn_sh);
  expect_error("missing", "no_such_file");
  expect_error("not executable", "not_executable");
  expect_error("no format", "garbage");
  expect_error("empty path", "");

  const char* names[] = {"shell.sh", "self.script", "nested.script", "not_executable", "garbage", "copy"};
  for (unsigned i = 0; i < sizeof names / sizeof names[0]; ++i) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    unlink(path);
  }
  rmdir(dir);
  return 0;
}
