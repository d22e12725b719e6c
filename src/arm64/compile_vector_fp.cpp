// Lowering of the SSE/SSE2 floating-point operations to NEON, with x86's
// rules where AArch64 differs:
//  - a NaN made from non-NaN operands (inf - inf, 0/0, sqrt(-1)) is the
//    negative default NaN on x86, the positive one on AArch64; with two NaN
//    operands x86 returns the first one (quieted).  The hot path checks the
//    result for NaN (2-3 instructions); a cold path applies the x86 rule.
//    FPCR.DN stays 0 so that AArch64 propagates operand NaNs like x86.
//    BackendConfig::exact_fp_nan = false drops the check (about a quarter
//    of the instructions of FP-heavy code) and keeps AArch64's NaNs.
//  - min/max return the second operand when unordered or both zero;
//  - conversions to integer give the "integer indefinite" (INT_MIN) for
//    NaN and out-of-range values instead of saturating;
//  - comis/ucomis set ZF, PF, CF (all three when unordered).
#include "arm64/compile_vector.h"

namespace phybin::arm64 {

using ir::Inst;
using ir::Type;
using ir::Value;
using ir::VecOp;
using regmap::kTmp0;
using regmap::kTmp1;
using regmap::kVTmp0;
using regmap::kVTmp1;

namespace {

constexpr uint8_t kFpOne = 0x70;  // 1.0 as an FMOV immediate

}  // namespace

void VectorLowering::lower_fp_arith(Value v, FpArithOp op) {
  switch (op) {
    case FpArithOp::FAdd: case FpArithOp::FSub: case FpArithOp::FMul: case FpArithOp::FDiv: case FpArithOp::FSqrt:
      return lower_fp_packed(v, op);
    case FpArithOp::FAddScalar: case FpArithOp::FSubScalar: case FpArithOp::FMulScalar: case FpArithOp::FDivScalar:
    case FpArithOp::FSqrtScalar:
      return lower_fp_scalar(v, op);
  }
}

void VectorLowering::lower_fp(Value v, FpOp op) {
  switch (op) {
    case FpOp::FMin: return lower_fminmax(v, true, false);
    case FpOp::FMax: return lower_fminmax(v, false, false);
    case FpOp::FRecip: return lower_estimate_packed(v, false);
    case FpOp::FRsqrt: return lower_estimate_packed(v, true);
    case FpOp::FCmp: return lower_fcmp(v, false);
    case FpOp::FRound: return lower_round(v, false);
    case FpOp::FMinScalar: return lower_fminmax(v, true, true);
    case FpOp::FMaxScalar: return lower_fminmax(v, false, true);
    case FpOp::FRecipScalar: return lower_estimate_scalar(v, false);
    case FpOp::FRsqrtScalar: return lower_estimate_scalar(v, true);
    case FpOp::FCmpScalar: return lower_fcmp(v, true);
    case FpOp::FRoundScalar: return lower_round(v, true);
    case FpOp::FCmpFlag: return lower_fcmp_flag(v, true);
    case FpOp::FCmpCond: return lower_fcmp_flag(v, false);
    case FpOp::CvtIntToFScalar: return lower_cvt_int_to_scalar(v);
    case FpOp::CvtFToFScalar: return lower_cvt_fp_scalar(v);
    case FpOp::CvtFToInt: return lower_cvt_to_int(v);
    case FpOp::CvtI32ToF32: return two_reg(v, VArr::S4, &Assembler::scvtf);
    case FpOp::CvtF32ToI32: return lower_cvt_f32_to_i32(v);
    case FpOp::CvtI32ToF64: return lower_cvt_i32_to_f64(v);
    case FpOp::CvtF64ToI32: return lower_cvt_f64_to_i32(v);
    case FpOp::CvtF32ToF64: return two_reg(v, VArr::S2, &Assembler::fcvtl);
    case FpOp::CvtF64ToF32: return two_reg(v, VArr::S2, &Assembler::fcvtn);
  }
}

// One NEON instruction of a into the result.
void VectorLowering::two_reg(Value v, VArr arr, TwoReg emit) {
  VReg x = vreg_of(inst(v).args[0]);
  VReg d = def(v);
  (a_.*emit)(arr, d, x);
}

void VectorLowering::merge_low(VReg d, VReg base, unsigned lane) {
  copy(d, base);
  a_.ins(fsize(lane), d, 0, kVTmp0, 0);
}

// rcpps/rsqrtps and their scalar forms are estimates that never raise an
// SIMD floating-point exception (the SDM lists none for them): the exact
// divide and square root that compute them here must leave MXCSR's flags
// (FPSR) as they were.

// The estimates also read a denormal operand as a zero and give a zero for
// a result below the smallest normal, both with the sign kept, in every
// MXCSR mode: d = x with the lanes whose exponent field is 0 cleared but
// for the sign (float lanes; t is clobbered).
void VectorLowering::flush_tiny(VReg d, VReg x, VReg t) {
  a_.shl(VArr::S4, t, x, 1);     // the sign out
  a_.ushr(VArr::S4, t, t, 24);   // the exponent field
  a_.cmeq0(VArr::S4, t, t);      // all ones where it is 0
  a_.ushr(VArr::S4, t, t, 1);    // ... but for the sign
  a_.bic(VArr::B16, d, x, t);
}

// The registers of a floating-point operation that x86's NaN rules are
// checked for.  The NaN fix-up needs the operands (and its group's): r,
// where the result is computed, is beside them when d is one of them.
VectorLowering::FpRegs VectorLowering::packed_regs(Value v, bool unary) {
  const Inst& i = inst(v);
  FpRegs o;
  o.x = vreg_of(i.args[0]);
  o.y = unary ? o.x : vreg_of(i.args[1]);
  o.group = nan_group(v);
  o.d = def(v);
  const bool keep = c_.cfg_.exact_fp_nan && !checked_at_region_end(v);
  o.r = keep && (o.d == o.x || o.d == o.y || reads_register(o.group, o.d)) ? kVTmp0 : o.d;
  return o;
}

// An arithmetic operation of a region checked at its end: no check of its
// own, no fix-up reading its operands again.
bool VectorLowering::checked_at_region_end(Value v) const {
  return c_.vec_.region_checked_at_end(v) && in_family(inst(v), ir::VecFamily::FpArith);
}

// Whether operation v is checked for x86's NaN rules where it stands: not a
// group member (its group's last operation checks it) nor checked at its
// region's end.
bool VectorLowering::checked_here(Value v) const {
  return c_.cfg_.exact_fp_nan && c_.vec_.nan_root_of(v) == ir::kNoValue && !checked_at_region_end(v);
}

void VectorLowering::check_packed(Value v, FpRegs& o) {
  if (checked_here(v)) check_nan(v, o.r, o.x, o.y, o.r == kVTmp0 ? scratch() : kVTmp0, std::move(o.group));
}

void VectorLowering::lower_fp_packed(Value v, FpArithOp op) {
  FpRegs o = packed_regs(v, op == FpArithOp::FSqrt);
  emit_fp_op(a_, op, inst(v).lane, o.r, o.x, o.y);
  check_packed(v, o);
  copy(o.d, o.r);
}

// rcpps, rsqrtps (see above); 1/x makes no NaN of its own: rcpps is not
// checked for x86's NaN rules.
void VectorLowering::lower_estimate_packed(Value v, bool rsqrt) {
  const VArr arr = farr(inst(v).lane);
  FpRegs o = packed_regs(v, true);
  a_.mrs(kTmp1, SysReg::FPSR);  // the estimates raise no flags (above)
  const VReg t = scratch(), xf = scratch();
  flush_tiny(xf, o.x, t);
  if (rsqrt) {
    a_.fsqrt(arr, o.r, xf);
    a_.fmov_imm(arr, kVTmp1, kFpOne);
    a_.fdiv(arr, o.r, kVTmp1, o.r);
    check_packed(v, o);
  } else {
    a_.fmov_imm(arr, kVTmp1, kFpOne);
    a_.fdiv(arr, o.r, kVTmp1, xf);
    flush_tiny(o.r, o.r, t);
  }
  a_.msr(SysReg::FPSR, kTmp1);
  copy(o.d, o.r);
}

// A scalar result only element 0 of which is read (low_only), or whose
// operand a is zero above element 0 (whole), is computed straight into its
// own register: the elements above need not be merged in.  Otherwise r is
// kVTmp0 and merged into d at the end (finish_scalar).
VectorLowering::FpRegs VectorLowering::scalar_regs(Value v) {
  const Inst& i = inst(v);
  FpRegs o;
  o.x = vreg_of(i.args[0]);
  o.y = vreg_of(i.args[1]);
  o.group = nan_group(v);
  o.low_only = c_.vec_.is_low_only(v);
  o.whole = !o.low_only && c_.vec_.zero_above(i.args[0], i.lane);
  o.d = o.low_only || o.whole ? def(v) : kVTmp0;
  // The operands stay for the NaN rule.
  const bool keep = !checked_at_region_end(v);
  o.r = keep && (o.d == o.x || o.d == o.y || reads_register(o.group, o.d)) ? kVTmp0 : o.d;
  return o;
}

void VectorLowering::check_scalar(Value v, FpRegs& o) {
  if (checked_here(v)) check_nan(v, o.r, o.x, o.y, kVTmp0, std::move(o.group));
}

void VectorLowering::finish_scalar(Value v, const FpRegs& o) {
  if (o.low_only || o.whole) copy(o.d, o.r);
  else merge_low(def(v), vreg_of(c_.vec_.upper_source(v, inst(v))), inst(v).lane);
}

void VectorLowering::lower_fp_scalar(Value v, FpArithOp op) {
  FpRegs o = scalar_regs(v);
  emit_fp_op(a_, op, inst(v).lane, o.r, o.x, o.y);
  check_scalar(v, o);
  finish_scalar(v, o);
}

// rcpss, rsqrtss; as the packed ones.
void VectorLowering::lower_estimate_scalar(Value v, bool rsqrt) {
  const FSize fs = fsize(inst(v).lane);
  FpRegs o = scalar_regs(v);
  a_.mrs(kTmp1, SysReg::FPSR);
  const VReg t = scratch(), yf = scratch();
  flush_tiny(yf, o.y, t);
  if (rsqrt) {
    a_.fsqrt(fs, o.r, yf);
    a_.fmov_imm(fs, kVTmp1, kFpOne);
    a_.fdiv(fs, o.r, kVTmp1, o.r);
    check_scalar(v, o);
  } else {
    a_.fmov_imm(fs, kVTmp1, kFpOne);
    a_.fdiv(fs, o.r, kVTmp1, yf);
    flush_tiny(o.r, o.r, t);
  }
  a_.msr(SysReg::FPSR, kTmp1);
  finish_scalar(v, o);
}

// x86 min: a < b ? a : b; max: a > b ? a : b.  Unordered operands and
// equal ones (+0/-0) give b, which the compare-and-select does naturally.
void VectorLowering::lower_fminmax(Value v, bool is_min, bool scalar) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  VReg d = def(v);
  if (scalar) {
    const FSize fs = fsize(i.lane);
    if (is_min) a_.fcmgt(fs, kVTmp0, y, x);
    else a_.fcmgt(fs, kVTmp0, x, y);
    a_.bsl(VArr::B8, kVTmp0, x, y);
    merge_low(d, x, i.lane);
    return;
  }
  const VArr arr = farr(i.lane);
  if (is_min) a_.fcmgt(arr, kVTmp0, y, x);
  else a_.fcmgt(arr, kVTmp0, x, y);
  if (d == x) {
    a_.bif(VArr::B16, d, y, kVTmp0);
  } else if (d == y) {
    a_.bit(VArr::B16, d, x, kVTmp0);
  } else {
    a_.bsl(VArr::B16, kVTmp0, x, y);
    a_.mov(VArr::B16, d, kVTmp0);
  }
}

