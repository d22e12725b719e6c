// Conversions between the 80-bit format and the memory formats the x87
// loads and stores: float32, float64, int16/32/64, packed BCD; and the
// constants of fld1, fldpi, ...
#include "x86/x87_internal.h"

namespace phybin::x87 {

namespace {

// An IEEE binary interchange format with an implicit integer bit.
struct Ieee {
  int mant_bits;  // stored fraction bits
  int exp_bits;
  const Format& format;
};
constexpr Ieee kIeee32{23, 8, kFormatF32};
constexpr Ieee kIeee64{52, 11, kFormatF64};

Float80 from_ieee(FpEnv& env, uint64_t bits, const Ieee& t) {
  bool sign = bits >> (t.mant_bits + t.exp_bits);
  uint32_t e = static_cast<uint32_t>(bits >> t.mant_bits) & ((1u << t.exp_bits) - 1);
  uint64_t m = bits & ((uint64_t{1} << t.mant_bits) - 1);
  int lift = 63 - t.mant_bits;  // moves the fraction under the integer bit
  if (e == (1u << t.exp_bits) - 1) {
    if (m == 0) return inf80(sign);
    Float80 nan = make80(sign, kMaxExp, kIntBit | (m << lift));
    if (!(nan.sig & kQuietBit)) env.raise(kInvalid);
    return quiet(nan);
  }
  if (e == 0) {
    if (m == 0) return zero80(sign);
    env.raise(kDenormal);
    // m's bit 0 weighs 2^(1 - bias - mant_bits); bit 127 of the u128 then
    // weighs 127 more.
    Unpacked u = normalize(sign, 1 - t.format.bias - t.mant_bits + 127, m);
    return make80(sign, static_cast<uint16_t>(u.exp + kBias), u.hi);
  }
  return make80(sign, static_cast<uint16_t>(static_cast<int32_t>(e) - t.format.bias + kBias), kIntBit | (m << lift));
}

uint64_t to_ieee(FpEnv& env, Float80 a, const Ieee& t) {
  uint64_t sign = uint64_t{a.sign()} << (t.mant_bits + t.exp_bits);
  uint64_t exp_all = (uint64_t{1} << t.exp_bits) - 1;
  uint64_t quiet_bit = uint64_t{1} << (t.mant_bits - 1);
  int lift = 63 - t.mant_bits;
  switch (classify(a)) {
    case Class::Unsupported:
      env.raise(kInvalid);
      return (uint64_t{1} << (t.mant_bits + t.exp_bits)) | (exp_all << t.mant_bits) | quiet_bit;
    case Class::SNaN:
      env.raise(kInvalid);
      [[fallthrough]];
    case Class::QNaN:
      return sign | (exp_all << t.mant_bits) | quiet_bit | ((a.sig & ~kIntBit) >> lift);
    case Class::Infinity: return sign | (exp_all << t.mant_bits);
    case Class::Zero: return sign;
    default: break;
  }
  Rounded r = round_value(env, unpack(a), t.format);
  if (r.infinite) return sign | (exp_all << t.mant_bits);
  uint64_t frac = (r.sig & ~kIntBit) >> lift;
  return sign | (uint64_t(r.biased) << t.mant_bits) | frac;
}

}  // namespace

// Rounds a finite value to an integer magnitude per rc; returns false if
// the magnitude needs more than 64 bits.  Sets inexact/up for the caller.
bool round_magnitude(const Unpacked& u, uint8_t rc, uint64_t& mag, bool& inexact, bool& up) {
  if (u.exp >= 64) return false;
  u128 v = wide(u);
  u128 frac;
  if (u.exp >= 0) {
    int shift = 127 - u.exp;  // bits below the units place
    mag = static_cast<uint64_t>(v >> shift);
    frac = v << (128 - shift);  // the fraction, left-aligned
  } else {
    mag = 0;
    frac = u.exp == -1 ? v : (v >> 1) | 1;  // below one half when exp < -1
  }
  inexact = frac != 0;
  u128 half = u128{1} << 127;
  switch (rc) {
    case kNearest: up = frac > half || (frac == half && (mag & 1)); break;
    case kDown: up = inexact && u.sign; break;
    case kUp: up = inexact && !u.sign; break;
    default: up = false; break;
  }
  if (up) {
    if (mag == ~uint64_t{0}) return false;
    ++mag;
  }
  return true;
}

Float80 from_f32(FpEnv& env, uint32_t bits) { return from_ieee(env, bits, kIeee32); }

Float80 widen_f32(uint32_t bits, bool& denormal) {
  FpEnv env;
  Float80 v = from_ieee(env, bits, kIeee32);
  denormal = env.status & kDenormal;
  // Undo the quieting of a signaling NaN: the operation decides.
  if ((env.status & kInvalid) && classify(v) == Class::QNaN) v.sig &= ~kQuietBit;
  return v;
}

Float80 widen_f64(uint64_t bits, bool& denormal) {
  FpEnv env;
  Float80 v = from_ieee(env, bits, kIeee64);
  denormal = env.status & kDenormal;
  if ((env.status & kInvalid) && classify(v) == Class::QNaN) v.sig &= ~kQuietBit;
  return v;
}
Float80 from_f64(FpEnv& env, uint64_t bits) { return from_ieee(env, bits, kIeee64); }
uint32_t to_f32(FpEnv& env, Float80 a) { return static_cast<uint32_t>(to_ieee(env, a, kIeee32)); }
uint64_t to_f64(FpEnv& env, Float80 a) { return to_ieee(env, a, kIeee64); }

Float80 from_int(int64_t v) {
  if (v == 0) return zero80(false);
  bool sign = v < 0;
  uint64_t mag = sign ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  Unpacked u = normalize(sign, 127, mag);
  return make80(sign, static_cast<uint16_t>(u.exp + kBias), u.hi);
}

uint64_t to_int(FpEnv& env, Float80 a, unsigned bits, bool truncate) {
  uint64_t indefinite = uint64_t{1} << (bits - 1);
  Class c = classify(a);
  if (c == Class::Zero) return 0;
  if (!is_finite_nonzero(c)) {
    env.raise(kInvalid);
    return indefinite;
  }
  uint64_t mag;
  bool inexact, up;
  Unpacked u = unpack(a);
  uint64_t limit = a.sign() ? indefinite : indefinite - 1;
  if (!round_magnitude(u, truncate ? uint8_t{kTowardZero} : env.rc, mag, inexact, up) || mag > limit) {
    env.raise(kInvalid);
    return indefinite;
  }
  if (inexact) env.raise(kInexact);
  if (up) env.raise(kRoundedUp);
  uint64_t v = a.sign() ? 0 - mag : mag;
  return bits == 64 ? v : v & ((uint64_t{1} << bits) - 1);
}

Float80 from_bcd(const uint8_t bcd[10]) {
  uint64_t v = 0;
  for (int i = 8; i >= 0; --i) v = v * 100 + (bcd[i] >> 4) * 10 + (bcd[i] & 15);
  bool sign = bcd[9] & 0x80;
  Float80 r = from_int(static_cast<int64_t>(v));
  return sign ? negate(r) : r;
}

void to_bcd(FpEnv& env, Float80 a, uint8_t bcd[10]) {
  static constexpr uint64_t kLimit = 1000000000000000000ull;  // 10^18
  Class c = classify(a);
  uint64_t mag = 0;
  bool ok = c == Class::Zero;
  if (is_finite_nonzero(c)) {
    bool inexact, up;
    ok = round_magnitude(unpack(a), env.rc, mag, inexact, up) && mag < kLimit;
    if (ok && inexact) env.raise(kInexact);
    if (ok && up) env.raise(kRoundedUp);
  }
  if (!ok) {
    env.raise(kInvalid);
    static constexpr uint8_t kIndefiniteBcd[10] = {0, 0, 0, 0, 0, 0, 0, 0xc0, 0xff, 0xff};
    for (int i = 0; i < 10; ++i) bcd[i] = kIndefiniteBcd[i];
    return;
  }
  for (int i = 0; i < 9; ++i) {
    unsigned pair = static_cast<unsigned>(mag % 100);
    mag /= 100;
    bcd[i] = static_cast<uint8_t>((pair / 10) << 4 | (pair % 10));
  }
  bcd[9] = a.sign() ? 0x80 : 0;
}

Float80 load_constant(uint8_t rc, Constant k) {
  // 128-bit significands (integer bit at 127) and unbiased exponents.
  struct Wide {
    uint64_t hi, lo;
    int32_t exp;
  };
  static constexpr Wide kValues[] = {
      {0x8000000000000000ull, 0, 0},                                      // 1
      {0, 0, 0},                                                          // 0
      {0xc90fdaa22168c234ull, 0xc4c6628b80dc1cd1ull, 1},                  // pi
      {0xb8aa3b295c17f0bbull, 0xbe87fed0691d3e88ull, 0},                  // log2(e)
      {0xd49a784bcd1b8afeull, 0x492bf6ff4dafdb4cull, 1},                  // log2(10)
      {0x9a209a84fbcff798ull, 0x8f8959ac0b7c9178ull, -2},                 // log10(2)
      {0xb17217f7d1cf79abull, 0xc9e3b39803f2f6afull, -1},                 // ln(2)
  };
  const Wide& w = kValues[static_cast<int>(k)];
  if (w.hi == 0) return zero80(false);
  FpEnv env;
  env.rc = rc;
  Unpacked u;
  u.hi = w.hi;
  u.lo = w.lo;
  u.exp = w.exp;
  return round_pack80(env, u);
}

}  // namespace phybin::x87
