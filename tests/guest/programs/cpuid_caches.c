// CPUID's cache descriptions agree with each other and with /proc/cpuinfo,
// as on an Intel CPU: leaf 4's L2 is the L2 of leaf 0x80000006 (OpenBLAS,
// and with it numpy and PyTorch, size their blocking from 0x80000006 and
// complain when it says nothing), and /proc/cpuinfo's "cache size" is leaf
// 4's last level.  Leaf 4 is Intel's: on AMD the agreement lines are model
// lines.  That 0x80000006 names an L2 at all holds on every x86-64 CPU.
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

static void cpuid(unsigned leaf, unsigned sub, unsigned r[4]) {
  __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
}

// Leaf 4's unified or data cache of `level`, in KiB; 0 when there is none.
static unsigned leaf4_kib(unsigned level) {
  unsigned r[4];
  cpuid(0, 0, r);
  if (r[0] < 4) return 0;
  for (unsigned sub = 0; sub < 16; ++sub) {
    cpuid(4, sub, r);
    unsigned type = r[0] & 0x1f;
    if (type == 0) break;
    if ((r[0] >> 5 & 7) != level || type == 2) continue;  // 2: instruction cache
    unsigned long bytes = ((r[1] >> 22) + 1ul) * ((r[1] >> 12 & 0x3ff) + 1) * ((r[1] & 0xfff) + 1) * (r[2] + 1ul);
    return (unsigned)(bytes >> 10);
  }
  return 0;
}

static unsigned last_level_kib(void) {
  for (unsigned level = 4; level >= 1; --level) {
    unsigned kib = leaf4_kib(level);
    if (kib) return kib;
  }
  return 0;
}

// The first "cache size" line of /proc/cpuinfo, in KiB; 0 when absent.
static unsigned cpuinfo_cache_kib(void) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return 0;
  char line[512];
  unsigned kib = 0;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "cache size", 10) == 0 && sscanf(strchr(line, ':') + 1, "%u", &kib) == 1) break;
  fclose(f);
  return kib;
}

int main(void) {
  unsigned r[4];
  cpuid(0x80000000, 0, r);
  if (r[0] < 0x80000006) {
    printf("leaf 0x80000006 missing\n");
    return 1;
  }
  cpuid(0x80000006, 0, r);
  unsigned l2_kib = r[2] >> 16, l2_ways = r[2] >> 12 & 0xf, l2_line = r[2] & 0xff;
  printf("0x80000006 names an L2: %s\n", l2_kib && l2_ways && l2_line ? "yes" : "no");
  printf("L2 line size plausible: %s\n", l2_line == 64 || l2_line == 128 ? "yes" : "no");
  model_printf("leaf 4's L2 is 0x80000006's: %s\n", leaf4_kib(2) == l2_kib ? "yes" : "no");
  unsigned last = last_level_kib();
  model_printf("leaf 4 names a last level: %s\n", last ? "yes" : "no");
  model_printf("cpuinfo's cache size is leaf 4's last level: %s\n", last && cpuinfo_cache_kib() == last ? "yes" : "no");
  return 0;
}
