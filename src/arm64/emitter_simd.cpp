// Advanced SIMD, integer side: element moves, three-same and two-register
// operations, across-lanes reductions, shifts by immediate, widening and
// narrowing, permutes and table lookups.
#include "arm64/emitter.h"
#include "arm64/emitter_fields.h"

namespace phybin::arm64 {

using namespace fields;

namespace {

// U (bit 29) and a 5-bit opcode at bit 11: the "three same" class.
constexpr uint32_t three(unsigned u, unsigned opcode) {
  return 0x0E200400 | (u << 29) | (opcode << 11);
}
// U and a 5-bit opcode at bit 12: the "two-register miscellaneous" class.
constexpr uint32_t misc(unsigned u, unsigned opcode) {
  return 0x0E200800 | (u << 29) | (opcode << 12);
}
// U and a 5-bit opcode at bit 12: the "across lanes" class.
constexpr uint32_t across(unsigned u, unsigned opcode) {
  return 0x0E300800 | (u << 29) | (opcode << 12);
}

uint32_t three_same(uint32_t op, uint32_t allowed, VArr arr, VReg d, VReg n, VReg m) {
  require_arr(arr, allowed, "arrangement not available for this instruction");
  return op | q_bit(arr) | size_bits(arr) | rm(m) | rn(n) | rd(d);
}

uint32_t two_misc(uint32_t op, uint32_t allowed, VArr arr, VReg d, VReg n) {
  require_arr(arr, allowed, "arrangement not available for this instruction");
  return op | q_bit(arr) | size_bits(arr) | rn(n) | rd(d);
}

// The bitwise ops fix the size field (it selects the operation).
uint32_t bitwise(uint32_t op, VArr arr, VReg d, VReg n, VReg m) {
  require_arr(arr, kArrBytes, "bitwise vector ops take B8 or B16");
  return op | q_bit(arr) | rm(m) | rn(n) | rd(d);
}

// imm5 of an element operand: index above a one-hot lane-size marker.
uint32_t imm5(FSize lane, unsigned index) {
  const unsigned size = static_cast<unsigned>(lane);
  require(size <= 3, "element lane must be B, H, S or D");
  require(index < (16u >> size), "element index");
  return ((index << (size + 1)) | (1u << size)) << 16;
}

// Shift-by-immediate class: immh:immb (7 bits) at bit 16.
uint32_t shift_imm(uint32_t op, VArr arr, VReg d, VReg n, unsigned immh_immb) {
  return op | q_bit(arr) | (immh_immb << 16) | rn(n) | rd(d);
}
constexpr uint32_t shift_op(unsigned u, unsigned opcode) {
  return 0x0F000400 | (u << 29) | (opcode << 11);
}

unsigned lane_bits(VArr arr) { return 8u << varr_lane_log2(arr); }

uint32_t left_shift(uint32_t op, VArr arr, VReg d, VReg n, unsigned shift) {
  require_arr(arr, kArrAllButD1, "arrangement not available for a vector shift");
  require(shift < lane_bits(arr), "left shift amount");
  return shift_imm(op, arr, d, n, lane_bits(arr) + shift);
}

uint32_t right_shift(uint32_t op, VArr arr, VReg d, VReg n, unsigned shift) {
  require_arr(arr, kArrAllButD1, "arrangement not available for a vector shift");
  require(shift >= 1 && shift <= lane_bits(arr), "right shift amount");
  return shift_imm(op, arr, d, n, 2 * lane_bits(arr) - shift);
}

// Narrowing (xtn...) and widening (ushll, smull...) ops are encoded with the
// narrow arrangement's size and Q; the wide side is implied.
void require_narrow(VArr narrow) {
  require_arr(narrow, kArrBHS, "narrow arrangement must be B8/B16/H4/H8/S2/S4");
}

constexpr uint32_t permute(unsigned opcode) { return 0x0E000800 | (opcode << 12); }

}  // namespace

// ---- Moves -------------------------------------------------------------------

void Assembler::ins(FSize lane, VReg d, unsigned index, Reg n) {
  emit(0x4E001C00 | imm5(lane, index) | rn(n) | rd(d));
}
void Assembler::ins(FSize lane, VReg d, unsigned index, VReg n, unsigned src_index) {
  imm5(lane, src_index);  // validates the source index
  const uint32_t imm4 = src_index << static_cast<unsigned>(lane);
  emit(0x6E000400 | imm5(lane, index) | (imm4 << 11) | rn(n) | rd(d));
}
void Assembler::umov(FSize lane, Reg d, VReg n, unsigned index) {
  emit(0x0E003C00 | (lane == FSize::D ? 1u << 30 : 0) | imm5(lane, index) | rn(n) | rd(d));
}
void Assembler::smov(Size s, FSize lane, Reg d, VReg n, unsigned index) {
  require(lane == FSize::B || lane == FSize::H || (lane == FSize::S && is64(s)), "smov lane");
  emit(0x0E002C00 | (is64(s) ? 1u << 30 : 0) | imm5(lane, index) | rn(n) | rd(d));
}
void Assembler::dup(VArr arr, VReg d, VReg n, unsigned index) {
  require(arr != VArr::D1, "dup arrangement");
  const auto lane = static_cast<FSize>(varr_lane_log2(arr));
  emit(0x0E000400 | q_bit(arr) | imm5(lane, index) | rn(n) | rd(d));
}
void Assembler::dup(VArr arr, VReg d, Reg n) {
  require(arr != VArr::D1, "dup arrangement");
  const auto lane = static_cast<FSize>(varr_lane_log2(arr));
  emit(0x0E000C00 | q_bit(arr) | imm5(lane, 0) | rn(n) | rd(d));
}
void Assembler::dup(FSize lane, VReg d, VReg n, unsigned index) {
  emit(0x5E000400 | imm5(lane, index) | rn(n) | rd(d));
}
void Assembler::mov(VArr arr, VReg d, VReg n) { orr(arr, d, n, n); }

void Assembler::movi(VArr arr, VReg d, uint64_t imm) {
  // Modified immediate: abc at bits 16-18, defgh at 5-9, cmode 1110.
  uint32_t op = 0, imm8 = 0;
  if (arr == VArr::B8 || arr == VArr::B16) {
    require(imm <= 0xFF, "movi byte immediate");
    imm8 = static_cast<uint32_t>(imm);
  } else {
    require(arr == VArr::D1 || arr == VArr::D2, "movi supports B8, B16, D1, D2");
    op = 1u << 29;  // 64-bit form: each imm8 bit is a whole byte
    for (unsigned i = 0; i < 8; ++i) {
      const uint64_t byte = (imm >> (8 * i)) & 0xFF;
      require(byte == 0 || byte == 0xFF, "movi 64-bit immediate bytes must be 0x00 or 0xFF");
      imm8 |= (byte ? 1u : 0u) << i;
    }
  }
  emit(0x0F00E400 | op | q_bit(arr) | ((imm8 >> 5) << 16) | ((imm8 & 0x1F) << 5) | rd(d));
}

// ---- Three same --------------------------------------------------------------

void Assembler::add(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(0, 0x10), kArrAllButD1, a, d, n, m));
}
void Assembler::sub(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(1, 0x10), kArrAllButD1, a, d, n, m));
}
void Assembler::mul(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(0, 0x13), kArrBHS, a, d, n, m));
}
void Assembler::addp(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(0, 0x17), kArrAllButD1, a, d, n, m));
}
void Assembler::cmeq(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(1, 0x11), kArrAllButD1, a, d, n, m));
}
void Assembler::cmtst(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(0, 0x11), kArrAllButD1, a, d, n, m));
}
void Assembler::cmgt(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(0, 0x06), kArrAllButD1, a, d, n, m));
}
void Assembler::cmge(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(0, 0x07), kArrAllButD1, a, d, n, m));
}
void Assembler::cmhi(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(1, 0x06), kArrAllButD1, a, d, n, m));
}
void Assembler::cmhs(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(1, 0x07), kArrAllButD1, a, d, n, m));
}
void Assembler::sqadd(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(0, 0x01), kArrAllButD1, a, d, n, m));
}
void Assembler::uqadd(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(1, 0x01), kArrAllButD1, a, d, n, m));
}
void Assembler::sqsub(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(0, 0x05), kArrAllButD1, a, d, n, m));
}
void Assembler::uqsub(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(1, 0x05), kArrAllButD1, a, d, n, m));
}
void Assembler::sshl(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(0, 0x08), kArrAllButD1, a, d, n, m));
}
void Assembler::ushl(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(1, 0x08), kArrAllButD1, a, d, n, m));
}
void Assembler::smax(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(0, 0x0C), kArrBHS, a, d, n, m));
}
void Assembler::umax(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(1, 0x0C), kArrBHS, a, d, n, m));
}
void Assembler::smin(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(0, 0x0D), kArrBHS, a, d, n, m));
}
void Assembler::umin(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(1, 0x0D), kArrBHS, a, d, n, m));
}
void Assembler::smaxp(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(0, 0x14), kArrBHS, a, d, n, m));
}
void Assembler::umaxp(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(1, 0x14), kArrBHS, a, d, n, m));
}
void Assembler::sminp(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(0, 0x15), kArrBHS, a, d, n, m));
}
void Assembler::uminp(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(1, 0x15), kArrBHS, a, d, n, m));
}
void Assembler::urhadd(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(three(1, 0x02), kArrBHS, a, d, n, m));
}

