// The process start-up the loader builds: argc, argv (arguments with
// spaces, empty strings, non-ASCII bytes and shell metacharacters, passed
// by the test from argv_env.args), envp (the test's fixed environment plus
// argv_env.env), getenv/setenv/unsetenv, and the auxiliary vector entries
// whose values do not depend on the machine or run.
//
// envp is printed sorted and without PWD, SHLVL, OLDPWD and _: a wrapper
// script in front of phybin (scripts/phybin) is run by a shell, which adds
// those and reorders the environment before phybin ever sees it.  PHYBIN_*
// variables are left out too: the harness sets them for the phybin run
// only (where the translations are kept, the log file).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

extern char **environ;

static void print_escaped(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p >= 32 && *p < 127 && *p != '\\') putchar(*p);
    else printf("\\x%02x", *p);
  }
}

static int is_shell_variable(const char *entry) {
  static const char *const names[] = {"PWD=", "SHLVL=", "OLDPWD=", "_=", "PHYBIN_"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strncmp(entry, names[i], strlen(names[i])) == 0) return 1;
  return 0;
}

static int compare_strings(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int main(int argc, char **argv, char **envp) {
  printf("argc %d\n", argc);
  // argv[0] is the path the harness used; only its last component is stable.
  const char *slash = strrchr(argv[0], '/');
  printf("argv[0] basename %s\n", slash ? slash + 1 : argv[0]);
  for (int i = 1; i < argc; i++) {
    printf("argv[%d] len %zu [", i, strlen(argv[i]));
    print_escaped(argv[i]);
    printf("]\n");
  }
  printf("argv[argc] is NULL: %d\n", argv[argc] == NULL);
  const char *vars[256];
  int n = 0;
  for (char **e = envp; *e; e++) {
    if (is_shell_variable(*e) || n == 256) continue;
    vars[n++] = *e;
  }
  qsort(vars, (size_t)n, sizeof vars[0], compare_strings);
  printf("envp: %d entries besides the shell's\n", n);
  for (int i = 0; i < n; i++) {
    printf("env [");
    print_escaped(vars[i]);
    printf("]\n");
  }
  printf("environ == envp: %d\n", environ == envp);
  const char *probe[] = {"PATH", "HOME", "LANG", "GUEST_GREETING", "GUEST_EMPTY", "GUEST_EQUALS", "NOT_SET"};
  for (size_t i = 0; i < sizeof probe / sizeof probe[0]; i++) {
    const char *v = getenv(probe[i]);
    printf("getenv(%s) = %s%s%s\n", probe[i], v ? "[" : "", v ? v : "(null)", v ? "]" : "");
  }
  setenv("GUEST_NEW", "fresh", 0);
  setenv("GUEST_GREETING", "replaced", 1);
  setenv("HOME", "kept", 0);
  unsetenv("LANG");
  printf("after set: %s %s %s %s\n", getenv("GUEST_NEW"), getenv("GUEST_GREETING"), getenv("HOME"),
         getenv("LANG") ? getenv("LANG") : "(null)");
  // Auxiliary vector values that are the same on every run.
  printf("AT_PAGESZ %lu\n", getauxval(AT_PAGESZ));
  printf("AT_UID==getuid %d AT_EUID==geteuid %d AT_GID==getgid %d\n", getauxval(AT_UID) == getuid(),
         getauxval(AT_EUID) == geteuid(), getauxval(AT_GID) == getgid());
  printf("AT_SECURE %lu\n", getauxval(AT_SECURE));
  printf("AT_RANDOM present %d AT_PHDR present %d AT_ENTRY present %d\n", getauxval(AT_RANDOM) != 0,
         getauxval(AT_PHDR) != 0, getauxval(AT_ENTRY) != 0);
  const char *platform = (const char *)getauxval(AT_PLATFORM);
  printf("AT_PLATFORM %s\n", platform ? platform : "(none)");
  printf("sysconf pagesize %ld\n", sysconf(_SC_PAGESIZE));
  return argc;
}
