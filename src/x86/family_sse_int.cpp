// SSE2 integer instructions on XMM registers: add/sub (plain and
// saturating), compares, min/max, multiplies, averages, psadbw, logic,
// shifts, unpacks, packs and shuffles.  The MMX forms are not translated.
#include "x86/operands.h"
#include "x86/sse.h"

namespace phybin::x86 {

using ir::Type;
using ir::Value;
using ir::VecOp;

namespace {

using sse::bin;

// pandn/andnps/andnpd: dst = ~dst & src, the IR's AndNot with swapped operands.
bool andnot(Ctx& c) {
  if (!sse::is_xmm(c.op(0)) || !sse::no_mmx(c)) return false;
  if (c.op(1).type == ZYDIS_OPERAND_TYPE_REGISTER && c.op(1).reg.value == c.op(0).reg.value)
    return sse::binary(c, VecOp::AndNot, 0);  // zero
  Value dst = sse::read_vec(c, 0);
  Value src = sse::read_vec(c, 1);
  sse::write_vec(c, 0, c.b.vec(VecOp::AndNot, Type::V128, 0, src, dst));
  return true;
}

// psll/psrl/psra by an immediate or by the low quadword of an XMM/m128.
template <VecOp kImmOp, VecOp kVecOp, unsigned kLane>
bool shift(Ctx& c) {
  if (!sse::is_xmm(c.op(0)) || !sse::no_mmx(c)) return false;
  if (c.op(1).type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
    Value a = sse::read_vec(c, 0);
    sse::write_vec(c, 0, c.b.vec(kImmOp, Type::V128, kLane, a, ir::kNoValue, c.op(1).imm.value.u & 0xff));
    return true;
  }
  return sse::binary(c, kVecOp, kLane);
}

template <VecOp kOp>
bool byte_shift(Ctx& c) {
  Value a = sse::read_vec(c, 0);
  sse::write_vec(c, 0, c.b.vec(kOp, Type::V128, 0, a, ir::kNoValue, c.op(1).imm.value.u & 0xff));
  return true;
}

// pshufd/pshuflw/pshufhw xmm, xmm/m128, imm8.
template <VecOp kOp>
bool shuffle(Ctx& c) {
  return sse::unary(c, kOp, kOp == VecOp::Shuffle ? 2 : 1, c.op(2).imm.value.u & 0xff);
}

}  // namespace

namespace sse {

void register_integer(HandlerTable& t) {
#define OP(mnemonic, op, lane) t.add(ZYDIS_MNEMONIC_##mnemonic, bin<VecOp::op, lane>);
#include "x86/vector_int_ops.inc"
#undef OP
  for (auto m : {ZYDIS_MNEMONIC_ANDPS, ZYDIS_MNEMONIC_ANDPD}) t.add(m, bin<VecOp::And, 0>);
  for (auto m : {ZYDIS_MNEMONIC_ORPS, ZYDIS_MNEMONIC_ORPD}) t.add(m, bin<VecOp::Or, 0>);
  for (auto m : {ZYDIS_MNEMONIC_XORPS, ZYDIS_MNEMONIC_XORPD}) t.add(m, bin<VecOp::Xor, 0>);
  for (auto m : {ZYDIS_MNEMONIC_PANDN, ZYDIS_MNEMONIC_ANDNPS, ZYDIS_MNEMONIC_ANDNPD}) t.add(m, andnot);

#define SHIFT(mnemonic, imm_op, vec_op, lane) \
  t.add(ZYDIS_MNEMONIC_##mnemonic, shift<VecOp::imm_op, VecOp::vec_op, lane>);
#include "x86/vector_shift_ops.inc"
#undef SHIFT
  t.add(ZYDIS_MNEMONIC_PSLLDQ, byte_shift<VecOp::ByteShl>);
  t.add(ZYDIS_MNEMONIC_PSRLDQ, byte_shift<VecOp::ByteShr>);

  t.add(ZYDIS_MNEMONIC_PUNPCKLQDQ, bin<VecOp::ZipLo, 3>);
  t.add(ZYDIS_MNEMONIC_PUNPCKHBW, bin<VecOp::ZipHi, 0>);
  t.add(ZYDIS_MNEMONIC_PUNPCKHWD, bin<VecOp::ZipHi, 1>);
  t.add(ZYDIS_MNEMONIC_PUNPCKHDQ, bin<VecOp::ZipHi, 2>);
  t.add(ZYDIS_MNEMONIC_PUNPCKHQDQ, bin<VecOp::ZipHi, 3>);
  t.add(ZYDIS_MNEMONIC_UNPCKLPS, bin<VecOp::ZipLo, 2>);
  t.add(ZYDIS_MNEMONIC_UNPCKHPS, bin<VecOp::ZipHi, 2>);
  t.add(ZYDIS_MNEMONIC_UNPCKLPD, bin<VecOp::ZipLo, 3>);
  t.add(ZYDIS_MNEMONIC_UNPCKHPD, bin<VecOp::ZipHi, 3>);
  t.add(ZYDIS_MNEMONIC_PACKSSWB, bin<VecOp::PackSS, 1>);
  t.add(ZYDIS_MNEMONIC_PACKSSDW, bin<VecOp::PackSS, 2>);
  t.add(ZYDIS_MNEMONIC_PACKUSWB, bin<VecOp::PackUS, 1>);

  t.add(ZYDIS_MNEMONIC_PSHUFD, shuffle<VecOp::Shuffle>);
  t.add(ZYDIS_MNEMONIC_PSHUFLW, shuffle<VecOp::ShuffleLo16>);
  t.add(ZYDIS_MNEMONIC_PSHUFHW, shuffle<VecOp::ShuffleHi16>);
}

}  // namespace sse
}  // namespace phybin::x86
