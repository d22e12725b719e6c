// Bit operations: bt/bts/btr/btc, bsf/bsr, popcnt.
#include "x86/flags.h"
#include "x86/operands.h"

namespace phybin::x86 {

using ir::Cond;
using ir::Opcode;
using ir::Type;
using ir::Value;

namespace {

enum class BitOp { Test, Set, Reset, Complement };

template <BitOp kOp>
bool bit_test(Ctx& c) {
  Type t = operand_type(c.op(0));
  int bits = type_bits(t);
  Value offset = read_operand(c, 1);
  bool memory = c.op(0).type == ZYDIS_OPERAND_TYPE_MEMORY;
  Value addr = ir::kNoValue;
  if (memory && c.op(1).type == ZYDIS_OPERAND_TYPE_REGISTER) {
    // A register bit offset addresses memory beyond the operand: the
    // signed offset selects the word, its low bits the bit.
    Value off64 = c.b.sext(Type::I64, offset);
    Value word = c.b.binary(Opcode::Ashr, Type::I64, off64, c.b.constant(Type::I64, bits == 64 ? 6 : bits == 32 ? 5 : 4));
    Value bytes = c.b.binary(Opcode::Shl, Type::I64, word, c.b.constant(Type::I64, bits == 64 ? 3 : bits == 32 ? 2 : 1));
    addr = c.b.binary(Opcode::Add, Type::I64, effective_address(c, 0), bytes);
  } else if (memory) {
    addr = effective_address(c, 0);
  }
  Type w = bits < 32 ? Type::I32 : t;
  Value index = c.b.binary(Opcode::And, w, c.b.zext(w, offset), c.b.constant(w, bits - 1));  // within the operand
  Value mask = c.b.binary(Opcode::Shl, w, c.b.constant(w, 1), index);
  // lock bts/btr/btc: the bit changes in one atomic or/and/xor, which
  // returns the old value for CF.
  const bool locked = kOp != BitOp::Test && is_locked(c);
  Value value;
  if (locked) {
    const ir::AtomicOp op = kOp == BitOp::Set     ? ir::AtomicOp::Or
                            : kOp == BitOp::Reset ? ir::AtomicOp::And
                                                  : ir::AtomicOp::Xor;
    Value operand = c.b.trunc(t, kOp == BitOp::Reset ? c.b.unary(Opcode::Not, w, mask) : mask);
    value = c.b.atomic_rmw(op, t, addr, operand);
  } else {
    value = memory ? c.b.load(t, addr) : read_operand(c, 0);
  }
  Value wide = c.b.zext(w, value);
  Value bit = c.b.trunc(Type::I1, c.b.binary(Opcode::And, w, c.b.binary(Opcode::Lshr, w, wide, index), c.b.constant(w, 1)));
  put_flag(c, kCF, bit);
  if (kOp == BitOp::Test || locked) return true;
  Value r = kOp == BitOp::Set     ? c.b.binary(Opcode::Or, w, wide, mask)
            : kOp == BitOp::Reset ? c.b.binary(Opcode::AndNot, w, wide, mask)
                                  : c.b.binary(Opcode::Xor, w, wide, mask);
  r = c.b.trunc(t, r);
  if (memory) c.b.store(addr, r);
  else write_operand(c, 0, r);
  return true;
}

// bsf/bsr: ZF = (source == 0); the destination keeps its value then (the
// SDM calls it undefined; Intel and AMD CPUs keep it).
template <bool kReverse>
bool bit_scan(Ctx& c) {
  Type t = operand_type(c.op(0));
  Value src = read_operand(c, 1);
  Value zero = c.b.icmp(Cond::EQ, src, c.b.constant(t, 0));
  Value index = kReverse ? c.b.binary(Opcode::Xor, t, c.b.unary(Opcode::Clz, t, src), c.b.constant(t, type_bits(t) - 1))
                         : c.b.unary(Opcode::Ctz, t, src);
  if (t == Type::I32) {
    // A zero source leaves all 64 bits alone, as the CPUs do (no 32-bit
    // zero-extension then).
    int reg = gpr_index(c.op(0).reg.value);
    Value old64 = c.b.get_reg(reg);
    c.b.set_reg(reg, c.b.select(Type::I64, zero, old64, c.b.zext(Type::I64, index)));
  } else {
    Value old = read_operand(c, 0);
    write_operand(c, 0, c.b.select(t, zero, old, index));
  }
  put_flag(c, kZF, zero);
  return true;
}

bool popcnt(Ctx& c) {
  Type t = operand_type(c.op(0));
  Value src = read_operand(c, 1);
  write_operand(c, 0, c.b.unary(Opcode::Popcount, t, src));
  Value zero = c.b.constant(Type::I1, 0);
  for (uint8_t bit : {kCF, kPF, kAF, kSF, kOF}) put_flag(c, bit, zero);
  put_flag(c, kZF, c.b.icmp(Cond::EQ, src, c.b.constant(t, 0)));
  return true;
}

}  // namespace

void register_bits(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_BT, bit_test<BitOp::Test>);
  t.add(ZYDIS_MNEMONIC_BTS, bit_test<BitOp::Set>);
  t.add(ZYDIS_MNEMONIC_BTR, bit_test<BitOp::Reset>);
  t.add(ZYDIS_MNEMONIC_BTC, bit_test<BitOp::Complement>);
  t.add(ZYDIS_MNEMONIC_BSF, bit_scan<false>);
  t.add(ZYDIS_MNEMONIC_BSR, bit_scan<true>);
  t.add(ZYDIS_MNEMONIC_POPCNT, popcnt);
}

}  // namespace phybin::x86
