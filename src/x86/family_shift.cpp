// Shifts and rotates: shl/sal, shr, sar, rol, ror, rcl/rcr, shld/shrd.  A count of zero leaves every flag alone; the count is masked to
// 5 bits (6 for 64-bit operands) whatever the operand width.
#include "x86/flags.h"
#include "x86/helpers.h"
#include "x86/operands.h"

namespace phybin::x86 {

using ir::Cond;
using ir::Opcode;
using ir::Type;
using ir::Value;

namespace {

enum class ShiftKind { Shl, Shr, Sar, Rol, Ror };

struct ShiftResult {
  Value result, cf, of;
  bool defines_zsp;
};

// 8/16-bit operands are shifted in 32 bits so that counts up to 31 work.
Type work_type(Type t) { return type_bits(t) < 32 ? Type::I32 : t; }

Value bit_of(Ctx& c, Type t, Value v, Value pos) {
  Value shifted = c.b.binary(Opcode::Lshr, t, v, pos);
  return c.b.trunc(Type::I1, c.b.binary(Opcode::And, t, shifted, c.b.constant(t, 1)));
}

Value msb(Ctx& c, Value v) { return c.b.icmp(Cond::SLT, v, c.b.constant(c.b.type_of(v), 0)); }

// `count` is the masked count (for the flags); `shift_count` may be the raw
// count register when the host shift masks it the same way.
ShiftResult compute(Ctx& c, ShiftKind kind, Type t, Value a, Value count, Value shift_count = ir::kNoValue) {
  Type w = work_type(t);
  int bits = type_bits(t);
  Value one = c.b.constant(w, 1);
  Value cw = c.b.zext(w, count);
  Value sw = shift_count == ir::kNoValue ? cw : shift_count;
  switch (kind) {
    case ShiftKind::Shl: {
      Value wide = c.b.binary(Opcode::Shl, w, c.b.zext(w, a), sw);
      Value r = c.b.trunc(t, wide);
      Value cf = bits < 32 ? bit_of(c, w, wide, c.b.constant(w, bits))
                           : bit_of(c, w, a, c.b.binary(Opcode::Sub, w, c.b.constant(w, bits), cw));
      return {r, cf, c.b.binary(Opcode::Xor, Type::I1, msb(c, r), cf), true};
    }
    case ShiftKind::Shr: {
      Value za = c.b.zext(w, a);
      Value r = c.b.trunc(t, c.b.binary(Opcode::Lshr, w, za, sw));
      Value cf = bit_of(c, w, za, c.b.binary(Opcode::Sub, w, cw, one));
      return {r, cf, msb(c, a), true};
    }
    case ShiftKind::Sar: {
      Value sa = c.b.sext(w, a);
      Value r = c.b.trunc(t, c.b.binary(Opcode::Ashr, w, sa, sw));
      Value cf = c.b.trunc(Type::I1, c.b.binary(Opcode::And, w, c.b.binary(Opcode::Ashr, w, sa, c.b.binary(Opcode::Sub, w, cw, one)), one));
      return {r, cf, c.b.constant(Type::I1, 0), true};
    }
    case ShiftKind::Rol:
    case ShiftKind::Ror: {
      Value r;
      if (bits >= 32) {
        Value n = kind == ShiftKind::Ror ? cw : c.b.unary(Opcode::Neg, w, cw);
        r = c.b.binary(Opcode::Ror, w, a, n);
      } else {
        // Rotate within 8/16 bits: count modulo the width, then combine.
        Value m = c.b.binary(Opcode::And, w, cw, c.b.constant(w, bits - 1));
        Value za = c.b.zext(w, a);
        Value left = kind == ShiftKind::Rol ? m : c.b.binary(Opcode::Sub, w, c.b.constant(w, bits), m);
        Value right = c.b.binary(Opcode::Sub, w, c.b.constant(w, bits), left);
        r = c.b.trunc(t, c.b.binary(Opcode::Or, w, c.b.binary(Opcode::Shl, w, za, left),
                                    c.b.binary(Opcode::Lshr, w, za, right)));
      }
      if (kind == ShiftKind::Rol) {
        Value cf = c.b.trunc(Type::I1, r);
        return {r, cf, c.b.binary(Opcode::Xor, Type::I1, msb(c, r), cf), false};
      }
      Value cf = msb(c, r);
      Value second = bit_of(c, w, c.b.zext(w, r), c.b.constant(w, bits - 2));
      return {r, cf, c.b.binary(Opcode::Xor, Type::I1, cf, second), false};
    }
  }
  return {};
}

void write_flags(Ctx& c, const ShiftResult& s) {
  put_flag(c, kCF, s.cf);
  put_flag(c, kOF, s.of);
  if (s.defines_zsp) {
    put_flag(c, kAF, c.b.constant(Type::I1, 0));
    flags_zsp(c, s.result);
  }
}

// Flags keep their old values when the (masked) count is zero.
void write_flags_if(Ctx& c, Value nonzero, const ShiftResult& s) {
  auto pick = [&](uint8_t bit, Value v) {
    if (c.flag_live(bit)) c.b.set_flag(bit, c.b.select(Type::I1, nonzero, v, c.b.get_flag(bit)));
  };
  pick(kCF, s.cf);
  pick(kOF, s.of);
  if (s.defines_zsp) {
    pick(kAF, c.b.constant(Type::I1, 0));
    Value r = s.result;
    Value zero = c.b.constant(c.b.type_of(r), 0);
    pick(kZF, c.b.icmp(Cond::EQ, r, zero));
    pick(kSF, c.b.icmp(Cond::SLT, r, zero));
    pick(kPF, c.b.emit(Opcode::Parity, Type::I1, r));
  }
}

template <ShiftKind kKind>
bool shift(Ctx& c) {
  Type t = operand_type(c.op(0));
  unsigned mask = t == Type::I64 ? 63 : 31;
  Value a = read_operand(c, 0);
  if (c.d.info.operand_count_visible < 2 || c.op(1).type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
    unsigned n = (c.d.info.operand_count_visible < 2 ? 1 : static_cast<unsigned>(c.op(1).imm.value.u)) & mask;
    if (n == 0) {
      // No flag changes; but a 32-bit register destination is still written
      // (and so zero-extended), as on the CPU.
      if (t == Type::I32 && c.op(0).type == ZYDIS_OPERAND_TYPE_REGISTER) write_operand(c, 0, a);
      return true;
    }
    ShiftResult s = compute(c, kKind, t, a, c.b.constant(Type::I8, n));
    write_operand(c, 0, s.result);
    write_flags(c, s);
    return true;
  }
  Type w = work_type(t);
  Value count = c.b.binary(Opcode::And, w, c.b.zext(w, read_gpr(c, ZYDIS_REGISTER_CL)), c.b.constant(w, mask));
  // AArch64 register shifts take the count modulo the register width,
  // exactly the x86 masking for 32/64-bit shifts: no masking needed.
  Value raw = c.b.trunc(w, c.b.get_reg(RCX));
  ShiftResult s = compute(c, kKind, t, a, count, type_bits(t) >= 32 ? raw : ir::kNoValue);
  write_operand(c, 0, s.result);
  write_flags_if(c, c.b.icmp(Cond::NE, count, c.b.constant(w, 0)), s);
  return true;
}

// rcl/rcr rotate through CF: rare enough for a helper.
template <bool kLeft>
bool rotate_through_carry(Ctx& c) {
  Type t = operand_type(c.op(0));
  Value a = c.b.zext(Type::I64, read_operand(c, 0));
  Value count = c.d.info.operand_count_visible < 2 ? c.b.constant(Type::I64, 1)
                : c.op(1).type == ZYDIS_OPERAND_TYPE_IMMEDIATE
                    ? c.b.constant(Type::I64, c.op(1).imm.value.u & 0xff)
                    : c.b.zext(Type::I64, read_gpr(c, ZYDIS_REGISTER_CL));
  uint64_t kind = static_cast<uint64_t>(type_bits(t)) | (kLeft ? 0x100 : 0);
  Value packed = c.b.binary(Opcode::Or, Type::I64, c.b.binary(Opcode::Shl, Type::I64, count, c.b.constant(Type::I64, 16)),
                            c.b.constant(Type::I64, kind));
  Value r = c.b.call(Type::I64, reinterpret_cast<const void*>(&helper_rotate_carry), a, packed);
  write_operand(c, 0, c.b.trunc(t, r));
  return true;
}

// 16-bit shld/shrd.  The count is masked to 5 bits, so it can exceed the
// width; the SDM leaves the result undefined then, and Intel CPUs shift
// the 48-bit string dest:src:dest (shld keeps its top 16 bits, shrd its low
// 16): for counts up to 16 this is the defined result.  CF is the last bit
// shifted out of that string; OF is computed as for a count of 1 whatever
// the count (measured: shld d15^d14, shrd d15^s0); AF is cleared.
template <bool kLeft>
bool double_shift16(Ctx& c) {
  const Type w = Type::I64;
  Value d = read_operand(c, 0);
  Value s = read_operand(c, 1);
  bool constant = c.op(2).type == ZYDIS_OPERAND_TYPE_IMMEDIATE;
  Value count;
  if (constant) {
    unsigned n = static_cast<unsigned>(c.op(2).imm.value.u) & 31;
    if (n == 0) return true;  // no change, flags kept (a 16-bit write does not zero-extend)
    count = c.b.constant(w, n);
  } else {
    count = c.b.binary(Opcode::And, w, c.b.zext(w, read_gpr(c, ZYDIS_REGISTER_CL)), c.b.constant(w, 31));
  }
  Value dw = c.b.zext(w, d);
  Value string = c.b.binary(Opcode::Or, w, c.b.binary(Opcode::Shl, w, dw, c.b.constant(w, 32)),
                            c.b.binary(Opcode::Or, w, c.b.binary(Opcode::Shl, w, c.b.zext(w, s), c.b.constant(w, 16)), dw));
  Value one = c.b.constant(w, 1);
  Value r, cf, of;
  if (kLeft) {
    r = c.b.trunc(Type::I16, c.b.binary(Opcode::Lshr, w, c.b.binary(Opcode::Shl, w, string, count), c.b.constant(w, 32)));
    cf = bit_of(c, w, string, c.b.binary(Opcode::Sub, w, c.b.constant(w, 48), count));
    of = c.b.binary(Opcode::Xor, Type::I1, msb(c, d), bit_of(c, w, dw, c.b.constant(w, 14)));
  } else {
    r = c.b.trunc(Type::I16, c.b.binary(Opcode::Lshr, w, string, count));
    cf = bit_of(c, w, string, c.b.binary(Opcode::Sub, w, count, one));
    of = c.b.binary(Opcode::Xor, Type::I1, msb(c, d), bit_of(c, w, c.b.zext(w, s), c.b.constant(w, 0)));
  }
  Value nonzero = c.b.icmp(Cond::NE, count, c.b.constant(w, 0));
  if (!constant) r = c.b.select(Type::I16, nonzero, r, d);
  write_operand(c, 0, r);
  ShiftResult res{r, cf, of, true};
  if (constant) write_flags(c, res);
  else write_flags_if(c, nonzero, res);
  return true;
}

// shld/shrd: shift the destination, filling from the source register.
template <bool kLeft>
bool double_shift(Ctx& c) {
  Type t = operand_type(c.op(0));
  int bits = type_bits(t);
  if (bits == 16) return double_shift16<kLeft>(c);
  unsigned mask = t == Type::I64 ? 63 : 31;
  Value d = read_operand(c, 0);
  Value s = read_operand(c, 1);
  Value count;
  bool constant = c.op(2).type == ZYDIS_OPERAND_TYPE_IMMEDIATE;
  if (constant) {
    unsigned n = static_cast<unsigned>(c.op(2).imm.value.u) & mask;
    if (n == 0) {
      if (t == Type::I32 && c.op(0).type == ZYDIS_OPERAND_TYPE_REGISTER) write_operand(c, 0, d);
      return true;
    }
    count = c.b.constant(t, n);
  } else {
    count = c.b.binary(Opcode::And, t, c.b.zext(t, read_gpr(c, ZYDIS_REGISTER_CL)), c.b.constant(t, mask));
  }
  Value back = c.b.binary(Opcode::Sub, t, c.b.constant(t, bits), count);  // in 1..bits for count != 0
  Value r = kLeft ? c.b.binary(Opcode::Or, t, c.b.binary(Opcode::Shl, t, d, count), c.b.binary(Opcode::Lshr, t, s, back))
                  : c.b.binary(Opcode::Or, t, c.b.binary(Opcode::Lshr, t, d, count), c.b.binary(Opcode::Shl, t, s, back));
  Value nonzero = c.b.icmp(Cond::NE, count, c.b.constant(t, 0));
  if (!constant) r = c.b.select(t, nonzero, r, d);
  write_operand(c, 0, r);
  Value one = c.b.constant(t, 1);
  Value cf = kLeft ? bit_of(c, t, d, back) : bit_of(c, t, d, c.b.binary(Opcode::Sub, t, count, one));
  Value of = c.b.binary(Opcode::Xor, Type::I1, msb(c, r), msb(c, d));
  ShiftResult res{r, cf, of, true};
  if (constant) write_flags(c, res);
  else write_flags_if(c, nonzero, res);
  return true;
}

}  // namespace

void register_shift(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_SHLD, double_shift<true>);
  t.add(ZYDIS_MNEMONIC_SHRD, double_shift<false>);
  t.add(ZYDIS_MNEMONIC_RCL, rotate_through_carry<true>);
  t.add(ZYDIS_MNEMONIC_RCR, rotate_through_carry<false>);
  t.add(ZYDIS_MNEMONIC_SHL, shift<ShiftKind::Shl>);
  t.add(ZYDIS_MNEMONIC_SHR, shift<ShiftKind::Shr>);
  t.add(ZYDIS_MNEMONIC_SAR, shift<ShiftKind::Sar>);
  t.add(ZYDIS_MNEMONIC_ROL, shift<ShiftKind::Rol>);
  t.add(ZYDIS_MNEMONIC_ROR, shift<ShiftKind::Ror>);
}

}  // namespace phybin::x86
