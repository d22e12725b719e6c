// strlen, strnlen, strcmp, strncmp, strchr, strrchr, strstr and memchr over
// many lengths and alignments, including strings that end right before an
// inaccessible page (glibc's SSE2 versions read whole aligned 16-byte
// blocks and must never touch the next page).  Comparisons print only the
// sign: the magnitude differs between glibc's implementations.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guest_common.h"

static int sign(int x) { return (x > 0) - (x < 0); }

static uint64_t scan_sizes(char *buf, size_t bufsize) {
  uint64_t h = FNV_INIT;
  for (size_t align = 0; align < 16; align++) {
    for (size_t len = 0; len < 160 && align + len + 2 < bufsize; len++) {
      char *s = buf + align;
      for (size_t i = 0; i < len; i++) s[i] = (char)('a' + (i * 7 + align) % 26);
      s[len] = 0;
      char *mid = len ? strchr(s, s[len / 2]) : NULL;
      char *last = len ? strrchr(s, s[len / 2]) : NULL;
      char *none = strchr(s, '#');
      char *term = strchr(s, 0);
      size_t r = strlen(s);
      h = fnv1a_u64(h, r);
      h = fnv1a_u64(h, (uint64_t)(mid ? mid - s : -1) * 1000 + (uint64_t)(last ? last - s : -1));
      h = fnv1a_u64(h, (uint64_t)(none != NULL) + (uint64_t)(term - s) * 2);
      h = fnv1a_u64(h, strnlen(s, len / 2) + (memchr(s, 'z', len) != NULL));
    }
  }
  return h;
}

static uint64_t compare_sizes(void) {
  static char a[300], b[300];
  uint64_t h = FNV_INIT;
  for (size_t aa = 0; aa < 16; aa += 3) {
    for (size_t ab = 0; ab < 16; ab += 5) {
      for (size_t len = 0; len < 130; len += (len < 40 ? 1 : 7)) {
        char *x = a + aa, *y = b + ab;
        for (size_t i = 0; i < len; i++) x[i] = y[i] = (char)('A' + i % 50);
        x[len] = y[len] = 0;
        h = fnv1a_u64(h, (uint64_t)(sign(strcmp(x, y)) + 1));
        for (size_t pos = 0; pos < len; pos += 1 + len / 5) {
          char keep = y[pos];
          y[pos] = (char)(keep + (pos & 1 ? 1 : -1));
          h = fnv1a_u64(h, (uint64_t)(sign(strcmp(x, y)) + 1) * 9 + (uint64_t)(sign(strncmp(x, y, pos)) + 1) * 3 +
                              (uint64_t)(sign(strncmp(x, y, pos + 1)) + 1));
          y[pos] = (char)0x80;  // high bytes compare as unsigned char
          h = fnv1a_u64(h, (uint64_t)(sign(strcmp(x, y)) + 1));
          y[pos] = keep;
        }
      }
    }
  }
  return h;
}

static void page_edge(void) {
  long page = sysconf(_SC_PAGESIZE);
  char *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return;
  mprotect(map + page, (size_t)page, PROT_NONE);
  uint64_t h = FNV_INIT;
  for (size_t len = 0; len < 100; len++) {
    char *s = map + page - len - 1;
    memset(s, 'q', len);
    s[len] = 0;
    h = fnv1a_u64(h, strlen(s) + (strchr(s, 'x') == NULL) + (strrchr(s, 'q') ? 2 : 0));
    h = fnv1a_u64(h, (uint64_t)sign(strcmp(s, "qqqq")) + 5);
    h = fnv1a_u64(h, (uint64_t)(strstr(s, "qqq") ? strstr(s, "qqq") - s : -1));
  }
  printf("page edge hash %016" PRIx64 "\n", h);
  munmap(map, (size_t)page * 2);
}

static void strstr_cases(void) {
  static const char *hay[] = {"", "a", "abc", "aaaaaaaaaab", "the quick brown fox jumps",
                              "abababababababababababababababab", "mississippi",
                              "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxneedle"};
  static const char *needle[] = {"", "a", "b", "ab", "aab", "fox", "issi", "ppi", "needle", "zzz", "ababc"};
  for (size_t i = 0; i < sizeof hay / sizeof hay[0]; i++) {
    printf("%-2zu:", i);
    for (size_t j = 0; j < sizeof needle / sizeof needle[0]; j++) {
      const char *r = strstr(hay[i], needle[j]);
      printf(" %ld", r ? (long)(r - hay[i]) : -1L);
    }
    printf("\n");
  }
}

int main(void) {
  static char buf[512];
  printf("scan hash %016" PRIx64 "\n", scan_sizes(buf, sizeof buf));
  printf("compare hash %016" PRIx64 "\n", compare_sizes());
  page_edge();
  strstr_cases();
  printf("signs %d %d %d %d\n", sign(strcmp("abc", "abd")), sign(strcmp("b", "abc")),
         sign(strncmp("abcdef", "abcxyz", 3)), sign(strcmp("\xff", "\x01")));
  return 0;
}