// cmpps/cmpss predicates: 0 eq, 1 lt, 2 le, 3 unord, 4 neq, 5 nlt, 6 nle, 7 ord.
void VectorLowering::lower_fcmp(Value v, bool scalar) {
  const Inst& i = inst(v);
  const unsigned pred = static_cast<unsigned>(i.imm & 7);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  VReg d = def(v);
  const VArr arr = farr(i.lane);
  const FSize fs = fsize(i.lane);
  // Predicates 4-7 negate 0-3 (7, ordered, is the negation of unordered,
  // whose own form is built as "ordered" below: hence the swap).
  const bool negate = (pred >= 4) != ((pred & 3) == 3);
  // A single compare may write d even when d is an operand's register.
  VReg r = !scalar && !negate && (pred & 3) != 3 ? d : kVTmp0;
  auto eq = [&](VReg dd, VReg n, VReg m) { scalar ? a_.fcmeq(fs, dd, n, m) : a_.fcmeq(arr, dd, n, m); };
  auto gt = [&](VReg dd, VReg n, VReg m) { scalar ? a_.fcmgt(fs, dd, n, m) : a_.fcmgt(arr, dd, n, m); };
  auto ge = [&](VReg dd, VReg n, VReg m) { scalar ? a_.fcmge(fs, dd, n, m) : a_.fcmge(arr, dd, n, m); };
  switch (pred & 3) {
    case 0: eq(r, x, y); break;
    case 1: gt(r, y, x); break;
    case 2: ge(r, y, x); break;
    default:
      eq(r, x, x);
      eq(kVTmp1, y, y);
      a_.and_(VArr::B16, r, r, kVTmp1);
      break;
  }
  if (negate) a_.mvn(VArr::B16, r, r);
  if (scalar) merge_low(d, x, i.lane);
  else copy(d, r);
}

