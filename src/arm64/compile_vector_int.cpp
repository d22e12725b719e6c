// Lowering of the Int family of vector operations (ir/vecops.inc: the SSE2
// p* instructions) to NEON.
#include "arm64/compile_vector.h"

namespace phybin::arm64 {

using ir::Inst;
using ir::Value;
using regmap::kTmp0;
using regmap::kTmp1;
using regmap::kVTmp0;
using regmap::kVTmp1;

namespace {

VArr arr_of(unsigned lane) { return make_varr(lane, true); }
// The 64-bit arrangement with the same lane size (B8, H4, S2).
VArr half_arr(unsigned lane) { return make_varr(lane, false); }

}  // namespace

void VectorLowering::lower_int(Value v, IntOp op) {
  const VArr arr = arr_of(inst(v).lane);
  switch (op) {
    case IntOp::Add: return three_same(v, arr, &Assembler::add);
    case IntOp::Sub: return three_same(v, arr, &Assembler::sub);
    case IntOp::AddSatS: return three_same(v, arr, &Assembler::sqadd);
    case IntOp::AddSatU: return three_same(v, arr, &Assembler::uqadd);
    case IntOp::SubSatS: return three_same(v, arr, &Assembler::sqsub);
    case IntOp::SubSatU: return three_same(v, arr, &Assembler::uqsub);
    case IntOp::MinS: return three_same(v, arr, &Assembler::smin);
    case IntOp::MinU: return three_same(v, arr, &Assembler::umin);
    case IntOp::MaxS: return three_same(v, arr, &Assembler::smax);
    case IntOp::MaxU: return three_same(v, arr, &Assembler::umax);
    case IntOp::CmpEq: return three_same(v, arr, &Assembler::cmeq);
    case IntOp::CmpGtS: return three_same(v, arr, &Assembler::cmgt);
    case IntOp::AvgU: return three_same(v, arr, &Assembler::urhadd);
    case IntOp::MulLo: return three_same(v, arr, &Assembler::mul);
    case IntOp::MulHiS: return lower_mul_high(v, true);
    case IntOp::MulHiU: return lower_mul_high(v, false);
    case IntOp::MulEvenU: return lower_mul_even_u(v);
    case IntOp::MaddPairs: return lower_madd_pairs(v);
    case IntOp::SadU8: return lower_sad(v);
    case IntOp::And: return three_same(v, VArr::B16, &Assembler::and_);
    case IntOp::Or: return three_same(v, VArr::B16, &Assembler::orr);
    case IntOp::Xor: return three_same(v, VArr::B16, &Assembler::eor);
    case IntOp::AndNot: return three_same(v, VArr::B16, &Assembler::bic);
    case IntOp::ShlImm: case IntOp::LshrImm: case IntOp::AshrImm: return lower_shift_imm(v, op);
    case IntOp::Shl: case IntOp::Lshr: case IntOp::Ashr: return lower_shift_vec(v, op);
    case IntOp::ByteShl: case IntOp::ByteShr: return lower_byte_shift(v, op);
    case IntOp::ZipLo: return three_same(v, arr, &Assembler::zip1);
    case IntOp::ZipHi: return three_same(v, arr, &Assembler::zip2);
    case IntOp::PackSS: case IntOp::PackUS: return lower_pack(v, op);
    case IntOp::Shuffle: return lower_shuffle(v);
    case IntOp::ShuffleLo16: case IntOp::ShuffleHi16: return lower_shuffle16(v, op);
    case IntOp::Shuffle2: return lower_shuffle2(v);
  }
}

// One NEON instruction of a and b into the result (also used by IntExt).
void VectorLowering::three_same(Value v, VArr arr, ThreeSame emit) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  VReg d = def(v);
  (a_.*emit)(arr, d, x, y);
}

// x86 shift counts at or above the element width give zero (arithmetic
// shifts fill with the sign); NEON immediates stop at the width.
void VectorLowering::lower_shift_imm(Value v, IntOp op) {
  const Inst& i = inst(v);
  const VArr arr = arr_of(i.lane);
  const unsigned bits = 8u << i.lane;
  const uint64_t n = i.imm;
  VReg x = vreg_of(i.args[0]);
  VReg d = def(v);
  if (n == 0) {
    copy(d, x);
  } else if (op == IntOp::AshrImm) {
    a_.sshr(arr, d, x, static_cast<unsigned>(n < bits ? n : bits));
  } else if (n >= bits) {
    a_.movi(VArr::D2, d, 0);
  } else if (op == IntOp::ShlImm) {
    a_.shl(arr, d, x, static_cast<unsigned>(n));
  } else {
    a_.ushr(arr, d, x, static_cast<unsigned>(n));
  }
}

