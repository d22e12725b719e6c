// Checked bit-field helpers shared by the emitter's .cpp files (not part of
// the emitter's API).  Every helper validates its operand, so an encoder
// cannot silently spill a too-large value into a neighbouring field.
#pragma once

#include <cstdint>

#include "arm64/emitter_types.h"

namespace phybin::arm64::fields {

// Throws phybin::Error(PHYBIN_ERR_INTERNAL) naming the bad operand.
[[noreturn]] void bad_operand(const char* what);

inline void require(bool ok, const char* what) {
  if (!ok) bad_operand(what);
}

inline uint32_t reg_at(uint8_t code, unsigned shift) {
  require(code < 32, "register number above 31");
  return static_cast<uint32_t>(code) << shift;
}

// The standard register slots: Rd/Rt bits 0-4, Rn 5-9, Ra/Rt2 10-14, Rm/Rs 16-20.
inline uint32_t rd(Reg r) { return reg_at(r.code, 0); }
inline uint32_t rn(Reg r) { return reg_at(r.code, 5); }
inline uint32_t ra(Reg r) { return reg_at(r.code, 10); }
inline uint32_t rm(Reg r) { return reg_at(r.code, 16); }
inline uint32_t rd(VReg r) { return reg_at(r.code, 0); }
inline uint32_t rn(VReg r) { return reg_at(r.code, 5); }
inline uint32_t ra(VReg r) { return reg_at(r.code, 10); }
inline uint32_t rm(VReg r) { return reg_at(r.code, 16); }

inline bool is64(Size s) { return s == Size::X; }
inline uint32_t sf(Size s) { return is64(s) ? 1u << 31 : 0; }
inline unsigned reg_bits(Size s) { return is64(s) ? 64 : 32; }

// An unsigned value of `bits` bits placed at `shift`.
inline uint32_t uimm(uint64_t value, unsigned bits, unsigned shift, const char* what) {
  require(value < (uint64_t{1} << bits), what);
  return static_cast<uint32_t>(value) << shift;
}

inline bool fits_signed(int64_t value, unsigned bits) {
  const int64_t limit = int64_t{1} << (bits - 1);
  return value >= -limit && value < limit;
}

// A signed value of `bits` bits (two's complement) placed at `shift`.
inline uint32_t simm(int64_t value, unsigned bits, unsigned shift, const char* what) {
  require(fits_signed(value, bits), what);
  const uint64_t mask = (uint64_t{1} << bits) - 1;
  return static_cast<uint32_t>(static_cast<uint64_t>(value) & mask) << shift;
}

inline uint32_t cond(Cond c, unsigned shift) { return static_cast<uint32_t>(c) << shift; }

// Q (bit 30) and size (bits 22-23) of a vector arrangement.
inline uint32_t q_bit(VArr a) { return varr_is_q(a) ? 1u << 30 : 0; }
inline uint32_t size_bits(VArr a) { return varr_lane_log2(a) << 22; }

// Sets of arrangements an instruction accepts (bit i = VArr value i).
constexpr uint32_t arr_bit(VArr a) { return 1u << static_cast<unsigned>(a); }
inline constexpr uint32_t kArrBytes = arr_bit(VArr::B8) | arr_bit(VArr::B16);
inline constexpr uint32_t kArrBH = kArrBytes | arr_bit(VArr::H4) | arr_bit(VArr::H8);
inline constexpr uint32_t kArrBHS = kArrBH | arr_bit(VArr::S2) | arr_bit(VArr::S4);
inline constexpr uint32_t kArrAllButD1 = kArrBHS | arr_bit(VArr::D2);
inline constexpr uint32_t kArrFloat = arr_bit(VArr::S2) | arr_bit(VArr::S4) | arr_bit(VArr::D2);

inline void require_arr(VArr a, uint32_t allowed, const char* what) {
  require((allowed & arr_bit(a)) != 0, what);
}

}  // namespace phybin::arm64::fields