namespace {

// An x86 condition after comis/ucomis (OF = SF = AF = 0) as AArch64
// computes it from FCMP's NZCV.
struct FcmpCondition {
  enum Kind : uint8_t { Zero, One, Zf, NotZf, Direct } kind;
  Cond cond;
};
constexpr FcmpCondition kFcmpConditions[16] = {
    {FcmpCondition::Zero, Cond::AL},  {FcmpCondition::One, Cond::AL},     // o, no
    {FcmpCondition::Direct, Cond::LT}, {FcmpCondition::Direct, Cond::GE},  // b (CF), ae
    {FcmpCondition::Zf, Cond::AL},    {FcmpCondition::NotZf, Cond::AL},   // e (ZF), ne
    {FcmpCondition::Direct, Cond::LE}, {FcmpCondition::Direct, Cond::GT},  // be, a
    {FcmpCondition::Zero, Cond::AL},  {FcmpCondition::One, Cond::AL},     // s, ns
    {FcmpCondition::Direct, Cond::VS}, {FcmpCondition::Direct, Cond::VC},  // p (PF), np
    {FcmpCondition::Zero, Cond::AL},  {FcmpCondition::One, Cond::AL},     // l, ge
    {FcmpCondition::Zf, Cond::AL},    {FcmpCondition::NotZf, Cond::AL},   // le, g
};

}  // namespace

