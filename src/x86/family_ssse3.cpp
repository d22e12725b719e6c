// SSSE3 on XMM registers: pshufb, palignr, pabs*, horizontal adds and
// subtracts, pmaddubsw, pmulhrsw, psign*.  The MMX forms: family_mmx.cpp.
#include "x86/sse.h"

namespace phybin::x86 {

using ir::Type;
using ir::Value;
using ir::VecOp;

namespace {

using sse::bin;

template <unsigned kLane>
bool abs(Ctx& c) {
  return sse::unary(c, VecOp::Abs, kLane);
}

bool palignr(Ctx& c) { return sse::binary(c, VecOp::AlignRight, 0, c.op(2).imm.value.u & 0xff); }

// phaddsw/phsub*: the even elements of (dst, src) combined with the odd ones.
template <VecOp kOp, unsigned kLane>
bool horizontal(Ctx& c) {
  if (!sse::is_xmm(c.op(0)) || !sse::no_mmx(c)) return false;
  Value a = sse::read_vec(c, 0);
  Value b = sse::read_vec(c, 1);
  Value even = c.b.vec(VecOp::UnzipEven, Type::V128, kLane, a, b);
  Value odd = c.b.vec(VecOp::UnzipOdd, Type::V128, kLane, a, b);
  sse::write_vec(c, 0, c.b.vec(kOp, Type::V128, kLane, even, odd));
  return true;
}

}  // namespace

namespace sse {

void register_ssse3(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_PSHUFB, bin<VecOp::ByteTable, 0>);
  t.add(ZYDIS_MNEMONIC_PALIGNR, palignr);
  t.add(ZYDIS_MNEMONIC_PABSB, abs<0>);
  t.add(ZYDIS_MNEMONIC_PABSW, abs<1>);
  t.add(ZYDIS_MNEMONIC_PABSD, abs<2>);
  t.add(ZYDIS_MNEMONIC_PHADDW, bin<VecOp::AddPairs, 1>);
  t.add(ZYDIS_MNEMONIC_PHADDD, bin<VecOp::AddPairs, 2>);
  t.add(ZYDIS_MNEMONIC_PHADDSW, horizontal<VecOp::AddSatS, 1>);
  t.add(ZYDIS_MNEMONIC_PHSUBW, horizontal<VecOp::Sub, 1>);
  t.add(ZYDIS_MNEMONIC_PHSUBD, horizontal<VecOp::Sub, 2>);
  t.add(ZYDIS_MNEMONIC_PHSUBSW, horizontal<VecOp::SubSatS, 1>);
}

}  // namespace sse
}  // namespace phybin::x86
