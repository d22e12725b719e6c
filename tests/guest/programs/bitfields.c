// Bit-fields: signed fields (sign extension on read), unsigned fields
// (truncation on write), fields straddling bytes, packed structures with
// misaligned members, unions viewing the same bits as integers, and
// read-modify-write sequences on neighbouring fields.
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

struct flags {
  unsigned ready : 1;
  unsigned mode : 3;
  signed level : 5;
  unsigned count : 12;
  signed delta : 11;
};

struct wide {
  uint64_t lo : 40;
  int64_t mid : 17;
  uint64_t hi : 7;
};

struct __attribute__((packed)) packed {
  char tag;
  uint32_t value;
  uint16_t half;
  uint64_t big;
};

union view {
  struct flags f;
  uint32_t raw;
};

static void show(const struct flags *f) {
  union view v;
  memset(&v, 0, sizeof v);
  v.f = *f;
  printf("ready %u mode %u level %d count %u delta %d raw %08" PRIx32 "\n", f->ready, f->mode, f->level,
         f->count, f->delta, v.raw);
}

int main(void) {
  struct flags f;
  memset(&f, 0, sizeof f);
  show(&f);
  f.ready = 1;
  f.mode = 5;
  f.level = -3;
  f.count = 4000;
  f.delta = -1000;
  show(&f);
  volatile int big = 77, neg = -17;
  f.mode = (unsigned)big;     // truncated to 3 bits
  f.level = neg;              // -17 does not fit in 5 signed bits: wraps to 15
  f.count = (unsigned)(f.count + 200);  // 4200 wraps to 104 in 12 bits
  f.delta = f.delta * 2;      // -2000 does not fit in 11 bits: wraps
  show(&f);
  union view v;
  v.raw = 0xdeadbeef;
  show(&v.f);
  v.raw = 0x80000001;
  show(&v.f);

  struct wide w = {0, 0, 0};
  w.lo = 0xfffffffffful;
  w.mid = -65536;
  w.hi = 127;
  printf("wide lo %" PRIx64 " mid %" PRId64 " hi %" PRIu64 "\n", (uint64_t)w.lo, (int64_t)w.mid, (uint64_t)w.hi);
  w.lo = w.lo + 1;  // wraps in 40 bits
  w.mid = w.mid - 1;
  w.hi = w.hi + 1;
  printf("wide lo %" PRIx64 " mid %" PRId64 " hi %" PRIu64 "\n", (uint64_t)w.lo, (int64_t)w.mid, (uint64_t)w.hi);

  printf("sizeof flags %zu wide %zu packed %zu\n", sizeof(struct flags), sizeof(struct wide), sizeof(struct packed));
  struct packed arr[5];
  for (int i = 0; i < 5; i++) {
    arr[i].tag = (char)('a' + i);
    arr[i].value = 0x01020304u * (uint32_t)(i + 1);
    arr[i].half = (uint16_t)(0xabcd + i);
    arr[i].big = 0x1122334455667788ull + (uint64_t)i;
  }
  uint64_t sum = 0;
  for (int i = 0; i < 5; i++) sum += arr[i].value + arr[i].half + arr[i].big + (uint64_t)arr[i].tag;
  unsigned char bytes[sizeof arr];
  memcpy(bytes, arr, sizeof arr);
  printf("packed sum %016" PRIx64 " bytes hash %016" PRIx64 "\n", sum, fnv1a(FNV_INIT, bytes, sizeof bytes));

  // Many updates: a compiler must keep neighbouring fields intact.
  uint64_t h = FNV_INIT;
  rng_seed(3);
  struct flags g;
  memset(&g, 0, sizeof g);
  for (int i = 0; i < 20000; i++) {
    uint32_t r = rng_u32();
    switch (r & 3) {
      case 0: g.mode = r >> 8; break;
      case 1: g.level = (int)(r >> 7); break;
      case 2: g.count += r >> 20; break;
      default: g.delta = (int)(g.delta - (int)(r >> 24)); break;
    }
    g.ready ^= 1;
    union view u;
    memset(&u, 0, sizeof u);
    u.f = g;
    h = fnv1a_u64(h, u.raw);
  }
  show(&g);
  printf("hash %016" PRIx64 "\n", h);
  return 0;
}
