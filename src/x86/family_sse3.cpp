// SSE3 on XMM registers: movddup/movsldup/movshdup, addsubps/pd and the
// horizontal adds and subtracts, built from the SSE2 vector operations so
// that x86's NaN rules and rounding come with them.  lddqu is a plain
// unaligned load (family_sse.cpp), fisttp is in family_x87.cpp; monitor and
// mwait are not user-mode instructions.
#include "x86/sse.h"

namespace phybin::x86 {

using ir::Type;
using ir::Value;
using ir::VecOp;

namespace {

bool movddup(Ctx& c) {
  if (!sse::is_xmm(c.op(0))) return false;
  Value v = sse::read_vec(c, 1);
  sse::write_vec(c, 0, c.b.vec(VecOp::ZipLo, Type::V128, 3, v, v));
  return true;
}

// movsldup: floats 0 0 2 2; movshdup: 1 1 3 3.
template <uint64_t kSelect>
bool dup_floats(Ctx& c) {
  return sse::unary(c, VecOp::Shuffle, 2, kSelect);
}

// addsubps/pd: even elements subtract, odd ones add.  The subtraction
// sees b's odd elements as +0.0 and the addition its even ones: a lane
// whose result is dropped must not raise overflow, underflow or inexact
// into MXCSR (a - 0 and a + 0 raise only what a itself raises in the
// other operation: invalid for an SNaN, denormal).
template <unsigned kLane>
bool addsub(Ctx& c) {
  if (!sse::is_xmm(c.op(0))) return false;
  const uint64_t odd = kLane == 2 ? 0b1010 : 0b10;
  Value a = sse::read_vec(c, 0);
  Value b = sse::read_vec(c, 1);
  Value b_even = c.b.vec(VecOp::BlendImm, Type::V128, kLane, b, c.b.emit(ir::Opcode::VZero, Type::V128), odd);
  Value b_odd = c.b.vec(VecOp::Xor, Type::V128, 0, b, b_even);
  // Exact DE: a's element beside a NaN of b's must not count, as a - 0
  // would make it; one check of the real operands instead.
  const ir::FpMode mode = c.b.fp_mode();
  ir::FpMode inner = mode;
  inner.check_denormals = false;
  if (mode.check_denormals) c.b.plain_vec(VecOp::DenormCheck, Type::Void, kLane, a, b, ir::kCheckAll);
  c.b.set_fp_mode(inner);
  Value diff = c.b.vec(VecOp::FSub, Type::V128, kLane, a, b_even);
  Value sum = c.b.vec(VecOp::FAdd, Type::V128, kLane, a, b_odd);
  c.b.set_fp_mode(mode);
  sse::write_vec(c, 0, c.b.vec(VecOp::BlendImm, Type::V128, kLane, diff, sum, odd));
  return true;
}

// haddps/hsubps/haddpd/hsubpd: the first element of each pair (from dst
// then from src) combined with the second, in that operand order.
template <VecOp kOp, unsigned kLane>
bool horizontal(Ctx& c) {
  if (!sse::is_xmm(c.op(0))) return false;
  Value a = sse::read_vec(c, 0);
  Value b = sse::read_vec(c, 1);
  Value first = c.b.vec(VecOp::Shuffle2, Type::V128, kLane, a, b, kLane == 2 ? 0x88 : 0);
  Value second = c.b.vec(VecOp::Shuffle2, Type::V128, kLane, a, b, kLane == 2 ? 0xDD : 3);
  sse::write_vec(c, 0, c.b.vec(kOp, Type::V128, kLane, first, second));
  return true;
}

}  // namespace

namespace sse {

void register_sse3(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_MOVDDUP, movddup);
  t.add(ZYDIS_MNEMONIC_MOVSLDUP, dup_floats<0xA0>);
  t.add(ZYDIS_MNEMONIC_MOVSHDUP, dup_floats<0xF5>);
  t.add(ZYDIS_MNEMONIC_ADDSUBPS, addsub<2>);
  t.add(ZYDIS_MNEMONIC_ADDSUBPD, addsub<3>);
  t.add(ZYDIS_MNEMONIC_HADDPS, horizontal<VecOp::FAdd, 2>);
  t.add(ZYDIS_MNEMONIC_HADDPD, horizontal<VecOp::FAdd, 3>);
  t.add(ZYDIS_MNEMONIC_HSUBPS, horizontal<VecOp::FSub, 2>);
  t.add(ZYDIS_MNEMONIC_HSUBPD, horizontal<VecOp::FSub, 3>);
}

}  // namespace sse
}  // namespace phybin::x86
