// Helpers for the integer extensions (family_bmi.cpp, family_intext.cpp).
#include "x86/helpers.h"

namespace phybin::x86 {

uint64_t helper_pdep(GuestState*, uint64_t src, uint64_t mask) {
  uint64_t r = 0;
  // The low bits of src go, in order, to the set bits of mask.
  for (uint64_t bit = 1; mask; bit <<= 1) {
    uint64_t lowest = mask & -mask;
    if (src & bit) r |= lowest;
    mask ^= lowest;
  }
  return r;
}

uint64_t helper_pext(GuestState*, uint64_t src, uint64_t mask) {
  uint64_t r = 0;
  // The bits of src under the set bits of mask, packed from bit 0 up.
  for (uint64_t bit = 1; mask; bit <<= 1) {
    uint64_t lowest = mask & -mask;
    if (src & lowest) r |= bit;
    mask ^= lowest;
  }
  return r;
}

namespace {

struct Pair {
  uint64_t lo, hi;
};

// Compares *p with `expected`; stores `desired` when equal, else writes
// the old value back (as x86 does); returns the old value.
Pair compare_exchange_16(uint64_t* p, Pair expected, Pair desired) {
  Pair old;
#if defined(__aarch64__)
  // Without LSE's CASP (the ARMv8.0 hosts) an exclusive pair is the only
  // 16-byte atomic; the loop retries when another observer broke it.
  uint64_t store_lo, store_hi;
  uint32_t failed;
  asm volatile(
      "1: ldaxp %[old_lo], %[old_hi], [%[p]]\n"
      "   cmp %[old_lo], %[exp_lo]\n"
      "   ccmp %[old_hi], %[exp_hi], #0, eq\n"
      "   csel %[st_lo], %[new_lo], %[old_lo], eq\n"
      "   csel %[st_hi], %[new_hi], %[old_hi], eq\n"
      "   stlxp %w[failed], %[st_lo], %[st_hi], [%[p]]\n"
      "   cbnz %w[failed], 1b\n"
      : [old_lo] "=&r"(old.lo), [old_hi] "=&r"(old.hi), [st_lo] "=&r"(store_lo), [st_hi] "=&r"(store_hi),
        [failed] "=&r"(failed)
      : [p] "r"(p), [exp_lo] "r"(expected.lo), [exp_hi] "r"(expected.hi), [new_lo] "r"(desired.lo),
        [new_hi] "r"(desired.hi)
      : "cc", "memory");
#else
  // Host builds (unit tests) run one thread and never execute guest code.
  old = {p[0], p[1]};
  bool equal = old.lo == expected.lo && old.hi == expected.hi;
  p[0] = equal ? desired.lo : old.lo;
  p[1] = equal ? desired.hi : old.hi;
#endif
  return old;
}

}  // namespace

uint64_t helper_cmpxchg16b(GuestState* s, uint64_t addr, uint64_t) {
  Pair expected{s->gpr[RAX], s->gpr[RDX]};
  Pair old = compare_exchange_16(reinterpret_cast<uint64_t*>(addr), expected, {s->gpr[RBX], s->gpr[RCX]});
  bool equal = old.lo == expected.lo && old.hi == expected.hi;
  if (!equal) {
    s->gpr[RAX] = old.lo;
    s->gpr[RDX] = old.hi;
  }
  s->rflags = (s->rflags & ~kFlagMask(kZF)) | (uint64_t{equal} << kZF);
  return 0;
}

}  // namespace phybin::x86