// Bitwise: the size field picks the operation (opcode 00011).
void Assembler::and_(VArr a, VReg d, VReg n, VReg m) { emit(bitwise(0x0E201C00, a, d, n, m)); }
void Assembler::bic(VArr a, VReg d, VReg n, VReg m) { emit(bitwise(0x0E601C00, a, d, n, m)); }
void Assembler::orr(VArr a, VReg d, VReg n, VReg m) { emit(bitwise(0x0EA01C00, a, d, n, m)); }
void Assembler::orn(VArr a, VReg d, VReg n, VReg m) { emit(bitwise(0x0EE01C00, a, d, n, m)); }
void Assembler::eor(VArr a, VReg d, VReg n, VReg m) { emit(bitwise(0x2E201C00, a, d, n, m)); }
void Assembler::bsl(VArr a, VReg d, VReg n, VReg m) { emit(bitwise(0x2E601C00, a, d, n, m)); }
void Assembler::bit(VArr a, VReg d, VReg n, VReg m) { emit(bitwise(0x2EA01C00, a, d, n, m)); }
void Assembler::bif(VArr a, VReg d, VReg n, VReg m) { emit(bitwise(0x2EE01C00, a, d, n, m)); }

// ---- Two-register miscellaneous ----------------------------------------------

void Assembler::cmgt0(VArr a, VReg d, VReg n) {
  emit(two_misc(misc(0, 0x08), kArrAllButD1, a, d, n));
}
void Assembler::cmeq0(VArr a, VReg d, VReg n) {
  emit(two_misc(misc(0, 0x09), kArrAllButD1, a, d, n));
}
void Assembler::cmlt0(VArr a, VReg d, VReg n) {
  emit(two_misc(misc(0, 0x0A), kArrAllButD1, a, d, n));
}
void Assembler::cmge0(VArr a, VReg d, VReg n) {
  emit(two_misc(misc(1, 0x08), kArrAllButD1, a, d, n));
}
void Assembler::cmle0(VArr a, VReg d, VReg n) {
  emit(two_misc(misc(1, 0x09), kArrAllButD1, a, d, n));
}
void Assembler::abs(VArr a, VReg d, VReg n) {
  emit(two_misc(misc(0, 0x0B), kArrAllButD1, a, d, n));
}
void Assembler::neg(VArr a, VReg d, VReg n) {
  emit(two_misc(misc(1, 0x0B), kArrAllButD1, a, d, n));
}
void Assembler::mvn(VArr a, VReg d, VReg n) { emit(two_misc(misc(1, 0x05), kArrBytes, a, d, n)); }
void Assembler::cnt(VArr a, VReg d, VReg n) { emit(two_misc(misc(0, 0x05), kArrBytes, a, d, n)); }
void Assembler::rev16(VArr a, VReg d, VReg n) { emit(two_misc(misc(0, 0x01), kArrBytes, a, d, n)); }
void Assembler::rev32(VArr a, VReg d, VReg n) { emit(two_misc(misc(1, 0x00), kArrBH, a, d, n)); }
void Assembler::rev64(VArr a, VReg d, VReg n) { emit(two_misc(misc(0, 0x00), kArrBHS, a, d, n)); }

