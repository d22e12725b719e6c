// Every locked read-modify-write form in one thread, at 8, 16, 32 and 64
// bits, on aligned and misaligned memory (inside one cache line): lock
// add/sub/and/or/xor/adc/sbb with a register and an immediate, lock
// inc/dec/neg/not, lock xadd, xchg (locked without the prefix) with the
// memory operand first and second, lock cmpxchg that succeeds and fails,
// lock cmpxchg8b, lock bts/btr/btc with a register and an immediate bit
// offset (a register offset beyond the operand reaches the next words).
// Prints memory, the register result and the flags the SDM and the APM
// both define for the instruction.
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "guest_common.h"

#define CF 0x001
#define PF 0x004
#define AF 0x010
#define ZF 0x040
#define SF 0x080
#define OF 0x800
#define ARITH (CF | PF | AF | ZF | SF | OF)
#define LOGIC (CF | PF | ZF | SF | OF)  // AF undefined
#define INCDEC (PF | AF | ZF | SF | OF)

static unsigned char buf[128] __attribute__((aligned(64)));
static uint64_t digest = FNV_INIT;

static void show(const char *what, int misaligned, uint64_t mem, uint64_t reg, uint64_t fl, uint64_t defined) {
  printf("%-18s %s mem %016" PRIx64 " reg %016" PRIx64 " fl %03" PRIx64 "\n", what, misaligned ? "mis" : "ali", mem,
         reg, fl & defined);
  digest = fnv1a(digest, buf, sizeof buf);
}

// One instruction on *p with register operand v; flags in from `in`.
#define RMW(fn, type, text)                                                                 \
  static void fn(type *p, uint64_t v64, uint64_t in, uint64_t *out, uint64_t *fl) {         \
    type v = (type)v64;                                                                     \
    uint64_t f;                                                                             \
    __asm__ volatile("pushq %[in]\n popfq\n " text "\n pushfq\n popq %[f]"                  \
                     : [m] "+m"(*p), [v] "+q"(v), [f] "=&r"(f)                              \
                     : [in] "r"(in)                                                         \
                     : "cc", "memory");                                                     \
    *out = v;                                                                               \
    *fl = f;                                                                                \
  }