// comis/ucomis: one FCMP sets NZCV, each flag or condition is read from it.
//   unordered: ZF PF CF = 1 1 1   (NZCV 0011)   less: 0 0 1 (1000)
//   equal:     1 0 0     (0110)                 greater: 0 0 0 (0010)
// The flags of one comis are adjacent in the IR: while nothing has been
// emitted since the last compare of the same operands, NZCV still holds it.
void VectorLowering::lower_fcmp_flag(Value v, bool flag) {
  const Inst& i = inst(v);
  unsigned cc = static_cast<unsigned>(i.imm & 15);
  if (flag) cc = (i.imm & 0xff) == kZF ? 4 : (i.imm & 0xff) == kPF ? 10 : 2;
  const FcmpCondition how = kFcmpConditions[cc];
  Reg d = c_.def_gpr(v);
  if (how.kind == FcmpCondition::Zero || how.kind == FcmpCondition::One) {
    a_.movz(Size::W, d, how.kind == FcmpCondition::One ? 1 : 0);
    return;
  }
  VectorState& s = c_.vec_;
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  const FSize fs = fsize(i.lane);
  const bool signalling = (i.imm & 0x100) != 0;
  bool reuse = s.fcmp_end == a_.cursor() && s.fcmp_args[0] == i.args[0] && s.fcmp_args[1] == i.args[1] &&
               s.fcmp_lane == i.lane && s.fcmp_signalling == signalling;
  if (!reuse) {
    if (i.imm & 0x100) a_.fcmpe(fs, x, y);  // comis signals on quiet NaNs too
    else a_.fcmp(fs, x, y);
  }
  switch (how.kind) {
    case FcmpCondition::Zf:  // equal or unordered
      a_.cset(Size::W, d, Cond::EQ);
      a_.csinc(Size::W, d, d, wzr, Cond::VC);
      break;
    case FcmpCondition::NotZf:  // ordered and not equal
      a_.cset(Size::W, d, Cond::NE);
      a_.csel(Size::W, d, d, wzr, Cond::VC);
      break;
    default: a_.cset(Size::W, d, how.cond); break;
  }
  s.fcmp_end = a_.cursor();
  s.fcmp_args[0] = i.args[0];
  s.fcmp_args[1] = i.args[1];
  s.fcmp_lane = i.lane;
  s.fcmp_signalling = signalling;
}

bool VectorLowering::fcmp_branch_cond(const Inst& in, Cond& cond) {
  if (in.op != ir::Opcode::VBinary || static_cast<VecOp>(in.aux) != VecOp::FCmpCond) return false;
  const FcmpCondition how = kFcmpConditions[in.imm & 15];
  cond = how.cond;
  return how.kind == FcmpCondition::Direct;
}