// ---- Across lanes (no 2S: use a pairwise op) ---------------------------------

namespace {
constexpr uint32_t kArrAcross = kArrBH | arr_bit(VArr::S4);
}  // namespace

void Assembler::addv(VArr a, VReg d, VReg n) {
  emit(two_misc(across(0, 0x1B), kArrAcross, a, d, n));
}
void Assembler::saddlv(VArr a, VReg d, VReg n) {
  emit(two_misc(across(0, 0x03), kArrAcross, a, d, n));
}
void Assembler::uaddlv(VArr a, VReg d, VReg n) {
  emit(two_misc(across(1, 0x03), kArrAcross, a, d, n));
}
void Assembler::smaxv(VArr a, VReg d, VReg n) {
  emit(two_misc(across(0, 0x0A), kArrAcross, a, d, n));
}
void Assembler::umaxv(VArr a, VReg d, VReg n) {
  emit(two_misc(across(1, 0x0A), kArrAcross, a, d, n));
}
void Assembler::sminv(VArr a, VReg d, VReg n) {
  emit(two_misc(across(0, 0x1A), kArrAcross, a, d, n));
}
void Assembler::uminv(VArr a, VReg d, VReg n) {
  emit(two_misc(across(1, 0x1A), kArrAcross, a, d, n));
}

