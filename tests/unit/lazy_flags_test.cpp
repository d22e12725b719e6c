// Tests of src/x86/lazy_flags: the flags a lazy record stands for, against
// this x86-64 host CPU's own add/sub/inc/dec/and (whose status flags every
// x86-64 CPU defines alike; AF after a logic op is undefined and left out),
// and materialise_lazy_flags' merge into RFLAGS.
#include <gtest/gtest.h>

#include <cstdint>

#include "x86/lazy_flags.h"

namespace phybin::x86 {
namespace {

constexpr uint64_t kStatus = kArithFlags;

#define CPU_FLAGS(insn, a, b)                                                                  \
  [](uint64_t x, uint64_t y) {                                                                 \
    uint64_t f;                                                                                \
    __asm__ volatile(insn "\n pushfq\n popq %0" : "=r"(f), "+r"(x) : "r"(y) : "cc");              \
    return f & kStatus;                                                                        \
  }(a, b)

uint64_t cpu(LazyOp op, unsigned bytes, uint64_t a, uint64_t b) {
  switch (op) {
    case LazyOp::Add:
      if (bytes == 1) return CPU_FLAGS("addb %b2, %b1", a, b);
      if (bytes == 2) return CPU_FLAGS("addw %w2, %w1", a, b);
      if (bytes == 4) return CPU_FLAGS("addl %k2, %k1", a, b);
      return CPU_FLAGS("addq %2, %1", a, b);
    case LazyOp::Sub:
      if (bytes == 1) return CPU_FLAGS("subb %b2, %b1", a, b);
      if (bytes == 2) return CPU_FLAGS("subw %w2, %w1", a, b);
      if (bytes == 4) return CPU_FLAGS("subl %k2, %k1", a, b);
      return CPU_FLAGS("subq %2, %1", a, b);
    case LazyOp::Logic:  // a is the result: and with itself sets its flags
      if (bytes == 1) return CPU_FLAGS("andb %b1, %b1", a, b);
      if (bytes == 2) return CPU_FLAGS("andw %w1, %w1", a, b);
      if (bytes == 4) return CPU_FLAGS("andl %k1, %k1", a, b);
      return CPU_FLAGS("andq %1, %1", a, b);
    case LazyOp::Inc:
      if (bytes == 1) return CPU_FLAGS("incb %b1", a, b);
      if (bytes == 2) return CPU_FLAGS("incw %w1", a, b);
      if (bytes == 4) return CPU_FLAGS("incl %k1", a, b);
      return CPU_FLAGS("incq %1", a, b);
    case LazyOp::Dec:
      if (bytes == 1) return CPU_FLAGS("decb %b1", a, b);
      if (bytes == 2) return CPU_FLAGS("decw %w1", a, b);
      if (bytes == 4) return CPU_FLAGS("decl %k1", a, b);
      return CPU_FLAGS("decq %1", a, b);
    case LazyOp::Neg:
      if (bytes == 1) return CPU_FLAGS("negb %b1", a, b);
      if (bytes == 2) return CPU_FLAGS("negw %w1", a, b);
      if (bytes == 4) return CPU_FLAGS("negl %k1", a, b);
      return CPU_FLAGS("negq %1", a, b);
    case LazyOp::Test:
      if (bytes == 1) return CPU_FLAGS("testb %b2, %b1", a, b);
      if (bytes == 2) return CPU_FLAGS("testw %w2, %w1", a, b);
      if (bytes == 4) return CPU_FLAGS("testl %k2, %k1", a, b);
      return CPU_FLAGS("testq %2, %1", a, b);
  }
  return 0;
}

const uint64_t kValues[] = {0, 1, 2, 0xf, 0x10, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x7fffffff,
                            0x80000000, 0xffffffff, 0x7fffffffffffffff, 0x8000000000000000, ~uint64_t{0},
                            0x123456789abcdef0, 0xfedcba9876543210};

TEST(LazyFlags, AgreeWithTheCpu) {
  for (LazyOp op : {LazyOp::Add, LazyOp::Sub, LazyOp::Logic, LazyOp::Inc, LazyOp::Dec, LazyOp::Neg, LazyOp::Test})
    for (unsigned bytes : {1u, 2u, 4u, 8u}) {
      const uint64_t kind = lazy_record::of(op, bytes);
      uint64_t mask = lazy_defined_flags(kind);
      if (op == LazyOp::Logic || op == LazyOp::Test) mask &= ~kFlagMask(kAF);
      for (uint64_t a : kValues)
        for (uint64_t b : kValues)
          ASSERT_EQ(lazy_flags_value(kind, a, b) & mask, cpu(op, bytes, a, b) & mask)
              << "op " << int(op) << " bytes " << bytes << " a " << std::hex << a << " b " << b;
    }
}

TEST(LazyFlags, MaterialiseMergesAndClears) {
  GuestState s{};
  s.rflags = 0x2 | kFlagMask(kCF) | kFlagMask(kDF);
  s.lazy_flags_a = 0xff;  // inc al: 0x00, ZF and AF and PF set, CF kept
  s.lazy_flags_record = lazy_record::of(LazyOp::Inc, 1) | lazy_record::kInMemory;
  materialise_lazy_flags(&s);
  EXPECT_EQ(s.rflags, 0x2 | kFlagMask(kCF) | kFlagMask(kDF) | kFlagMask(kZF) | kFlagMask(kAF) | kFlagMask(kPF));
  EXPECT_EQ(s.lazy_flags_record, 0u);
  materialise_lazy_flags(&s);  // nothing pending: unchanged
  EXPECT_EQ(s.lazy_flags_record, 0u);
  EXPECT_TRUE(s.rflags & kFlagMask(kZF));
}

// Records that name registers: the operands come back from the result
// (add, sub, inc, dec, neg), or are the registers (cmp, test), or b is
// the immediate; each as the CPU's flags for the original operands.
TEST(LazyFlags, RegisterRecordsRecoverTheOperands) {
  using namespace lazy_record;
  struct Case {
    LazyOp op;
    bool result_in_x, immediate;
  };
  const Case cases[] = {{LazyOp::Add, true, false}, {LazyOp::Sub, true, false}, {LazyOp::Sub, false, false},
                        {LazyOp::Add, true, true},  {LazyOp::Sub, false, true}, {LazyOp::Inc, true, false},
                        {LazyOp::Dec, true, false}, {LazyOp::Neg, true, false}};
  for (const Case& k : cases)
    for (unsigned bytes : {1u, 4u, 8u})
      for (uint64_t a : kValues)
        for (uint64_t b : {uint64_t{1}, uint64_t{0x7f}, uint64_t{0x80000000}, ~uint64_t{0}}) {
          const uint64_t imm = k.immediate ? static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(b))) : b;
          const bool unary = k.op == LazyOp::Inc || k.op == LazyOp::Dec || k.op == LazyOp::Neg;
          const uint64_t bb = unary ? 1 : imm;
          GuestState s{};
          const bool add = k.op == LazyOp::Add || k.op == LazyOp::Inc;
          s.gpr[RCX] = k.op == LazyOp::Neg ? 0 - a : k.result_in_x ? (add ? a + bb : a - bb) : a;
          s.gpr[RDX] = b;
          uint64_t record = with_x(of(k.op, bytes), RCX) | (k.result_in_x ? kResultInX : 0);
          record = k.immediate ? with_immediate(record, b & 0xffffffff) : with_y(record, RDX);
          s.lazy_flags_record = record;
          materialise_lazy_flags(&s);
          const LazyOp cpu_op = k.op;
          const uint64_t defined = lazy_defined_flags(record);
          ASSERT_EQ(s.rflags & defined, cpu(cpu_op, bytes, a, bb) & defined)
              << "op " << int(k.op) << " bytes " << bytes << std::hex << " a " << a << " b " << bb;
        }
}

// Logic ops leave AF 0 in phybin's model.
TEST(LazyFlags, LogicClearsCarryOverflowAndAdjust) {
  EXPECT_EQ(lazy_flags_value(lazy_record::of(LazyOp::Logic, 4), 0x80000000, 0), kFlagMask(kSF) | kFlagMask(kPF));
  EXPECT_EQ(lazy_flags_value(lazy_record::of(LazyOp::Logic, 8), 0, 0), kFlagMask(kZF) | kFlagMask(kPF));
}

}  // namespace
}  // namespace phybin::x86
