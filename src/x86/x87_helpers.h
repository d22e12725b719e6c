// The x87 instructions as helper calls: family_x87.cpp turns each
// instruction into one call of helper_x87 (or helper_x87_comi for the
// fcomi family) with the memory operand's address and a packed X87Desc.
// The register stack, tags, FCW and FSW live in GuestState (st, ftw, fcw,
// fsw with TOP in bits 11-13, mirrored in x87_top for fxsave).
#pragma once

#include "x86/context.h"

namespace phybin::x86 {

// Memory operand formats.
enum class X87Mem : uint8_t { None, F32, F64, F80, I16, I32, I64, Bcd, Env, State };

enum class X87Op : uint8_t {
  // Pushes the memory operand, or ST(reg) when mem is None.
  Load,
  LoadConst,  // reg = x87::Constant
  // Stores ST0 to memory or to ST(reg); fisttp truncates.
  Store,
  StoreTrunc,
  // dest op= src; dest is ST0, or ST(reg) with kToReg; src is the memory
  // operand, or the other of ST0/ST(reg).  SubR/DivR compute src - dest.
  Add, Mul, Sub, SubR, Div, DivR,
  // ST0 against the memory operand or ST(reg) (Test: against +0),
  // setting C3/C2/C0; Comi returns ZF/PF/CF instead (helper_x87_comi).
  Compare, Test, Examine,
  // One-operand functions of ST0.
  Chs, Abs, Sqrt, RoundInt, Exp2m1, Sin, Cos, SinCos, Tan, Extract,
  // ST0 op ST1 -> ST0.
  Scale, Prem, Prem1,
  // f(ST1, ST0) -> ST1, pop.
  Atan, Yl2x, Yl2xp1,
  // Stack and state.
  Exchange, IncTop, DecTop, Free, CondMove, Wait,
  StoreEnv, LoadEnv, Save, Restore,
};

enum X87Flags : uint8_t {
  kX87Pop = 1,       // pop once after the operation
  kX87Pop2 = 2,      // pop twice (fcompp, fucompp)
  kX87ToReg = 4,     // the destination is ST(reg)
  kX87Quiet = 8,     // fucom*: only signaling NaNs are invalid
  kX87Env16 = 16,    // fnstenv & co. with the operand-size prefix: the 14-byte layout
  // FSTP1 (d9 d8+i, undocumented): an empty ST0 is popped without a stack
  // underflow and nothing is stored, as Intel CPUs do
  kX87NoUnderflow = 32,
};

struct X87Desc {
  X87Op op = X87Op::Wait;
  X87Mem mem = X87Mem::None;
  uint8_t reg = 0;
  uint8_t flags = 0;
  // No instruction address: the helper takes FNSTENV's FIP from the RIP
  // the backend stores before every helper call, so that the descriptor
  // holds no guest address (saved translations may load elsewhere).

  uint64_t pack() const {
    return static_cast<uint64_t>(op) | uint64_t(mem) << 8 | uint64_t(reg) << 16 | uint64_t(flags) << 24;
  }
  static X87Desc unpack(uint64_t v) {
    X87Desc d;
    d.op = static_cast<X87Op>(v & 0xff);
    d.mem = static_cast<X87Mem>((v >> 8) & 0xff);
    d.reg = static_cast<uint8_t>((v >> 16) & 7);
    d.flags = static_cast<uint8_t>(v >> 24);
    return d;
  }
};

// a = memory operand address (or, for CondMove, the condition: 0/1).
uint64_t helper_x87(GuestState* s, uint64_t a, uint64_t desc);
// fcomi/fucomi(p): returns RFLAGS bits ZF, PF, CF.
uint64_t helper_x87_comi(GuestState* s, uint64_t, uint64_t desc);

}  // namespace phybin::x86