// ---- Narrowing and widening --------------------------------------------------

void Assembler::xtn(VArr nw, VReg d, VReg n) {
  require_narrow(nw);
  emit(two_misc(misc(0, 0x12), kArrBHS, nw, d, n));
}
void Assembler::sqxtun(VArr nw, VReg d, VReg n) {
  require_narrow(nw);
  emit(two_misc(misc(1, 0x12), kArrBHS, nw, d, n));
}
void Assembler::sqxtn(VArr nw, VReg d, VReg n) {
  require_narrow(nw);
  emit(two_misc(misc(0, 0x14), kArrBHS, nw, d, n));
}
void Assembler::uqxtn(VArr nw, VReg d, VReg n) {
  require_narrow(nw);
  emit(two_misc(misc(1, 0x14), kArrBHS, nw, d, n));
}

void Assembler::shrn(VArr nw, VReg d, VReg n, unsigned shift) {
  require_narrow(nw);
  require(shift >= 1 && shift <= lane_bits(nw), "shrn shift amount");
  emit(shift_imm(shift_op(0, 0x10), nw, d, n, 2 * lane_bits(nw) - shift));
}
void Assembler::rshrn(VArr nw, VReg d, VReg n, unsigned shift) {
  require_narrow(nw);
  require(shift >= 1 && shift <= lane_bits(nw), "rshrn shift amount");
  emit(shift_imm(shift_op(0, 0x11), nw, d, n, 2 * lane_bits(nw) - shift));
}
void Assembler::ushll(VArr nw, VReg d, VReg n, unsigned shift) {
  require_narrow(nw);
  require(shift < lane_bits(nw), "ushll shift amount");
  emit(shift_imm(shift_op(1, 0x14), nw, d, n, lane_bits(nw) + shift));
}
void Assembler::sshll(VArr nw, VReg d, VReg n, unsigned shift) {
  require_narrow(nw);
  require(shift < lane_bits(nw), "sshll shift amount");
  emit(shift_imm(shift_op(0, 0x14), nw, d, n, lane_bits(nw) + shift));
}

