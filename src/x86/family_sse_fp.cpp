// SSE/SSE2 floating point: arithmetic (packed and scalar), min/max, sqrt,
// reciprocal estimates, compares into masks and into flags, shuffles and
// all the conversions.  Lane 2 is float, lane 3 double.
#include "x86/flags.h"
#include "x86/operands.h"
#include "x86/sse.h"

namespace phybin::x86 {

using ir::Type;
using ir::Value;
using ir::VecOp;

namespace {

using sse::bin;

template <VecOp kOp, unsigned kLane, uint64_t kImm = 0>
bool un(Ctx& c) {
  return sse::unary(c, kOp, kLane, kImm);
}

// shufps/shufpd/cmpps/cmpss...: the immediate is the third operand.
template <VecOp kOp, unsigned kLane>
bool bin_imm(Ctx& c) {
  if (c.d.info.meta.category == ZYDIS_CATEGORY_STRINGOP) return string_cmpsd(c);  // cmps dword
  return sse::binary(c, kOp, kLane, c.op(2).imm.value.u & 0xff);
}

// comiss/comisd/ucomiss/ucomisd: ZF, PF, CF from the compare; OF, SF, AF
// cleared.  The three compares are adjacent so the backend emits one FCMP.
template <unsigned kLane, bool kSignaling>
bool comis(Ctx& c) {
  Value a = sse::read_vec(c, 0);
  Value b = sse::read_vec(c, 1);
  const uint64_t signaling = kSignaling ? 0x100 : 0;
  Value flag[3] = {ir::kNoValue, ir::kNoValue, ir::kNoValue};
  const uint8_t bits[3] = {kZF, kPF, kCF};
  for (int i = 0; i < 3; ++i)
    if (c.flag_live(bits[i])) flag[i] = c.b.vec(VecOp::FCmpFlag, Type::I1, kLane, a, b, bits[i] | signaling);
  if (flag[0] == ir::kNoValue && flag[1] == ir::kNoValue && flag[2] == ir::kNoValue)
    c.b.vec(VecOp::FCmpFlag, Type::I1, kLane, a, b, kZF | signaling | ir::kKeepCompare);
  for (int i = 0; i < 3; ++i)
    if (flag[i] != ir::kNoValue) c.b.set_flag(bits[i], flag[i]);
  Value zero = c.b.constant(Type::I1, 0);
  for (uint8_t bit : {kOF, kSF, kAF}) put_flag(c, bit, zero);
  c.flags = FlagSource{FlagSource::FCmp, Type::I1, a, b, ir::kNoValue, static_cast<uint8_t>(kLane),
                       static_cast<uint16_t>(signaling)};
  return true;
}

// cvtsi2ss/cvtsi2sd xmm, r/m32 or r/m64.
template <unsigned kLane>
bool cvt_int_to_scalar(Ctx& c) {
  Value a = sse::read_vec(c, 0);
  Value i = read_operand(c, 1);
  sse::write_vec(c, 0, c.b.vec(VecOp::CvtIntToFScalar, Type::V128, kLane, a, i));
  return true;
}

// cvt(t)ss2si / cvt(t)sd2si r32/r64, xmm/m32/m64.
template <unsigned kLane, bool kTruncate>
bool cvt_scalar_to_int(Ctx& c) {
  Type t = operand_type(c.op(0));
  Value r = c.b.vec(VecOp::CvtFToInt, t, kLane, sse::read_vec(c, 1), ir::kNoValue, kTruncate ? 1 : 0);
  write_gpr(c, c.op(0).reg.value, r);
  return true;
}

}  // namespace

namespace sse {

void register_float(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_ADDPS, bin<VecOp::FAdd, 2>);
  t.add(ZYDIS_MNEMONIC_ADDPD, bin<VecOp::FAdd, 3>);
  t.add(ZYDIS_MNEMONIC_SUBPS, bin<VecOp::FSub, 2>);
  t.add(ZYDIS_MNEMONIC_SUBPD, bin<VecOp::FSub, 3>);
  t.add(ZYDIS_MNEMONIC_MULPS, bin<VecOp::FMul, 2>);
  t.add(ZYDIS_MNEMONIC_MULPD, bin<VecOp::FMul, 3>);
  t.add(ZYDIS_MNEMONIC_DIVPS, bin<VecOp::FDiv, 2>);
  t.add(ZYDIS_MNEMONIC_DIVPD, bin<VecOp::FDiv, 3>);
  t.add(ZYDIS_MNEMONIC_MINPS, bin<VecOp::FMin, 2>);
  t.add(ZYDIS_MNEMONIC_MINPD, bin<VecOp::FMin, 3>);
  t.add(ZYDIS_MNEMONIC_MAXPS, bin<VecOp::FMax, 2>);
  t.add(ZYDIS_MNEMONIC_MAXPD, bin<VecOp::FMax, 3>);
  t.add(ZYDIS_MNEMONIC_SQRTPS, un<VecOp::FSqrt, 2>);
  t.add(ZYDIS_MNEMONIC_SQRTPD, un<VecOp::FSqrt, 3>);
  t.add(ZYDIS_MNEMONIC_RCPPS, un<VecOp::FRecip, 2>);
  t.add(ZYDIS_MNEMONIC_RSQRTPS, un<VecOp::FRsqrt, 2>);

