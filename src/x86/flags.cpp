#include "x86/flags.h"

#include "x86/lazy_flags.h"

namespace phybin::x86 {

using ir::Cond;
using ir::Opcode;
using ir::Type;
using ir::Value;

namespace {

// Emits the computation of a flag only when something reads the flag.
template <typename Compute>
void put(Ctx& c, uint8_t bit, Compute compute) {
  if (c.flag_live(bit)) c.b.set_flag(bit, compute());
}

Value zero_of(Ctx& c, Value like) { return c.b.constant(c.b.type_of(like), 0); }

Value sign_set(Ctx& c, Value v) { return c.b.icmp(Cond::SLT, v, zero_of(c, v)); }

Value aux_carry(Ctx& c, Value a, Value b, Value r) {
  Type t = c.b.type_of(r);
  Value x = c.b.binary(Opcode::Xor, t, c.b.binary(Opcode::Xor, t, a, b), r);
  return c.b.extract(x, 4, 1);
}

void record(Ctx& c, FlagSource::Kind kind, Value a, Value b, Value r) {
  c.flags = FlagSource{kind, c.b.type_of(r), a, b, r};
}

Value overflow_add(Ctx& c, Value a, Value b, Value r) {
  Type t = c.b.type_of(r);
  Value x = c.b.binary(Opcode::And, t, c.b.binary(Opcode::Xor, t, a, r), c.b.binary(Opcode::Xor, t, b, r));
  return sign_set(c, x);
}

Value overflow_sub(Ctx& c, Value a, Value b, Value r) {
  Type t = c.b.type_of(r);
  Value x = c.b.binary(Opcode::And, t, c.b.binary(Opcode::Xor, t, a, b), c.b.binary(Opcode::Xor, t, a, r));
  return sign_set(c, x);
}

Value or1(Ctx& c, Value x, Value y) { return c.b.binary(Opcode::Or, Type::I1, x, y); }
Value and1(Ctx& c, Value x, Value y) { return c.b.binary(Opcode::And, Type::I1, x, y); }
Value xor1(Ctx& c, Value x, Value y) { return c.b.binary(Opcode::Xor, Type::I1, x, y); }

// When the block's indirect exit keeps this instruction's flags lazily,
// records its operands instead of computing them (the handler's live
// flags then hold none of them).
void keep_lazily(Ctx& c, LazyOp op, Value a, Value b) {
  if (!c.lazy_flags) return;
  if (c.lazy_record == 0) {  // operands not left in registers: stored
    const auto bytes = static_cast<unsigned>(type_bits(c.b.type_of(a)) / 8);
    c.lazy_record = lazy_record::of(op, bytes) | lazy_record::kInMemory;
  } else {
    a = b = ir::kNoValue;
  }
  c.b.emit(Opcode::LazyFlags, Type::Void, a, b, ir::kNoValue, lazy_defined_flags(c.lazy_record));
  c.lazy_recorded = true;
}

}  // namespace

void put_flag(Ctx& c, uint8_t bit, Value v) {
  if (c.flag_live(bit)) c.b.set_flag(bit, v);
}

void flags_zsp(Ctx& c, Value r) {
  put(c, kZF, [&] { return c.b.icmp(Cond::EQ, r, zero_of(c, r)); });
  put(c, kSF, [&] { return sign_set(c, r); });
  put(c, kPF, [&] { return c.b.emit(Opcode::Parity, Type::I1, r); });
}

void flags_add(Ctx& c, Value a, Value b, Value r) {
  keep_lazily(c, LazyOp::Add, a, b);
  put(c, kCF, [&] { return c.b.icmp(Cond::ULT, r, a); });
  put(c, kOF, [&] { return overflow_add(c, a, b, r); });
  put(c, kAF, [&] { return aux_carry(c, a, b, r); });
  flags_zsp(c, r);
  record(c, FlagSource::Add, a, b, r);
}

void flags_sub(Ctx& c, Value a, Value b, Value r) {
  keep_lazily(c, LazyOp::Sub, a, b);
  put(c, kCF, [&] { return c.b.icmp(Cond::ULT, a, b); });
  put(c, kOF, [&] { return overflow_sub(c, a, b, r); });
  put(c, kAF, [&] { return aux_carry(c, a, b, r); });
  flags_zsp(c, r);
  record(c, FlagSource::Sub, a, b, r);
}

void flags_adc(Ctx& c, Value a, Value b, Value carry_in, Value r) {
  put(c, kCF, [&] {
    return or1(c, c.b.icmp(Cond::ULT, r, a), and1(c, carry_in, c.b.icmp(Cond::EQ, r, a)));
  });
  put(c, kOF, [&] { return overflow_add(c, a, b, r); });
  put(c, kAF, [&] { return aux_carry(c, a, b, r); });
  flags_zsp(c, r);
  c.flags.kind = FlagSource::None;
}

void flags_sbb(Ctx& c, Value a, Value b, Value borrow_in, Value r) {
  put(c, kCF, [&] {
    return or1(c, c.b.icmp(Cond::ULT, a, b), and1(c, borrow_in, c.b.icmp(Cond::EQ, a, b)));
  });
  put(c, kOF, [&] { return overflow_sub(c, a, b, r); });
  put(c, kAF, [&] { return aux_carry(c, a, b, r); });
  flags_zsp(c, r);
  c.flags.kind = FlagSource::None;
}

void flags_logic(Ctx& c, Value r) {
  keep_lazily(c, LazyOp::Logic, r, ir::kNoValue);
  Value zero = c.b.constant(Type::I1, 0);
  put(c, kCF, [&] { return zero; });
  put(c, kOF, [&] { return zero; });
  put(c, kAF, [&] { return zero; });  // undefined on x86; zero keeps runs deterministic
  flags_zsp(c, r);
  record(c, FlagSource::Logic, ir::kNoValue, ir::kNoValue, r);
}

void flags_inc_dec(Ctx& c, Value a, Value r, bool inc) {
  keep_lazily(c, inc ? LazyOp::Inc : LazyOp::Dec, a, ir::kNoValue);
  Value one = c.b.constant(c.b.type_of(a), 1);
  put(c, kOF, [&] { return inc ? overflow_add(c, a, one, r) : overflow_sub(c, a, one, r); });
  put(c, kAF, [&] { return aux_carry(c, a, one, r); });
  flags_zsp(c, r);
  record(c, FlagSource::IncDec, a, one, r);
}

void flags_neg(Ctx& c, Value a, Value r) {
  Value zero = zero_of(c, a);
  keep_lazily(c, LazyOp::Sub, zero, a);
  put(c, kCF, [&] { return c.b.icmp(Cond::NE, a, zero); });
  put(c, kOF, [&] { return overflow_sub(c, zero, a, r); });
  put(c, kAF, [&] { return aux_carry(c, zero, a, r); });
  flags_zsp(c, r);
  record(c, FlagSource::Sub, zero, a, r);
}

unsigned condition_code(const Ctx& c) { return c.d.info.opcode & 0xF; }

namespace {

// Condition straight from the operands of the last flag-setting
// instruction; kNoValue when that is not possible.
Value fused_condition(Ctx& c, unsigned cc) {
  const FlagSource& f = c.flags;
  static const Cond kSubConds[16] = {Cond::EQ,  Cond::EQ,  Cond::ULT, Cond::UGE, Cond::EQ,  Cond::NE,
                                     Cond::ULE, Cond::UGT, Cond::SLT, Cond::SGE, Cond::EQ,  Cond::EQ,
                                     Cond::SLT, Cond::SGE, Cond::SLE, Cond::SGT};
  Value zero = f.result != ir::kNoValue ? zero_of(c, f.result) : ir::kNoValue;
  switch (f.kind) {
    case FlagSource::Sub:
      if (cc < 2 || cc == 10 || cc == 11) return ir::kNoValue;
      if (cc == 8 || cc == 9 || (f.result_kept && (cc == 4 || cc == 5)))
        return c.b.icmp(kSubConds[cc], f.result, zero);
      return c.b.icmp(kSubConds[cc], f.a, f.b);
    case FlagSource::Logic: {
      static const Cond kLogicConds[16] = {Cond::NE, Cond::EQ, Cond::NE, Cond::EQ, Cond::EQ,  Cond::NE,
                                           Cond::EQ, Cond::NE, Cond::SLT, Cond::SGE, Cond::EQ, Cond::EQ,
                                           Cond::SLT, Cond::SGE, Cond::SLE, Cond::SGT};
      if (cc == 10 || cc == 11) return ir::kNoValue;
      if (cc < 4) return c.b.constant(Type::I1, cc & 1);  // OF = CF = 0
      return c.b.icmp(kLogicConds[cc], f.result, zero);
    }
    case FlagSource::Add:
    case FlagSource::IncDec:
      if (cc == 4 || cc == 5) return c.b.icmp(cc == 4 ? Cond::EQ : Cond::NE, f.result, zero);
      if (cc == 8 || cc == 9) return c.b.icmp(cc == 8 ? Cond::SLT : Cond::SGE, f.result, zero);
      if (f.kind == FlagSource::Add && (cc == 2 || cc == 3))
        return c.b.icmp(cc == 2 ? Cond::ULT : Cond::UGE, f.result, f.a);
      return ir::kNoValue;
    case FlagSource::FCmp:
      // One FCMP and a condition read from NZCV, instead of three flags.
      return c.b.vec(ir::VecOp::FCmpCond, Type::I1, f.lane, f.a, f.b, cc | f.fcmp_imm);
    case FlagSource::None: return ir::kNoValue;
  }
  return ir::kNoValue;
}

}  // namespace

Value condition(Ctx& c, unsigned cc) {
  Value fused = fused_condition(c, cc);
  if (fused != ir::kNoValue) return fused;
  Value v;
  switch (cc >> 1) {
    case 0: v = c.b.get_flag(kOF); break;
    case 1: v = c.b.get_flag(kCF); break;
    case 2: v = c.b.get_flag(kZF); break;
    case 3: v = or1(c, c.b.get_flag(kCF), c.b.get_flag(kZF)); break;
    case 4: v = c.b.get_flag(kSF); break;
    case 5: v = c.b.get_flag(kPF); break;
    case 6: v = xor1(c, c.b.get_flag(kSF), c.b.get_flag(kOF)); break;
    default: v = or1(c, c.b.get_flag(kZF), xor1(c, c.b.get_flag(kSF), c.b.get_flag(kOF))); break;
  }
  if (cc & 1) v = xor1(c, v, c.b.constant(Type::I1, 1));
  return v;
}

}  // namespace phybin::x86
