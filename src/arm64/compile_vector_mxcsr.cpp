// The Mxcsr family of vector operations: the MXCSR modes AArch64's FPCR
// cannot express (ir/fp_mode.h), the DE check of exact mode and the
// software flushes for DAZ or FTZ alone.
// Everything works on the raw bits, with integer compares, so that these
// checks raise no floating-point flags of their own.
#include <cstddef>

#include "arm64/compile_vector.h"
#include "common/mxcsr.h"
#include "ir/fp_mode.h"

namespace phybin::arm64 {

using ir::Inst;
using ir::Value;
using regmap::kTmp0;
using regmap::kTmp1;
using regmap::kVTmp0;
using regmap::kVTmp1;

namespace {

constexpr uint64_t kFpsrIdc = 1u << 7;

// Twice the smallest normal number's bits: an element shifted left by one
// (sign dropped) is below it exactly when its exponent is zero.
uint64_t exponent_zero_limit(unsigned lane) { return lane == 3 ? uint64_t{1} << 53 : uint64_t{1} << 24; }

}  // namespace

// Sets bits of GuestState::mxcsr when `any` is non-zero: rare, so the
// store is out of line.
// DE also sets FPSR.IDC: with DE unmasked, FpTrapCheck finds it there.
void VectorLowering::set_mxcsr_flags_if(Reg any, uint32_t flags) {
  a_.tst(Size::X, any, any);
  cold(Cond::NE, [flags](Assembler& as, Label&) {
    const Mem at = mem(regmap::kState, offsetof(GuestState, mxcsr));
    as.ldr(Size::W, kTmp1, at);
    as.orr(Size::W, kTmp1, kTmp1, flags);
    as.str(Size::W, kTmp1, at);
    if (flags & mxcsr::kDe) {
      as.mrs(kTmp1, SysReg::FPSR);
      as.orr(Size::X, kTmp1, kTmp1, kFpsrIdc);
      as.msr(SysReg::FPSR, kTmp1);
    }
  });
}

void VectorLowering::lower_mxcsr(Value v, MxcsrOp op) {
  switch (op) {
    case MxcsrOp::DenormCheck: return lower_denorm_check(v);
    case MxcsrOp::FlushDenorm: return lower_flush(v, false);
    case MxcsrOp::FlushTiny: return lower_flush(v, true);
  }
}

// mask = elements of x with a zero exponent (and, unless `with_zero`, not
// zero); t = x's bits shifted left by one.  limit holds
// exponent_zero_limit in every element; z is a temporary.
void VectorLowering::exponent_zero_mask(unsigned lane, VReg mask, VReg x, VReg limit, VReg t, VReg z,
                                        bool with_zero) {
  const VArr arr = farr(lane);
  a_.shl(arr, t, x, 1);
  a_.cmhi(arr, mask, limit, t);
  if (with_zero) return;
  a_.cmeq0(arr, z, t);
  a_.bic(VArr::B16, mask, mask, z);
}

void VectorLowering::load_limit(VReg limit, unsigned lane, uint64_t value) {
  a_.mov_imm(Size::X, kTmp0, value);
  a_.dup(farr(lane), limit, kTmp0);
}

// x86 raises DE for a denormal input of an element unless the element has
// a NaN input, or raises #Z (divisor zero) or #I (square root of a negative
// number) instead.  NaNs are found on the bits too: a floating-point
// compare would raise IE for a signalling NaN in an element the operation
// does not use.
void VectorLowering::lower_denorm_check(Value v) {
  const Inst& i = inst(v);
  const unsigned lane = i.lane;
  const VArr arr = farr(lane);
  VReg x = vreg_of(i.args[0]);
  const bool binary = i.args[1] != ir::kNoValue;
  VReg y = binary ? vreg_of(i.args[1]) : x;
  VReg limit = scratch(), nan_limit = scratch(), nan = scratch(), z = scratch();
  // Shifted left by one: above the infinity's bits exactly for a NaN.
  load_limit(limit, lane, exponent_zero_limit(lane));
  load_limit(nan_limit, lane, lane == 3 ? uint64_t{0xffe} << 52 : uint64_t{0xff} << 24);
  exponent_zero_mask(lane, kVTmp0, x, limit, kVTmp1, z, false);
  a_.cmhi(arr, nan, kVTmp1, nan_limit);
  if (binary) {
    VReg mask_y = limit;  // the limit's last use is just below
    exponent_zero_mask(lane, mask_y, y, limit, kVTmp1, z, false);
    a_.orr(VArr::B16, kVTmp0, kVTmp0, mask_y);
    a_.cmhi(arr, z, kVTmp1, nan_limit);
    a_.orr(VArr::B16, nan, nan, z);
    if (i.imm & ir::kCheckDiv) {
      a_.cmeq0(arr, z, kVTmp1);
      a_.bic(VArr::B16, kVTmp0, kVTmp0, z);
    }
  }
  if (i.imm & ir::kCheckSqrt) {
    a_.cmlt0(arr, z, x);
    a_.bic(VArr::B16, kVTmp0, kVTmp0, z);
  }
  a_.bic(VArr::B16, kVTmp0, kVTmp0, nan);
  any_element(lane, i.imm & ir::kCheckElems, kTmp0, kVTmp0, kVTmp1);
  set_mxcsr_flags_if(kTmp0, mxcsr::kDe);
}

// A GPR that is non-zero when an element of `mask` the check covers is set.
void VectorLowering::any_element(unsigned lane, uint64_t elems, Reg out, VReg mask, VReg t) {
  if (elems == ir::kCheckAll) {
    a_.umaxv(VArr::S4, t, mask);
    a_.fmov(FSize::S, out, t);
  } else if (elems == ir::kCheckLow1 && lane != 3) {
    a_.fmov(FSize::S, out, mask);
  } else {  // element 0 of a double, or elements 0-1 of floats
    a_.fmov(FSize::D, out, mask);
  }
}

// Denormal elements become zero of the same sign.  FlushTiny (FTZ) also
// raises UE and PE, as x86 does for every flushed result (AArch64 with FZ
// clear raises them only for an inexact one).
void VectorLowering::lower_flush(Value v, bool raise) {
  const Inst& i = inst(v);
  const unsigned lane = i.lane;
  const VArr arr = farr(lane);
  VReg x = vreg_of(i.args[0]);
  VReg limit = scratch(), z = scratch();
  load_limit(limit, lane, exponent_zero_limit(lane));
  exponent_zero_mask(lane, kVTmp0, x, limit, kVTmp1, z, !raise);
  VReg mask = kVTmp0;
  if (i.imm & 1) {  // element 0 only
    a_.movi(VArr::D2, kVTmp1, 0);
    a_.ins(lane == 3 ? FSize::D : FSize::S, kVTmp1, 0, kVTmp0, 0);
    mask = kVTmp1;
  }
  if (raise) any_element(lane, ir::kCheckAll, kTmp0, mask, z);
  // Keep the sign bit of the flushed elements: clear the others' bits.
  a_.ushr(arr, mask, mask, 1);
  a_.bic(VArr::B16, def(v), x, mask);
  if (raise) set_mxcsr_flags_if(kTmp0, mxcsr::kUe | mxcsr::kPe);
}

}  // namespace phybin::arm64