  t.add(ZYDIS_MNEMONIC_ADDSS, bin<VecOp::FAddScalar, 2>);
  t.add(ZYDIS_MNEMONIC_ADDSD, bin<VecOp::FAddScalar, 3>);
  t.add(ZYDIS_MNEMONIC_SUBSS, bin<VecOp::FSubScalar, 2>);
  t.add(ZYDIS_MNEMONIC_SUBSD, bin<VecOp::FSubScalar, 3>);
  t.add(ZYDIS_MNEMONIC_MULSS, bin<VecOp::FMulScalar, 2>);
  t.add(ZYDIS_MNEMONIC_MULSD, bin<VecOp::FMulScalar, 3>);
  t.add(ZYDIS_MNEMONIC_DIVSS, bin<VecOp::FDivScalar, 2>);
  t.add(ZYDIS_MNEMONIC_DIVSD, bin<VecOp::FDivScalar, 3>);
  t.add(ZYDIS_MNEMONIC_MINSS, bin<VecOp::FMinScalar, 2>);
  t.add(ZYDIS_MNEMONIC_MINSD, bin<VecOp::FMinScalar, 3>);
  t.add(ZYDIS_MNEMONIC_MAXSS, bin<VecOp::FMaxScalar, 2>);
  t.add(ZYDIS_MNEMONIC_MAXSD, bin<VecOp::FMaxScalar, 3>);
  t.add(ZYDIS_MNEMONIC_SQRTSS, bin<VecOp::FSqrtScalar, 2>);
  t.add(ZYDIS_MNEMONIC_SQRTSD, bin<VecOp::FSqrtScalar, 3>);
  t.add(ZYDIS_MNEMONIC_RCPSS, bin<VecOp::FRecipScalar, 2>);
  t.add(ZYDIS_MNEMONIC_RSQRTSS, bin<VecOp::FRsqrtScalar, 2>);

  t.add(ZYDIS_MNEMONIC_CMPPS, bin_imm<VecOp::FCmp, 2>);
  t.add(ZYDIS_MNEMONIC_CMPPD, bin_imm<VecOp::FCmp, 3>);
  t.add(ZYDIS_MNEMONIC_CMPSS, bin_imm<VecOp::FCmpScalar, 2>);
  t.add(ZYDIS_MNEMONIC_CMPSD, bin_imm<VecOp::FCmpScalar, 3>);
  t.add(ZYDIS_MNEMONIC_SHUFPS, bin_imm<VecOp::Shuffle2, 2>);
  t.add(ZYDIS_MNEMONIC_SHUFPD, bin_imm<VecOp::Shuffle2, 3>);
  t.add(ZYDIS_MNEMONIC_COMISS, comis<2, true>);
  t.add(ZYDIS_MNEMONIC_COMISD, comis<3, true>);
  t.add(ZYDIS_MNEMONIC_UCOMISS, comis<2, false>);
  t.add(ZYDIS_MNEMONIC_UCOMISD, comis<3, false>);

  t.add(ZYDIS_MNEMONIC_CVTSI2SS, cvt_int_to_scalar<2>);
  t.add(ZYDIS_MNEMONIC_CVTSI2SD, cvt_int_to_scalar<3>);
  t.add(ZYDIS_MNEMONIC_CVTSS2SD, bin<VecOp::CvtFToFScalar, 3>);
  t.add(ZYDIS_MNEMONIC_CVTSD2SS, bin<VecOp::CvtFToFScalar, 2>);
  t.add(ZYDIS_MNEMONIC_CVTSS2SI, cvt_scalar_to_int<2, false>);
  t.add(ZYDIS_MNEMONIC_CVTTSS2SI, cvt_scalar_to_int<2, true>);
  t.add(ZYDIS_MNEMONIC_CVTSD2SI, cvt_scalar_to_int<3, false>);
  t.add(ZYDIS_MNEMONIC_CVTTSD2SI, cvt_scalar_to_int<3, true>);
  t.add(ZYDIS_MNEMONIC_CVTDQ2PS, un<VecOp::CvtI32ToF32, 2>);
  t.add(ZYDIS_MNEMONIC_CVTPS2DQ, un<VecOp::CvtF32ToI32, 2, 0>);
  t.add(ZYDIS_MNEMONIC_CVTTPS2DQ, un<VecOp::CvtF32ToI32, 2, 1>);
  t.add(ZYDIS_MNEMONIC_CVTDQ2PD, un<VecOp::CvtI32ToF64, 3>);
  t.add(ZYDIS_MNEMONIC_CVTPD2DQ, un<VecOp::CvtF64ToI32, 3, 0>);
  t.add(ZYDIS_MNEMONIC_CVTTPD2DQ, un<VecOp::CvtF64ToI32, 3, 1>);
  t.add(ZYDIS_MNEMONIC_CVTPS2PD, un<VecOp::CvtF32ToF64, 3>);
  t.add(ZYDIS_MNEMONIC_CVTPD2PS, un<VecOp::CvtF64ToF32, 2>);
}

}  // namespace sse
}  // namespace phybin::x86