// Count from the low 64 bits of a vector: clamped to the element width
// (where USHL/SSHL already give x86's results), negated for right shifts,
// and broadcast for USHL/SSHL, which read each lane's low byte as signed.
void VectorLowering::lower_shift_vec(Value v, IntOp op) {
  const Inst& i = inst(v);
  const VArr arr = arr_of(i.lane);
  const unsigned bits = 8u << i.lane;
  VReg x = vreg_of(i.args[0]), count = vreg_of(i.args[1]);
  VReg d = def(v);
  a_.fmov(FSize::D, kTmp0, count);
  a_.movz(Size::X, kTmp1, static_cast<uint16_t>(bits));
  a_.cmp(Size::X, kTmp0, kTmp1);
  a_.csel(Size::X, kTmp0, kTmp0, kTmp1, Cond::LO);
  if (op != IntOp::Shl) a_.neg(Size::X, kTmp0, kTmp0);
  a_.dup(arr, kVTmp0, kTmp0);
  if (op == IntOp::Ashr) a_.sshl(arr, d, x, kVTmp0);
  else a_.ushl(arr, d, x, kVTmp0);
}

void VectorLowering::lower_byte_shift(Value v, IntOp op) {
  const Inst& i = inst(v);
  const uint64_t n = i.imm;
  VReg x = vreg_of(i.args[0]);
  VReg d = def(v);
  if (n == 0) {
    copy(d, x);
    return;
  }
  if (n >= 16) {
    a_.movi(VArr::D2, d, 0);
    return;
  }
  a_.movi(VArr::D2, kVTmp0, 0);
  if (op == IntOp::ByteShl)
    a_.ext(VArr::B16, d, kVTmp0, x, static_cast<unsigned>(16 - n));
  else
    a_.ext(VArr::B16, d, x, kVTmp0, static_cast<unsigned>(n));
}

// packsswb/packssdw/packuswb: a's elements narrowed into the low half, b's
// into the high half.
void VectorLowering::lower_pack(Value v, IntOp op) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  VReg d = def(v);
  VReg t = d == y ? kVTmp0 : d;  // the first narrowing would overwrite b (packuswb x, x too)
  const VArr lo = half_arr(i.lane - 1), hi = arr_of(i.lane - 1);
  if (op == IntOp::PackSS) {
    a_.sqxtn(lo, t, x);
    a_.sqxtn(hi, t, y);
  } else {
    a_.sqxtun(lo, t, x);
    a_.sqxtun(hi, t, y);
  }
  copy(d, t);
}

// pshufd: common selections have one-instruction forms; the rest take one
// lane insert per element.
void VectorLowering::shuffle32(VReg d, VReg x, unsigned imm) {
  unsigned s[4];
  for (unsigned k = 0; k < 4; ++k) s[k] = (imm >> (2 * k)) & 3;
  switch (imm) {
    case 0xE4: copy(d, x); return;
    case 0x00: case 0x55: case 0xAA: case 0xFF: a_.dup(VArr::S4, d, x, s[0]); return;
    case 0x4E: a_.ext(VArr::B16, d, x, x, 8); return;
    case 0x39: a_.ext(VArr::B16, d, x, x, 4); return;
    case 0x93: a_.ext(VArr::B16, d, x, x, 12); return;
    case 0xB1: a_.rev64(VArr::S4, d, x); return;
    case 0x44: a_.dup(VArr::D2, d, x, 0); return;
    case 0xEE: a_.dup(VArr::D2, d, x, 1); return;
    case 0x50: a_.zip1(VArr::S4, d, x, x); return;
    case 0xFA: a_.zip2(VArr::S4, d, x, x); return;
    case 0xA0: a_.trn1(VArr::S4, d, x, x); return;
    case 0xF5: a_.trn2(VArr::S4, d, x, x); return;
    case 0x88: a_.uzp1(VArr::S4, d, x, x); return;
    case 0xDD: a_.uzp2(VArr::S4, d, x, x); return;
    case 0x1B:
      a_.rev64(VArr::S4, kVTmp1, x);
      a_.ext(VArr::B16, d, kVTmp1, kVTmp1, 8);
      return;
    default: break;
  }
  VReg t = d == x ? kVTmp1 : d;
  for (unsigned k = 0; k < 4; ++k) a_.ins(FSize::S, t, k, x, s[k]);
  copy(d, t);
}

