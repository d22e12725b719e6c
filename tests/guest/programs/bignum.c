// Arbitrary-precision unsigned integers in base 10^9 limbs: addition,
// multiplication (schoolbook), small division, comparison; computes 100!,
// 2^1000, Fibonacci(1000), 3^500 * 7^300 and checks (a*b)/b == a.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE 1000000000u
#define MAXL 400

struct big {
  int n;  // limbs in use, least significant first
  uint32_t d[MAXL];
};

static void set_small(struct big *a, uint32_t v) {
  a->n = 0;
  do {
    a->d[a->n++] = v % BASE;
    v /= BASE;
  } while (v);
}

static void add(struct big *r, const struct big *a, const struct big *b) {
  uint64_t carry = 0;
  int n = a->n > b->n ? a->n : b->n;
  for (int i = 0; i < n; i++) {
    uint64_t s = carry + (i < a->n ? a->d[i] : 0) + (i < b->n ? b->d[i] : 0);
    r->d[i] = (uint32_t)(s % BASE);
    carry = s / BASE;
  }
  r->n = n;
  if (carry) r->d[r->n++] = (uint32_t)carry;
}

static void mul(struct big *r, const struct big *a, const struct big *b) {
  static uint64_t acc[2 * MAXL];
  memset(acc, 0, sizeof(uint64_t) * (size_t)(a->n + b->n + 1));
  for (int i = 0; i < a->n; i++) {
    uint64_t carry = 0;
    for (int j = 0; j < b->n; j++) {
      uint64_t cur = acc[i + j] + (uint64_t)a->d[i] * b->d[j] + carry;
      acc[i + j] = cur % BASE;
      carry = cur / BASE;
    }
    for (int k = i + b->n; carry; k++) {
      uint64_t cur = acc[k] + carry;
      acc[k] = cur % BASE;
      carry = cur / BASE;
    }
  }
  int n = a->n + b->n;
  while (n > 1 && acc[n - 1] == 0) n--;
  for (int i = 0; i < n; i++) r->d[i] = (uint32_t)acc[i];
  r->n = n;
}

static uint32_t div_small(struct big *a, uint32_t v) {
  uint64_t rem = 0;
  for (int i = a->n - 1; i >= 0; i--) {
    uint64_t cur = a->d[i] + rem * BASE;
    a->d[i] = (uint32_t)(cur / v);
    rem = cur % v;
  }
  while (a->n > 1 && a->d[a->n - 1] == 0) a->n--;
  return (uint32_t)rem;
}

static int cmp(const struct big *a, const struct big *b) {
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  for (int i = a->n - 1; i >= 0; i--)
    if (a->d[i] != b->d[i]) return a->d[i] < b->d[i] ? -1 : 1;
  return 0;
}

static void print(const char *label, const struct big *a) {
  printf("%s = %u", label, a->d[a->n - 1]);
  for (int i = a->n - 2; i >= 0; i--) printf("%09u", a->d[i]);
  printf("\n");
}

static void power(struct big *r, uint32_t base, int exp) {
  struct big b, t;
  set_small(r, 1);
  set_small(&b, base);
  while (exp) {
    if (exp & 1) {
      mul(&t, r, &b);
      *r = t;
    }
    mul(&t, &b, &b);
    b = t;
    exp >>= 1;
  }
}

int main(void) {
  static struct big a, b, c, t;
  set_small(&a, 1);
  for (uint32_t i = 2; i <= 100; i++) {
    set_small(&b, i);
    mul(&t, &a, &b);
    a = t;
  }
  print("100!", &a);
  struct big fact = a;
  uint32_t digit_sum = 0;
  while (!(a.n == 1 && a.d[0] == 0)) digit_sum += div_small(&a, 10);
  printf("digit sum of 100! = %u\n", digit_sum);

  power(&a, 2, 1000);
  print("2^1000", &a);
  set_small(&a, 0);
  set_small(&b, 1);
  for (int i = 0; i < 1000; i++) {
    add(&t, &a, &b);
    a = b;
    b = t;
  }
  print("fib(1000)", &a);
  power(&b, 3, 500);
  power(&c, 7, 300);
  mul(&t, &b, &c);
  print("3^500*7^300", &t);
  // (100! * 3^500) / 3 five hundred times must give back 100!.
  mul(&a, &fact, &b);
  for (int i = 0; i < 500; i++)
    if (div_small(&a, 3) != 0) printf("unexpected remainder at %d\n", i);
  printf("round trip equal: %d\n", cmp(&a, &fact) == 0);
  return 0;
}
