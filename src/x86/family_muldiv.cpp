// Multiplication and division: mul, imul (one-, two- and three-operand
// forms), div, idiv.  Division goes through a helper because x86 traps
// (#DE -> SIGFPE) where AArch64 silently returns 0, and has 128/64 forms.
#include "x86/flags.h"
#include "x86/helpers.h"
#include "x86/operands.h"

namespace phybin::x86 {

using ir::Cond;
using ir::Opcode;
using ir::Type;
using ir::Value;

namespace {

// CF = OF = "the product does not fit the destination"; SF, ZF, AF, PF are
// undefined and left alone.
void flags_mul(Ctx& c, Value overflow) {
  put_flag(c, kCF, overflow);
  put_flag(c, kOF, overflow);
}

// Writes the low and high halves of a one-operand multiply to the
// accumulator pair (AX for 8-bit, DX:AX, EDX:EAX, RDX:RAX).
void write_pair(Ctx& c, Type t, Value lo, Value hi) {
  if (t == Type::I8) {
    Value ax = c.b.binary(Opcode::Or, Type::I32, c.b.zext(Type::I32, lo),
                          c.b.binary(Opcode::Shl, Type::I32, c.b.zext(Type::I32, hi), c.b.constant(Type::I32, 8)));
    c.b.set_reg(RAX, c.b.insert(Type::I64, c.b.get_reg(RAX), ax, 0, 16));
    return;
  }
  write_gpr(c, t == Type::I16 ? ZYDIS_REGISTER_AX : t == Type::I32 ? ZYDIS_REGISTER_EAX : ZYDIS_REGISTER_RAX, lo);
  write_gpr(c, t == Type::I16 ? ZYDIS_REGISTER_DX : t == Type::I32 ? ZYDIS_REGISTER_EDX : ZYDIS_REGISTER_RDX, hi);
}

template <bool kSigned>
bool mul_one_operand(Ctx& c) {
  Type t = operand_type(c.op(0));
  Value src = read_operand(c, 0);
  Value acc = c.b.trunc(t, c.b.get_reg(RAX));
  Value lo, hi, overflow;
  if (t == Type::I64) {
    lo = c.b.binary(Opcode::Mul, t, acc, src);
    hi = c.b.binary(kSigned ? Opcode::MulHiS : Opcode::MulHiU, t, acc, src);
    Value expected_hi = kSigned ? c.b.binary(Opcode::Ashr, t, lo, c.b.constant(t, 63)) : c.b.constant(t, 0);
    overflow = c.b.icmp(Cond::NE, hi, expected_hi);
  } else {
    // The full product fits in 64 bits: compute it there and split.
    auto widen = [&](Value v) { return kSigned ? c.b.sext(Type::I64, v) : c.b.zext(Type::I64, v); };
    Value p = c.b.binary(Opcode::Mul, Type::I64, widen(acc), widen(src));
    lo = c.b.trunc(t, p);
    hi = c.b.trunc(t, c.b.binary(Opcode::Lshr, Type::I64, p, c.b.constant(Type::I64, type_bits(t))));
    overflow = c.b.icmp(Cond::NE, p, widen(lo));
  }
  write_pair(c, t, lo, hi);
  flags_mul(c, overflow);
  return true;
}

// imul r, r/m and imul r, r/m, imm: truncated signed product.
bool imul_truncating(Ctx& c) {
  Type t = operand_type(c.op(0));
  bool three = c.d.info.operand_count_visible == 3;
  Value a = read_operand(c, three ? 1 : 0);
  Value b = read_operand(c, three ? 2 : 1);
  Value r, overflow;
  if (t == Type::I64) {
    r = c.b.binary(Opcode::Mul, t, a, b);
    Value hi = c.b.binary(Opcode::MulHiS, t, a, b);
    overflow = c.b.icmp(Cond::NE, hi, c.b.binary(Opcode::Ashr, t, r, c.b.constant(t, 63)));
  } else {
    Value p = c.b.binary(Opcode::Mul, Type::I64, c.b.sext(Type::I64, a), c.b.sext(Type::I64, b));
    r = c.b.trunc(t, p);
    overflow = c.b.icmp(Cond::NE, p, c.b.sext(Type::I64, r));
  }
  write_operand(c, 0, r);
  flags_mul(c, overflow);
  return true;
}

bool imul(Ctx& c) {
  return c.d.info.operand_count_visible == 1 ? mul_one_operand<true>(c) : imul_truncating(c);
}

template <bool kSigned>
bool divide(Ctx& c) {
  Type t = operand_type(c.op(0));
  Value divisor = c.b.zext(Type::I64, read_operand(c, 0));
  uint64_t kind = static_cast<uint64_t>(type_bits(t)) | (kSigned ? 0x100 : 0);
  c.b.call(Type::Void, reinterpret_cast<const void*>(&helper_div), divisor, c.b.constant(Type::I64, kind));
  return true;
}

}  // namespace

void register_muldiv(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_MUL, mul_one_operand<false>);
  t.add(ZYDIS_MNEMONIC_IMUL, imul);
  t.add(ZYDIS_MNEMONIC_DIV, divide<false>);
  t.add(ZYDIS_MNEMONIC_IDIV, divide<true>);
}

}  // namespace phybin::x86
