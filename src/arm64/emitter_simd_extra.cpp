// SIMD instructions the SSE lowering needs beyond the emitter's core set:
// absolute difference and pairwise widening adds (psadbw), FP reductions
// (NaN checks), shifted 32-bit MOVI/MVNI and FMOV immediates (constants).
#include "arm64/emitter.h"
#include "arm64/emitter_fields.h"

namespace phybin::arm64 {

using namespace fields;

void Assembler::uabd(VArr a, VReg d, VReg n, VReg m) {
  require_arr(a, kArrBHS, "uabd takes B, H or S lanes");
  emit(0x2E207400 | q_bit(a) | size_bits(a) | rm(m) | rn(n) | rd(d));
}

void Assembler::uaddlp(VArr src, VReg d, VReg n) {
  require_arr(src, kArrBHS, "uaddlp source must be B8/B16/H4/H8/S2/S4");
  emit(0x2E202800 | q_bit(src) | size_bits(src) | rn(n) | rd(d));
}

void Assembler::fmaxv(VReg sd, VReg n) { emit(0x6E30F800 | rn(n) | rd(sd)); }

void Assembler::fmaxp(FSize fs, VReg d, VReg n) {
  require(fs == FSize::S || fs == FSize::D, "scalar fmaxp takes S (2s) or D (2d)");
  emit(0x7E30F800 | (fs == FSize::D ? 1u << 22 : 0) | rn(n) | rd(d));
}

namespace {
// Advanced SIMD modified immediate: op (bit 29), cmode (12-15), imm8 split
// into abc (16-18) and defgh (5-9).
uint32_t modified_imm(unsigned op, unsigned cmode, uint8_t imm8) {
  return 0x0F000400 | (op << 29) | (cmode << 12) | ((imm8 >> 5u) << 16) | ((imm8 & 0x1Fu) << 5);
}

void require_s_arr(VArr a) {
  require(a == VArr::S2 || a == VArr::S4, "32-bit shifted immediate takes S2 or S4");
}
}  // namespace

void Assembler::movi_s(VArr a, VReg d, uint8_t imm8, unsigned shift) {
  require_s_arr(a);
  require(shift % 8 == 0 && shift <= 24, "movi shift must be 0, 8, 16 or 24");
  emit(modified_imm(0, (shift / 8) << 1, imm8) | q_bit(a) | rd(d));
}

void Assembler::mvni_s(VArr a, VReg d, uint8_t imm8, unsigned shift) {
  require_s_arr(a);
  require(shift % 8 == 0 && shift <= 24, "mvni shift must be 0, 8, 16 or 24");
  emit(modified_imm(1, (shift / 8) << 1, imm8) | q_bit(a) | rd(d));
}

void Assembler::fmov_imm(VArr a, VReg d, uint8_t imm8) {
  require_arr(a, kArrFloat, "fmov immediate takes S2, S4 or D2");
  emit(modified_imm(a == VArr::D2 ? 1 : 0, 0xF, imm8) | q_bit(a) | rd(d));
}

void Assembler::fmov_imm(FSize fs, VReg d, uint8_t imm8) {
  require(fs == FSize::S || fs == FSize::D, "scalar fmov immediate takes S or D");
  emit(0x1E201000 | (fs == FSize::D ? 1u << 22 : 0) | (static_cast<uint32_t>(imm8) << 13) | rd(d));
}

}  // namespace phybin::arm64
