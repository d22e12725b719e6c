// Internals shared by the soft-float files: an unpacked finite value with
// a 128-bit significand, the one rounding routine every result goes
// through, and NaN propagation.
#pragma once

#include "x86/x87_float80.h"

namespace phybin::x87 {

using u128 = unsigned __int128;

// A finite nonzero value (hi:lo) * 2^(exp - 127): `exp` is the unbiased
// exponent of hi's bit 63, which is set.  Bits below lo are folded into
// lo's bit 0 ("sticky") by whoever computed it.
struct Unpacked {
  bool sign = false;
  int32_t exp = 0;
  uint64_t hi = 0, lo = 0;
};

inline u128 wide(const Unpacked& u) { return (u128{u.hi} << 64) | u.lo; }
inline void set_wide(Unpacked& u, u128 v) {
  u.hi = static_cast<uint64_t>(v >> 64);
  u.lo = static_cast<uint64_t>(v);
}

// Count of leading zeros of a nonzero 128-bit value.
inline int clz128(u128 v) {
  uint64_t hi = static_cast<uint64_t>(v >> 64);
  return hi ? __builtin_clzll(hi) : 64 + __builtin_clzll(static_cast<uint64_t>(v));
}

// Shifts right by `n` (any amount), or-ing what falls off into bit 0.
inline u128 shift_right_sticky(u128 v, int n) {
  if (n <= 0) return v;
  if (n >= 128) return v != 0;
  u128 lost = v & ((u128{1} << n) - 1);
  return (v >> n) | (lost != 0);
}

// Left-aligns a nonzero 128-bit significand whose bit 127 represents
// 2^top_exp; returns the Unpacked form.
Unpacked normalize(bool sign, int32_t top_exp, u128 v);

// Finite nonzero Float80 (normal, denormal, pseudo-denormal) -> Unpacked.
Unpacked unpack(Float80 a);

// The shape of a destination: significand bits and exponent range.
struct Format {
  int precision;       // significand bits including the integer bit
  int32_t bias;
  int32_t max_biased;  // largest biased exponent of a finite value
};
constexpr Format kFormatF32{24, 127, 254};
constexpr Format kFormatF64{53, 1023, 2046};
inline Format format80(int precision) { return Format{precision, kBias, 0x7ffe}; }

// A rounded value: biased exponent (0 for denormals and zeros) and the
// significand left-aligned in 64 bits (integer bit in bit 63 for normals).
struct Rounded {
  bool sign = false;
  bool infinite = false;
  int32_t biased = 0;
  uint64_t sig = 0;
};

// Rounds per env.rc to f.precision bits, denormalizing below the exponent
// range and handling masked overflow/underflow; raises PE, UE, OE and
// records a round-up in C1.
Rounded round_value(FpEnv& env, const Unpacked& u, const Format& f);
Float80 round_pack80(FpEnv& env, const Unpacked& u);
Float80 pack80(const Rounded& r);

// Signed zero and infinity.
inline Float80 zero80(bool sign) { return make80(sign, 0, 0); }
inline Float80 inf80(bool sign) { return make80(sign, kMaxExp, kIntBit); }
inline Float80 quiet(Float80 a) { return Float80{a.sig | kQuietBit, a.se}; }

// For a two-operand operation: if either operand is a NaN or an
// unsupported encoding, sets `out` to the x87's result and returns true.
bool nan_operands(FpEnv& env, Float80 a, Float80 b, Float80& out);
// One-operand form.
bool nan_operand(FpEnv& env, Float80 a, Float80& out);
// Raises DE when `a` is a denormal or pseudo-denormal, or when it is
// operand `which` (0 or 1) and env.denormal_source says it was one.
void check_denormal(FpEnv& env, Float80 a, int which = -1);

// Rounds a finite nonzero value to an integer magnitude per rc; false if
// it needs more than 64 bits.  inexact/up say whether it was exact and
// whether it rounded up in magnitude.
bool round_magnitude(const Unpacked& u, uint8_t rc, uint64_t& mag, bool& inexact, bool& up);

inline bool is_finite_nonzero(Class c) {
  return c == Class::Normal || c == Class::Denormal || c == Class::PseudoDenormal;
}

}  // namespace phybin::x87
