// Bit-manipulation extensions: LZCNT/TZCNT (ABM/BMI1), the VEX-encoded
// BMI1 (andn, bextr, blsi, blsmsk, blsr) and BMI2 (bzhi, mulx, pdep, pext,
// rorx, sarx, shlx, shrx) instructions.  The flags the SDM leaves undefined
// (PF and AF everywhere, SF and OF for lzcnt/tzcnt) are cleared: that is
// what Intel CPUs do, and what the guest tests compare against.
#include <initializer_list>

#include "x86/flags.h"
#include "x86/helpers.h"
#include "x86/operands.h"

namespace phybin::x86 {

using ir::Cond;
using ir::Opcode;
using ir::Type;
using ir::Value;

namespace {

Value i1(Ctx& c, int v) { return c.b.constant(Type::I1, v); }
Value is_zero(Ctx& c, Value v) { return c.b.icmp(Cond::EQ, v, c.b.constant(c.b.type_of(v), 0)); }
Value is_negative(Ctx& c, Value v) { return c.b.icmp(Cond::SLT, v, c.b.constant(c.b.type_of(v), 0)); }

void clear_flags(Ctx& c, std::initializer_list<uint8_t> bits) {
  for (uint8_t bit : bits) put_flag(c, bit, i1(c, 0));
}

// lzcnt/tzcnt: the count (the operand width for a zero source); CF when the
// source is zero, ZF when the count is.
template <bool kLeading>
bool count_zeros(Ctx& c) {
  Type t = operand_type(c.op(0));
  Value src = read_operand(c, 1);
  Value count;
  if (kLeading) {
    count = c.b.unary(Opcode::Clz, t, src);
  } else if (t == Type::I16) {
    // A bit above the operand bounds the count at 16 for a zero source.
    Value wide = c.b.binary(Opcode::Or, Type::I32, c.b.zext(Type::I32, src), c.b.constant(Type::I32, 0x10000));
    count = c.b.trunc(Type::I16, c.b.unary(Opcode::Ctz, Type::I32, wide));
  } else {
    count = c.b.unary(Opcode::Ctz, t, src);
  }
  write_operand(c, 0, count);
  put_flag(c, kCF, is_zero(c, src));
  put_flag(c, kZF, is_zero(c, count));
  clear_flags(c, {kPF, kAF, kSF, kOF});
  return true;
}

// ZF and SF from the result, CF as given; OF, PF and AF cleared.
void flags_bmi(Ctx& c, Value r, Value cf, bool define_zf = true) {
  put_flag(c, kZF, define_zf ? is_zero(c, r) : i1(c, 0));
  put_flag(c, kSF, is_negative(c, r));
  put_flag(c, kCF, cf);
  clear_flags(c, {kOF, kPF, kAF});
}

bool andn(Ctx& c) {
  Type t = operand_type(c.op(0));
  Value r = c.b.binary(Opcode::AndNot, t, read_operand(c, 2), read_operand(c, 1));
  write_operand(c, 0, r);
  flags_bmi(c, r, i1(c, 0));
  return true;
}

enum class LowBit { Isolate, Mask, Reset };

// blsi: lowest set bit alone; blsmsk: up to and including it; blsr: cleared.
template <LowBit kOp>
bool lowest_bit(Ctx& c) {
  Type t = operand_type(c.op(0));
  Value src = read_operand(c, 1);
  Value minus_one = c.b.binary(Opcode::Sub, t, src, c.b.constant(t, 1));
  Value r = kOp == LowBit::Isolate ? c.b.binary(Opcode::And, t, c.b.unary(Opcode::Neg, t, src), src)
            : kOp == LowBit::Mask  ? c.b.binary(Opcode::Xor, t, minus_one, src)
                                   : c.b.binary(Opcode::And, t, minus_one, src);
  write_operand(c, 0, r);
  Value zero_src = is_zero(c, src);
  Value cf = kOp == LowBit::Isolate ? c.b.binary(Opcode::Xor, Type::I1, zero_src, i1(c, 1)) : zero_src;
  flags_bmi(c, r, cf, kOp != LowBit::Mask);
  return true;
}

// (1 << n) - 1 for n below the width, all ones otherwise; `n` is I32.
Value low_mask(Ctx& c, Type t, Value n) {
  int bits = type_bits(t);
  Value small = c.b.icmp(Cond::ULT, n, c.b.constant(Type::I32, bits));
  Value count = c.b.zext(t, c.b.binary(Opcode::And, Type::I32, n, c.b.constant(Type::I32, bits - 1)));
  Value mask = c.b.binary(Opcode::Sub, t, c.b.binary(Opcode::Shl, t, c.b.constant(t, 1), count), c.b.constant(t, 1));
  return c.b.select(t, small, mask, c.b.constant(t, ~uint64_t{0}));
}

// bextr: bits [start, start + len) of the source, start = control[7:0],
// len = control[15:8]; ZF from the result, CF and OF cleared.
bool bextr(Ctx& c) {
  Type t = operand_type(c.op(0));
  int bits = type_bits(t);
  Value src = read_operand(c, 1);
  Value control = read_operand(c, 2);
  Value start = c.b.extract(control, 0, 8);
  Value len = c.b.extract(control, 8, 8);
  Value in_range = c.b.icmp(Cond::ULT, start, c.b.constant(Type::I32, bits));
  Value count = c.b.zext(t, c.b.binary(Opcode::And, Type::I32, start, c.b.constant(Type::I32, bits - 1)));
  Value shifted = c.b.select(t, in_range, c.b.binary(Opcode::Lshr, t, src, count), c.b.constant(t, 0));
  Value r = c.b.binary(Opcode::And, t, shifted, low_mask(c, t, len));
  write_operand(c, 0, r);
  put_flag(c, kZF, is_zero(c, r));
  clear_flags(c, {kCF, kOF, kSF, kPF, kAF});
  return true;
}

// bzhi: the source with bits from index control[7:0] up cleared; CF when
// the index is beyond the operand.
bool bzhi(Ctx& c) {
  Type t = operand_type(c.op(0));
  int bits = type_bits(t);
  Value src = read_operand(c, 1);
  Value index = c.b.extract(read_operand(c, 2), 0, 8);
  Value r = c.b.binary(Opcode::And, t, src, low_mask(c, t, index));
  write_operand(c, 0, r);
  flags_bmi(c, r, c.b.icmp(Cond::UGT, index, c.b.constant(Type::I32, bits - 1)));
  return true;
}

// mulx hi, lo, src: RDX (EDX) * src unsigned, no flags.  When hi and lo
// name the same register it gets the high half.
bool mulx(Ctx& c) {
  Type t = operand_type(c.op(0));
  Value a = c.b.trunc(t, c.b.get_reg(RDX));
  Value b = read_operand(c, 2);
  Value lo, hi;
  if (t == Type::I64) {
    lo = c.b.binary(Opcode::Mul, t, a, b);
    hi = c.b.binary(Opcode::MulHiU, t, a, b);
  } else {
    Value product = c.b.binary(Opcode::Mul, Type::I64, c.b.zext(Type::I64, a), c.b.zext(Type::I64, b));
    lo = c.b.trunc(t, product);
    hi = c.b.extract(product, 32, 32);
  }
  write_operand(c, 1, lo);
  write_operand(c, 0, hi);
  return true;
}

// pdep/pext: no AArch64 counterpart; helpers on 64-bit values (a 32-bit
// mask has no upper bits, so the 32-bit forms come out right).
template <uint64_t (*kHelper)(GuestState*, uint64_t, uint64_t)>
bool bit_deposit(Ctx& c) {
  Type t = operand_type(c.op(0));
  Value src = c.b.zext(Type::I64, read_operand(c, 1));
  Value mask = c.b.zext(Type::I64, read_operand(c, 2));
  Value r = c.b.call(Type::I64, reinterpret_cast<const void*>(kHelper), src, mask);
  write_operand(c, 0, c.b.trunc(t, r));
  return true;
}

bool rorx(Ctx& c) {
  Type t = operand_type(c.op(0));
  uint64_t count = c.op(2).imm.value.u & (type_bits(t) - 1);
  write_operand(c, 0, c.b.binary(Opcode::Ror, t, read_operand(c, 1), c.b.constant(t, count)));
  return true;
}

// sarx/shlx/shrx: count from the third operand, masked; no flags.
template <Opcode kShift>
bool shift_x(Ctx& c) {
  Type t = operand_type(c.op(0));
  Value count = c.b.binary(Opcode::And, t, read_operand(c, 2), c.b.constant(t, type_bits(t) - 1));
  write_operand(c, 0, c.b.binary(kShift, t, read_operand(c, 1), count));
  return true;
}

}  // namespace

void register_bmi(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_LZCNT, count_zeros<true>);
  t.add(ZYDIS_MNEMONIC_TZCNT, count_zeros<false>);
  t.add(ZYDIS_MNEMONIC_ANDN, andn);
  t.add(ZYDIS_MNEMONIC_BLSI, lowest_bit<LowBit::Isolate>);
  t.add(ZYDIS_MNEMONIC_BLSMSK, lowest_bit<LowBit::Mask>);
  t.add(ZYDIS_MNEMONIC_BLSR, lowest_bit<LowBit::Reset>);
  t.add(ZYDIS_MNEMONIC_BEXTR, bextr);
  t.add(ZYDIS_MNEMONIC_BZHI, bzhi);
  t.add(ZYDIS_MNEMONIC_MULX, mulx);
  t.add(ZYDIS_MNEMONIC_PDEP, bit_deposit<&helper_pdep>);
  t.add(ZYDIS_MNEMONIC_PEXT, bit_deposit<&helper_pext>);
  t.add(ZYDIS_MNEMONIC_RORX, rorx);
  t.add(ZYDIS_MNEMONIC_SARX, shift_x<Opcode::Ashr>);
  t.add(ZYDIS_MNEMONIC_SHLX, shift_x<Opcode::Shl>);
  t.add(ZYDIS_MNEMONIC_SHRX, shift_x<Opcode::Lshr>);
}

}  // namespace phybin::x86
