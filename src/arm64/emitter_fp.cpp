// Floating point (scalar and vector), conversions, FMOV, and the crypto
// extension (AES, PMULL, SHA).
#include "arm64/emitter.h"
#include "arm64/emitter_fields.h"

namespace phybin::arm64 {

using namespace fields;

namespace {

// The scalar FP "type" field (bits 22-23): S 00, D 01, H 11.
uint32_t ftype(FSize fs) {
  switch (fs) {
    case FSize::S: return 0u << 22;
    case FSize::D: return 1u << 22;
    case FSize::H: return 3u << 22;
    default: bad_operand("floating-point size must be H, S or D");
  }
}

uint32_t fp_dp2(unsigned opcode, FSize fs, VReg d, VReg n, VReg m) {
  return 0x1E200800 | ftype(fs) | rm(m) | (opcode << 12) | rn(n) | rd(d);
}

uint32_t fp_dp1(unsigned opcode, FSize fs, VReg d, VReg n) {
  return 0x1E204000 | ftype(fs) | (opcode << 15) | rn(n) | rd(d);
}

uint32_t fp_compare(unsigned opc2, FSize fs, VReg n, VReg m) {
  return 0x1E202000 | ftype(fs) | rm(m) | rn(n) | opc2;
}

uint32_t fp_cond_compare(unsigned signalling, FSize fs, VReg n, VReg m, unsigned nzcv, Cond c) {
  return 0x1E200400 | ftype(fs) | rm(m) | cond(c, 12) | rn(n) | (signalling << 4) |
         uimm(nzcv, 4, 0, "nzcv above 15");
}

// Scalar SIMD ops on S/D only: sz (bit 22) selects double.
uint32_t sz_bit(FSize fs) {
  require(fs == FSize::S || fs == FSize::D, "scalar SIMD FP op takes S or D");
  return fs == FSize::D ? 1u << 22 : 0;
}

// Conversions between FP and general registers: rmode:opcode (5 bits) at 16.
uint32_t fp_int(unsigned rmode_opcode, Size s, FSize fs, uint8_t d, uint8_t n) {
  return 0x1E200000 | sf(s) | ftype(fs) | (rmode_opcode << 16) | reg_at(n, 5) | reg_at(d, 0);
}

// Vector FP: U (bit 29), a (bit 23), opcode; sz (bit 22) from the arrangement.
constexpr uint32_t fthree(unsigned u, unsigned a, unsigned opcode) {
  return 0x0E200400 | (u << 29) | (a << 23) | (opcode << 11);
}
constexpr uint32_t fmisc(unsigned u, unsigned a, unsigned opcode) {
  return 0x0E200800 | (u << 29) | (a << 23) | (opcode << 12);
}

uint32_t fp_vector_bits(VArr arr) {
  require_arr(arr, kArrFloat, "vector FP arrangement must be S2, S4 or D2");
  return q_bit(arr) | (arr == VArr::D2 ? 1u << 22 : 0);
}

uint32_t fp_vec3(uint32_t op, VArr arr, VReg d, VReg n, VReg m) {
  return op | fp_vector_bits(arr) | rm(m) | rn(n) | rd(d);
}

uint32_t fp_vec2(uint32_t op, VArr arr, VReg d, VReg n) {
  return op | fp_vector_bits(arr) | rn(n) | rd(d);
}

}  // namespace

// ---- Scalar arithmetic -------------------------------------------------------

void Assembler::fmul(FSize fs, VReg d, VReg n, VReg m) { emit(fp_dp2(0x0, fs, d, n, m)); }
void Assembler::fdiv(FSize fs, VReg d, VReg n, VReg m) { emit(fp_dp2(0x1, fs, d, n, m)); }
void Assembler::fadd(FSize fs, VReg d, VReg n, VReg m) { emit(fp_dp2(0x2, fs, d, n, m)); }
void Assembler::fsub(FSize fs, VReg d, VReg n, VReg m) { emit(fp_dp2(0x3, fs, d, n, m)); }
void Assembler::fmax(FSize fs, VReg d, VReg n, VReg m) { emit(fp_dp2(0x4, fs, d, n, m)); }
void Assembler::fmin(FSize fs, VReg d, VReg n, VReg m) { emit(fp_dp2(0x5, fs, d, n, m)); }
void Assembler::fmaxnm(FSize fs, VReg d, VReg n, VReg m) { emit(fp_dp2(0x6, fs, d, n, m)); }
void Assembler::fminnm(FSize fs, VReg d, VReg n, VReg m) { emit(fp_dp2(0x7, fs, d, n, m)); }

void Assembler::fmov(FSize fs, VReg d, VReg n) { emit(fp_dp1(0x0, fs, d, n)); }
void Assembler::fabs(FSize fs, VReg d, VReg n) { emit(fp_dp1(0x1, fs, d, n)); }
void Assembler::fneg(FSize fs, VReg d, VReg n) { emit(fp_dp1(0x2, fs, d, n)); }
void Assembler::fsqrt(FSize fs, VReg d, VReg n) { emit(fp_dp1(0x3, fs, d, n)); }
void Assembler::frintn(FSize fs, VReg d, VReg n) { emit(fp_dp1(0x8, fs, d, n)); }
void Assembler::frintp(FSize fs, VReg d, VReg n) { emit(fp_dp1(0x9, fs, d, n)); }
void Assembler::frintm(FSize fs, VReg d, VReg n) { emit(fp_dp1(0xA, fs, d, n)); }
void Assembler::frintz(FSize fs, VReg d, VReg n) { emit(fp_dp1(0xB, fs, d, n)); }
void Assembler::frinta(FSize fs, VReg d, VReg n) { emit(fp_dp1(0xC, fs, d, n)); }
void Assembler::frintx(FSize fs, VReg d, VReg n) { emit(fp_dp1(0xE, fs, d, n)); }
void Assembler::frinti(FSize fs, VReg d, VReg n) { emit(fp_dp1(0xF, fs, d, n)); }

void Assembler::fcvt(FSize to, VReg d, FSize from, VReg n) {
  require(to != from, "fcvt between equal sizes");
  const unsigned opcode = to == FSize::S ? 0x4 : to == FSize::D ? 0x5 : to == FSize::H ? 0x7 : 0;
  require(opcode != 0, "fcvt converts among H, S and D");
  emit(fp_dp1(opcode, from, d, n));
}

// Estimates and Newton-Raphson steps exist only as SIMD scalar ops.
void Assembler::frecpe(FSize fs, VReg d, VReg n) { emit(0x5EA1D800 | sz_bit(fs) | rn(n) | rd(d)); }
void Assembler::frsqrte(FSize fs, VReg d, VReg n) { emit(0x7EA1D800 | sz_bit(fs) | rn(n) | rd(d)); }
void Assembler::frecps(FSize fs, VReg d, VReg n, VReg m) {
  emit(0x5E20FC00 | sz_bit(fs) | rm(m) | rn(n) | rd(d));
}
void Assembler::frsqrts(FSize fs, VReg d, VReg n, VReg m) {
  emit(0x5EA0FC00 | sz_bit(fs) | rm(m) | rn(n) | rd(d));
}

// ---- Scalar compare and select -----------------------------------------------

void Assembler::fcmp(FSize fs, VReg n, VReg m) { emit(fp_compare(0x00, fs, n, m)); }
void Assembler::fcmp0(FSize fs, VReg n) { emit(fp_compare(0x08, fs, n, v0)); }
void Assembler::fcmpe(FSize fs, VReg n, VReg m) { emit(fp_compare(0x10, fs, n, m)); }
void Assembler::fcmpe0(FSize fs, VReg n) { emit(fp_compare(0x18, fs, n, v0)); }
void Assembler::fccmp(FSize fs, VReg n, VReg m, unsigned nzcv, Cond c) {
  emit(fp_cond_compare(0, fs, n, m, nzcv, c));
}
void Assembler::fccmpe(FSize fs, VReg n, VReg m, unsigned nzcv, Cond c) {
  emit(fp_cond_compare(1, fs, n, m, nzcv, c));
}
void Assembler::fcsel(FSize fs, VReg d, VReg n, VReg m, Cond c) {
  emit(0x1E200C00 | ftype(fs) | rm(m) | cond(c, 12) | rn(n) | rd(d));
}
void Assembler::fcmeq(FSize fs, VReg d, VReg n, VReg m) {
  emit(0x5E20E400 | sz_bit(fs) | rm(m) | rn(n) | rd(d));
}
void Assembler::fcmge(FSize fs, VReg d, VReg n, VReg m) {
  emit(0x7E20E400 | sz_bit(fs) | rm(m) | rn(n) | rd(d));
}
void Assembler::fcmgt(FSize fs, VReg d, VReg n, VReg m) {
  emit(0x7EA0E400 | sz_bit(fs) | rm(m) | rn(n) | rd(d));
}

// ---- Conversions and moves to/from general registers -------------------------

void Assembler::fcvtns(Size s, Reg d, FSize fs, VReg n) {
  emit(fp_int(0x00, s, fs, d.code, n.code));
}
void Assembler::fcvtas(Size s, Reg d, FSize fs, VReg n) {
  emit(fp_int(0x04, s, fs, d.code, n.code));
}
void Assembler::fcvtps(Size s, Reg d, FSize fs, VReg n) {
  emit(fp_int(0x08, s, fs, d.code, n.code));
}
void Assembler::fcvtms(Size s, Reg d, FSize fs, VReg n) {
  emit(fp_int(0x10, s, fs, d.code, n.code));
}
void Assembler::fcvtzs(Size s, Reg d, FSize fs, VReg n) {
  emit(fp_int(0x18, s, fs, d.code, n.code));
}
void Assembler::fcvtzu(Size s, Reg d, FSize fs, VReg n) {
  emit(fp_int(0x19, s, fs, d.code, n.code));
}
void Assembler::scvtf(FSize fs, VReg d, Size s, Reg n) {
  emit(fp_int(0x02, s, fs, d.code, n.code));
}
void Assembler::ucvtf(FSize fs, VReg d, Size s, Reg n) {
  emit(fp_int(0x03, s, fs, d.code, n.code));
}

namespace {
// FMOV between registers of equal width: S <-> W, D <-> X, H <-> W.
Size gpr_size_for(FSize fs) {
  require(fs == FSize::S || fs == FSize::D || fs == FSize::H, "fmov width must be H, S or D");
  return fs == FSize::D ? Size::X : Size::W;
}
}  // namespace

void Assembler::fmov(FSize fs, VReg d, Reg n) {
  emit(fp_int(0x07, gpr_size_for(fs), fs, d.code, n.code));
}
void Assembler::fmov(FSize fs, Reg d, VReg n) {
  emit(fp_int(0x06, gpr_size_for(fs), fs, d.code, n.code));
}
// The upper doubleword: sf=1, type=10, rmode=01.
void Assembler::fmov_to_high(VReg d, Reg n) { emit(0x9EAF0000 | rn(n) | rd(d)); }
void Assembler::fmov_from_high(Reg d, VReg n) { emit(0x9EAE0000 | rn(n) | rd(d)); }

// ---- Vector ------------------------------------------------------------------

void Assembler::fadd(VArr a, VReg d, VReg n, VReg m) {
  emit(fp_vec3(fthree(0, 0, 0x1A), a, d, n, m));
}
void Assembler::fsub(VArr a, VReg d, VReg n, VReg m) {
  emit(fp_vec3(fthree(0, 1, 0x1A), a, d, n, m));
}
void Assembler::fmul(VArr a, VReg d, VReg n, VReg m) {
  emit(fp_vec3(fthree(1, 0, 0x1B), a, d, n, m));
}
void Assembler::fdiv(VArr a, VReg d, VReg n, VReg m) {
  emit(fp_vec3(fthree(1, 0, 0x1F), a, d, n, m));
}
void Assembler::fmax(VArr a, VReg d, VReg n, VReg m) {
  emit(fp_vec3(fthree(0, 0, 0x1E), a, d, n, m));
}
void Assembler::fmin(VArr a, VReg d, VReg n, VReg m) {
  emit(fp_vec3(fthree(0, 1, 0x1E), a, d, n, m));
}
void Assembler::fmaxnm(VArr a, VReg d, VReg n, VReg m) {
  emit(fp_vec3(fthree(0, 0, 0x18), a, d, n, m));
}
void Assembler::fminnm(VArr a, VReg d, VReg n, VReg m) {
  emit(fp_vec3(fthree(0, 1, 0x18), a, d, n, m));
}
void Assembler::faddp(VArr a, VReg d, VReg n, VReg m) {
  emit(fp_vec3(fthree(1, 0, 0x1A), a, d, n, m));
}
void Assembler::fcmeq(VArr a, VReg d, VReg n, VReg m) {
  emit(fp_vec3(fthree(0, 0, 0x1C), a, d, n, m));
}
void Assembler::fcmge(VArr a, VReg d, VReg n, VReg m) {
  emit(fp_vec3(fthree(1, 0, 0x1C), a, d, n, m));
}
void Assembler::fcmgt(VArr a, VReg d, VReg n, VReg m) {
  emit(fp_vec3(fthree(1, 1, 0x1C), a, d, n, m));
}
void Assembler::frecps(VArr a, VReg d, VReg n, VReg m) {
  emit(fp_vec3(fthree(0, 0, 0x1F), a, d, n, m));
}
void Assembler::frsqrts(VArr a, VReg d, VReg n, VReg m) {
  emit(fp_vec3(fthree(0, 1, 0x1F), a, d, n, m));
}

void Assembler::fabs(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(0, 1, 0x0F), a, d, n)); }
void Assembler::fneg(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(1, 1, 0x0F), a, d, n)); }
void Assembler::fsqrt(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(1, 1, 0x1F), a, d, n)); }
void Assembler::frintn(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(0, 0, 0x18), a, d, n)); }
void Assembler::frintm(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(0, 0, 0x19), a, d, n)); }
void Assembler::frintp(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(0, 1, 0x18), a, d, n)); }
void Assembler::frintz(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(0, 1, 0x19), a, d, n)); }
void Assembler::frinta(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(1, 0, 0x18), a, d, n)); }
void Assembler::frintx(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(1, 0, 0x19), a, d, n)); }
void Assembler::frinti(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(1, 1, 0x19), a, d, n)); }
void Assembler::frecpe(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(0, 1, 0x1D), a, d, n)); }
void Assembler::frsqrte(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(1, 1, 0x1D), a, d, n)); }
void Assembler::fcmgt0(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(0, 1, 0x0C), a, d, n)); }
void Assembler::fcmeq0(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(0, 1, 0x0D), a, d, n)); }
void Assembler::fcmlt0(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(0, 1, 0x0E), a, d, n)); }
void Assembler::fcmge0(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(1, 1, 0x0C), a, d, n)); }
void Assembler::fcmle0(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(1, 1, 0x0D), a, d, n)); }
void Assembler::fcvtns(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(0, 0, 0x1A), a, d, n)); }
void Assembler::fcvtzs(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(0, 1, 0x1B), a, d, n)); }
void Assembler::fcvtzu(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(1, 1, 0x1B), a, d, n)); }
void Assembler::scvtf(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(0, 0, 0x1D), a, d, n)); }
void Assembler::ucvtf(VArr a, VReg d, VReg n) { emit(fp_vec2(fmisc(1, 0, 0x1D), a, d, n)); }

