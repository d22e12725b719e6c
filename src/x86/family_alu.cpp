// Integer ALU: add, sub, adc, sbb, and, or, xor, cmp, test, inc, dec, neg, not.
#include "x86/flags.h"
#include "x86/operands.h"

namespace phybin::x86 {

using ir::Opcode;
using ir::Type;
using ir::Value;

namespace {

bool same_register_operands(const Ctx& c) {
  return c.op(0).type == ZYDIS_OPERAND_TYPE_REGISTER && c.op(1).type == ZYDIS_OPERAND_TYPE_REGISTER &&
         c.op(0).reg.value == c.op(1).reg.value;
}

// The atomic a locked add/sub/and/or/xor makes of its memory operand; sub
// adds the negated operand.
constexpr ir::AtomicOp atomic_op_of(Opcode op) {
  switch (op) {
    case Opcode::And: return ir::AtomicOp::And;
    case Opcode::Or: return ir::AtomicOp::Or;
    case Opcode::Xor: return ir::AtomicOp::Xor;
    default: return ir::AtomicOp::Add;
  }
}

Value all_ones(Ctx& c, Type t) { return c.b.constant(t, ~uint64_t{0} >> (64 - ir::type_bits(t))); }

// Operand 0 of a read-modify-write: read, or (locked) changed by the
// atomic, which then returns the old value and has stored `atomic_operand`
// combined with it, so the handler must not write it back.
Value read_or_update(Ctx& c, bool locked, ir::AtomicOp op, Value atomic_operand) {
  return locked ? atomic_rmw(c, 0, op, atomic_operand) : read_operand(c, 0);
}

template <Opcode kOp, bool kWriteBack>
bool arith(Ctx& c) {
  Type t = operand_type(c.op(0));
  // xor r,r, sub r,r and cmp r,r: the result does not depend on r.
  if ((kOp == Opcode::Xor || kOp == Opcode::Sub) && same_register_operands(c)) {
    Value zero = c.b.constant(t, 0);
    if (kWriteBack) write_operand(c, 0, zero);  // cmp r,r keeps r
    if (kOp == Opcode::Xor) flags_logic(c, zero);
    else flags_sub(c, zero, zero, zero);
    return true;
  }
  const bool locked = kWriteBack && is_locked(c);
  if (locked) {
    Value b = read_operand(c, 1);
    Value a = atomic_rmw(c, 0, atomic_op_of(kOp), kOp == Opcode::Sub ? c.b.unary(Opcode::Neg, t, b) : b);
    Value r = c.b.binary(kOp, t, a, b);
    if (kOp == Opcode::Add) flags_add(c, a, b, r);
    else if (kOp == Opcode::Sub) flags_sub(c, a, b, r);
    else flags_logic(c, r);
    return true;
  }
  Value a = read_operand(c, 0);
  // and/or/test of a register with itself: the result is the register (so
  // test eax, eax; jz compares EAX itself with zero).
  const bool itself = (kOp == Opcode::And || kOp == Opcode::Or) && same_register_operands(c);
  Value b = itself ? a : read_operand(c, 1);
  Value r = itself ? a : c.b.binary(kOp, t, a, b);
  if (kWriteBack) write_operand(c, 0, r);
  switch (kOp) {
    case Opcode::Add: flags_add(c, a, b, r); break;
    case Opcode::Sub:
      flags_sub(c, a, b, r);
      c.flags.result_kept = kWriteBack;
      break;
    default: flags_logic(c, r); break;
  }
  return true;
}

template <bool kAdd>
bool add_with_carry(Ctx& c) {
  Type t = operand_type(c.op(0));
  const bool locked = is_locked(c);
  Value b = read_operand(c, 1);
  Value carry = c.b.get_flag(kCF);
  Value carry_t = c.b.zext(t, carry);
  // Locked: one atomic add of b + CF (sbb: of its negation), which wraps
  // to the same sum.
  Value delta = locked ? c.b.binary(Opcode::Add, t, b, carry_t) : ir::kNoValue;
  if (locked && !kAdd) delta = c.b.unary(Opcode::Neg, t, delta);
  Value a = read_or_update(c, locked, ir::AtomicOp::Add, delta);
  Value r = kAdd ? c.b.binary(Opcode::Add, t, c.b.binary(Opcode::Add, t, a, b), carry_t)
                 : c.b.binary(Opcode::Sub, t, c.b.binary(Opcode::Sub, t, a, b), carry_t);
  if (!locked) write_operand(c, 0, r);
  if (kAdd) flags_adc(c, a, b, carry, r);
  else flags_sbb(c, a, b, carry, r);
  return true;
}

template <bool kInc>
bool inc_dec(Ctx& c) {
  Type t = operand_type(c.op(0));
  const bool locked = is_locked(c);
  Value a = read_or_update(c, locked, ir::AtomicOp::Add, kInc ? c.b.constant(t, 1) : all_ones(c, t));
  Value r = c.b.binary(kInc ? Opcode::Add : Opcode::Sub, t, a, c.b.constant(t, 1));
  if (!locked) write_operand(c, 0, r);
  flags_inc_dec(c, a, r, kInc);
  return true;
}

bool neg(Ctx& c) {
  Type t = operand_type(c.op(0));
  const bool locked = is_locked(c);
  Value a = read_or_update(c, locked, ir::AtomicOp::Neg, c.b.constant(t, 0));
  Value r = c.b.unary(Opcode::Neg, t, a);
  if (!locked) write_operand(c, 0, r);
  flags_neg(c, a, r);
  return true;
}

bool not_(Ctx& c) {
  Type t = operand_type(c.op(0));
  if (is_locked(c)) {
    atomic_rmw(c, 0, ir::AtomicOp::Xor, all_ones(c, t));
    return true;
  }
  write_operand(c, 0, c.b.unary(Opcode::Not, t, read_operand(c, 0)));
  return true;
}

}  // namespace

void register_alu(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_ADD, arith<Opcode::Add, true>);
  t.add(ZYDIS_MNEMONIC_SUB, arith<Opcode::Sub, true>);
  t.add(ZYDIS_MNEMONIC_AND, arith<Opcode::And, true>);
  t.add(ZYDIS_MNEMONIC_OR, arith<Opcode::Or, true>);
  t.add(ZYDIS_MNEMONIC_XOR, arith<Opcode::Xor, true>);
  t.add(ZYDIS_MNEMONIC_CMP, arith<Opcode::Sub, false>);
  t.add(ZYDIS_MNEMONIC_TEST, arith<Opcode::And, false>);
  t.add(ZYDIS_MNEMONIC_ADC, add_with_carry<true>);
  t.add(ZYDIS_MNEMONIC_SBB, add_with_carry<false>);
  t.add(ZYDIS_MNEMONIC_INC, inc_dec<true>);
  t.add(ZYDIS_MNEMONIC_DEC, inc_dec<false>);
  t.add(ZYDIS_MNEMONIC_NEG, neg);
  t.add(ZYDIS_MNEMONIC_NOT, not_);
}

}  // namespace phybin::x86
