// The x87 family of the frontend (src/x86/family_x87.cpp): each x87
// instruction becomes one helper call whose packed X87Desc names the
// operation, the ST(i) operand, the memory format and the pop/direction
// flags.  Zydis lists the ST0 operand of some forms and not of others
// ("fucomp st0, st1" but "fucom st1"), so the register chosen is checked
// for every shape.  Encodings checked with `as --64` / `objdump -d`.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <initializer_list>

#include "common/error.h"
#include "common/guest_state.h"
#include "ir/ir.h"
#include "x86/frontend.h"
#include "x86/x87_helpers.h"

namespace phybin::x86 {
namespace {

using ir::Block;
using ir::Inst;
using ir::Opcode;

struct Call {
  bool found = false;
  uint64_t fn = 0;
  X87Desc desc;
};

alignas(16) std::array<uint8_t, 64> code;

// Translates one instruction (followed by int3) and returns its x87 call.
Call translate_one(std::initializer_list<uint8_t> bytes) {
  code.fill(0xcc);
  std::copy(bytes.begin(), bytes.end(), code.begin());
  Block block = Frontend(Hooks{}).translate(reinterpret_cast<uint64_t>(code.data()), 1);
  Call call;
  for (const Inst& in : block.insts) {
    if (in.op != Opcode::CallHelper || in.args[1] == ir::kNoValue) continue;
    const Inst& packed = block.at(in.args[1]);
    if (packed.op != Opcode::Const) continue;
    call.found = true;
    call.fn = in.imm;
    call.desc = X87Desc::unpack(packed.imm);
  }
  return call;
}

void expect(std::initializer_list<uint8_t> bytes, X87Op op, X87Mem mem, unsigned reg, unsigned flags) {
  Call c = translate_one(bytes);
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.desc.op, op);
  EXPECT_EQ(c.desc.mem, mem);
  EXPECT_EQ(c.desc.reg, reg);
  EXPECT_EQ(c.desc.flags, flags);
}

TEST(X87Frontend, ArithmeticRegisterForms) {
  expect({0xd8, 0xc3}, X87Op::Add, X87Mem::None, 3, 0);                     // fadd st0, st3
  expect({0xdc, 0xc3}, X87Op::Add, X87Mem::None, 3, kX87ToReg);             // fadd st3, st0
  expect({0xde, 0xc3}, X87Op::Add, X87Mem::None, 3, kX87ToReg | kX87Pop);   // faddp st3, st0
  expect({0xd8, 0xe1}, X87Op::Sub, X87Mem::None, 1, 0);                     // fsub st0, st1
  expect({0xdc, 0xe9}, X87Op::Sub, X87Mem::None, 1, kX87ToReg);             // fsub st1, st0 (Intel)
  expect({0xdc, 0xe1}, X87Op::SubR, X87Mem::None, 1, kX87ToReg);            // fsubr st1, st0
  expect({0xde, 0xf9}, X87Op::Div, X87Mem::None, 1, kX87ToReg | kX87Pop);   // fdivp st1, st0
  expect({0xde, 0xc0}, X87Op::Add, X87Mem::None, 0, kX87ToReg | kX87Pop);   // faddp st0, st0
}

TEST(X87Frontend, MemoryFormats) {
  expect({0xd8, 0x07}, X87Op::Add, X87Mem::F32, 0, 0);        // fadd dword [rdi]
  expect({0xdc, 0x0f}, X87Op::Mul, X87Mem::F64, 0, 0);        // fmul qword [rdi]
  expect({0xde, 0x3f}, X87Op::DivR, X87Mem::I16, 0, 0);       // fidivr word [rdi]
  expect({0xda, 0x27}, X87Op::Sub, X87Mem::I32, 0, 0);        // fisub dword [rdi]
  expect({0xdb, 0x2f}, X87Op::Load, X87Mem::F80, 0, 0);       // fld tword [rdi]
  expect({0xdf, 0x2f}, X87Op::Load, X87Mem::I64, 0, 0);       // fild qword [rdi]
  expect({0xdf, 0x27}, X87Op::Load, X87Mem::Bcd, 0, 0);       // fbld [rdi]
  expect({0xd9, 0x17}, X87Op::Store, X87Mem::F32, 0, 0);      // fst dword [rdi]
  expect({0xdb, 0x3f}, X87Op::Store, X87Mem::F80, 0, kX87Pop);  // fstp tword [rdi]
  expect({0xdf, 0x37}, X87Op::Store, X87Mem::Bcd, 0, kX87Pop);  // fbstp [rdi]
  expect({0xdb, 0x0f}, X87Op::StoreTrunc, X87Mem::I32, 0, kX87Pop);  // fisttp dword [rdi]
  expect({0xdd, 0x37}, X87Op::Save, X87Mem::None, 0, 0);      // fnsave [rdi]
  expect({0xd9, 0x27}, X87Op::LoadEnv, X87Mem::None, 0, 0);   // fldenv [rdi]
}

TEST(X87Frontend, CompareOperandShapes) {
  expect({0xdd, 0xe1}, X87Op::Compare, X87Mem::None, 1, kX87Quiet);              // fucom st1
  expect({0xdd, 0xea}, X87Op::Compare, X87Mem::None, 2, kX87Quiet | kX87Pop);    // fucomp st0, st2
  expect({0xda, 0xe9}, X87Op::Compare, X87Mem::None, 1, kX87Quiet | kX87Pop2);   // fucompp
  expect({0xd8, 0xda}, X87Op::Compare, X87Mem::None, 2, kX87Pop);                // fcomp st2
  expect({0xde, 0xd9}, X87Op::Compare, X87Mem::None, 1, kX87Pop2);               // fcompp
  expect({0xde, 0x17}, X87Op::Compare, X87Mem::I16, 0, 0);                       // ficom word [rdi]
  expect({0xd9, 0xe4}, X87Op::Test, X87Mem::None, 0, 0);                         // ftst
  Call c = translate_one({0xdf, 0xea});                                          // fucomip st0, st2
  ASSERT_TRUE(c.found);
  EXPECT_EQ(c.fn, reinterpret_cast<uint64_t>(&helper_x87_comi));
  EXPECT_EQ(c.desc.reg, 2u);
  EXPECT_EQ(c.desc.flags, kX87Quiet | kX87Pop);
}

TEST(X87Frontend, StackInstructions) {
  expect({0xd9, 0xc3}, X87Op::Load, X87Mem::None, 3, 0);          // fld st3
  expect({0xdd, 0xdb}, X87Op::Store, X87Mem::None, 3, kX87Pop);   // fstp st3
  expect({0xd9, 0xc9}, X87Op::Exchange, X87Mem::None, 1, 0);      // fxch st1
  expect({0xdf, 0xc2}, X87Op::Free, X87Mem::None, 2, kX87Pop);    // ffreep st2
  expect({0xda, 0xc5}, X87Op::CondMove, X87Mem::None, 5, 0);      // fcmovb st0, st5
  expect({0xd9, 0xeb}, X87Op::LoadConst, X87Mem::None, 2, 0);     // fldpi (constant 2)
}

// FNSTENV's FIP is the low half of the instruction's address, which the
// helper takes from the RIP stored before the call: the descriptor, saved
// with relocatable translations, holds no address.
TEST(X87Frontend, InstructionPointerComesFromTheState) {
  GuestState s{};
  s.fcw = 0x37f;
  s.ftw = 0xffff;
  s.rip = 0x00007f12'89abcdefull;
  X87Desc d{X87Op::LoadConst};
  d.reg = 0;  // fld1
  helper_x87(&s, 0, d.pack());
  EXPECT_EQ(s.x87_fip, 0x89abcdefu);
  EXPECT_EQ(d.pack() >> 32, 0u);
}

// The undocumented aliases every x87 CPU runs: their documented twins'
// descriptors, except FSTP1, which pops an empty ST0 without an underflow.
TEST(X87Frontend, UndocumentedAliases) {
  expect({0xd9, 0xda}, X87Op::Store, X87Mem::None, 2, kX87Pop | kX87NoUnderflow);  // FSTP1 st2
  expect({0xdf, 0xd1}, X87Op::Store, X87Mem::None, 1, kX87Pop);    // FSTP8 st1
  expect({0xdf, 0xdb}, X87Op::Store, X87Mem::None, 3, kX87Pop);    // FSTP9 st3
  expect({0xdc, 0xd2}, X87Op::Compare, X87Mem::None, 2, 0);        // FCOM2 st2
  expect({0xdc, 0xd9}, X87Op::Compare, X87Mem::None, 1, kX87Pop);  // FCOMP3 st1
  expect({0xde, 0xd3}, X87Op::Compare, X87Mem::None, 3, kX87Pop);  // FCOMP5 st3
  expect({0xdd, 0xcc}, X87Op::Exchange, X87Mem::None, 4, 0);       // FXCH4 st4
  expect({0xdf, 0xcf}, X87Op::Exchange, X87Mem::None, 7, 0);       // FXCH7 st7
  expect({0xdf, 0xc0}, X87Op::Free, X87Mem::None, 0, kX87Pop);     // FFREEP st0
}

// FSTP1 of an empty ST0, as measured on Intel: a pop that clears C1 and
// stores nothing, without the stack underflow fstp st(i) raises.
TEST(X87Frontend, Fstp1OfAnEmptyStackOnlyPops) {
  for (uint8_t flags : {uint8_t{kX87Pop}, uint8_t{kX87Pop | kX87NoUnderflow}}) {
    GuestState s{};
    s.fcw = 0x37f;
    s.ftw = 0xffff;
    s.fsw = 3 << 11 | 0x200;  // TOP 3, C1 set
    s.x87_top = 3;
    X87Desc d{X87Op::Store};
    d.reg = 1;
    d.flags = flags;
    helper_x87(&s, 0, d.pack());
    EXPECT_EQ((s.fsw >> 11) & 7, 4);
    if (flags & kX87NoUnderflow) {
      EXPECT_EQ(s.fsw & 0x3ff, 0);    // no IE/SF, C1 clear
      EXPECT_EQ(s.ftw, 0xffff);       // ST(1) stays empty
    } else {
      EXPECT_EQ(s.fsw & 0x41, 0x41);  // IE and SF: stack underflow
      EXPECT_NE(s.ftw, 0xffff);       // the indefinite went to ST(1)
    }
  }
}

// The 16-bit environment layouts (operand-size prefix) are refused.
TEST(X87Frontend, SixteenBitEnvironmentIsTranslated) {
  code.fill(0xcc);
  code[0] = 0x66;
  code[1] = 0xd9;
  code[2] = 0x37;  // fnstenv with a 14-byte image
  const ir::Block b = Frontend(Hooks{}).translate(reinterpret_cast<uint64_t>(code.data()), 1);
  ASSERT_FALSE(b.insts.empty());
  bool helper = false, trap = false;
  for (const ir::Inst& i : b.insts) {
    helper |= i.op == ir::Opcode::CallHelper;
    trap |= i.op == ir::Opcode::Trap;
  }
  EXPECT_TRUE(helper);
  EXPECT_FALSE(trap);
}

}  // namespace
}  // namespace phybin::x86
