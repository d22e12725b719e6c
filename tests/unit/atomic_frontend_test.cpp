// The IR of locked instructions: one AtomicRmw or AtomicCas for the memory
// operand and no separate load or store of it; the unlocked forms keep
// plain accesses; mfence is a Fence (encodings from `as --64`, checked
// with `objdump -d -M intel`).  What the atomics compute is tested by the
// guest program locked_ops, under both lowerings.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <initializer_list>

#include "guest_code.h"
#include "ir/ir.h"

namespace phybin::x86 {
namespace {

using ir::AtomicOp;
using ir::Block;
using ir::Opcode;
using ir::Type;

using Code = GuestCode;

int count(const Block& b, Opcode op) {
  return static_cast<int>(std::count_if(b.insts.begin(), b.insts.end(), [op](const ir::Inst& i) { return i.op == op; }));
}

const ir::Inst* only(const Block& b, Opcode op) {
  const ir::Inst* found = nullptr;
  for (const ir::Inst& i : b.insts)
    if (i.op == op) {
      if (found) return nullptr;
      found = &i;
    }
  return found;
}

// One AtomicRmw of `op` in `width`, and no plain access of the operand.
void expect_rmw(std::initializer_list<uint8_t> bytes, AtomicOp op, Type width) {
  Block b = Code(bytes).translate();
  const ir::Inst* rmw = only(b, Opcode::AtomicRmw);
  ASSERT_NE(rmw, nullptr) << ir::print_block(b);
  EXPECT_EQ(static_cast<AtomicOp>(rmw->aux), op) << ir::print_block(b);
  EXPECT_EQ(rmw->type, width);
  EXPECT_EQ(count(b, Opcode::Load), 0) << ir::print_block(b);
  EXPECT_EQ(count(b, Opcode::Store), 0) << ir::print_block(b);
}

TEST(AtomicFrontend, LockedArithmeticIsOneAtomic) {
  expect_rmw({0xf0, 0x48, 0x01, 0x18}, AtomicOp::Add, Type::I64);        // lock add [rax], rbx
  expect_rmw({0xf0, 0x83, 0x28, 0x05}, AtomicOp::Add, Type::I32);        // lock sub dword [rax], 5: adds -5
  expect_rmw({0xf0, 0xf6, 0x18}, AtomicOp::Neg, Type::I8);               // lock neg byte [rax]
  expect_rmw({0xf0, 0x48, 0x0f, 0xc1, 0x08}, AtomicOp::Add, Type::I64);  // lock xadd [rax], rcx
  expect_rmw({0xf0, 0x0f, 0xba, 0x28, 0x03}, AtomicOp::Or, Type::I32);   // lock bts dword [rax], 3
}

TEST(AtomicFrontend, XchgWithMemoryIsLockedWithoutThePrefix) {
  expect_rmw({0x87, 0x18}, AtomicOp::Swap, Type::I32);  // xchg [rax], ebx
}

TEST(AtomicFrontend, LockCmpxchgIsOneCompareAndSwap) {
  Block b = Code{0x66, 0xf0, 0x0f, 0xb1, 0x18}.translate();  // lock cmpxchg word [rax], bx
  const ir::Inst* cas = only(b, Opcode::AtomicCas);
  ASSERT_NE(cas, nullptr) << ir::print_block(b);
  EXPECT_EQ(cas->type, Type::I16);
  EXPECT_EQ(count(b, Opcode::Store), 0) << ir::print_block(b);
}

TEST(AtomicFrontend, UnlockedFormsStayPlainAccesses) {
  Block b = Code{0x48, 0x01, 0x18}.translate();  // add [rax], rbx
  EXPECT_EQ(count(b, Opcode::AtomicRmw), 0) << ir::print_block(b);
  EXPECT_EQ(count(b, Opcode::Load), 1);
  EXPECT_EQ(count(b, Opcode::Store), 1);
}

TEST(AtomicFrontend, MfenceIsAFence) {
  Block b = Code{0x0f, 0xae, 0xf0}.translate();  // mfence
  EXPECT_EQ(count(b, Opcode::Fence), 1) << ir::print_block(b);
}

}  // namespace
}  // namespace phybin::x86
