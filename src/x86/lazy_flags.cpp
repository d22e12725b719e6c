#include "x86/lazy_flags.h"

namespace phybin::x86 {

namespace {

uint64_t mask_of(unsigned bytes) { return bytes >= 8 ? ~uint64_t{0} : (uint64_t{1} << (bytes * 8)) - 1; }

uint64_t flag(bool set, FlagBit bit) { return set ? kFlagMask(bit) : 0; }

// ZF, SF, PF of r and AF from the carry out of bit 3 (a ^ b ^ r).
uint64_t result_flags(uint64_t a, uint64_t b, uint64_t r, unsigned bytes) {
  const uint64_t sign = uint64_t{1} << (bytes * 8 - 1);
  return flag(r == 0, kZF) | flag(r & sign, kSF) | flag(!__builtin_parity(static_cast<unsigned>(r & 0xff)), kPF) |
         flag((a ^ b ^ r) & 0x10, kAF);
}

unsigned bytes_of(uint32_t kind) { return 1u << ((kind >> 4) & 3); }

}  // namespace

uint64_t add_flags(uint64_t a, uint64_t b, unsigned bytes) {
  const uint64_t m = mask_of(bytes), sign = uint64_t{1} << (bytes * 8 - 1);
  a &= m, b &= m;
  const uint64_t r = (a + b) & m;
  return result_flags(a, b, r, bytes) | flag(r < a, kCF) | flag((a ^ r) & (b ^ r) & sign, kOF);
}

uint64_t sub_flags(uint64_t a, uint64_t b, unsigned bytes) {
  const uint64_t m = mask_of(bytes), sign = uint64_t{1} << (bytes * 8 - 1);
  a &= m, b &= m;
  const uint64_t r = (a - b) & m;
  return result_flags(a, b, r, bytes) | flag(a < b, kCF) | flag((a ^ b) & (a ^ r) & sign, kOF);
}

uint64_t logic_flags(uint64_t r, unsigned bytes) {
  r &= mask_of(bytes);
  return result_flags(0, 0, r, bytes) & ~kFlagMask(kAF);
}

uint64_t lazy_defined_flags(uint32_t kind) {
  const auto op = static_cast<LazyOp>(kind & 0xf);
  return op == LazyOp::Inc || op == LazyOp::Dec ? kArithFlags & ~kFlagMask(kCF) : kArithFlags;
}

uint64_t lazy_flags_value(uint32_t kind, uint64_t a, uint64_t b) {
  const unsigned bytes = bytes_of(kind);
  switch (static_cast<LazyOp>(kind & 0xf)) {
    case LazyOp::Add: return add_flags(a, b, bytes);
    case LazyOp::Sub: return sub_flags(a, b, bytes);
    case LazyOp::Logic: return logic_flags(a, bytes);
    case LazyOp::Inc: return add_flags(a, 1, bytes) & ~kFlagMask(kCF);
    case LazyOp::Dec: return sub_flags(a, 1, bytes) & ~kFlagMask(kCF);
  }
  return 0;
}

void materialise_lazy_flags(GuestState* s) {
  const uint32_t kind = s->lazy_flags_kind;
  if (kind == 0) return;
  const uint64_t defined = lazy_defined_flags(kind);
  s->rflags = (s->rflags & ~defined) | (lazy_flags_value(kind, s->lazy_flags_a, s->lazy_flags_b) & defined);
  s->lazy_flags_kind = 0;
}

}  // namespace phybin::x86