// "Three different" class: U, opcode at bit 12.
namespace {
uint32_t three_different(unsigned u, unsigned opcode, VArr nw, VReg d, VReg n, VReg m) {
  return 0x0E200000 | (u << 29) | (opcode << 12) | q_bit(nw) | size_bits(nw) | rm(m) | rn(n) |
         rd(d);
}
}  // namespace

void Assembler::smull(VArr nw, VReg d, VReg n, VReg m) {
  require_narrow(nw);
  emit(three_different(0, 0xC, nw, d, n, m));
}
void Assembler::umull(VArr nw, VReg d, VReg n, VReg m) {
  require_narrow(nw);
  emit(three_different(1, 0xC, nw, d, n, m));
}
void Assembler::pmull(VArr nw, VReg d, VReg n, VReg m) {
  require_arr(nw, kArrBytes | arr_bit(VArr::D1) | arr_bit(VArr::D2), "pmull arrangement");
  emit(three_different(0, 0xE, nw, d, n, m));
}

// ---- Shifts by immediate -----------------------------------------------------

void Assembler::shl(VArr a, VReg d, VReg n, unsigned sh) {
  emit(left_shift(shift_op(0, 0x0A), a, d, n, sh));
}
void Assembler::sshr(VArr a, VReg d, VReg n, unsigned sh) {
  emit(right_shift(shift_op(0, 0x00), a, d, n, sh));
}
void Assembler::ushr(VArr a, VReg d, VReg n, unsigned sh) {
  emit(right_shift(shift_op(1, 0x00), a, d, n, sh));
}
void Assembler::ssra(VArr a, VReg d, VReg n, unsigned sh) {
  emit(right_shift(shift_op(0, 0x02), a, d, n, sh));
}
void Assembler::usra(VArr a, VReg d, VReg n, unsigned sh) {
  emit(right_shift(shift_op(1, 0x02), a, d, n, sh));
}

// ---- Permutes and tables -----------------------------------------------------

void Assembler::uzp1(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(permute(1), kArrAllButD1, a, d, n, m));
}
void Assembler::trn1(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(permute(2), kArrAllButD1, a, d, n, m));
}
void Assembler::zip1(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(permute(3), kArrAllButD1, a, d, n, m));
}
void Assembler::uzp2(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(permute(5), kArrAllButD1, a, d, n, m));
}
void Assembler::trn2(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(permute(6), kArrAllButD1, a, d, n, m));
}
void Assembler::zip2(VArr a, VReg d, VReg n, VReg m) {
  emit(three_same(permute(7), kArrAllButD1, a, d, n, m));
}

void Assembler::ext(VArr a, VReg d, VReg n, VReg m, unsigned byte_index) {
  require_arr(a, kArrBytes, "ext takes B8 or B16");
  require(byte_index < (varr_is_q(a) ? 16u : 8u), "ext byte index");
  emit(0x2E000000 | q_bit(a) | rm(m) | (byte_index << 11) | rn(n) | rd(d));
}

namespace {
uint32_t table(uint32_t op, VArr a, VReg d, VReg first, unsigned count, VReg m) {
  require_arr(a, kArrBytes, "tbl/tbx take B8 or B16");
  require(count >= 1 && count <= 4, "tbl/tbx take 1 to 4 table registers");
  return op | q_bit(a) | rm(m) | ((count - 1) << 13) | rn(first) | rd(d);
}
}  // namespace

void Assembler::tbl(VArr a, VReg d, VReg t, unsigned count, VReg m) {
  emit(table(0x0E000000, a, d, t, count, m));
}
void Assembler::tbx(VArr a, VReg d, VReg t, unsigned count, VReg m) {
  emit(table(0x0E001000, a, d, t, count, m));
}

}  // namespace phybin::arm64
