// Lowering of the integer, flag, state and memory IR opcodes.
#include <cstddef>
#include <utility>

#include "arm64/compiler.h"
#include "arm64/compile_vector.h"
#include "common/error.h"

namespace phybin::arm64 {

using ir::Inst;
using ir::Opcode;
using ir::Type;
using ir::Value;
using regmap::kTmp0;
using regmap::kTmp1;

unsigned log2_bytes(Type t) {
  switch (t) {
    case Type::I8: return 0;
    case Type::I16: return 1;
    case Type::I32: return 2;
    default: return 3;
  }
}

void BlockCompiler::lower(Value v) {
  const Inst& in = b_.at(v);
  switch (in.op) {
    case Opcode::Const: loc_[v] = Loc{Loc::Const, 0, -1}; return;
    case Opcode::GuestAddr: load_guest_address(def_gpr(v), in.imm); return;
    case Opcode::GetReg:
      loc_[v] = Loc{Loc::Gpr, regmap::kGuestGpr[in.aux].code, static_cast<int8_t>(in.aux)};
      gpr_holders_[in.aux].push_back(v);
      return;
    case Opcode::SetReg: {
      Reg dst = regmap::kGuestGpr[in.aux];
      Value src = in.args[0];
      Loc& sl = loc_[rep_[src]];
      bool already_there = !is_const(src) && sl.kind == Loc::Gpr && sl.reg == dst.code;
      int8_t saved = sl.guest;
      if (already_there) sl.guest = -2;  // keep it out of the evacuation
      evacuate_guest_gpr(in.aux, v);
      if (already_there) {
        sl.guest = saved;
        gpr_holders_[in.aux].push_back(rep_[src]);
        return;
      }
      if (is_const(src)) a_.mov_imm(Size::X, dst, const_of(src));
      else a_.mov(Size::X, dst, Reg{sl.reg});
      return;
    }
    case Opcode::GetFlag:
      a_.ubfx(Size::X, def_gpr(v), regmap::kFlags, in.aux, 1);
      return;
    case Opcode::SetFlag: {
      Value src = in.args[0];
      if (is_const(src)) {
        if (const_of(src) & 1) a_.orr(Size::X, regmap::kFlags, regmap::kFlags, uint64_t{1} << in.aux);
        else a_.and_(Size::X, regmap::kFlags, regmap::kFlags, ~(uint64_t{1} << in.aux));
        return;
      }
      a_.bfi(Size::X, regmap::kFlags, use(src, kTmp0), in.aux, 1);
      return;
    }
    case Opcode::GetFlags: a_.mov(Size::X, def_gpr(v), regmap::kFlags); return;
    case Opcode::SetFlags: a_.mov(Size::X, regmap::kFlags, use(in.args[0], kTmp0)); return;
    case Opcode::LoadState:
    case Opcode::StoreState: lower_state(v); return;
    case Opcode::LazyFlags: lower_lazy_flags(v); return;
    case Opcode::Load:
    case Opcode::Store: lower_memory(v); return;
    case Opcode::AtomicRmw:
    case Opcode::AtomicCas:
    case Opcode::Fence: lower_atomic(v); return;
    case Opcode::Add: case Opcode::Sub: case Opcode::And: case Opcode::Or: case Opcode::Xor:
    case Opcode::AndNot: case Opcode::Not: case Opcode::Neg: case Opcode::Mul: case Opcode::MulHiU:
    case Opcode::MulHiS:
      lower_arith(v);
      return;
    case Opcode::Shl: case Opcode::Lshr: case Opcode::Ashr: case Opcode::Ror: lower_shift(v); return;
    case Opcode::ZExt: case Opcode::SExt: case Opcode::Trunc: lower_extend(v); return;
    case Opcode::ExtractBits: case Opcode::InsertBits: case Opcode::Bswap: case Opcode::Clz:
    case Opcode::Ctz: case Opcode::Popcount: case Opcode::Parity: case Opcode::Crc32c:
      lower_bits(v);
      return;
    case Opcode::ICmp:
      if (v != fused_cond_ && !side_cond_[v]) lower_icmp(v, false);
      return;
    case Opcode::SideExit: lower_side_exit(v); return;
    case Opcode::Select: lower_select(v); return;
    case Opcode::CallHelper: lower_call(v); return;
    case Opcode::CallNative: lower_native_call(v); return;
    case Opcode::Trap: lower_trap(v); return;
    case Opcode::FpTrapBegin:
    case Opcode::FpTrapCheck: lower_fp_trap(v); return;
    case Opcode::GetXmm: case Opcode::SetXmm: case Opcode::VZero: case Opcode::VLoad: case Opcode::VStore:
    case Opcode::VCheckAlign: case Opcode::VUnary: case Opcode::VBinary: case Opcode::VTernary:
    case Opcode::FpRegionCheck:
      lower_vector(v);
      return;
    case Opcode::Count: break;
  }
  // No default above: an opcode added to opcodes.inc without a lowering
  // fails the build (-Wswitch), not a run.
  throw Error(ErrorCode::PHYBIN_ERR_INTERNAL, "not an IR opcode");
}

void BlockCompiler::lower_arith(Value v) {
  const Inst& in = b_.at(v);
  Size s = narrow_[v] ? Size::W : size_of(in.type);
  Value x = in.args[0], y = in.args[1];
  if (in.op == Opcode::Not || in.op == Opcode::Neg) {
    Reg a = use(x, kTmp0);
    Reg d = def_gpr(v);
    if (in.op == Opcode::Not) a_.mvn(s, d, a);
    else a_.neg(s, d, a);
    return;
  }
  // Immediate forms where the second operand is a suitable constant.
  if (is_const(y) && !is_const(x)) {
    uint64_t imm = const_of(y);
    uint64_t mask = s == Size::X ? ~uint64_t{0} : 0xffffffffu;
    uint64_t neg = (0 - imm) & mask;
    imm &= mask;
    Reg a = use(x, kTmp0);
    switch (in.op) {
      case Opcode::Add:
      case Opcode::Sub: {
        bool add = in.op == Opcode::Add;
        if (Assembler::is_add_imm(imm)) {
          Reg d = def_gpr(v);
          if (add) a_.add_imm(s, d, a, static_cast<int64_t>(imm));
          else a_.sub_imm(s, d, a, static_cast<int64_t>(imm));
          return;
        }
        if (Assembler::is_add_imm(neg)) {
          Reg d = def_gpr(v);
          if (add) a_.sub_imm(s, d, a, static_cast<int64_t>(neg));
          else a_.add_imm(s, d, a, static_cast<int64_t>(neg));
          return;
        }
        break;
      }
      case Opcode::And:
      case Opcode::Or:
      case Opcode::Xor:
        if (imm != 0 && imm != mask && Assembler::is_logical_imm(imm, s)) {
          Reg d = def_gpr(v);
          if (in.op == Opcode::And) a_.and_(s, d, a, imm);
          else if (in.op == Opcode::Or) a_.orr(s, d, a, imm);
          else a_.eor(s, d, a, imm);
          return;
        }
        break;
      default: break;
    }
  }
  if (!is_const(x) && folded_[x]) std::swap(x, y);  // a commutative op with the shift first
  Reg a = use(x, kTmp0);
  Shift sh;
  unsigned amount;
  Reg bb = second_operand(y, sh, amount);
  Reg d = def_gpr(v);
  switch (in.op) {
    case Opcode::Add: a_.add(s, d, a, bb, sh, amount); break;
    case Opcode::Sub: a_.sub(s, d, a, bb, sh, amount); break;
    case Opcode::And: a_.and_(s, d, a, bb, sh, amount); break;
    case Opcode::Or: a_.orr(s, d, a, bb, sh, amount); break;
    case Opcode::Xor: a_.eor(s, d, a, bb, sh, amount); break;
    case Opcode::AndNot: a_.bic(s, d, a, bb, sh, amount); break;
    case Opcode::Mul: a_.mul(s, d, a, bb); break;
    case Opcode::MulHiU: a_.umulh(d, a, bb); break;
    case Opcode::MulHiS: a_.smulh(d, a, bb); break;
    default: break;
  }
}

void BlockCompiler::lower_shift(Value v) {
  const Inst& in = b_.at(v);
  Size s = narrow_[v] ? Size::W : size_of(in.type);
  int bits = type_bits(in.type);
  Reg a = use(in.args[0], kTmp0);
  // Right shifts of 8/16-bit values need the bits above the width defined.
  if (bits < 32 && in.op != Opcode::Shl && bits_valid_[in.args[0]] > bits) {
    bool sign = in.op == Opcode::Ashr;
    if (bits == 8) sign ? a_.sxtb(Size::W, kTmp0, a) : a_.uxtb(kTmp0, a);
    else sign ? a_.sxth(Size::W, kTmp0, a) : a_.uxth(kTmp0, a);
    a = kTmp0;
  }
  if (is_const(in.args[1])) {
    unsigned n = static_cast<unsigned>(const_of(in.args[1])) & (s == Size::X ? 63 : 31);
    Reg d = def_gpr(v);
    switch (in.op) {
      case Opcode::Shl: a_.lsl(s, d, a, n); break;
      case Opcode::Lshr: a_.lsr(s, d, a, n); break;
      case Opcode::Ashr:
        if (bits < 32 && bits_valid_[in.args[0]] <= bits && n) {
          // Zero-extended input: sign-extend before an arithmetic shift.
          bits == 8 ? a_.sxtb(Size::W, kTmp0, a) : a_.sxth(Size::W, kTmp0, a);
          a = kTmp0;
        }
        a_.asr(s, d, a, n);
        break;
      default: a_.ror(s, d, a, n); break;
    }
    return;
  }
  if (in.op == Opcode::Ashr && bits < 32 && bits_valid_[in.args[0]] <= bits) {
    bits == 8 ? a_.sxtb(Size::W, kTmp0, a) : a_.sxth(Size::W, kTmp0, a);
    a = kTmp0;
  }
  Reg c = use(in.args[1], kTmp1);
  Reg d = def_gpr(v);
  switch (in.op) {
    case Opcode::Shl: a_.lslv(s, d, a, c); break;
    case Opcode::Lshr: a_.lsrv(s, d, a, c); break;
    case Opcode::Ashr: a_.asrv(s, d, a, c); break;
    default: a_.rorv(s, d, a, c); break;
  }
}

void BlockCompiler::lower_extend(Value v) {
  const Inst& in = b_.at(v);
  Value src = in.args[0];
  if (is_const(src)) {  // constants fold in the IR; what is left is rare
    uint64_t x = const_of(src);
    int from = type_bits(b_.at(src).type);
    if (in.op == Opcode::SExt && from < 64) x = static_cast<uint64_t>(static_cast<int64_t>(x << (64 - from)) >> (64 - from));
    if (in.op != Opcode::SExt && type_bits(in.type) < 64) x &= (uint64_t{1} << (in.op == Opcode::ZExt ? from : type_bits(in.type))) - 1;
    a_.mov_imm(Size::X, def_gpr(v), x);
    return;
  }
  if (rep_[v] != v || v == sext_loaded_) return;  // an alias, or done by its load: no code
  Reg a = use(src, kTmp0);
  Reg d = def_gpr(v);
  int from = type_bits(b_.at(src).type);
  if (in.op == Opcode::Trunc) {  // only to I1 reaches here
    a_.and_(Size::W, d, a, 1);
    return;
  }
  Size s = size_of(in.type);
  bool sign = in.op == Opcode::SExt;
  switch (from) {
    case 1: a_.and_(Size::W, d, a, 1); break;
    case 8: sign ? a_.sxtb(s, d, a) : a_.uxtb(d, a); break;
    case 16: sign ? a_.sxth(s, d, a) : a_.uxth(d, a); break;
    default:
      if (sign && s == Size::X) a_.sxtw(d, a);
      else a_.mov(Size::W, d, a);
      break;
  }
}

void BlockCompiler::lower_bits(Value v) {
  const Inst& in = b_.at(v);
  Size s = size_of(in.type);
  switch (in.op) {
    case Opcode::ExtractBits: {
      Reg a = use(in.args[0], kTmp0);
      a_.ubfx(Size::X, def_gpr(v), a, in.aux, static_cast<unsigned>(in.imm));
      return;
    }
    case Opcode::InsertBits: {
      Reg base = use(in.args[0], kTmp0);
      Reg val = use(in.args[1], kTmp1);
      Reg d = def_gpr(v);
      if (val == d) {
        a_.mov(Size::X, kTmp1, val);
        val = kTmp1;
      }
      if (d != base) a_.mov(Size::X, d, base);
      a_.bfi(Size::X, d, val, in.aux, static_cast<unsigned>(in.imm));
      return;
    }
    case Opcode::Bswap: a_.rev(s, def_gpr(v), use(in.args[0], kTmp0)); return;
    case Opcode::Clz:
    case Opcode::Ctz: {
      Reg a = use(in.args[0], kTmp0);
      if (in.type == Type::I16 || in.type == Type::I8) {
        in.type == Type::I16 ? a_.uxth(kTmp0, a) : a_.uxtb(kTmp0, a);
        a = kTmp0;
      }
      Reg d = def_gpr(v);
      if (in.op == Opcode::Ctz) {
        a_.rbit(s, kTmp0, a);
        a_.clz(s, d, kTmp0);
      } else {
        a_.clz(s, d, a);
        if (type_bits(in.type) < 32) a_.sub_imm(Size::W, d, d, 32 - type_bits(in.type));
      }
      return;
    }
    case Opcode::Popcount: {
      Reg a = use(in.args[0], kTmp0);
      if (in.type == Type::I16) {
        a_.uxth(kTmp0, a);
        a = kTmp0;
      }
      // a 32-bit value may have junk in the upper half of its register:
      // the S-sized move clears it
      a_.fmov(in.type == Type::I64 ? FSize::D : FSize::S, regmap::kVTmp0, a);
      a_.cnt(VArr::B8, regmap::kVTmp0, regmap::kVTmp0);
      a_.addv(VArr::B8, regmap::kVTmp0, regmap::kVTmp0);
      a_.umov(FSize::B, def_gpr(v), regmap::kVTmp0, 0);
      return;
    }
    case Opcode::Crc32c: {
      Reg crc = use(in.args[0], kTmp0);
      Reg data = use(in.args[1], kTmp1);
      Type dt = b_.at(in.args[1]).type;
      unsigned size_log2 = dt == Type::I8 ? 0 : dt == Type::I16 ? 1 : dt == Type::I32 ? 2 : 3;
      a_.crc32c(size_log2, def_gpr(v), crc, data);
      return;
    }
    case Opcode::Parity: {
      // PF = 1 when the low byte has an even number of set bits.
      Reg a = use(in.args[0], kTmp0);
      a_.eor(Size::W, kTmp1, a, a, Shift::LSR, 4);
      a_.eor(Size::W, kTmp1, kTmp1, kTmp1, Shift::LSR, 2);
      a_.eor(Size::W, kTmp1, kTmp1, kTmp1, Shift::LSR, 1);
      Reg d = def_gpr(v);
      a_.eor(Size::W, d, kTmp1, 1);
      a_.and_(Size::W, d, d, 1);
      return;
    }
    default: return;
  }
}

// Sets NZCV for `a cond b` in the operands' width.
void BlockCompiler::lower_icmp(Value v, bool for_branch) {
  const Inst& in = b_.at(v);
  Value x = in.args[0], y = in.args[1];
  Type t = b_.at(x).type;
  int bits = type_bits(t);
  Reg a = use(x, kTmp0);
  auto cond = static_cast<ir::Cond>(in.aux);
  bool unsigned_or_eq = cond == ir::Cond::EQ || cond == ir::Cond::NE || cond == ir::Cond::ULT ||
                        cond == ir::Cond::ULE || cond == ir::Cond::UGT || cond == ir::Cond::UGE;
  // Only asked for 8/16-bit compares (a 64-bit shift by 64 is undefined).
  bool y_narrow = bits < 32 && (is_const(y) ? (const_of(y) >> bits) == 0 : bits_valid_[y] <= bits);
  if (bits < 32 && unsigned_or_eq && bits_valid_[x] <= bits && y_narrow) {
    // Both zero-extended: unsigned order and equality are those of W registers.
    if (is_const(y)) a_.cmp_imm(Size::W, a, static_cast<int64_t>(const_of(y)), kTmp1);
    else a_.cmp(Size::W, a, use(y, kTmp1));
  } else if (bits < 32) {
    // Compare 8/16-bit values in the top bits of W registers: every
    // signed and unsigned condition then comes out right.
    unsigned shift = 32 - static_cast<unsigned>(bits);
    a_.lsl(Size::W, kTmp0, a, shift);
    if (is_const(y) && (const_of(y) & ((1u << bits) - 1)) == 0) {
      a_.cmp(Size::W, kTmp0, 0);
    } else {
      Reg bb = use(y, kTmp1);
      a_.cmp(Size::W, kTmp0, bb, Shift::LSL, shift);
    }
  } else {
    Size s = bits == 64 ? Size::X : Size::W;
    uint64_t mask = bits == 64 ? ~uint64_t{0} : 0xffffffffu;
    if (is_const(y) && Assembler::is_add_imm(const_of(y) & mask)) {
      a_.cmp_imm(s, a, static_cast<int64_t>(const_of(y) & mask), kTmp1);
    } else {
      Reg bb = use(y, kTmp1);
      a_.cmp(s, a, bb);
    }
  }
  fused_arm_cond_ = arm_cond(static_cast<ir::Cond>(in.aux));
  if (!for_branch) a_.cset(Size::W, def_gpr(v), fused_arm_cond_);
}

void BlockCompiler::lower_select(Value v) {
  const Inst& in = b_.at(v);
  Cond cond = Cond::NE;
  if (folded_[in.args[0]]) {
    // A compare only Selects use (fold_operands): compared here.  The
    // operands below are registers or constants (mov): NZCV survives.
    lower_icmp(in.args[0], true);
    cond = fused_arm_cond_;
  } else {
    a_.cmp(Size::W, use(in.args[0], kTmp0), 0);
  }
  Reg x = use(in.args[1], kTmp0);
  Reg y = use(in.args[2], kTmp1);
  a_.csel(size_of(in.type), def_gpr(v), x, y, cond);
}

Mem BlockCompiler::address_of(Value addr) {
  if (!folded_[addr]) return mem(use(addr, kTmp0), 0);
  const Inst& add = b_.at(addr);
  Reg base = use(add.args[0], kTmp0);
  Value y = add.args[1];
  if (is_const(y)) {
    auto offset = static_cast<int64_t>(const_of(y));
    return mem(base, add.op == Opcode::Sub ? -offset : offset);
  }
  if (folded_[y]) return mem(base, use(b_.at(y).args[0], kTmp1), Extend::UXTX, true);
  return mem(base, use(y, kTmp1));
}

// The second ALU operand, with a constant shift folded into it.
Reg BlockCompiler::second_operand(Value v, Shift& shift, unsigned& amount) {
  shift = Shift::LSL;
  amount = 0;
  if (is_const(v) || !folded_[v]) return use(v, kTmp1);
  const Inst& sh = b_.at(v);
  shift = sh.op == Opcode::Shl ? Shift::LSL : sh.op == Opcode::Lshr ? Shift::LSR : Shift::ASR;
  amount = static_cast<unsigned>(const_of(sh.args[1])) & (sh.type == Type::I64 ? 63 : 31);
  return use(sh.args[0], kTmp1);
}

void BlockCompiler::load_value(Type t, Reg rt, const Mem& m) {
  a_.load(static_cast<MemSize>(log2_bytes(t)), rt, m);
}

void BlockCompiler::lower_memory(Value v) {
  if (access_update_[v] != ir::kNoValue) lower_access_with_update(v, access_update_[v]);
  else lower_plain_memory(v);
}

// One access with writeback (find_writeback_accesses) when the base is
// still in its guest register and the access's own value is elsewhere
// (AArch64 leaves writeback onto the loaded or stored register
// unpredictable); otherwise the access and the update as written.
void BlockCompiler::lower_access_with_update(Value access, Value update) {
  const Inst& in = b_.at(access);
  const auto g = static_cast<unsigned>(update_guest_[access]);
  const Reg rn = regmap::kGuestGpr[g];
  auto in_rn = [&](Value x) {
    const Loc& l = loc_[rep_[x]];
    return !is_const(x) && l.kind == Loc::Gpr && l.reg == rn.code;
  };
  const bool pre = in.args[0] == update;
  const bool vector = in.op == Opcode::VLoad || in.op == Opcode::VStore;
  bool one = in_rn(b_.at(update).args[0]);
  if (in.op == Opcode::Store) one = one && !in_rn(in.args[1]);
  else if (in.op == Opcode::Load) one = one && hint_guest_[access] != static_cast<int8_t>(g);
  if (!one) {
    if (pre) lower(update);
    if (vector) VectorLowering(*this).lower_memory_at(access, address_of(in.args[0]));
    else lower_plain_memory(access);
    if (!pre) lower(update);
    return;
  }
  const Mem m = pre ? mem_pre(rn, step_of(update)) : mem_post(rn, step_of(update));
  if (vector) {
    evacuate_guest_gpr(g, std::max(access, update));
    VectorLowering(*this).lower_memory_at(access, m);
  } else if (in.op == Opcode::Store) {
    const Value x = in.args[1];
    const Reg val = is_const(x) && const_of(x) == 0 ? xzr : use(x, kTmp1);
    evacuate_guest_gpr(g, std::max(access, update));
    a_.store(static_cast<MemSize>(log2_bytes(b_.at(x).type)), val, m);
  } else {
    const Reg rt = def_gpr(access);
    evacuate_guest_gpr(g, std::max(access, update));
    load_value(in.type, rt, m);
  }
  loc_[update] = Loc{Loc::Gpr, rn.code, static_cast<int8_t>(g)};
  gpr_holders_[g].push_back(update);
}

void BlockCompiler::lower_plain_memory(Value v) {
  const Inst& in = b_.at(v);
  if (ordered_access(v)) {
    lower_ordered_memory(v);
    return;
  }
  if (in.op == Opcode::Load) {
    Mem m = address_of(in.args[0]);
    // movslq/movsbl: a load whose only user, right after it, sign-extends
    // it is one LDRS*.
    const Value next = next_live(v);
    if (next < n_ && b_.at(next).op == Opcode::SExt && b_.at(next).args[0] == v && last_use_[rep_[v]] == next &&
        type_bits(in.type) < 64) {
      Reg d = def_gpr(next);
      a_.load_signed(size_of(b_.at(next).type), static_cast<MemSize>(log2_bytes(in.type)), d, m);
      sext_loaded_ = next;
      return;
    }
    load_value(in.type, def_gpr(v), m);
    return;
  }
  Type t = b_.at(in.args[1]).type;
  Mem m = address_of(in.args[0]);
  Reg val = is_const(in.args[1]) && const_of(in.args[1]) == 0 ? xzr : use(in.args[1], kTmp1);
  a_.store(static_cast<MemSize>(log2_bytes(t)), val, m);
}

void BlockCompiler::lower_state(Value v) {
  const Inst& in = b_.at(v);
  auto offset = static_cast<int64_t>(in.imm);
  if (in.op == Opcode::LoadState) {
    load_value(in.type, def_gpr(v), mem(regmap::kState, offset));
    return;
  }
  Type t = b_.at(in.args[0]).type;
  a_.store(static_cast<MemSize>(log2_bytes(t)), use(in.args[0], kTmp0), mem(regmap::kState, offset));
}

// A lazy record's operands (x86/lazy_flags.h), in their width, when it
// does not name registers; the record itself is written only where the
// target reads it (exit_indirect).
void BlockCompiler::lower_lazy_flags(Value v) {
  const Inst& in = b_.at(v);
  if (in.args[0] == ir::kNoValue) return;  // the record names registers
  const auto size = static_cast<MemSize>(log2_bytes(b_.at(in.args[0]).type));
  a_.store(size, use(in.args[0], kTmp0), mem(regmap::kState, offsetof(GuestState, lazy_flags_a)));
  if (in.args[1] != ir::kNoValue)
    a_.store(size, use(in.args[1], kTmp0), mem(regmap::kState, offsetof(GuestState, lazy_flags_b)));
}

}  // namespace phybin::arm64
