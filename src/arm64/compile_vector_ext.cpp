// Lowering of the IntExt family of vector operations, SSSE3/SSE4.1, to NEON
// (byte tables, alignr, abs/sign, horizontal and widening multiplies,
// extensions, ptest, the blends) and of the Crypto family, AES-NI and
// PCLMULQDQ, to the AArch64 crypto extension.
#include "arm64/compile_vector.h"

namespace phybin::arm64 {

using ir::Inst;
using ir::Value;
using regmap::kTmp0;
using regmap::kVTmp0;
using regmap::kVTmp1;

namespace {

VArr arr_of(unsigned lane) { return make_varr(lane, true); }
VArr half_arr(unsigned lane) { return make_varr(lane, false); }

// The byte mask (0xFF bytes where element bit is set) of one 64-bit half.
uint64_t half_mask(unsigned lane, uint64_t bits, unsigned half) {
  const unsigned per_half = 8u >> lane, bytes = 1u << lane;
  const uint64_t element = bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << 8 * bytes) - 1;
  uint64_t m = 0;
  for (unsigned k = 0; k < per_half; ++k)
    if (bits >> (half * per_half + k) & 1) m |= element << (8 * bytes * k);
  return m;
}

}  // namespace

void VectorLowering::lower_int_ext(Value v, IntExtOp op) {
  const VArr arr = arr_of(inst(v).lane);
  switch (op) {
    case IntExtOp::Abs: return lower_abs(v);
    case IntExtOp::Sign: return lower_sign(v);
    case IntExtOp::MulEvenS: return lower_mul_even_s(v);
    case IntExtOp::MulHiRound: return lower_mul_high_round(v);
    case IntExtOp::MaddUbs: return lower_madd_ubs(v);
    case IntExtOp::AddPairs: return three_same(v, arr, &Assembler::addp);
    case IntExtOp::UnzipEven: return three_same(v, arr, &Assembler::uzp1);
    case IntExtOp::UnzipOdd: return three_same(v, arr, &Assembler::uzp2);
    case IntExtOp::ExtendS: return lower_extend(v, true);
    case IntExtOp::ExtendU: return lower_extend(v, false);
    case IntExtOp::TestZero: return lower_test_zero(v);
    case IntExtOp::ByteTable: return lower_byte_table(v);
    case IntExtOp::AlignRight: return lower_align_right(v);
    case IntExtOp::BlendImm: return lower_blend_imm(v);
    case IntExtOp::BlendVar: return lower_blend_var(v);
  }
}

void VectorLowering::lower_crypto(Value v, CryptoOp op) {
  switch (op) {
    case CryptoOp::AesEnc: case CryptoOp::AesEncLast: case CryptoOp::AesDec: case CryptoOp::AesDecLast:
      return lower_aes_round(v, op);
    case CryptoOp::AesImc: return lower_aes_imc(v);
    case CryptoOp::ClMul: return lower_clmul(v);
  }
}

void VectorLowering::lower_abs(Value v) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]);
  a_.abs(arr_of(i.lane), def(v), x);
}

// psign*: a * (-1, 0 or 1 by the sign of b)
void VectorLowering::lower_sign(Value v) {
  const Inst& i = inst(v);
  const VArr arr = arr_of(i.lane);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  a_.cmlt0(arr, kVTmp0, y);
  a_.cmgt0(arr, kVTmp1, y);
  a_.sub(arr, kVTmp0, kVTmp0, kVTmp1);
  a_.mul(arr, def(v), x, kVTmp0);
}

// pmuldq
void VectorLowering::lower_mul_even_s(Value v) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  a_.xtn(VArr::S2, kVTmp0, x);
  a_.xtn(VArr::S2, kVTmp1, y);
  a_.smull(VArr::S2, def(v), kVTmp0, kVTmp1);
}

// pmulhrsw: x86 keeps the low 16 bits, no saturation
void VectorLowering::lower_mul_high_round(Value v) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  a_.smull(VArr::H4, kVTmp0, x, y);
  a_.smull(VArr::H8, kVTmp1, x, y);
  VReg d = def(v);
  a_.rshrn(VArr::H4, d, kVTmp0, 15);
  a_.rshrn(VArr::H8, d, kVTmp1, 15);
}

// pmaddubsw: unsigned x times signed y fits in 16 bits
void VectorLowering::lower_madd_ubs(Value v) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  VReg t = scratch();
  a_.uxtl(VArr::B8, kVTmp0, x);
  a_.sxtl(VArr::B8, kVTmp1, y);
  a_.mul(VArr::H8, kVTmp0, kVTmp0, kVTmp1);
  a_.uxtl(VArr::B16, t, x);
  a_.sxtl(VArr::B16, kVTmp1, y);
  a_.mul(VArr::H8, kVTmp1, t, kVTmp1);
  a_.uzp1(VArr::H8, t, kVTmp0, kVTmp1);
  a_.uzp2(VArr::H8, kVTmp0, kVTmp0, kVTmp1);
  a_.sqadd(VArr::H8, def(v), t, kVTmp0);
}

// pmovsx/pmovzx: one widening per doubling of the element size.
void VectorLowering::lower_extend(Value v, bool sign) {
  const Inst& i = inst(v);
  VReg cur = vreg_of(i.args[0]);
  VReg d = def(v);
  for (auto l = static_cast<unsigned>(i.imm); l < i.lane; ++l) {
    VReg to = l + 1 == i.lane ? d : kVTmp0;
    if (sign) a_.sxtl(half_arr(l), to, cur);
    else a_.uxtl(half_arr(l), to, cur);
    cur = to;
  }
}

