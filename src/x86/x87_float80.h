// 80-bit extended floating point in software, with the x87's rules: an
// explicit integer bit, precision control (24/53/64-bit significands with
// the 15-bit exponent range kept), four rounding modes, masked-exception
// results and the FSW exception bits.  Integer arithmetic only, so the
// results do not depend on the host's floating point (AArch64 has no
// 80-bit type).  Used by the x87 helpers; tested bit for bit against the
// host's x87 in tests/unit/x87_float80_test.cpp.
#pragma once

#include <cstdint>

namespace phybin::x87 {

// An x87 register or m80 value: significand with explicit integer bit
// (bit 63) and sign/exponent word (sign in bit 15, biased exponent 14..0).
struct Float80 {
  uint64_t sig = 0;
  uint16_t se = 0;

  bool sign() const { return se >> 15; }
  uint16_t exp() const { return se & 0x7fff; }
  bool operator==(const Float80&) const = default;
};

constexpr int kBias = 16383;
constexpr uint16_t kMaxExp = 0x7fff;
constexpr uint64_t kIntBit = uint64_t{1} << 63;
constexpr uint64_t kQuietBit = uint64_t{1} << 62;

// The "real indefinite": the default NaN of invalid operations.
constexpr Float80 kIndefinite{0xc000000000000000ull, 0xffff};

inline Float80 make80(bool sign, uint16_t exp, uint64_t sig) {
  return Float80{sig, static_cast<uint16_t>((sign ? 0x8000 : 0) | exp)};
}
inline Float80 negate(Float80 a) { return Float80{a.sig, static_cast<uint16_t>(a.se ^ 0x8000)}; }
inline Float80 absolute(Float80 a) { return Float80{a.sig, static_cast<uint16_t>(a.se & 0x7fff)}; }

// FSW bits an operation may set.  kRoundedUp is C1 ("the result was
// rounded up in magnitude").
enum Status : uint16_t {
  kInvalid = 1 << 0,
  kDenormal = 1 << 1,
  kZeroDivide = 1 << 2,
  kOverflow = 1 << 3,
  kUnderflow = 1 << 4,
  kInexact = 1 << 5,
  kStackFault = 1 << 6,
  kC0 = 1 << 8,
  kRoundedUp = 1 << 9,  // C1
  kC2 = 1 << 10,
  kC3 = 1 << 14,
};

// FCW.RC encoding.
enum Rounding : uint8_t { kNearest = 0, kDown = 1, kUp = 2, kTowardZero = 3 };

// Rounding controls of one operation and the status bits it raised.
struct FpEnv {
  uint8_t rc = kNearest;
  uint8_t precision = 64;  // significand bits: 24, 53 or 64 (FCW.PC)
  // Bit 0/1: operand a/b of add, sub, mul, div, compare was a float32 or
  // float64 denormal in memory (normal once widened, but still DE).
  uint8_t denormal_source = 0;
  uint16_t status = 0;

  // precision_control = false for operations the PC field does not affect.
  static FpEnv from_fcw(uint16_t fcw, bool precision_control = true);
  void raise(uint16_t bits) { status = static_cast<uint16_t>(status | bits); }
};

enum class Class : uint8_t {
  Zero, Normal, Denormal, PseudoDenormal, Infinity, QNaN, SNaN, Unsupported
};
Class classify(Float80 a);
inline bool is_nan(Float80 a) { Class c = classify(a); return c == Class::QNaN || c == Class::SNaN; }

// Basic arithmetic, rounded per env.rc to env.precision bits.
Float80 add(FpEnv& env, Float80 a, Float80 b);
Float80 sub(FpEnv& env, Float80 a, Float80 b);
Float80 mul(FpEnv& env, Float80 a, Float80 b);
Float80 div(FpEnv& env, Float80 a, Float80 b);
Float80 sqrt(FpEnv& env, Float80 a);

// frndint (64-bit precision; PC does not apply).
Float80 round_to_int(FpEnv& env, Float80 a);
// fscale: a * 2^trunc(b).
Float80 scale(FpEnv& env, Float80 a, Float80 b);
// fxtract: a = significand * 2^exponent.
struct Extracted {
  Float80 exponent, significand;
};
Extracted extract(FpEnv& env, Float80 a);
// fprem (ieee = false, truncating quotient) / fprem1 (nearest quotient).
// status gets C2 when the reduction is partial and C0/C3/C1 = quotient
// bits 2/1/0 when it is complete.
Float80 remainder(FpEnv& env, Float80 a, Float80 b, bool ieee);

// fxam's C3, C2, C0 (the class) and C1 (the sign) for a non-empty register.
uint16_t examine(Float80 a);

enum class Order : uint8_t { Less, Equal, Greater, Unordered };
// C3, C2, C0 as fcom/fucom/ftst set them for an order.
uint16_t condition_bits(Order o);
// quiet = true for fucom* (only signaling NaNs are invalid).
Order compare(FpEnv& env, Float80 a, Float80 b, bool quiet);

// Conversions.  Loads are exact (they may raise IE on an SNaN and DE on a
// denormal of the source format); stores round per env.rc.
Float80 from_f32(FpEnv& env, uint32_t bits);
Float80 from_f64(FpEnv& env, uint64_t bits);
// Memory operands of arithmetic and compares: the exact value with a
// signaling NaN left signaling (the operation itself raises IE and picks
// NaNs as for 80-bit operands); `denormal` says it was one.
Float80 widen_f32(uint32_t bits, bool& denormal);
Float80 widen_f64(uint64_t bits, bool& denormal);
Float80 from_int(int64_t v);
uint32_t to_f32(FpEnv& env, Float80 a);
uint64_t to_f64(FpEnv& env, Float80 a);
// fist/fisttp into a `bits`-bit integer (16, 32, 64); out of range or NaN
// gives the integer indefinite (only the top bit set) and IE.
uint64_t to_int(FpEnv& env, Float80 a, unsigned bits, bool truncate);
// fbld/fbstp: 18 packed BCD digits and a sign byte, 10 bytes.
Float80 from_bcd(const uint8_t bcd[10]);
void to_bcd(FpEnv& env, Float80 a, uint8_t bcd[10]);

enum class Constant : uint8_t { One, Zero, Pi, L2e, L2t, Lg2, Ln2 };
Float80 load_constant(uint8_t rc, Constant k);

// Transcendentals (x87_transcendental.cpp).  sin/cos/tan return false
// (C2 = 1, operand unchanged) when |a| >= 2^63.
bool sin(FpEnv& env, Float80 a, Float80& out);
bool cos(FpEnv& env, Float80 a, Float80& out);
bool sincos(FpEnv& env, Float80 a, Float80& sin_out, Float80& cos_out);
bool tan(FpEnv& env, Float80 a, Float80& out);
Float80 atan2(FpEnv& env, Float80 y, Float80 x);        // fpatan: atan(y / x)
Float80 exp2m1(FpEnv& env, Float80 a);                  // f2xm1
Float80 ylog2x(FpEnv& env, Float80 y, Float80 x);       // fyl2x
Float80 ylog2xp1(FpEnv& env, Float80 y, Float80 x);     // fyl2xp1

}  // namespace phybin::x87