// sz=1: double <-> single.  Q picks the upper half of the narrow side.
void Assembler::fcvtn(VArr nw, VReg d, VReg n) {
  require(nw == VArr::S2 || nw == VArr::S4, "fcvtn narrow arrangement is S2 or S4");
  emit(0x0E616800 | q_bit(nw) | rn(n) | rd(d));
}
void Assembler::fcvtl(VArr nw, VReg d, VReg n) {
  require(nw == VArr::S2 || nw == VArr::S4, "fcvtl narrow arrangement is S2 or S4");
  emit(0x0E617800 | q_bit(nw) | rn(n) | rd(d));
}

// ---- Crypto ------------------------------------------------------------------

void Assembler::aese(VReg d, VReg n) { emit(0x4E284800 | rn(n) | rd(d)); }
void Assembler::aesd(VReg d, VReg n) { emit(0x4E285800 | rn(n) | rd(d)); }
void Assembler::aesmc(VReg d, VReg n) { emit(0x4E286800 | rn(n) | rd(d)); }
void Assembler::aesimc(VReg d, VReg n) { emit(0x4E287800 | rn(n) | rd(d)); }

namespace {
uint32_t sha3(unsigned opcode, VReg d, VReg n, VReg m) {
  return 0x5E000000 | rm(m) | (opcode << 12) | rn(n) | rd(d);
}
uint32_t sha2(unsigned opcode, VReg d, VReg n) {
  return 0x5E280800 | (opcode << 12) | rn(n) | rd(d);
}
}  // namespace

void Assembler::sha1c(VReg d, VReg n, VReg m) { emit(sha3(0, d, n, m)); }
void Assembler::sha1p(VReg d, VReg n, VReg m) { emit(sha3(1, d, n, m)); }
void Assembler::sha1m(VReg d, VReg n, VReg m) { emit(sha3(2, d, n, m)); }
void Assembler::sha1su0(VReg d, VReg n, VReg m) { emit(sha3(3, d, n, m)); }
void Assembler::sha256h(VReg d, VReg n, VReg m) { emit(sha3(4, d, n, m)); }
void Assembler::sha256h2(VReg d, VReg n, VReg m) { emit(sha3(5, d, n, m)); }
void Assembler::sha256su1(VReg d, VReg n, VReg m) { emit(sha3(6, d, n, m)); }
void Assembler::sha1h(VReg d, VReg n) { emit(sha2(0, d, n)); }
void Assembler::sha1su1(VReg d, VReg n) { emit(sha2(1, d, n)); }
void Assembler::sha256su0(VReg d, VReg n) { emit(sha2(2, d, n)); }

}  // namespace phybin::arm64
