// What each floating-point vector operation reads and produces, for the
// software flushes and the DE check of ir/fp_mode.h.
#include "ir/fp_mode.h"

#include "common/mxcsr.h"
#include "ir/builder.h"

namespace phybin::ir {

namespace {

enum Inputs : uint8_t { kA = 1, kB = 2, kAB = 3 };

struct FpShape {
  uint8_t inputs = 0;        // 0: not a floating-point operation
  bool other_lane = false;   // inputs are of the other float size (lane ^ 1)
  uint64_t check = 0;        // FpCheck: elements (and exclusions) for DE
  bool raises_de = false;
  bool result_flushed = false;  // FTZ applies to the result (a computed float)
  bool minmax = false;
};

FpShape shape_of(VecOp op) {
  auto packed = [](uint8_t in, bool de, bool ftz, uint64_t check = kCheckAll) {
    return FpShape{in, false, check, de, ftz, false};
  };
  auto scalar = [](uint8_t in, bool de, bool ftz, uint64_t check = 0) {
    return FpShape{in, false, kCheckLow1 | check, de, ftz, false};
  };
  switch (op) {
    case VecOp::FAdd: case VecOp::FSub: case VecOp::FMul: return packed(kAB, true, true);
    case VecOp::FDiv: return packed(kAB, true, true, kCheckDiv);
    case VecOp::FMin: case VecOp::FMax: return FpShape{kAB, false, kCheckAll, true, false, true};
    case VecOp::FSqrt: return packed(kA, true, false, kCheckSqrt);
    case VecOp::FCmp: return packed(kAB, true, false);
    case VecOp::FRound: return packed(kA, false, false);
    case VecOp::FAddScalar: case VecOp::FSubScalar: case VecOp::FMulScalar: return scalar(kAB, true, true);
    case VecOp::FDivScalar: return scalar(kAB, true, true, kCheckDiv);
    case VecOp::FMinScalar: case VecOp::FMaxScalar: return FpShape{kAB, false, kCheckLow1, true, false, true};
    case VecOp::FSqrtScalar: return scalar(kB, true, false, kCheckSqrt);
    case VecOp::FCmpScalar: case VecOp::FCmpFlag: case VecOp::FCmpCond: return scalar(kAB, true, false);
    case VecOp::FRoundScalar: return scalar(kB, false, false);
    case VecOp::CvtFToFScalar: return FpShape{kB, true, kCheckLow1, true, true, false};
    case VecOp::CvtFToInt: return scalar(kA, false, false);
    case VecOp::CvtF32ToI32: case VecOp::CvtF64ToI32: return packed(kA, false, false);
    case VecOp::CvtF32ToF64: return FpShape{kA, true, kCheckLow2, true, false, false};
    case VecOp::CvtF64ToF32: return FpShape{kA, true, kCheckAll, true, true, false};
    default: return FpShape{};
  }
}

}  // namespace

FpMode FpMode::of_mxcsr(uint32_t value, bool exact_flags) {
  const bool daz = (value & mxcsr::kDaz) != 0, ftz = (value & mxcsr::kFtz) != 0;
  const bool de_unmasked = (value & mxcsr::kDm) == 0;
  return FpMode{daz && !ftz, ftz && !daz, daz, (exact_flags || de_unmasked) && !daz};
}

// The operation with the mode's additions around it.  Scalar operations
// pass a's upper elements through: only element 0 is flushed there.  A
// cvtss2sd result cannot be tiny, but cvtsd2ss's can (other_lane with the
// float result, lane 2).
Value Builder::fp_vec(VecOp op, Type result, unsigned lane, Value a, Value b, uint64_t imm) {
  const FpShape s = shape_of(op);
  if (!s.inputs) return plain_vec(op, result, lane, a, b, imm);
  const unsigned in_lane = s.other_lane ? lane ^ 1 : lane;
  const uint64_t low_only = (s.check & kCheckElems) == kCheckLow1 ? 1 : 0;
  if (fp_mode_.flush_inputs || (fp_mode_.flush_minmax && s.minmax)) {
    if (s.inputs & kA) a = plain_vec(VecOp::FlushDenorm, Type::V128, in_lane, a, kNoValue, low_only);
    if (s.inputs & kB) b = plain_vec(VecOp::FlushDenorm, Type::V128, in_lane, b, kNoValue, low_only);
  }
  if (fp_mode_.check_denormals && s.raises_de) {
    Value x = s.inputs == kB ? b : a;
    Value y = s.inputs == kAB ? b : kNoValue;
    plain_vec(VecOp::DenormCheck, Type::Void, in_lane, x, y, s.check);
  }
  Value r = plain_vec(op, result, lane, a, b, imm);
  const bool float_result = !(s.other_lane && lane == 3);
  if (fp_mode_.flush_outputs && s.result_flushed && float_result)
    r = plain_vec(VecOp::FlushTiny, Type::V128, lane, r, kNoValue, low_only);
  return r;
}

bool raises_fp_flags(const Inst& in) {
  if (in.op != Opcode::VUnary && in.op != Opcode::VBinary && in.op != Opcode::VTernary) return false;
  const auto op = static_cast<VecOp>(in.aux);
  // comis + jcc leaves the comis's own compares unused: they go, unless
  // the comis had no flag consumer at all (then one is kept for IE).
  if (op == VecOp::FCmpFlag || op == VecOp::FCmpCond) return (in.imm & kKeepCompare) != 0;
  // Integer to float conversions read no float but may be inexact (PE).
  return shape_of(op).inputs != 0 || op == VecOp::DenormCheck || op == VecOp::FlushTiny ||
         op == VecOp::FRecip || op == VecOp::FRsqrt || op == VecOp::FRecipScalar || op == VecOp::FRsqrtScalar ||
         op == VecOp::CvtIntToFScalar || op == VecOp::CvtI32ToF32;
}

}  // namespace phybin::ir
