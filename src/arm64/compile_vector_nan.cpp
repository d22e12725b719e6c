// x86's NaN rules for the SSE arithmetic (see compile_vector_fp.cpp): the
// operation, the check of its result, and the fix-up, shared by the
// lowering of each operation and by NaN-check groups.
//
// A group: an FP operation whose only user is another one that propagates
// its NaNs (addps feeding only mulps, mulsd's product feeding only addsd)
// is not checked itself: a NaN it makes reaches the user's result, whose
// check then fails, and the cold path runs the whole group again, each
// operation followed by its fix-up, from operands that are kept alive for
// it.  Running an operation again raises the same MXCSR flags again,
// which changes nothing.  A value nobody else reads is seen by nothing
// else, not even a signal handler, so no state outside the group can hold
// the unfixed NaN.
#include "arm64/compile_vector.h"

#include <cstddef>

#include "common/guest_state.h"
#include "common/mxcsr.h"

namespace phybin::arm64 {

using ir::Inst;
using ir::Opcode;
using ir::Value;
using ir::VecFamily;
using ir::VecOp;
using regmap::kTmp0;
using regmap::kTmp1;
using regmap::kVTmp0;
using regmap::kVTmp1;

namespace {

// Operations a NaN operand always turns into a NaN result (emit_fp_op
// computes them again in a group's cold path).
bool propagates_nan(const Inst& in) { return in_family(in, VecFamily::FpArith); }

// Whether an operation has one operand: those check_nan checks alone
// (FpArith and rsqrt) and a group's steps (FpArith).
bool is_unary(VecOp op) {
  return op == VecOp::FSqrt || op == VecOp::FSqrtScalar || op == VecOp::FRsqrt || op == VecOp::FRsqrtScalar;
}
bool is_unary(FpArithOp op) { return op == FpArithOp::FSqrt || op == FpArithOp::FSqrtScalar; }
bool is_scalar(VecOp op) { return op >= VecOp::FAddScalar && op <= VecOp::FRsqrtScalar; }

constexpr unsigned kMaxGroupMembers = 4;  // their operands stay in registers
constexpr unsigned kFpsrIocBit = 0;  // invalid operation, x86's IE

}  // namespace

void emit_fp_op(Assembler& a, FpArithOp op, unsigned lane, VReg r, VReg x, VReg y) {
  const VArr arr = farr(lane);
  const FSize fs = fsize(lane);
  switch (op) {
    case FpArithOp::FAdd: return a.fadd(arr, r, x, y);
    case FpArithOp::FSub: return a.fsub(arr, r, x, y);
    case FpArithOp::FMul: return a.fmul(arr, r, x, y);
    case FpArithOp::FDiv: return a.fdiv(arr, r, x, y);
    case FpArithOp::FSqrt: return a.fsqrt(arr, r, x);
    case FpArithOp::FAddScalar: return a.fadd(fs, r, x, y);
    case FpArithOp::FSubScalar: return a.fsub(fs, r, x, y);
    case FpArithOp::FMulScalar: return a.fmul(fs, r, x, y);
    case FpArithOp::FDivScalar: return a.fdiv(fs, r, x, y);
    case FpArithOp::FSqrtScalar: return a.fsqrt(fs, r, y);
  }
}

// Packed: lanes whose operands are ordered but whose result is a NaN hold
// AArch64's default NaN, whose sign x86's has; a NaN first operand wins
// even over a signalling second one.  t is a scratch register.
void packed_nan_fixup(Assembler& a, unsigned lane, bool unary, VReg r, VReg x, VReg y, VReg t) {
  const VArr arr = farr(lane);
  a.fcmeq(arr, kVTmp1, x, x);
  if (!unary) {
    a.fcmeq(arr, t, y, y);
    a.and_(VArr::B16, kVTmp1, kVTmp1, t);
  }
  a.fcmeq(arr, t, r, r);
  a.bic(VArr::B16, kVTmp1, kVTmp1, t);
  a.shl(arr, kVTmp1, kVTmp1, (8u << lane) - 1);
  a.orr(VArr::B16, r, r, kVTmp1);
  if (unary) return;
  a.fcmeq(arr, kVTmp1, x, x);
  a.fmax(arr, t, x, x);
  a.bif(VArr::B16, r, t, kVTmp1);
}

// Scalar: the same rules for element 0 of r; continues at `done`.
void scalar_nan_fixup(Assembler& a, unsigned lane, bool unary, VReg r, VReg x, VReg y, Label& done) {
  const FSize fs = fsize(lane);
  Label first_nan;
  a.fcmp(fs, r, r);
  a.b(Cond::VC, done);
  if (!unary) {
    a.fcmp(fs, x, x);
    a.b(Cond::VS, first_nan);
  }
  a.fcmp(fs, y, y);
  a.b(Cond::VS, done);  // AArch64 already returned that NaN, quieted
  a.fneg(fs, r, r);     // default NaN: x86's is negative
  a.b(done);
  a.bind(first_nan);
  if (!unary) a.fmax(fs, r, x, x);
}

// The members of the group v checks, with their registers.  Taken before
// v's own result register: choosing it may release the registers of
// operands v does not read itself, which v's result must not overwrite
// before the cold path has read them (a group root computes beside).
std::vector<NanStep> VectorLowering::nan_group(Value v) {
  std::vector<NanStep> steps;
  const Value first = c_.vec_.nan_first.empty() ? ir::kNoValue : c_.vec_.nan_first[v];
  for (Value m = first; m < v && first != ir::kNoValue; ++m) {
    if (c_.vec_.nan_root[m] != v) continue;
    const Inst& mi = inst(m);
    const auto op = static_cast<VecOp>(mi.aux);
    const VReg mx = vreg_of(mi.args[0]);
    const VReg my = mi.args[1] == ir::kNoValue ? mx : vreg_of(mi.args[1]);
    steps.push_back(NanStep{family_op<FpArithOp>(op), mi.lane, is_scalar(op), vreg_of(m), mx, my});
  }
  return steps;
}

// Checks r (the result of `op`) for a NaN; the cold path runs the group's
// members again, then op itself, each with its fix-up.  t: a scratch
// register other than kVTmp1 and the operands (kVTmp0 unless r is it).
void VectorLowering::check_nan(Value v, VReg r, VReg x, VReg y, VReg t, std::vector<NanStep> steps) {
  const Inst& i = inst(v);
  const auto op = static_cast<VecOp>(i.aux);
  const bool scalar = is_scalar(op);
  const unsigned lane = i.lane;
  if (scalar) {
    a_.fcmp(fsize(lane), r, r);
  } else {
    if (lane == 2) a_.fmaxv(kVTmp1, r);
    else a_.fmaxp(FSize::D, kVTmp1, r);
    a_.fcmp(fsize(lane), kVTmp1, kVTmp1);
  }
  // Only FpArith operations are in groups (propagates_nan), roots too.
  if (!steps.empty()) steps.push_back(NanStep{family_op<FpArithOp>(op), lane, scalar, r, x, y});
  cold(Cond::VS, [steps, op, lane, scalar, r, x, y, t](Assembler& a, Label& resume) {
    if (steps.empty()) {  // the operation alone: its result is there
      if (scalar) scalar_nan_fixup(a, lane, is_unary(op), r, x, y, resume);
      else packed_nan_fixup(a, lane, is_unary(op), r, x, y, t);
      return;
    }
    for (const NanStep& s : steps) {
      const VReg st = s.r == kVTmp0 ? t : kVTmp0;
      emit_fp_op(a, s.op, s.lane, s.r, s.x, s.y);
      if (s.scalar) {
        Label next;
        scalar_nan_fixup(a, s.lane, is_unary(s.op), s.r, s.x, s.y, next);
        a.bind(next);
      } else {
        packed_nan_fixup(a, s.lane, is_unary(s.op), s.r, s.x, s.y, st);
      }
    }
  });
}

// A region checked at its end (BlockCompiler::find_xmm_regions): FPSR.IOC,
// sticky, must show only what the region raises, so an IOC from before is
// moved into GuestState::mxcsr (where MXCSR's IE shows as well) first.
void VectorLowering::begin_checked_region() {
  a_.mrs(kTmp0, SysReg::FPSR);
  a_.str(Size::W, kTmp0, mem(regmap::kState, offsetof(GuestState, region_fpsr)));
  auto p = c_.new_cold_path();
  a_.tbnz(kTmp0, kFpsrIocBit, p->entry);
  a_.bind(p->resume);
  p->body = [](Assembler& a, Label&) {
    a.and_(Size::X, kTmp0, kTmp0, ~(uint64_t{1} << kFpsrIocBit));
    a.msr(SysReg::FPSR, kTmp0);
    a.ldr(Size::W, kTmp1, mem(regmap::kState, offsetof(GuestState, mxcsr)));
    a.orr(Size::W, kTmp1, kTmp1, uint64_t{mxcsr::kIe});
    a.str(Size::W, kTmp1, mem(regmap::kState, offsetof(GuestState, mxcsr)));
  };
  c_.vec_.cold.push_back(std::move(p));
}

// An invalid operation or a signalling NaN in the region (the cases where
// AArch64's NaN is not x86's): FPSR goes back to what it was at the
// region's start, the region runs again from there one instruction at a
// time, each checked (kTrapReplay), and the runtime has it translated with
// its checks one by one from then on.
void VectorLowering::end_checked_region(Value v) {
  if (!c_.vec_.region_checked_at_end(v)) return;
  a_.mrs(kTmp0, SysReg::FPSR);
  Label* stub = &c_.vec_.segv_stub;
  c_.vec_.segv_used = true;
  Label* literal = &c_.pooled_guest_address(c_.reported_rip_);
  const auto code = static_cast<uint64_t>(replay_trap(static_cast<unsigned>(inst(v).imm)) | kReplayCheckFailed);
  auto p = c_.new_cold_path();
  a_.tbnz(kTmp0, kFpsrIocBit, p->entry);
  a_.bind(p->resume);
  p->body = [stub, literal, code](Assembler& a, Label&) {
    a.ldr(Size::W, kTmp0, mem(regmap::kState, offsetof(GuestState, region_fpsr)));
    a.msr(SysReg::FPSR, kTmp0);  // the replay raises the region's flags anew
    a.ldr(Size::X, kTmp0, *literal);
    a.mov_imm(Size::W, kTmp1, code);
    a.b(*stub);
  };
  c_.vec_.cold.push_back(std::move(p));
}

// Which FP operations defer their NaN check to a later one (nan_root), and
// the operands that must therefore live until that check.
void BlockCompiler::find_nan_groups() {
  vec_.nan_root.clear();
  vec_.nan_first.clear();
  if (!cfg_.exact_fp_nan || !vec_.any_fp_arith) return;
  vec_.nan_root.assign(n_, ir::kNoValue);
  vec_.nan_first.assign(n_, ir::kNoValue);
  // Per-block tables, kept between blocks (allocation is translation time).
  static thread_local std::vector<uint8_t> uses, members;
  uses.assign(n_, 0);
  bool any = false;
  for (Value u = 0; u < n_; ++u) {
    const Inst& in = b_.at(u);
    if (in.dead) continue;
    // Unmasked exceptions and the software MXCSR modes check each
    // operation on its own: no groups there.
    if (in.op == Opcode::FpTrapCheck) return;
    if (in_family(in, VecFamily::Mxcsr)) return;
    for (Value a : in.args)
      if (a != ir::kNoValue && uses[a] < 2) ++uses[a];
    any |= propagates_nan(in);
  }
  if (!any) return;
  for (Value e : {b_.exit.cond, b_.exit.address})
    if (e != ir::kNoValue) uses[e] = 2;
  // Vectors cannot live across a call (preserve_caller_saved).
  auto crosses_call = [&](Value from, Value to) {
    for (Value i = from + 1; i < to; ++i)
      if (!b_.at(i).dead && (ir::opcode_is_call(b_.at(i).op) || b_.at(i).op == Opcode::Trap)) return true;
    return false;
  };
  members.assign(n_, 0);
  for (Value p = static_cast<Value>(n_); p-- > 0;) {
    const Inst& in = b_.at(p);
    if (in.dead || !propagates_nan(in) || uses[p] != 1 || rep_[p] != p) continue;
    const bool p_scalar = is_scalar(static_cast<VecOp>(in.aux));
    // A scalar result zero above its element is all that its AArch64
    // instruction writes, in the cold path too: any operand of Q.
    const bool p_whole = p_scalar && vec_.zero_above(p, in.lane);
    if (p_scalar && !vec_.is_low_only(p) && !p_whole) continue;
    const Value q = last_use_[p];
    if (q >= n_) continue;
    const Inst& qi = b_.at(q);
    if (!propagates_nan(qi) || is_scalar(static_cast<VecOp>(qi.aux)) != p_scalar || qi.lane != in.lane) continue;
    // A scalar result counts through element 0, which Q computes from its
    // operand b (a only gives the elements above, for the unary ones),
    // and from operand a too for the binary ones when P is whole.
    const bool p_read = qi.args[1] == p || (qi.args[0] == p && (!p_scalar || (p_whole && !is_unary(family_op<FpArithOp>(static_cast<VecOp>(qi.aux))))));
    if (!p_read) continue;
    const Value root = vec_.nan_root[q] != ir::kNoValue ? vec_.nan_root[q] : q;
    if (members[root] >= kMaxGroupMembers || crosses_call(p, root)) continue;
    ++members[root];
    vec_.nan_root[p] = root;
    vec_.nan_first[root] = p;
  }
  // The members' operands and results are read again by the root's cold path.
  for (Value p = 0; p < n_; ++p) {
    const Value root = vec_.nan_root[p];
    if (root == ir::kNoValue) continue;
    last_use_[p] = std::max(last_use_[p], root);
    for (Value a : b_.at(p).args)
      if (a != ir::kNoValue) last_use_[rep_[a]] = std::max(last_use_[rep_[a]], root);
  }
}

// Whether each region's arithmetic is checked once at its end: when that
// (FPSR read and tested at the start and at the end: four instructions)
// costs less than the checks find_nan_groups leaves (two instructions a
// scalar, three a packed one).  Its groups are then undone.
void BlockCompiler::choose_region_checks() {
  if (vec_.regions.empty()) return;
  for (Value v = 0; v < n_; ++v) {
    const Inst& in = b_.at(v);
    if (in.dead || !in_family(in, ir::VecFamily::FpArith) || vec_.nan_root_of(v) != ir::kNoValue) continue;
    vec_.regions[vec_.region_of(v)].own_checks += is_scalar(static_cast<VecOp>(in.aux)) ? 2 : 3;
  }
  constexpr unsigned kCheckAtEnd = 4;
  for (XmmRegionInfo& r : vec_.regions) r.checked_at_end = cfg_.exact_fp_nan && r.check && r.own_checks > kCheckAtEnd;
  // A member outside whose root is inside is then checked on its own.
  if (!vec_.nan_root.empty())
    for (Value v = 0; v < n_; ++v) {
      const Value root = vec_.nan_root[v];
      if (vec_.region_checked_at_end(v) || (root != ir::kNoValue && vec_.region_checked_at_end(root)))
        vec_.nan_root[v] = ir::kNoValue;
      if (vec_.region_checked_at_end(v)) vec_.nan_first[v] = ir::kNoValue;
    }
  keep_replayed_registers();
}

}  // namespace phybin::arm64
