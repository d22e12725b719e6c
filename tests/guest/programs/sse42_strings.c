// glibc string functions that have SSE4.2 versions (pcmpistri: strspn,
// strcspn, strpbrk, strcasecmp, strncasecmp, strcmp, strncmp, strstr...)
// on many strings: random texts over small alphabets, accept/reject sets
// of every size, differences at every position, case variants, and
// strings that end right before an unmapped page.  Which versions glibc
// picks depends on CPUID, so this runs whatever phybin advertises.
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guest_common.h"

static uint64_t hash = FNV_INIT;
static void mix(int64_t v) { hash = fnv1a_u64(hash, (uint64_t)v); }
static int sign(int v) { return (v > 0) - (v < 0); }
static void mixp(const char *p, const char *base) { mix(p ? p - base : -1); }

static void report(const char *name) {
  printf("%-12s %016" PRIx64 "\n", name, hash);
  hash = FNV_INIT;
}

static void random_text(char *p, int n, const char *alphabet) {
  int k = (int)strlen(alphabet);
  for (int i = 0; i < n; i++) p[i] = alphabet[rng_below(k)];
  p[n] = 0;
}

// s: the text tested at each of its offsets; sets of 0..20 characters.
static void spans(char *s, int n) {
  static const char pool[] = "abcdefghijklmnopqrstuvwxyzABCDEF0123456789 ,.-\x80\xff";
  char set[32];
  for (int size = 0; size <= 20; size++) {
    random_text(set, size, pool);
    for (int off = 0; off < n; off += 3) {
      mix((int64_t)strspn(s + off, set));
      mix((int64_t)strcspn(s + off, set));
      mixp(strpbrk(s + off, set), s);
    }
  }
}

static void compares(char *x, char *y, int n) {
  for (int pos = 0; pos <= n; pos++) {
    memcpy(y, x, (size_t)n + 1);
    if (pos < n) y[pos] = (char)(y[pos] ^ (pos % 3 == 0 ? 0x20 : pos % 3 == 1 ? 0x01 : 0x80));
    for (int off = 0; off < 20 && off <= pos; off += 7) {
      mix(sign(strcmp(x + off, y + off)));
      mix(sign(strncmp(x + off, y + off, (size_t)(pos - off))));
      mix(sign(strncmp(x + off, y + off, (size_t)(pos - off + 1))));
      mix(sign(strcasecmp(x + off, y + off)));
      mix(sign(strncasecmp(x + off, y + off, (size_t)(pos - off + 1))));
      mix(sign(memcmp(x + off, y + off, (size_t)(n - off))));
    }
  }
}

static void searches(char *s, int n) {
  char needle[24];
  for (int len = 1; len < 20; len++) {
    int at = (int)rng_below((uint32_t)n);
    int take = at + len <= n ? len : n - at;
    memcpy(needle, s + at, (size_t)take);
    needle[take] = 0;
    if (len % 4 == 0 && take) needle[take - 1] ^= 1;  // sometimes absent
    mixp(strstr(s, needle), s);
    mixp(strcasestr(s, needle), s);
    mixp(strchr(s, needle[0]), s);
    mixp(strrchr(s, needle[0]), s);
    mixp(memmem(s, (size_t)n, needle, (size_t)take), s);
  }
}

int main(void) {
  static char x[600], y[600];
  static const char *const alphabets[] = {"ab", "abc ", "aAbBcC", "abcdefghijklmnopqrstuvwxyz", "xyz\x80\xff\x01"};
  rng_seed(11);
  for (int a = 0; a < 5; a++) {
    for (int round = 0; round < 6; round++) {
      int n = (int)rng_below(300) + round * 30;
      random_text(x, n, alphabets[a]);
      spans(x, n);
      compares(x, y, n < 120 ? n : 120);
      searches(x, n ? n : 1);
    }
    report(alphabets[a][0] == 'x' ? "high-bytes" : alphabets[a]);
  }

  // Strings ending at the last byte before an unmapped page, every length
  // up to 64: functions that read 16 bytes at a time must not fault.
  long page = sysconf(_SC_PAGESIZE);
  char *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return 1;
  munmap(map + page, (size_t)page);
  char *end = map + page;
  for (int len = 0; len < 64; len++) {
    char *s = end - len - 1;
    random_text(s, len, "abcABC");
    mix((int64_t)strlen(s));
    mix((int64_t)strspn(s, "abc"));
    mix((int64_t)strcspn(s, "C"));
    mixp(strpbrk(s, "xyzC"), s);
    mix(sign(strcmp(s, "abc")));
    mix(sign(strcasecmp(s, "ABCABCABC")));
    mix(sign(strncasecmp(s, "abcabc", 40)));
    mixp(strstr(s, "cA"), s);
    mixp(strchr(s, 'C'), s);
  }
  report("page-end");
  return 0;
}