void VectorLowering::lower_fcmp_for_branch(Value v) {
  const Inst& i = inst(v);
  const FSize fs = fsize(i.lane);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  if (i.imm & 0x100) a_.fcmpe(fs, x, y);
  else a_.fcmp(fs, x, y);
}

// cvt(t)ss2si / cvt(t)sd2si: AArch64 saturates (and gives 0 for NaN); x86
// gives the integer indefinite INT_MIN for both.  A saturated INT_MIN is
// already right; a saturated INT_MAX cannot be an exact result except for
// double -> int32, which converts to 64 bits and checks the range instead.
void VectorLowering::lower_cvt_to_int(Value v) {
  const Inst& i = inst(v);
  const FSize fs = fsize(i.lane);
  VReg x = vreg_of(i.args[0]), src = x;
  const bool round = !(i.imm & 1);
  const bool to_int32_from_double = i.type != Type::I64 && fs == FSize::D;
  if (round) {  // by the current mode (FPCR mirrors MXCSR.RC)
    // A float beyond int32/int64 is integral, so FRINTX raises no inexact
    // for an invalid conversion; a double beyond int32 may not be (below).
    if (to_int32_from_double) a_.frinti(fs, kVTmp0, src);
    else a_.frintx(fs, kVTmp0, src);
    src = kVTmp0;
  }
  Reg d = c_.def_gpr(v);
  if (i.type == Type::I64 || fs == FSize::S) {
    const Size s = i.type == Type::I64 ? Size::X : Size::W;
    a_.fcvtzs(s, d, fs, src);
    a_.fcmp(fs, src, src);
    a_.ccmn(s, d, 1, 0b0001, Cond::VC);  // V: NaN, or d + 1 overflows (d saturated at the maximum)
    a_.mov_imm(s, kTmp0, s == Size::X ? uint64_t{1} << 63 : uint64_t{1} << 31);
    a_.csel(s, d, kTmp0, d, Cond::VS);
    return;
  }
  // double -> int32 saturates to INT_MIN/INT_MAX raising invalid, and only
  // invalid (no inexact), as x86 does; 2147483647.0 is exact, so INT_MAX is
  // the indefinite only for sources from 2^31 up, or NaN (unordered: HS).
  a_.fcvtzs(Size::W, d, fs, src);
  a_.mov_imm(Size::X, kTmp0, 0x41e0000000000000);  // 2^31 as a double
  a_.fmov(FSize::D, kVTmp1, kTmp0);
  a_.fcmp(fs, src, kVTmp1);
  a_.mov_imm(Size::W, kTmp1, uint64_t{1} << 31);
  a_.csel(Size::W, d, kTmp1, d, Cond::HS);
  if (!round) return;
  // Inexact only when in range: from -2^31 up (and below 2^31: LO above).
  a_.fneg(fs, kVTmp1, kVTmp1);
  a_.fccmp(fs, src, kVTmp1, 0b1000, Cond::LO);  // otherwise N: "less"
  a_.fcsel(fs, kVTmp1, x, src, Cond::GE);
  a_.frintx(fs, kVTmp1, kVTmp1);
}

// roundps/pd/ss/sd imm: bits 0-1 a fixed mode (nearest, down, up, zero),
// bit 2 the MXCSR mode instead (FPCR mirrors it), bit 3 no precision
// exception.  FRINTN/M/P/Z/I never signal inexact and FRINTX does, in the
// current mode: a fixed mode that signals adds a FRINTX whose result is
// dropped (a value is inexact to round in every mode or in none).
void VectorLowering::round(VArr arr, FSize fs, bool scalar, VReg d, VReg x, unsigned imm) {
  const bool signal = !(imm & 8);
  auto op = [&](void (Assembler::*vec)(VArr, VReg, VReg), void (Assembler::*sc)(FSize, VReg, VReg), VReg to) {
    if (scalar) (a_.*sc)(fs, to, x);
    else (a_.*vec)(arr, to, x);
  };
  if (imm & 4) {
    if (signal) op(&Assembler::frintx, &Assembler::frintx, d);
    else op(&Assembler::frinti, &Assembler::frinti, d);
    return;
  }
  if (signal) op(&Assembler::frintx, &Assembler::frintx, kVTmp1);
  switch (imm & 3) {
    case 0: op(&Assembler::frintn, &Assembler::frintn, d); break;
    case 1: op(&Assembler::frintm, &Assembler::frintm, d); break;
    case 2: op(&Assembler::frintp, &Assembler::frintp, d); break;
    default: op(&Assembler::frintz, &Assembler::frintz, d); break;
  }
}

