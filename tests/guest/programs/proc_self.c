// What a program sees of itself in /proc: its mappings in /proc/self/maps
// (code named by its file, [stack], [heap], a mapped file with its offset,
// anonymous memory, a split by mprotect), /proc/self/auxv equal to
// getauxval, and /proc/cpuinfo describing the CPU that CPUID reports
// (feature flags agreeing with __builtin_cpu_supports, one entry per CPU).
// Addresses and device numbers are not printed: they differ between runs.
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

static char maps[1 << 16];
static char exe[4096];

static void read_maps(void) {
  int fd = open("/proc/self/maps", O_RDONLY);
  size_t n = 0;
  ssize_t r;
  while (fd >= 0 && (r = read(fd, maps + n, sizeof maps - 1 - n)) > 0) n += (size_t)r;
  maps[n] = '\0';
  if (fd >= 0) close(fd);
}

// The line of /proc/self/maps whose range holds `p`: its permissions,
// offset (when asked) and name, the program's own path shortened.
static void show(const char* what, const void* p, int with_offset) {
  read_maps();
  uintptr_t a = (uintptr_t)p;
  for (char* line = strtok(maps, "\n"); line; line = strtok(NULL, "\n")) {
    unsigned long lo, hi, off;
    char perms[5], dev[16];
    unsigned long inode;
    int name_at = 0;
    if (sscanf(line, "%lx-%lx %4s %lx %15s %lu %n", &lo, &hi, perms, &off, dev, &inode, &name_at) < 6) continue;
    if (a < lo || a >= hi) continue;
    const char* name = name_at ? line + name_at : "";
    if (strcmp(name, exe) == 0) name = "(the program)";
    printf("%-22s %s", what, perms);
    if (with_offset) printf(" offset %#lx", off);
    printf(" inode %s \"%s\"\n", inode ? "set" : "0", name);
    return;
  }
  printf("%-22s not in /proc/self/maps\n", what);
}

static void mappings(void) {
  int on_stack = 1;
  show("main", (void*)mappings, 0);
  show("stack variable", &on_stack, 0);
  show("static data", exe, 0);
  void* small = malloc(100);  // from the main arena: the break
  show("malloc(100)", small, 0);

  long page = sysconf(_SC_PAGESIZE);
  int fd = open(exe, O_RDONLY);
  char* file = mmap(NULL, (size_t)page * 2, PROT_READ, MAP_PRIVATE, fd, page);
  close(fd);
  show("file page 1, mapped", file, 1);
  show("file page 2, mapped", file + page, 1);
  char* anon = mmap(NULL, (size_t)page * 3, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  mprotect(anon + page, (size_t)page, PROT_READ);
  show("anonymous, page 1", anon, 0);
  show("anonymous, page 2", anon + page, 0);
  show("anonymous, page 3", anon + 2 * page, 0);
  char* shared = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  show("shared anonymous", shared, 0);
  munmap(file, (size_t)page * 2);
  show("file, unmapped", file, 0);
  free(small);
}

static void auxv(void) {
  int fd = open("/proc/self/auxv", O_RDONLY);
  Elf64_auxv_t v[128];
  ssize_t n = read(fd, v, sizeof v);
  close(fd);
  int checked = 0, agree = 0, ends = 0;
  for (ssize_t i = 0; i < n / (ssize_t)sizeof v[0]; ++i) {
    if (v[i].a_type == AT_NULL) {
      ends = i == n / (ssize_t)sizeof v[0] - 1;
      break;
    }
    if (v[i].a_type == AT_PAGESZ || v[i].a_type == AT_PHDR || v[i].a_type == AT_ENTRY || v[i].a_type == AT_RANDOM ||
        v[i].a_type == AT_EXECFN || v[i].a_type == AT_HWCAP) {
      ++checked;
      agree += getauxval(v[i].a_type) == v[i].a_un.a_val;
    }
  }
  printf("auxv: %d of %d entries equal getauxval, ends with AT_NULL: %s\n", agree, checked, ends ? "yes" : "no");
}

static void cpuinfo(void) {
  static char text[1 << 20];
  int fd = open("/proc/cpuinfo", O_RDONLY);
  size_t n = 0;
  ssize_t r;
  while ((r = read(fd, text + n, sizeof text - 1 - n)) > 0) n += (size_t)r;
  close(fd);
  text[n] = '\0';
  int processors = 0;
  for (const char* p = text; (p = strstr(p, "processor\t")) != NULL; ++p)
    if (p == text || p[-1] == '\n') ++processors;
  printf("cpuinfo: %s processor entries as CPUs online\n",
         processors == sysconf(_SC_NPROCESSORS_ONLN) ? "as many" : "NOT as many");
  char* flags = strstr(text, "\nflags");
  char* end = flags ? strchr(flags + 1, '\n') : NULL;
  if (!flags || !end) {
    printf("cpuinfo: no flags line\n");
    return;
  }
  *end = '\0';
  __builtin_cpu_init();
  // Linux's names for what __builtin_cpu_supports calls sse2, ... bmi.
  static const char* const features[] = {" sse2", " pni", " ssse3", " sse4_1", " sse4_2",
                                         " popcnt", " aes", " avx", " avx2", " bmi1"};
  const int supported[] = {
      __builtin_cpu_supports("sse2"),   __builtin_cpu_supports("sse3"),   __builtin_cpu_supports("ssse3"),
      __builtin_cpu_supports("sse4.1"), __builtin_cpu_supports("sse4.2"), __builtin_cpu_supports("popcnt"),
      __builtin_cpu_supports("aes"),    __builtin_cpu_supports("avx"),    __builtin_cpu_supports("avx2"),
      __builtin_cpu_supports("bmi"),
  };
  for (unsigned i = 0; i < sizeof features / sizeof features[0]; ++i) {
    char word[32];
    snprintf(word, sizeof word, "%s ", features[i]);
    const char* at = strstr(flags, word);
    if (!at) {  // the last flag has no blank after it
      size_t len = strlen(features[i]), total = strlen(flags);
      at = total >= len && strcmp(flags + total - len, features[i]) == 0 ? flags : NULL;
    }
    printf("cpuinfo:%s listed %s CPUID\n", features[i], (at != NULL) == (supported[i] != 0) ? "as" : "NOT as");
  }
}

int main(void) {
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return 1;
  exe[n] = '\0';
  mappings();
  auxv();
  cpuinfo();
  return 0;
}
