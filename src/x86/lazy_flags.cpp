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

unsigned bytes_of(uint64_t record) { return 1u << ((record >> 4) & 3); }

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

uint64_t lazy_defined_flags(uint64_t record) {
  const auto op = static_cast<LazyOp>(record & 0xf);
  return op == LazyOp::Inc || op == LazyOp::Dec ? kArithFlags & ~kFlagMask(kCF) : kArithFlags;
}

uint64_t lazy_flags_value(uint64_t op, uint64_t a, uint64_t b) {
  const unsigned bytes = bytes_of(op);
  switch (static_cast<LazyOp>(op & 0xf)) {
    case LazyOp::Add: return add_flags(a, b, bytes);
    case LazyOp::Sub: return sub_flags(a, b, bytes);
    case LazyOp::Logic: return logic_flags(a, bytes);
    case LazyOp::Inc: return add_flags(a, 1, bytes) & ~kFlagMask(kCF);
    case LazyOp::Dec: return sub_flags(a, 1, bytes) & ~kFlagMask(kCF);
    case LazyOp::Neg: return sub_flags(0, a, bytes);
    case LazyOp::Test: return logic_flags(a & b, bytes);
  }
  return 0;
}

namespace {

// The record's operands a and b, from the guest registers it names.
void operands_of(const GuestState& s, uint64_t record, uint64_t& a, uint64_t& b) {
  using namespace lazy_record;
  if (record & kInMemory) {
    a = s.lazy_flags_a, b = s.lazy_flags_b;
    return;
  }
  const uint64_t x = s.gpr[(record >> 12) & 15];
  b = record & kImmediate ? static_cast<uint64_t>(static_cast<int64_t>(record) >> 32) : s.gpr[(record >> 16) & 15];
  if (!(record & kResultInX)) {
    a = x;
    return;
  }
  switch (static_cast<LazyOp>(record & 0xf)) {  // the first operand, back from the result
    case LazyOp::Add: a = x - b; break;
    case LazyOp::Sub: a = x + b; break;
    case LazyOp::Inc: a = x - 1; break;
    case LazyOp::Dec: a = x + 1; break;
    case LazyOp::Neg: a = 0 - x; break;
    case LazyOp::Logic: case LazyOp::Test: a = x; break;
  }
}

}  // namespace

void materialise_lazy_flags(GuestState* s) {
  const uint64_t record = s->lazy_flags_record;
  if (record == 0) return;
  uint64_t a = 0, b = 0;
  operands_of(*s, record, a, b);
  const uint64_t defined = lazy_defined_flags(record);
  s->rflags = (s->rflags & ~defined) | (lazy_flags_value(record & 0x3f, a, b) & defined);
  s->lazy_flags_record = 0;
}

}  // namespace phybin::x86
