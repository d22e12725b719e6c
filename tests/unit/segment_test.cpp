// Segment registers in the frontend (src/x86/family_data.cpp) and their
// helper (helper_load_segment, src/x86/helpers.cpp): loads go through the
// helper before anything else changes, reads come from GuestState::selector
// (CS a constant), and the helper accepts exactly the selectors Linux's
// GDT lets CPL 3 load, with the #GP error code of the others.  Encodings
// checked with `as --64` / `objdump -d`.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstddef>
#include <initializer_list>
#include <tuple>
#include <utility>
#include <vector>

#include "common/guest_state.h"
#include "ir/ir.h"
#include "ir/passes.h"
#include "x86/frontend.h"
#include "x86/helpers.h"

namespace phybin::x86 {
namespace {

using ir::Block;
using ir::Inst;
using ir::Opcode;
using ir::Type;
using ir::Value;

alignas(16) std::array<uint8_t, 64> code;

Block translate(std::initializer_list<uint8_t> bytes, unsigned max_insns = 1) {
  code.fill(0xcc);
  std::copy(bytes.begin(), bytes.end(), code.begin());
  Block b = Frontend(Hooks{}).translate(reinterpret_cast<uint64_t>(code.data()), max_insns);
  EXPECT_EQ(ir::verify(b), "") << ir::print_block(b);
  return b;
}

std::vector<Value> all_of(const Block& b, Opcode op) {
  std::vector<Value> out;
  for (Value i = 0; i < b.insts.size(); ++i)
    if (!b.insts[i].dead && b.insts[i].op == op) out.push_back(i);
  return out;
}

// The one call of helper_load_segment: its index; the segment it loads.
Value load_call(const Block& b, uint64_t* sreg) {
  std::vector<Value> calls = all_of(b, Opcode::CallHelper);
  EXPECT_EQ(calls.size(), 1u) << ir::print_block(b);
  if (calls.size() != 1) return ir::kNoValue;
  const Inst& call = b.at(calls[0]);
  EXPECT_EQ(call.imm, reinterpret_cast<uint64_t>(&helper_load_segment));
  EXPECT_EQ(b.at(call.args[1]).op, Opcode::Const);
  *sreg = b.at(call.args[1]).imm;
  return calls[0];
}

constexpr uint32_t selector_offset(SegReg s) { return static_cast<uint32_t>(offsetof(GuestState, selector) + 2 * s); }

TEST(SegmentFrontend, MovToSegmentCallsTheHelperWithAWord) {
  for (auto [bytes, want] : {std::pair{std::vector<uint8_t>{0x8e, 0xd8}, kDS},            // mov ds, eax
                             std::pair{std::vector<uint8_t>{0x66, 0x8e, 0xc0}, kES},      // mov es, ax
                             std::pair{std::vector<uint8_t>{0x48, 0x8e, 0xd0}, kSS},      // mov ss, rax
                             std::pair{std::vector<uint8_t>{0x8e, 0xe1}, kFS},            // mov fs, ecx
                             std::pair{std::vector<uint8_t>{0x8e, 0x2f}, kGS}}) {         // mov gs, [rdi]
    code.fill(0xcc);
    std::copy(bytes.begin(), bytes.end(), code.begin());
    Block b = Frontend(Hooks{}).translate(reinterpret_cast<uint64_t>(code.data()), 1);
    uint64_t sreg = 99;
    const Value call = load_call(b, &sreg);
    EXPECT_EQ(sreg, uint64_t{want});
    ASSERT_NE(call, ir::kNoValue);
    // The selector argument is the word, zero-extended.
    const Inst& arg = b.at(b.at(call).args[0]);
    EXPECT_EQ(arg.op, Opcode::ZExt);
    EXPECT_EQ(b.at(arg.args[0]).type, Type::I16);
    for (Value l : all_of(b, Opcode::Load)) EXPECT_EQ(b.at(l).type, Type::I16);  // m16 reads a word
  }
}

TEST(SegmentFrontend, MovToCsIsInvalid) {
  Block b = translate({0x8e, 0xc8});  // mov cs, eax: #UD
  std::vector<Value> traps = all_of(b, Opcode::Trap);
  ASSERT_EQ(traps.size(), 1u);
  EXPECT_EQ(b.at(traps[0]).aux, SIGILL);
}

TEST(SegmentFrontend, ReadsComeFromTheStateButCs) {
  Block b = translate({0x8c, 0xd8});  // mov eax, ds
  std::vector<Value> loads = all_of(b, Opcode::LoadState);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(b.at(loads[0]).imm, selector_offset(kDS));
  EXPECT_EQ(b.at(loads[0]).type, Type::I16);
  b = translate({0x0f, 0xa8});  // push gs
  loads = all_of(b, Opcode::LoadState);
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(b.at(loads[0]).imm, selector_offset(kGS));
  b = translate({0x8c, 0xc8});  // mov eax, cs
  EXPECT_TRUE(all_of(b, Opcode::LoadState).empty());
}

// pop fs/gs: the stack word or quadword is read, the helper runs, and only
// then does RSP move (a #GP leaves it).
TEST(SegmentFrontend, PopMovesRspAfterTheLoad) {
  for (auto [bytes, type, step, want] :
       {std::tuple{std::vector<uint8_t>{0x0f, 0xa1}, Type::I64, 8u, kFS},           // pop fs
        std::tuple{std::vector<uint8_t>{0x66, 0x0f, 0xa9}, Type::I16, 2u, kGS},     // pop gs (16-bit)
        std::tuple{std::vector<uint8_t>{0x66, 0x48, 0x0f, 0xa1}, Type::I64, 8u, kFS}}) {  // REX.W wins
    code.fill(0xcc);
    std::copy(bytes.begin(), bytes.end(), code.begin());
    Block b = Frontend(Hooks{}).translate(reinterpret_cast<uint64_t>(code.data()), 1);
    uint64_t sreg = 99;
    const Value call = load_call(b, &sreg);
    EXPECT_EQ(sreg, uint64_t{want});
    std::vector<Value> loads = all_of(b, Opcode::Load);
    ASSERT_EQ(loads.size(), 1u);
    EXPECT_EQ(b.at(loads[0]).type, type);
    for (Value v = 0; v < b.insts.size(); ++v) {
      const Inst& in = b.at(v);
      if (in.op != Opcode::SetReg || in.aux != RSP) continue;
      EXPECT_GT(v, call) << ir::print_block(b);
      const Inst& sum = b.at(in.args[0]);
      ASSERT_EQ(sum.op, Opcode::Add);
      EXPECT_EQ(b.at(sum.args[1]).imm, step);
    }
  }
}

// lss/lfs/lgs: the offset in the operand size, the selector after it, the
// register written after the helper.
TEST(SegmentFrontend, FarPointerLoadsReadOffsetThenSelector) {
  for (auto [bytes, type, want] : {std::tuple{std::vector<uint8_t>{0x66, 0x0f, 0xb4, 0x07}, Type::I16, kFS},  // lfs ax, [rdi]
                                   std::tuple{std::vector<uint8_t>{0x0f, 0xb5, 0x07}, Type::I32, kGS},        // lgs eax, [rdi]
                                   std::tuple{std::vector<uint8_t>{0x48, 0x0f, 0xb2, 0x07}, Type::I64, kSS}}) {  // lss rax, [rdi]
    code.fill(0xcc);
    std::copy(bytes.begin(), bytes.end(), code.begin());
    Block b = Frontend(Hooks{}).translate(reinterpret_cast<uint64_t>(code.data()), 1);
    uint64_t sreg = 99;
    const Value call = load_call(b, &sreg);
    EXPECT_EQ(sreg, uint64_t{want});
    std::vector<Value> loads = all_of(b, Opcode::Load);
    ASSERT_EQ(loads.size(), 2u);
    EXPECT_EQ(b.at(loads[0]).type, type);
    EXPECT_EQ(b.at(loads[1]).type, Type::I16);
    const Inst& addr = b.at(b.at(loads[1]).args[0]);
    ASSERT_EQ(addr.op, Opcode::Add);
    EXPECT_EQ(b.at(addr.args[1]).imm, static_cast<uint64_t>(ir::type_bits(type) / 8));
    for (Value v : all_of(b, Opcode::SetReg)) {
      if (b.at(v).aux == RAX) {
        EXPECT_GT(v, call);
      }
    }
  }
  Block b = translate({0x0f, 0xb4, 0xc0});  // lfs eax, eax: #UD
  EXPECT_EQ(all_of(b, Opcode::Trap).size(), 1u);
}

// mov fs, ax; mov rax, fs:[rbx]: the second instruction reads the base the
// helper may have changed.
TEST(SegmentFrontend, LaterFsOperandsReadTheBaseAfterTheLoad) {
  Block b = translate({0x8e, 0xe0, 0x64, 0x48, 0x8b, 0x03}, 2);
  ir::optimize(b);
  uint64_t sreg = 99;
  const Value call = load_call(b, &sreg);
  std::vector<Value> bases = all_of(b, Opcode::LoadState);
  ASSERT_EQ(bases.size(), 1u);
  EXPECT_EQ(b.at(bases[0]).imm, offsetof(GuestState, fs_base));
  EXPECT_GT(bases[0], call);
}

// ---- The helper -----------------------------------------------------------

struct GpFault {
  int code;
};
[[noreturn]] void throw_signal(GuestState*, int signal) { throw GpFault{signal}; }

// Loads `sel` into `sreg` of a fresh state; the #GP error code, or -1.
int load(GuestState& s, uint16_t sel, SegReg sreg) {
  Hooks hooks;
  hooks.raise_signal = &throw_signal;
  set_helper_hooks(hooks);
  int result = -1;
  try {
    helper_load_segment(&s, sel, sreg);
  } catch (const GpFault& f) {
    EXPECT_NE(f.code & kTrapGpError, 0);
    result = f.code & 0xffff;
  }
  set_helper_hooks(Hooks{});
  return result;
}

TEST(SegmentHelper, DataSegmentsTakeNullAndUserDescriptors) {
  const uint16_t good[] = {0, 1, 2, 3, 0x23, 0x20, 0x2b, 0x28, 0x29, 0x33, 0x30, 0x7b, 0x78};
  const uint16_t bad[] = {0x04, 0x07, 0x08, 0x10, 0x1b, 0x3b, 0x43, 0x53, 0x63, 0x6b, 0x73, 0x2f, 0x0c, 0x83, 0xfffb};
  for (SegReg r : {kES, kDS, kFS, kGS}) {
    for (uint16_t sel : good) {
      GuestState s{};
      s.fs_base = s.gs_base = 0x1234;
      EXPECT_EQ(load(s, sel, r), -1) << std::hex << sel;
      EXPECT_EQ(s.selector[r], sel);
      EXPECT_EQ(s.fs_base, r == kFS ? 0u : 0x1234u);  // the base of every user descriptor, and of null (Intel)
      EXPECT_EQ(s.gs_base, r == kGS ? 0u : 0x1234u);
    }
    for (uint16_t sel : bad) {
      GuestState s{};
      s.fs_base = s.gs_base = 0x1234;
      s.selector[r] = 0x2b;
      EXPECT_EQ(load(s, sel, r), sel & 0xfffc) << std::hex << sel;
      EXPECT_EQ(s.selector[r], 0x2b);
      EXPECT_EQ(s.fs_base, 0x1234u);
      EXPECT_EQ(s.gs_base, 0x1234u);
    }
  }
}

TEST(SegmentHelper, StackSegmentTakesOnlyUserData) {
  GuestState s{};
  init_selectors(s);
  EXPECT_EQ(load(s, 0x2b, kSS), -1);
  EXPECT_EQ(s.selector[kSS], 0x2b);
  for (uint16_t sel : {0, 3, 0x28, 0x29, 0x2a, 0x23, 0x33, 0x7b, 0x63, 0x2f, 0x10}) {
    EXPECT_EQ(load(s, sel, kSS), sel & 0xfffc) << std::hex << sel;
    EXPECT_EQ(s.selector[kSS], 0x2b);
  }
}

TEST(SegmentState, InitialSelectorsAreLinuxs) {
  GuestState s{};
  init_selectors(s);
  EXPECT_EQ(s.selector[kCS], 0x33);
  EXPECT_EQ(s.selector[kSS], 0x2b);
  for (SegReg r : {kES, kDS, kFS, kGS}) EXPECT_EQ(s.selector[r], 0);
}

}  // namespace
}  // namespace phybin::x86