void VectorLowering::lower_round(Value v, bool scalar) {
  const Inst& i = inst(v);
  const auto imm = static_cast<unsigned>(i.imm & 0xf);
  if (!scalar) {
    VReg x = vreg_of(i.args[0]);
    round(farr(i.lane), fsize(i.lane), false, def(v), x, imm);
    return;
  }
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  round(farr(i.lane), fsize(i.lane), true, kVTmp0, y, imm);
  merge_low(def(v), x, i.lane);
}

// cvtsi2ss/sd
void VectorLowering::lower_cvt_int_to_scalar(Value v) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]);
  Reg r = c_.use(i.args[1], kTmp0);
  a_.scvtf(fsize(i.lane), kVTmp0, inst(i.args[1]).type == Type::I64 ? Size::X : Size::W, r);
  merge_low(def(v), x, i.lane);
}

// cvtss2sd, cvtsd2ss
void VectorLowering::lower_cvt_fp_scalar(Value v) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  a_.fcvt(fsize(i.lane), kVTmp0, i.lane == 3 ? FSize::S : FSize::D, y);
  merge_low(def(v), x, i.lane);
}

void VectorLowering::lower_cvt_i32_to_f64(Value v) {
  VReg x = vreg_of(inst(v).args[0]);
  VReg d = def(v);
  a_.sxtl(VArr::S2, kVTmp0, x);
  a_.scvtf(VArr::D2, d, kVTmp0);
}

void VectorLowering::lower_cvt_f32_to_i32(Value v) {
  const bool trunc = inst(v).imm & 1;
  VReg x = vreg_of(inst(v).args[0]);
  VReg d = def(v);
  VReg src = x;
  if (!trunc) {
    a_.frintx(VArr::S4, kVTmp1, x);
    src = kVTmp1;
  }
  a_.movi_s(VArr::S4, kVTmp0, 0x4f, 24);  // 2^31 as a float
  a_.fcmgt(VArr::S4, kVTmp0, kVTmp0, src);  // in range: below 2^31 and not NaN
  a_.fcvtzs(VArr::S4, d, src);
  a_.movi_s(VArr::S4, kVTmp1, 0x80, 24);  // INT_MIN
  a_.bif(VArr::B16, d, kVTmp1, kVTmp0);
}

// Through 64-bit integers, then a range check.  FRINTZ/FRINTI (truncating,
// or by MXCSR) raise no inexact; FRINTX below raises it for the lanes in
// range only (x86: an invalid conversion is not also inexact).
void VectorLowering::lower_cvt_f64_to_i32(Value v) {
  const bool trunc = inst(v).imm & 1;
  VReg x = vreg_of(inst(v).args[0]);
  VReg d = def(v);
  VReg src = kVTmp1;
  if (trunc) a_.frintz(VArr::D2, src, x);
  else a_.frinti(VArr::D2, src, x);
  VReg t = scratch(), u = scratch();
  a_.fcvtzs(VArr::D2, kVTmp0, src);
  a_.xtn(VArr::S2, t, kVTmp0);
  a_.sxtl(VArr::S2, u, t);
  a_.cmeq(VArr::D2, u, u, kVTmp0);          // fits in 32 bits
  a_.fcmeq(VArr::D2, kVTmp0, src, src);     // not NaN
  a_.and_(VArr::B16, u, u, kVTmp0);
  a_.mov(VArr::B16, kVTmp0, u);
  a_.bsl(VArr::B16, kVTmp0, x, src);
  a_.frintx(VArr::D2, kVTmp0, kVTmp0);
  // A value beyond int32 but within int64 raised nothing yet: x86 says
  // invalid.  Converting a NaN (all ones) in those lanes raises it.
  a_.orn(VArr::B16, kVTmp0, src, u);
  a_.fcvtzs(VArr::D2, kVTmp0, kVTmp0);
  a_.xtn(VArr::S2, u, u);
  a_.movi_s(VArr::S2, kVTmp0, 0x80, 24);    // INT_MIN, upper half zero
  a_.bif(VArr::B16, t, kVTmp0, u);
  copy(d, t);
}

}  // namespace phybin::arm64
