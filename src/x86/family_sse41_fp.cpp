// SSE4.1 floating point on XMM registers: round*, blendps/pd, dpps/dppd
// and insertps.  dpps/dppd are built from packed multiplies and adds, so
// rounding (each step rounded, as in Intel's pseudo-code) and NaN choice
// follow the x86 rules of those operations.
#include "x86/sse.h"

namespace phybin::x86 {

using ir::Opcode;
using ir::Type;
using ir::Value;
using ir::VecOp;

namespace {

uint64_t imm8(const Ctx& c) { return c.op(2).imm.value.u & 0xff; }

Value zero(Ctx& c) { return c.b.emit(Opcode::VZero, Type::V128); }

// The elements of v whose bit is set in `mask`, +0.0 elsewhere.
Value keep(Ctx& c, unsigned lane, Value v, uint64_t mask) {
  const uint64_t all = lane == 2 ? 0xf : 0x3;
  if ((mask & all) == all) return v;
  return c.b.vec(VecOp::BlendImm, Type::V128, lane, zero(c), v, mask & all);
}

template <unsigned kLane>
bool round_packed(Ctx& c) {
  return sse::unary(c, VecOp::FRound, kLane, imm8(c));
}

template <unsigned kLane>
bool round_scalar(Ctx& c) {
  return sse::binary(c, VecOp::FRoundScalar, kLane, imm8(c));
}

template <unsigned kLane>
bool blend(Ctx& c) {
  return sse::binary(c, VecOp::BlendImm, kLane, imm8(c) & (kLane == 2 ? 0xf : 0x3));
}

// dpps: products of the elements selected by imm bits 4-7 (+0.0 for the
// others), summed, written to the elements selected by bits 0-3.  Each
// element is its own sum, and the operand order decides which NaN wins;
// measured on the CPU: p = dst * src (a NaN in dst wins over one in src,
// quiet or signalling), s[j] = p[j^1] + p[j], then s[j] + s[j^2].  dppd
// (bits 4-5 and 0-1): p = dst * src, p[j] + p[j^1].
template <unsigned kLane>
bool dot_product(Ctx& c) {
  if (!sse::is_xmm(c.op(0))) return false;
  const uint64_t imm = imm8(c);
  Value a = keep(c, kLane, sse::read_vec(c, 0), imm >> 4);
  Value b = keep(c, kLane, sse::read_vec(c, 1), imm >> 4);
  Value p = c.b.vec(VecOp::FMul, Type::V128, kLane, a, b);
  Value sum;
  if (kLane == 2) {
    Value swapped = c.b.vec(VecOp::Shuffle, Type::V128, 2, p, ir::kNoValue, 0xB1);
    Value pairs = c.b.vec(VecOp::FAdd, Type::V128, 2, swapped, p);
    Value halves = c.b.vec(VecOp::Shuffle, Type::V128, 2, pairs, ir::kNoValue, 0x4E);
    sum = c.b.vec(VecOp::FAdd, Type::V128, 2, pairs, halves);
  } else {
    Value swapped = c.b.vec(VecOp::Shuffle2, Type::V128, 3, p, p, 1);
    sum = c.b.vec(VecOp::FAdd, Type::V128, 3, p, swapped);
  }
  sse::write_vec(c, 0, keep(c, kLane, sum, imm & 0xf));
  return true;
}

// insertps xmm, xmm/m32, imm: element imm[7:6] of a register source (a
// memory source is one float) into element imm[5:4], then the elements in
// imm[3:0] zeroed.
bool insertps(Ctx& c) {
  if (!sse::is_xmm(c.op(0))) return false;
  const uint64_t imm = imm8(c);
  const uint64_t from = sse::is_xmm(c.op(1)) ? imm >> 6 : 0;
  const uint64_t to = (imm >> 4) & 3;
  Value src = sse::read_vec(c, 1);
  Value r = c.b.vec(VecOp::InsertLane, Type::V128, 2, sse::read_vec(c, 0), src, to | from << 8);
  if (imm & 0xf) r = keep(c, 2, r, ~imm & 0xf);
  sse::write_vec(c, 0, r);
  return true;
}

}  // namespace

namespace sse {

void register_sse41_float(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_ROUNDPS, round_packed<2>);
  t.add(ZYDIS_MNEMONIC_ROUNDPD, round_packed<3>);
  t.add(ZYDIS_MNEMONIC_ROUNDSS, round_scalar<2>);
  t.add(ZYDIS_MNEMONIC_ROUNDSD, round_scalar<3>);
  t.add(ZYDIS_MNEMONIC_BLENDPS, blend<2>);
  t.add(ZYDIS_MNEMONIC_BLENDPD, blend<3>);
  t.add(ZYDIS_MNEMONIC_DPPS, dot_product<2>);
  t.add(ZYDIS_MNEMONIC_DPPD, dot_product<3>);
  t.add(ZYDIS_MNEMONIC_INSERTPS, insertps);
}

}  // namespace sse
}  // namespace phybin::x86
