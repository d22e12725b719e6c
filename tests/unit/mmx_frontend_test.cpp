// The MMX handlers (src/x86/family_mmx.cpp): an instruction with an MM
// register operand goes to them, not to the SSE handler of the same
// mnemonic; it reads and writes the x87 register file in the guest state
// and switches the FPU to MMX mode.  What the values are is tested by
// tests/guest/programs/mmx_ops.c against the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <initializer_list>
#include <vector>

#include "common/guest_state.h"
#include "ir/ir.h"
#include "x86/frontend.h"

namespace phybin::x86 {
namespace {

using ir::Block;
using ir::Inst;
using ir::Opcode;

Block translate_one(std::initializer_list<uint8_t> code) {
  static std::array<uint8_t, 64> bytes;
  bytes.fill(0xcc);  // int3 ends the block
  std::copy(code.begin(), code.end(), bytes.begin());
  Hooks hooks;
  hooks.syscall = [](GuestState*, uint64_t, uint64_t) -> uint64_t { return 0; };
  return Frontend(hooks).translate(reinterpret_cast<uint64_t>(bytes.data()), 1);
}

std::vector<uint64_t> state_offsets(const Block& b, Opcode op) {
  std::vector<uint64_t> out;
  for (const Inst& in : b.insts)
    if (in.op == op) out.push_back(in.imm);
  return out;
}

bool has(const std::vector<uint64_t>& v, uint64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

constexpr uint64_t st_offset(unsigned n) { return offsetof(GuestState, st) + 16 * n; }

TEST(MmxFrontend, RegisterFormUsesTheX87RegisterFile) {
  Block b = translate_one({0x0f, 0xfc, 0xd3});  // paddb mm2, mm3
  ASSERT_EQ(b.guest_insns, 1u);
  const auto loads = state_offsets(b, Opcode::LoadState);
  const auto stores = state_offsets(b, Opcode::StoreState);
  EXPECT_TRUE(has(loads, st_offset(2)) && has(loads, st_offset(3)));
  EXPECT_TRUE(has(stores, st_offset(2)));      // the value
  EXPECT_TRUE(has(stores, st_offset(2) + 8));  // exponent all ones
  EXPECT_TRUE(has(stores, offsetof(GuestState, ftw)));
  EXPECT_TRUE(has(stores, offsetof(GuestState, x87_top)));
  EXPECT_FALSE(has(stores, st_offset(3)));
  for (const Inst& in : b.insts) EXPECT_NE(in.op, Opcode::GetXmm);
}

TEST(MmxFrontend, XmmFormStaysSse) {
  Block b = translate_one({0x66, 0x0f, 0xfc, 0xd3});  // paddb xmm2, xmm3
  ASSERT_EQ(b.guest_insns, 1u);
  EXPECT_TRUE(state_offsets(b, Opcode::StoreState).empty());
}

TEST(MmxFrontend, MemorySourceConversionNeedsNoMmxMode) {
  Block b = translate_one({0x0f, 0x2a, 0x00});  // cvtpi2ps xmm0, qword ptr [rax]
  ASSERT_EQ(b.guest_insns, 1u);
  EXPECT_FALSE(has(state_offsets(b, Opcode::StoreState), offsetof(GuestState, ftw)));
  Block r = translate_one({0x0f, 0x2a, 0xc1});  // cvtpi2ps xmm0, mm1
  ASSERT_EQ(r.guest_insns, 1u);
  EXPECT_TRUE(has(state_offsets(r, Opcode::StoreState), offsetof(GuestState, ftw)));
}

TEST(MmxFrontend, EmmsEmptiesTheTags) {
  Block b = translate_one({0x0f, 0x77});  // emms
  ASSERT_EQ(b.guest_insns, 1u);
  bool found = false;
  for (const Inst& in : b.insts)
    if (in.op == Opcode::StoreState && in.imm == offsetof(GuestState, ftw))
      found = b.at(in.args[0]).op == Opcode::Const && b.at(in.args[0]).imm == 0xffff;
  EXPECT_TRUE(found);
}

// The CPU sets TOP to 0 on emms too (difftest mmx: after x87 pushes).
TEST(MmxFrontend, EmmsSetsTopToZero) {
  Block b = translate_one({0x0f, 0x77});  // emms
  bool found = false;
  for (const Inst& in : b.insts)
    if (in.op == Opcode::StoreState && in.imm == offsetof(GuestState, x87_top))
      found = b.at(in.args[0]).op == Opcode::Const && b.at(in.args[0]).imm == 0;
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace phybin::x86
