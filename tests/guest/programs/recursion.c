// Deep and branchy recursion: Ackermann, naive Fibonacci, the Towers of
// Hanoi (moves printed for small n, counted for larger), mutual recursion
// and a recursive permutation generator.  Exercises call/ret and the
// return-address prediction a translator builds.
#include <inttypes.h>
#include <stdio.h>

static uint64_t ackermann(uint64_t m, uint64_t n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann(m - 1, 1);
  return ackermann(m - 1, ackermann(m, n - 1));
}

static uint64_t fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static unsigned long moves;

static void hanoi(int n, char from, char to, char via, int print) {
  if (n == 0) return;
  hanoi(n - 1, from, via, to, print);
  moves++;
  if (print) printf("move %d %c->%c\n", n, from, to);
  hanoi(n - 1, via, to, from, print);
}

static int is_odd(unsigned n);
static int is_even(unsigned n) { return n == 0 ? 1 : is_odd(n - 1); }
static int is_odd(unsigned n) { return n == 0 ? 0 : is_even(n - 1); }

static int perm_count;
static unsigned long perm_hash;

static void permute(char *s, int k, int n) {
  if (k == n) {
    perm_count++;
    for (int i = 0; i < n; i++) perm_hash = perm_hash * 31 + (unsigned char)s[i];
    if (perm_count <= 6 || perm_count % 1000 == 0) printf("perm %d %s\n", perm_count, s);
    return;
  }
  for (int i = k; i < n; i++) {
    char t = s[k];
    s[k] = s[i];
    s[i] = t;
    permute(s, k + 1, n);
    s[i] = s[k];
    s[k] = t;
  }
}

static int64_t mccarthy91(int64_t n) { return n > 100 ? n - 10 : mccarthy91(mccarthy91(n + 11)); }

int main(void) {
  for (uint64_t m = 0; m <= 3; m++)
    for (uint64_t n = 0; n <= (m == 3 ? 5 : 6); n++)
      printf("ack(%" PRIu64 ",%" PRIu64 ") = %" PRIu64 "\n", m, n, ackermann(m, n));
  for (unsigned n = 0; n <= 25; n += 5) printf("fib(%u) = %" PRIu64 "\n", n, fib(n));
  hanoi(4, 'A', 'C', 'B', 1);
  printf("hanoi(4) moves %lu\n", moves);
  moves = 0;
  hanoi(16, 'A', 'C', 'B', 0);
  printf("hanoi(16) moves %lu\n", moves);
  printf("even(1001) %d odd(777) %d\n", is_even(1001), is_odd(777));
  char s[] = "abcdefg";
  permute(s, 0, 7);
  printf("perms %d hash %lu\n", perm_count, perm_hash);
  for (int64_t n = 0; n <= 120; n += 15) printf("m91(%" PRId64 ") = %" PRId64 "\n", n, mccarthy91(n));
  return 0;
}