// pshufb: x86 zeroes a byte whose index has bit 7 set and otherwise uses
// the low 4 bits; TBL zeroes indexes >= 16: keep bits 7 and 0-3.
void VectorLowering::lower_byte_table(Value v) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  a_.movi(VArr::B16, kVTmp0, 0x8f);
  a_.and_(VArr::B16, kVTmp0, y, kVTmp0);
  a_.tbl(VArr::B16, def(v), x, 1, kVTmp0);
}

// palignr: bytes of y (low) then x (high), shifted right by n
void VectorLowering::lower_align_right(Value v) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  const uint64_t n = i.imm;
  VReg d = def(v);
  if (n == 0) {
    copy(d, y);
  } else if (n < 16) {
    a_.ext(VArr::B16, d, y, x, static_cast<unsigned>(n));
  } else if (n == 16) {
    copy(d, x);
  } else if (n < 32) {
    a_.movi(VArr::D2, kVTmp0, 0);
    a_.ext(VArr::B16, d, x, kVTmp0, static_cast<unsigned>(n - 16));
  } else {
    a_.movi(VArr::D2, d, 0);
  }
}

// ptest: an OR-reduction of (x & y) or (y & ~x) compared with zero.
void VectorLowering::lower_test_zero(Value v) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  if (i.imm & 1) a_.bic(VArr::B16, kVTmp0, y, x);
  else a_.and_(VArr::B16, kVTmp0, x, y);
  a_.umaxp(VArr::S4, kVTmp0, kVTmp0, kVTmp0);
  a_.fmov(FSize::D, kTmp0, kVTmp0);
  Reg d = c_.def_gpr(v);
  a_.cmp(Size::X, kTmp0, 0u);
  a_.cset(Size::W, d, Cond::EQ);
}

// d = mask ? if_set : if_clear, bit by bit; `mask` (a temporary) may be overwritten.
void VectorLowering::select(VReg d, VReg mask, VReg if_set, VReg if_clear) {
  if (d == if_clear) {
    a_.bit(VArr::B16, d, if_set, mask);
  } else if (d == if_set) {
    a_.bif(VArr::B16, d, if_clear, mask);
  } else {
    a_.bsl(VArr::B16, mask, if_set, if_clear);
    a_.mov(VArr::B16, d, mask);
  }
}

void VectorLowering::lower_blend_imm(Value v) {
  const Inst& i = inst(v);
  const unsigned count = 16u >> i.lane;
  const uint64_t bits = i.imm & ((1u << count) - 1);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  VReg d = def(v);
  if (bits == 0 || bits == (1u << count) - 1) {
    copy(d, bits ? y : x);
    return;
  }
  if (i.lane >= 2 && __builtin_popcountll(bits) == 1 && d == x) {
    const auto k = static_cast<unsigned>(__builtin_ctzll(bits));
    a_.ins(static_cast<FSize>(i.lane), d, k, y, k);
    return;
  }
  const uint64_t lo = half_mask(i.lane, bits, 0), hi = half_mask(i.lane, bits, 1);
  a_.movi(VArr::D2, kVTmp0, lo);
  if (hi != lo) {
    a_.movi(VArr::D2, kVTmp1, hi);
    a_.ins(FSize::D, kVTmp0, 1, kVTmp1, 0);
  }
  select(d, kVTmp0, y, x);
}

// x86 rounds XOR the key last, AArch64's AESE/AESD first: a zero key in
// AESE/AESD, then the x86 key.  Both number the state bytes as FIPS-197.
void VectorLowering::lower_aes_round(Value v, CryptoOp op) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  a_.movi(VArr::D2, kVTmp1, 0);
  a_.mov(VArr::B16, kVTmp0, x);
  if (op == CryptoOp::AesEnc || op == CryptoOp::AesEncLast) {
    a_.aese(kVTmp0, kVTmp1);
    if (op == CryptoOp::AesEnc) a_.aesmc(kVTmp0, kVTmp0);
  } else {
    a_.aesd(kVTmp0, kVTmp1);
    if (op == CryptoOp::AesDec) a_.aesimc(kVTmp0, kVTmp0);
  }
  a_.eor(VArr::B16, def(v), kVTmp0, y);
}

void VectorLowering::lower_aes_imc(Value v) {
  VReg x = vreg_of(inst(v).args[0]);
  a_.aesimc(def(v), x);
}

// pclmulqdq: PMULL multiplies the low doublewords, PMULL2 the high ones;
// mixed selections move the high one down first.
void VectorLowering::lower_clmul(Value v) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]);
  const bool x_high = i.imm & 1, y_high = i.imm & 0x10;
  if (x_high && y_high) {
    a_.pmull(VArr::D2, def(v), x, y);
    return;
  }
  if (x_high) {
    a_.dup(VArr::D2, kVTmp0, x, 1);
    x = kVTmp0;
  }
  if (y_high) {
    a_.dup(VArr::D2, kVTmp0, y, 1);
    y = kVTmp0;
  }
  a_.pmull(VArr::D1, def(v), x, y);
}

// pblendvb/blendvps/blendvpd: the sign bit of each mask element chooses.
void VectorLowering::lower_blend_var(Value v) {
  const Inst& i = inst(v);
  VReg x = vreg_of(i.args[0]), y = vreg_of(i.args[1]), m = vreg_of(i.args[2]);
  a_.cmlt0(arr_of(i.lane), kVTmp0, m);
  select(def(v), kVTmp0, y, x);
}

}  // namespace phybin::arm64
