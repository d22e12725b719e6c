// SSE4.1 integer and data-movement instructions on XMM registers: pmovsx*/
// pmovzx*, the new min/max/multiply/compare/pack forms, ptest, pblendw,
// pblendvb, pextr*/pinsr*, extractps, movntdqa, and through a C++ helper the
// rare mpsadbw and phminposuw.  The floating-point ones are in
// family_sse41_fp.cpp.
#include "x86/flags.h"
#include "x86/operands.h"
#include "x86/sse.h"

namespace phybin::x86 {

using ir::Type;
using ir::Value;
using ir::VecOp;

namespace {

using sse::bin;

constexpr Type kLaneType[4] = {Type::I8, Type::I16, Type::I32, Type::I64};

// pmovsx/pmovzx: elements of lane kFrom widened to lane kTo.  A memory
// source is only as wide as the elements it supplies.
template <VecOp kOp, unsigned kFrom, unsigned kTo>
bool extend(Ctx& c) {
  return sse::unary(c, kOp, kTo, kFrom);
}

// ptest: ZF = (dst & src) == 0, CF = (~dst & src) == 0, the others cleared.
bool ptest(Ctx& c) {
  if (!sse::is_xmm(c.op(0))) return false;
  Value a = sse::read_vec(c, 0);
  Value b = sse::read_vec(c, 1);
  Value zf = c.flag_live(kZF) ? c.b.vec(VecOp::TestZero, Type::I1, 0, a, b, 0) : ir::kNoValue;
  Value cf = c.flag_live(kCF) ? c.b.vec(VecOp::TestZero, Type::I1, 0, a, b, 1) : ir::kNoValue;
  if (zf != ir::kNoValue) c.b.set_flag(kZF, zf);
  if (cf != ir::kNoValue) c.b.set_flag(kCF, cf);
  Value zero = c.b.constant(Type::I1, 0);
  for (uint8_t bit : {kOF, kSF, kAF, kPF}) put_flag(c, bit, zero);
  return true;
}

bool pblendw(Ctx& c) { return sse::binary(c, VecOp::BlendImm, 1, c.op(2).imm.value.u & 0xff); }

// pblendvb/blendvps/blendvpd: XMM0 is the implicit mask.
template <unsigned kLane>
bool blend_var(Ctx& c) {
  if (!sse::is_xmm(c.op(0))) return false;
  Value a = sse::read_vec(c, 0);
  Value b = sse::read_vec(c, 1);
  sse::write_vec(c, 0, c.b.vec3(VecOp::BlendVar, kLane, a, b, sse::read_xmm0(c)));
  return true;
}

// pextrb/pextrd/pextrq/extractps r/m, xmm, imm: a register destination is
// zero-extended, a memory one gets the element.
template <unsigned kLane>
bool extract(Ctx& c) {
  if (!sse::is_xmm(c.op(1))) return false;
  uint64_t index = c.op(2).imm.value.u & (15u >> kLane);
  Value e = c.b.vec(VecOp::Extract, kLaneType[kLane], kLane, sse::read_vec(c, 1), ir::kNoValue, index);
  if (c.op(0).type == ZYDIS_OPERAND_TYPE_MEMORY) c.b.store(effective_address(c, 0), e);
  else write_gpr(c, c.op(0).reg.value, c.b.zext(operand_type(c.op(0)), e));
  return true;
}

// pinsrb/pinsrd/pinsrq xmm, r/m, imm: the low element-size bits of the source.
template <unsigned kLane>
bool insert(Ctx& c) {
  if (!sse::is_xmm(c.op(0))) return false;
  const ZydisDecodedOperand& src = c.op(1);
  Type t = kLaneType[kLane];
  Value e = src.type == ZYDIS_OPERAND_TYPE_REGISTER ? read_gpr(c, src.reg.value) : c.b.load(t, effective_address(c, 1));
  if (c.b.type_of(e) != t) e = c.b.trunc(t, e);
  uint64_t index = c.op(2).imm.value.u & (15u >> kLane);
  sse::write_vec(c, 0, c.b.vec(VecOp::InsertGpr, Type::V128, kLane, sse::read_vec(c, 0), e, index));
  return true;
}

bool movntdqa(Ctx& c) {
  if (!sse::is_xmm(c.op(0))) return false;
  sse::write_vec(c, 0, sse::read_vec(c, 1, true));
  return true;
}

template <sse::VectorHelperOp kOp>
bool via_helper(Ctx& c) {
  uint64_t imm = c.d.info.operand_count_visible > 2 ? c.op(2).imm.value.u & 0xff : 0;
  return sse::call_vector_helper(c, kOp, imm);
}

}  // namespace

namespace sse {

void register_sse41(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_PMOVSXBW, extend<VecOp::ExtendS, 0, 1>);
  t.add(ZYDIS_MNEMONIC_PMOVSXBD, extend<VecOp::ExtendS, 0, 2>);
  t.add(ZYDIS_MNEMONIC_PMOVSXBQ, extend<VecOp::ExtendS, 0, 3>);
  t.add(ZYDIS_MNEMONIC_PMOVSXWD, extend<VecOp::ExtendS, 1, 2>);
  t.add(ZYDIS_MNEMONIC_PMOVSXWQ, extend<VecOp::ExtendS, 1, 3>);
  t.add(ZYDIS_MNEMONIC_PMOVSXDQ, extend<VecOp::ExtendS, 2, 3>);
  t.add(ZYDIS_MNEMONIC_PMOVZXBW, extend<VecOp::ExtendU, 0, 1>);
  t.add(ZYDIS_MNEMONIC_PMOVZXBD, extend<VecOp::ExtendU, 0, 2>);
  t.add(ZYDIS_MNEMONIC_PMOVZXBQ, extend<VecOp::ExtendU, 0, 3>);
  t.add(ZYDIS_MNEMONIC_PMOVZXWD, extend<VecOp::ExtendU, 1, 2>);
  t.add(ZYDIS_MNEMONIC_PMOVZXWQ, extend<VecOp::ExtendU, 1, 3>);
  t.add(ZYDIS_MNEMONIC_PMOVZXDQ, extend<VecOp::ExtendU, 2, 3>);
  t.add(ZYDIS_MNEMONIC_PMINSB, bin<VecOp::MinS, 0>);
  t.add(ZYDIS_MNEMONIC_PMINSD, bin<VecOp::MinS, 2>);
  t.add(ZYDIS_MNEMONIC_PMINUW, bin<VecOp::MinU, 1>);
  t.add(ZYDIS_MNEMONIC_PMINUD, bin<VecOp::MinU, 2>);
  t.add(ZYDIS_MNEMONIC_PMAXSB, bin<VecOp::MaxS, 0>);
  t.add(ZYDIS_MNEMONIC_PMAXSD, bin<VecOp::MaxS, 2>);
  t.add(ZYDIS_MNEMONIC_PMAXUW, bin<VecOp::MaxU, 1>);
  t.add(ZYDIS_MNEMONIC_PMAXUD, bin<VecOp::MaxU, 2>);
  t.add(ZYDIS_MNEMONIC_PMULLD, bin<VecOp::MulLo, 2>);
  t.add(ZYDIS_MNEMONIC_PMULDQ, bin<VecOp::MulEvenS, 3>);
  t.add(ZYDIS_MNEMONIC_PCMPEQQ, bin<VecOp::CmpEq, 3>);
  t.add(ZYDIS_MNEMONIC_PACKUSDW, bin<VecOp::PackUS, 2>);
  t.add(ZYDIS_MNEMONIC_PTEST, ptest);
  t.add(ZYDIS_MNEMONIC_PBLENDW, pblendw);
  t.add(ZYDIS_MNEMONIC_PBLENDVB, blend_var<0>);
  t.add(ZYDIS_MNEMONIC_BLENDVPS, blend_var<2>);
  t.add(ZYDIS_MNEMONIC_BLENDVPD, blend_var<3>);
  t.add(ZYDIS_MNEMONIC_PEXTRB, extract<0>);
  t.add(ZYDIS_MNEMONIC_PEXTRD, extract<2>);
  t.add(ZYDIS_MNEMONIC_PEXTRQ, extract<3>);
  t.add(ZYDIS_MNEMONIC_EXTRACTPS, extract<2>);
  t.add(ZYDIS_MNEMONIC_PINSRB, insert<0>);
  t.add(ZYDIS_MNEMONIC_PINSRD, insert<2>);
  t.add(ZYDIS_MNEMONIC_PINSRQ, insert<3>);
  t.add(ZYDIS_MNEMONIC_MOVNTDQA, movntdqa);
  t.add(ZYDIS_MNEMONIC_MPSADBW, via_helper<VectorHelperOp::Mpsadbw>);
  t.add(ZYDIS_MNEMONIC_PHMINPOSUW, via_helper<VectorHelperOp::Phminposuw>);
}

}  // namespace sse
}  // namespace phybin::x86
