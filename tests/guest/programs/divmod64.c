// 64- and 32-bit division and remainder (div/idiv with rdx:rax) on signed
// and unsigned operands of every sign combination and size, plus the
// floor/Euclidean variants programs build on top of C's truncation.
#include <inttypes.h>
#include <stdio.h>

#include "guest_common.h"

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

static int64_t euclid_mod(int64_t a, int64_t b) {
  int64_t r = a % b;
  if (r < 0) r += b < 0 ? -b : b;
  return r;
}

int main(void) {
  static volatile int64_t a_vals[] = {0, 1, -1, 5, -5, 17, -17, 1000000007, -1000000007,
                                      INT64_MAX, INT64_MIN, 0x7fffffff, -0x80000000ll,
                                      0x123456789abcdefll, -0x123456789abcdefll};
  static volatile int64_t b_vals[] = {1, -1, 2, -2, 3, -3, 7, -7, 10, 1000000007, -65536,
                                      INT64_MAX, INT64_MIN, 0x100000000ll};
  for (size_t i = 0; i < sizeof a_vals / sizeof a_vals[0]; i++) {
    for (size_t j = 0; j < sizeof b_vals / sizeof b_vals[0]; j++) {
      int64_t a = a_vals[i], b = b_vals[j];
      if (a == INT64_MIN && b == -1) continue;  // #DE on x86: tested elsewhere
      uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
      printf("%" PRId64 " %" PRId64 ": %" PRId64 " %" PRId64 " %" PRIu64 " %" PRIu64
             " fl %" PRId64 " eu %" PRId64 "\n",
             a, b, a / b, a % b, ua / ub, ua % ub, floor_div(a, b), euclid_mod(a, b));
      int32_t a32 = (int32_t)a, b32 = (int32_t)b;
      if (b32 != 0 && !(a32 == INT32_MIN && b32 == -1))
        printf("   32: %d %d %u %u\n", a32 / b32, a32 % b32, (uint32_t)a32 / (uint32_t)b32,
               (uint32_t)a32 % (uint32_t)b32);
    }
  }
  uint64_t h = FNV_INIT;
  int bad = 0;
  rng_seed(31337);
  for (int i = 0; i < 30000; i++) {
    int64_t a = (int64_t)rng_next();
    int64_t b = (int64_t)rng_next() >> (rng_next() % 63);
    if (b == 0 || (a == INT64_MIN && b == -1)) continue;
    int64_t q = a / b, r = a % b;
    if (q * b + r != a) bad++;
    uint64_t uq = (uint64_t)a / (uint64_t)b, ur = (uint64_t)a % (uint64_t)b;
    if (uq * (uint64_t)b + ur != (uint64_t)a || ur >= (uint64_t)b) bad++;
    h = fnv1a_u64(h, (uint64_t)q ^ (uint64_t)r << 1 ^ uq ^ ur << 3);
  }
  printf("bad %d hash %016" PRIx64 "\n", bad, h);
  return 0;
}
