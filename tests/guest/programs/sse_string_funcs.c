// glibc's string and memory functions, which on an SSE2-only x86-64 run
// their SSE2 versions (pcmpeqb, pmovmskb, pminub, unaligned and aligned
// 16-byte loads): every alignment 0..31 against lengths 0..80, and strings
// that end right before an unmapped page, where reading a byte too far
// would crash.  Results are folded into checksums per function.
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <wchar.h>

static uint64_t hash;
static void mix(uint64_t v) { hash = (hash ^ v) * 0x100000001b3ull; }
static void mixp(const void *p, const void *base) { mix(p ? (uint64_t)((const char *)p - (const char *)base) : ~0ull); }
static int sign(int v) { return (v > 0) - (v < 0); }

static char a[256], b[256], dst[256];

static void fill(char *p, int n, int seed) {
  for (int i = 0; i < n; i++) p[i] = (char)('a' + (i * 7 + seed) % 23);
}

static void report(const char *name) {
  printf("%-10s %016" PRIx64 "\n", name, hash);
  hash = 0xcbf29ce484222325ull;
}

static void scans(void) {
  for (int al = 0; al < 32; al++)
    for (int len = 0; len <= 80; len++) {
      fill(a, 200, al);
      a[al + len] = 0;
      mix(strlen(a + al));
      mix(strnlen(a + al, (size_t)len / 2));
      mixp(strchr(a + al, 'a' + len % 23), a);
      mixp(strchr(a + al, 0), a);
      mixp(strrchr(a + al, 'a' + (len * 3) % 23), a);
      mixp(memchr(a + al, 'a' + len % 23, (size_t)len), a);
      mixp(memrchr(a + al, 'a' + len % 23, (size_t)len), a);
      mixp(rawmemchr(a + al, 0), a);
      mix(strspn(a + al, "abcdefgh"));
      mix(strcspn(a + al, "xyz"));
      mixp(strpbrk(a + al, "uvw"), a);
    }
  report("scans");
}

static void compares(void) {
  for (int al = 0; al < 32; al++)
    for (int len = 0; len <= 80; len++)
      for (int diff = -1; diff < len; diff += 1 + len / 5) {
        fill(a, 200, 1);
        fill(b, 200, 1);
        int bl = (al * 5) % 32;
        memmove(b + bl, a + al, 100);
        a[al + len] = 0;
        b[bl + len] = 0;
        if (diff >= 0) b[bl + diff] = (char)(b[bl + diff] + (diff & 1 ? 1 : -1));
        mix((uint64_t)sign(strcmp(a + al, b + bl)));
        mix((uint64_t)sign(strncmp(a + al, b + bl, (size_t)len / 2 + 1)));
        mix((uint64_t)sign(memcmp(a + al, b + bl, (size_t)len)));
        mix((uint64_t)sign(strcasecmp(a + al, b + bl)));
        mix(bcmp(a + al, b + bl, (size_t)len) != 0);
      }
  report("compares");
}

static void copies(void) {
  for (int al = 0; al < 32; al++)
    for (int len = 0; len <= 80; len++) {
      int dl = (al * 3 + 1) % 32;
      fill(a, 200, al + len);
      memset(dst, 'Z', sizeof dst);
      memcpy(dst + dl, a + al, (size_t)len);
      mix(dst[dl + len] == 'Z');
      for (int i = 0; i < len + 2; i++) mix((uint8_t)dst[dl + i]);
      memset(dst + al, len, (size_t)len);
      memmove(dst + al + 3, dst + al, (size_t)len);
      memmove(dst + dl, dst + dl + 5, (size_t)len);
      a[al + len] = 0;
      strcpy(dst + dl, a + al);
      mixp(stpcpy(dst + 100, a + al), dst);
      strcat(dst + dl, "tail");
      strncpy(dst + 150, a + al + len / 2, 20);  // may leave dst unterminated: it is a buffer here
      for (int i = 0; i < 200; i++) mix((uint8_t)dst[i]);
    }
  report("copies");
}

static void search(void) {
  static const char *const needles[] = {"", "a", "hov", "bipw", "zzz", "jqx", "ahovc", "crjqxe"};
  for (int al = 0; al < 32; al++)
    for (int len = 0; len <= 80; len += 3) {
      fill(a, 200, al);
      a[al + len] = 0;
      for (unsigned k = 0; k < sizeof needles / sizeof needles[0]; k++) {
        mixp(strstr(a + al, needles[k]), a);
        mixp(memmem(a + al, (size_t)len, needles[k], strlen(needles[k])), a);
      }
    }
  report("search");
}

// Strings whose last byte is the last one of a mapped page.
static void page_edges(void) {
  long page = sysconf(_SC_PAGESIZE);
  char *m = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return;
  mprotect(m + page, (size_t)page, PROT_NONE);
  char *end = m + page;
  for (int len = 0; len < 70; len++) {
    memset(m, 'q', (size_t)page);
    char *s = end - len - 1;
    s[len] = 0;
    mix(strlen(s));
    mixp(strchr(s, 'x'), m);
    mixp(strrchr(s, 'q'), m);
    mixp(memchr(s, 'x', (size_t)len + 1), m);
    mix((uint64_t)sign(strcmp(s, end - 1 - len)));
    mix((uint64_t)sign(memcmp(s, s, (size_t)len + 1)));
    mix(wcslen(L"wide"));
    char *t = end - len;  // unterminated: memchr must stop at its length
    mixp(memchr(t, 0, (size_t)len), m);
    memcpy(dst, t, (size_t)len);
    mix(strnlen(t, (size_t)len));
  }
  munmap(m, (size_t)page * 2);
  report("pages");
}

int main(void) {
  hash = 0xcbf29ce484222325ull;
  scans();
  compares();
  copies();
  search();
  page_edges();
  return 0;
}
