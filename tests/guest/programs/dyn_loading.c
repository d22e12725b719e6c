// The guest's own dynamic loader at work: dlopen with lazy and immediate
// binding, dlsym, dlerror, dynamic TLS and an IFUNC in the loaded library,
// dlclose; then the program starts itself again with LD_PRELOAD (a
// constructor before main, libc's rand() interposed), LD_BIND_NOW and
// LD_LIBRARY_PATH.  Its two libraries are built beside it
// (dyn_loading_libs/); it runs only as a dynamic program.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[4096];

static void plugin(int mode, const char* what) {
  char path[4200];
  snprintf(path, sizeof path, "%s/libphybin_plugin.so", dir);
  void* h = dlopen(path, mode);
  if (!h) {
    printf("%s: dlopen failed\n", what);
    return;
  }
  long (*sum)(const int*, int) = (long (*)(const int*, int))dlsym(h, "plugin_sum");
  int (*count)(void) = (int (*)(void))dlsym(h, "plugin_count");
  const char* (*name)(void) = (const char* (*)(void))dlsym(h, "plugin_name");
  const int values[] = {3, 1, 4, 1, 5, 9, 2, 6, 5};
  count();
  count();
  printf("%s: %s, sum %ld, calls %d, missing symbol %s\n", what, name(), sum(values, 9), count(),
         dlsym(h, "no_such_symbol") == NULL && dlerror() != NULL ? "reported" : "NOT reported");
  dlclose(h);
}

int main(int argc, char** argv) {
  ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
  if (n <= 0) return 1;
  dir[n] = '\0';
  strcpy(dir, dirname(dir));
  printf("%s: rand() %d\n", argc > 1 ? "second run" : "first run", rand());
  if (argc > 1) {
    const char* bind = getenv("LD_BIND_NOW");
    printf("  LD_BIND_NOW %s\n", bind ? bind : "unset");
    plugin(RTLD_LAZY, "  dlopen through LD_LIBRARY_PATH's directory");
    return 0;
  }
  plugin(RTLD_LAZY, "dlopen lazy");
  plugin(RTLD_NOW | RTLD_LOCAL, "dlopen now");
  printf("missing library: %s\n", dlopen("libphybin_absent.so.9", RTLD_NOW) == NULL ? "refused" : "loaded?");
  fflush(stdout);

  char preload[4200], env_preload[4300], env_path[4300];
  snprintf(preload, sizeof preload, "%s/libphybin_preload.so", dir);
  snprintf(env_preload, sizeof env_preload, "LD_PRELOAD=%s", preload);
  snprintf(env_path, sizeof env_path, "LD_LIBRARY_PATH=%s", dir);
  char* child_env[] = {env_preload, "LD_BIND_NOW=1", env_path, "PATH=/usr/bin:/bin", NULL};
  char* child_argv[] = {argv[0], "again", NULL};
  pid_t pid = fork();
  if (pid == 0) {
    execve("/proc/self/exe", child_argv, child_env);
    _exit(99);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  printf("second run exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