#define WIDTHS(name, text_b, text_w, text_l, text_q) \
  RMW(name##_b, uint8_t, text_b)                     \
  RMW(name##_w, uint16_t, text_w)                    \
  RMW(name##_l, uint32_t, text_l)                    \
  RMW(name##_q, uint64_t, text_q)
#define BINARY(op) \
  WIDTHS(op, "lock " #op "b %[v], %[m]", "lock " #op "w %[v], %[m]", "lock " #op "l %[v], %[m]", "lock " #op "q %[v], %[m]")
#define IMM(op, imm)                                                                                       \
  WIDTHS(op##_imm, "lock " #op "b $" #imm ", %[m]", "lock " #op "w $" #imm ", %[m]", "lock " #op "l $" #imm \
         ", %[m]", "lock " #op "q $" #imm ", %[m]")
#define UNARY(op) \
  WIDTHS(op, "lock " #op "b %[m]", "lock " #op "w %[m]", "lock " #op "l %[m]", "lock " #op "q %[m]")

BINARY(add) BINARY(sub) BINARY(and) BINARY(or) BINARY(xor) BINARY(adc) BINARY(sbb) BINARY(xadd)
IMM(add, 0x55) IMM(sub, 0x7f) IMM(and, 0x3c) IMM(or, 0x41) IMM(xor, 0x66)
UNARY(inc) UNARY(dec) UNARY(neg) UNARY(not)
WIDTHS(xchg_mr, "xchgb %[v], %[m]", "xchgw %[v], %[m]", "xchgl %[v], %[m]", "xchgq %[v], %[m]")
WIDTHS(xchg_rm, "lock xchgb %[m], %[v]", "xchgw %[m], %[v]", "lock xchgl %[m], %[v]", "xchgq %[m], %[v]")
RMW(bts_w, uint16_t, "lock btsw %[v], %[m]")
RMW(bts_l, uint32_t, "lock btsl %[v], %[m]")
RMW(bts_q, uint64_t, "lock btsq %[v], %[m]")
RMW(btr_w, uint16_t, "lock btrw %[v], %[m]")
RMW(btr_l, uint32_t, "lock btrl %[v], %[m]")
RMW(btr_q, uint64_t, "lock btrq %[v], %[m]")
RMW(btc_w, uint16_t, "lock btcw %[v], %[m]")
RMW(btc_l, uint32_t, "lock btcl %[v], %[m]")
RMW(btc_q, uint64_t, "lock btcq %[v], %[m]")
RMW(btsi_l, uint32_t, "lock btsl $29, %[m]")
RMW(btri_q, uint64_t, "lock btrq $61, %[m]")
RMW(btci_w, uint16_t, "lock btcw $13, %[m]")

typedef void (*rmw_fn)(void *, uint64_t, uint64_t, uint64_t *, uint64_t *);
struct form {
  const char *name;
  rmw_fn fn[4];  // b, w, l, q (NULL: no such width)
  uint64_t defined;
  int bit_offset;  // the register is a bit offset (-100..99: neighbouring words too)
};
#define F(name, defined) {#name, {(rmw_fn)name##_b, (rmw_fn)name##_w, (rmw_fn)name##_l, (rmw_fn)name##_q}, defined, 0}
static const struct form forms[] = {
    F(add, ARITH),     F(sub, ARITH),     F(and, LOGIC),     F(or, LOGIC),      F(xor, LOGIC),
    F(adc, ARITH),     F(sbb, ARITH),     F(xadd, ARITH),    F(add_imm, ARITH), F(sub_imm, ARITH),
    F(and_imm, LOGIC), F(or_imm, LOGIC),  F(xor_imm, LOGIC), F(inc, INCDEC),    F(dec, INCDEC),
    F(neg, ARITH),     F(not, 0),         F(xchg_mr, 0),     F(xchg_rm, 0),
    {"bts", {NULL, (rmw_fn)bts_w, (rmw_fn)bts_l, (rmw_fn)bts_q}, CF, 1},
    {"btr", {NULL, (rmw_fn)btr_w, (rmw_fn)btr_l, (rmw_fn)btr_q}, CF, 1},
    {"btc", {NULL, (rmw_fn)btc_w, (rmw_fn)btc_l, (rmw_fn)btc_q}, CF, 1},
    {"bt imm", {NULL, (rmw_fn)btci_w, (rmw_fn)btsi_l, (rmw_fn)btri_q}, CF, 0},
};

static uint64_t read_width(const unsigned char *p, int w) {
  uint64_t v = 0;
  memcpy(&v, p, (size_t)1 << w);
  return v;
}

static void cmpxchg_cases(unsigned char *p, int misaligned) {
  for (int hit = 0; hit < 2; hit++) {
    uint64_t mem = 0x8877665544332211ull, acc = hit ? mem : 0x1234, fl;
    memcpy(p, &mem, 8);
    __asm__ volatile("pushq $0x202\n popfq\n lock cmpxchgq %[src], %[m]\n pushfq\n popq %[f]"
                     : [m] "+m"(*(uint64_t *)p), "+a"(acc), [f] "=&r"(fl) : [src] "r"(0xfeedull) : "cc", "memory");
    show(hit ? "cmpxchg q hit" : "cmpxchg q miss", misaligned, read_width(p, 3), acc, fl, ARITH);
    uint32_t acc32 = hit ? 0x44332211u : 7u;
    memcpy(p, &mem, 8);
    __asm__ volatile("pushq $0x202\n popfq\n lock cmpxchgl %[src], %[m]\n pushfq\n popq %[f]"
                     : [m] "+m"(*(uint32_t *)p), "+a"(acc32), [f] "=&r"(fl) : [src] "r"(0xbeefu) : "cc", "memory");
    show(hit ? "cmpxchg l hit" : "cmpxchg l miss", misaligned, read_width(p, 3), acc32, fl, ARITH);
    uint8_t acc8 = hit ? 0x11 : 0x12;
    memcpy(p, &mem, 8);
    __asm__ volatile("pushq $0x202\n popfq\n lock cmpxchgb %[src], %[m]\n pushfq\n popq %[f]"
                     : [m] "+m"(*p), "+a"(acc8), [f] "=&r"(fl) : [src] "q"((uint8_t)0x99) : "cc", "memory");
    show(hit ? "cmpxchg b hit" : "cmpxchg b miss", misaligned, read_width(p, 3), acc8, fl, ARITH);
    uint32_t lo = hit ? 0x44332211u : 1u, hi = hit ? 0x88776655u : 2u;
    memcpy(p, &mem, 8);
    __asm__ volatile("pushq $0x202\n popfq\n lock cmpxchg8b %[m]\n pushfq\n popq %[f]"
                     : [m] "+m"(*(uint64_t *)p), "+a"(lo), "+d"(hi), [f] "=&r"(fl)
                     : "b"(0xcafef00du), "c"(0x0badbeefu) : "cc", "memory");
    show(hit ? "cmpxchg8b hit" : "cmpxchg8b miss", misaligned, read_width(p, 3), (uint64_t)hi << 32 | lo, fl, ZF);
  }
}

int main(void) {
  static const char *const width_name[] = {"b", "w", "l", "q"};
  rng_seed(20261201);
  for (int misaligned = 0; misaligned < 2; misaligned++) {
    unsigned char *p = buf + 16 + misaligned;
    for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++)
      for (int w = 0; w < 4; w++) {
        if (!forms[f].fn[w]) continue;
        for (int round = 0; round < 3; round++) {
          uint64_t mem = rng_next(), v = round == 2 ? mem : rng_next();
          if (round == 1) v = 0;
          if (forms[f].bit_offset) v = (uint64_t)(int64_t)((int)rng_below(200) - 100);
          uint64_t flags_in = 0x202 | (rng_next() & ARITH), out, fl;
          memset(buf, 0x5a, sizeof buf);
          memcpy(p, &mem, (size_t)1 << w);
          forms[f].fn[w](p, v, flags_in, &out, &fl);
          char name[32];
          snprintf(name, sizeof name, "%s %s", forms[f].name, width_name[w]);
          show(name, misaligned, read_width(p, w), out, fl, forms[f].defined);
        }
      }
    cmpxchg_cases(p, misaligned);
  }
  printf("memory digest %016" PRIx64 "\n", digest);
  return 0;
}