void VectorLowering::lower_shuffle(Value v) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]);
  shuffle32(def(v), x, static_cast<unsigned>(i.imm & 0xff));
}

// pshuflw/pshufhw: four words of one half selected, the other half kept.
void VectorLowering::lower_shuffle16(Value v, IntOp op) {
  const Inst& i = inst(v);
  const unsigned imm = static_cast<unsigned>(i.imm & 0xff);
  const unsigned base = op == IntOp::ShuffleHi16 ? 4 : 0;
  VReg x = vreg_of(i.args[0]);
  VReg d = def(v);
  if (imm == 0xE4) {
    copy(d, x);
    return;
  }
  if (imm == 0x00 || imm == 0x55 || imm == 0xAA || imm == 0xFF) {
    a_.dup(VArr::H8, kVTmp0, x, base + (imm & 3));
    copy(d, x);
    a_.ins(FSize::D, d, base / 4, kVTmp0, 0);
    return;
  }
  a_.mov(VArr::B16, kVTmp0, x);
  copy(d, x);
  for (unsigned k = 0; k < 4; ++k) a_.ins(FSize::H, d, base + k, kVTmp0, base + ((imm >> (2 * k)) & 3));
}

// shufps (lane 2): elements 0-1 picked from a, 2-3 from b.  shufpd (lane
// 3): element 0 from a, 1 from b.
void VectorLowering::lower_shuffle2(Value v) {
  const Inst& i = inst(v);
  const unsigned imm = static_cast<unsigned>(i.imm & 0xff);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  VReg d = def(v);
  if (i.lane == 3) {
    switch (imm & 3) {
      case 0: a_.zip1(VArr::D2, d, x, y); return;
      case 3: a_.zip2(VArr::D2, d, x, y); return;
      case 1: a_.ext(VArr::B16, d, x, y, 8); return;
      default: break;
    }
    // [a0, b1]
    if (d == y) {
      a_.ins(FSize::D, d, 0, x, 0);
    } else {
      copy(d, x);
      a_.ins(FSize::D, d, 1, y, 1);
    }
    return;
  }
  if (x == y) {
    shuffle32(d, x, imm);
    return;
  }
  switch (imm) {
    case 0x44: a_.zip1(VArr::D2, d, x, y); return;
    case 0xEE: a_.zip2(VArr::D2, d, x, y); return;
    case 0x88: a_.uzp1(VArr::S4, d, x, y); return;
    case 0xDD: a_.uzp2(VArr::S4, d, x, y); return;
    case 0x4E: a_.ext(VArr::B16, d, x, y, 8); return;
    default: break;
  }
  VReg t = d == x || d == y ? kVTmp0 : d;
  for (unsigned k = 0; k < 4; ++k) a_.ins(FSize::S, t, k, k < 2 ? x : y, (imm >> (2 * k)) & 3);
  copy(d, t);
}

// pmulhw/pmulhuw: the high halves of the 32-bit products.
void VectorLowering::lower_mul_high(Value v, bool sign) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  VReg d = def(v);
  const VArr lo = half_arr(i.lane), hi = arr_of(i.lane);
  if (sign) {
    a_.smull(lo, kVTmp0, x, y);
    a_.smull(hi, kVTmp1, x, y);
  } else {
    a_.umull(lo, kVTmp0, x, y);
    a_.umull(hi, kVTmp1, x, y);
  }
  a_.uzp2(arr_of(i.lane), d, kVTmp0, kVTmp1);
}

// pmuludq
void VectorLowering::lower_mul_even_u(Value v) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  VReg d = def(v);
  a_.xtn(VArr::S2, kVTmp0, x);
  a_.xtn(VArr::S2, kVTmp1, y);
  a_.umull(VArr::S2, d, kVTmp0, kVTmp1);
}

// pmaddwd
void VectorLowering::lower_madd_pairs(Value v) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  VReg d = def(v);
  a_.smull(VArr::H4, kVTmp0, x, y);
  a_.smull(VArr::H8, kVTmp1, x, y);
  a_.addp(VArr::S4, d, kVTmp0, kVTmp1);
}

// psadbw
void VectorLowering::lower_sad(Value v) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  VReg d = def(v);
  a_.uabd(VArr::B16, kVTmp0, x, y);
  a_.uaddlp(VArr::B16, kVTmp0, kVTmp0);
  a_.uaddlp(VArr::H8, kVTmp0, kVTmp0);
  a_.uaddlp(VArr::S4, d, kVTmp0);
}

}  // namespace phybin::arm64
