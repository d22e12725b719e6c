// The soft-float core: classification, rounding, NaN rules and the basic
// arithmetic (add, sub, mul, div, sqrt) and comparison.
#include <utility>

#include "x86/x87_internal.h"

namespace phybin::x87 {

FpEnv FpEnv::from_fcw(uint16_t fcw, bool precision_control) {
  FpEnv env;
  env.rc = static_cast<uint8_t>((fcw >> 10) & 3);
  // PC = 01 is "reserved"; the CPU rounds to 64 bits then, like PC = 11.
  static constexpr uint8_t kPrecision[4] = {24, 64, 53, 64};
  env.precision = precision_control ? kPrecision[(fcw >> 8) & 3] : 64;
  return env;
}

Class classify(Float80 a) {
  uint16_t e = a.exp();
  bool j = a.sig >> 63;
  if (e == 0) {
    if (a.sig == 0) return Class::Zero;
    return j ? Class::PseudoDenormal : Class::Denormal;
  }
  if (!j) return Class::Unsupported;  // unnormal, pseudo-infinity, pseudo-NaN
  if (e == kMaxExp) {
    if ((a.sig << 1) == 0) return Class::Infinity;
    return (a.sig & kQuietBit) ? Class::QNaN : Class::SNaN;
  }
  return Class::Normal;
}

Unpacked normalize(bool sign, int32_t top_exp, u128 v) {
  int lz = clz128(v);
  Unpacked u;
  u.sign = sign;
  u.exp = top_exp - lz;
  set_wide(u, v << lz);
  return u;
}

Unpacked unpack(Float80 a) {
  // Denormals and pseudo-denormals have the weight of exponent 1.
  int32_t e = a.exp() == 0 ? 1 : a.exp();
  return normalize(a.sign(), e - kBias, u128{a.sig} << 64);
}

namespace {

// Does rounding `v` (bit 127 set) to `precision` bits carry past bit 127?
bool rounding_carries(u128 v, int precision, uint8_t rc, bool sign) {
  int shift = 128 - precision;
  u128 unit = u128{1} << shift;
  u128 rest = v & (unit - 1);
  if ((v | (unit - 1)) != ~u128{0}) return false;  // not all ones above the cut
  switch (rc) {
    case kNearest: return rest >= (unit >> 1);
    case kDown: return sign && rest != 0;
    case kUp: return !sign && rest != 0;
    default: return false;
  }
}

Rounded overflow_result(FpEnv& env, bool sign, const Format& f) {
  env.raise(kOverflow | kInexact);
  Rounded r;
  r.sign = sign;
  bool to_infinity = env.rc == kNearest || (env.rc == kUp && !sign) || (env.rc == kDown && sign);
  if (to_infinity) {
    r.infinite = true;
    env.raise(kRoundedUp);
    return r;
  }
  r.biased = f.max_biased;
  r.sig = ~uint64_t{0} << (64 - f.precision);
  return r;
}

}  // namespace

Rounded round_value(FpEnv& env, const Unpacked& u, const Format& f) {
  u128 v = wide(u);
  int32_t biased = u.exp + f.bias;
  // Tininess is judged after rounding, with an unbounded exponent: a value
  // just below the smallest normal that rounds up to it is not tiny.
  bool tiny = biased < 1 && !(biased == 0 && rounding_carries(v, f.precision, env.rc, u.sign));
  if (biased < 1) {
    v = shift_right_sticky(v, 1 - biased);
    biased = 1;
  }
  int shift = 128 - f.precision;
  u128 unit = u128{1} << shift;
  u128 rest = v & (unit - 1);
  u128 half = unit >> 1;
  v -= rest;
  bool inexact = rest != 0;
  bool up = false;
  switch (env.rc) {
    case kNearest: up = rest > half || (rest == half && (v & unit)); break;
    case kDown: up = inexact && u.sign; break;
    case kUp: up = inexact && !u.sign; break;
    default: break;
  }
  if (up) {
    v += unit;
    if (v == 0) {  // carried out of bit 127
      v = u128{1} << 127;
      ++biased;
    }
  }
  if (inexact) {
    env.raise(kInexact);
    if (tiny) env.raise(kUnderflow);
  }
  if (biased > f.max_biased) return overflow_result(env, u.sign, f);
  if (up) env.raise(kRoundedUp);
  Rounded r;
  r.sign = u.sign;
  r.sig = static_cast<uint64_t>(v >> 64);
  r.biased = (r.sig >> 63) ? biased : 0;
  return r;
}

Float80 pack80(const Rounded& r) {
  if (r.infinite) return inf80(r.sign);
  return make80(r.sign, static_cast<uint16_t>(r.biased), r.sig);
}

Float80 round_pack80(FpEnv& env, const Unpacked& u) { return pack80(round_value(env, u, format80(env.precision))); }

void check_denormal(FpEnv& env, Float80 a, int which) {
  Class c = classify(a);
  bool from_memory = which >= 0 && (env.denormal_source >> which) & 1;
  if (c == Class::Denormal || c == Class::PseudoDenormal || from_memory) env.raise(kDenormal);
}

bool nan_operand(FpEnv& env, Float80 a, Float80& out) {
  Class c = classify(a);
  if (c == Class::Unsupported) {
    env.raise(kInvalid);
    out = kIndefinite;
    return true;
  }
  if (c == Class::SNaN) env.raise(kInvalid);
  if (c == Class::SNaN || c == Class::QNaN) {
    out = quiet(a);
    return true;
  }
  return false;
}

bool nan_operands(FpEnv& env, Float80 a, Float80 b, Float80& out) {
  Class ca = classify(a), cb = classify(b);
  if (ca == Class::Unsupported || cb == Class::Unsupported) {
    env.raise(kInvalid);
    out = kIndefinite;
    return true;
  }
  bool na = ca == Class::QNaN || ca == Class::SNaN;
  bool nb = cb == Class::QNaN || cb == Class::SNaN;
  if (!na && !nb) return false;
  if (ca == Class::SNaN || cb == Class::SNaN) env.raise(kInvalid);
  if (na && nb) {
    // Both NaNs: a quiet one beats a signaling one; otherwise the larger
    // significand wins, the positive one on a tie (checked on the CPU).
    if (ca != cb) out = quiet(ca == Class::QNaN ? a : b);
    else if (a.sig != b.sig) out = quiet(b.sig > a.sig ? b : a);
    else out = quiet(a.sign() ? b : a);
    return true;
  }
  out = quiet(na ? a : b);
  return true;
}

namespace {

// a + b for finite values; b_sign already includes the negation of sub.
Float80 add_finite(FpEnv& env, Float80 a, Float80 b, bool b_sign) {
  Class ca = classify(a), cb = classify(b);
  if (ca == Class::Zero && cb == Class::Zero) {
    bool sign = a.sign() == b_sign ? b_sign : env.rc == kDown;
    return zero80(sign);
  }
  if (cb == Class::Zero) return round_pack80(env, unpack(a));
  Unpacked ub = unpack(b);
  ub.sign = b_sign;
  if (ca == Class::Zero) return round_pack80(env, ub);
  Unpacked ua = unpack(a);
  if (ub.exp > ua.exp || (ub.exp == ua.exp && ub.hi > ua.hi)) std::swap(ua, ub);
  // ua is the larger magnitude; significands sit at bit 126 with one bit
  // of headroom for a carry.
  u128 x = u128{ua.hi} << 63;
  u128 y = shift_right_sticky(u128{ub.hi} << 63, ua.exp - ub.exp);
  u128 r = ua.sign == ub.sign ? x + y : x - y;
  if (r == 0) return zero80(env.rc == kDown);
  return round_pack80(env, normalize(ua.sign, ua.exp + 1, r));
}

Float80 add_signed(FpEnv& env, Float80 a, Float80 b, bool b_sign) {
  Float80 out;
  if (nan_operands(env, a, b, out)) return out;
  Class ca = classify(a), cb = classify(b);
  if (ca == Class::Infinity || cb == Class::Infinity) {
    if (ca == Class::Infinity && cb == Class::Infinity && a.sign() != b_sign) {
      env.raise(kInvalid);
      return kIndefinite;
    }
    check_denormal(env, a, 0);
    check_denormal(env, b, 1);
    return ca == Class::Infinity ? a : inf80(b_sign);
  }
  check_denormal(env, a, 0);
  check_denormal(env, b, 1);
  return add_finite(env, a, b, b_sign);
}

// 128-bit integer square root of r (r >= 2^126): root and remainder.
uint64_t isqrt128(u128 r, u128& rem_out) {
  u128 rem = 0, root = 0;
  for (int i = 0; i < 64; ++i) {
    rem = (rem << 2) | (r >> 126);
    r <<= 2;
    root <<= 1;
    u128 trial = (root << 1) | 1;
    if (rem >= trial) {
      rem -= trial;
      root |= 1;
    }
  }
  rem_out = rem;
  return static_cast<uint64_t>(root);
}

}  // namespace

Float80 add(FpEnv& env, Float80 a, Float80 b) { return add_signed(env, a, b, b.sign()); }
Float80 sub(FpEnv& env, Float80 a, Float80 b) { return add_signed(env, a, b, !b.sign()); }

Float80 mul(FpEnv& env, Float80 a, Float80 b) {
  Float80 out;
  if (nan_operands(env, a, b, out)) return out;
  Class ca = classify(a), cb = classify(b);
  bool sign = a.sign() != b.sign();
  if (ca == Class::Infinity || cb == Class::Infinity) {
    if (ca == Class::Zero || cb == Class::Zero) {
      env.raise(kInvalid);
      return kIndefinite;
    }
    check_denormal(env, a, 0);
    check_denormal(env, b, 1);
    return inf80(sign);
  }
  check_denormal(env, a, 0);
  check_denormal(env, b, 1);
  if (ca == Class::Zero || cb == Class::Zero) return zero80(sign);
  Unpacked ua = unpack(a), ub = unpack(b);
  u128 p = u128{ua.hi} * ub.hi;
  return round_pack80(env, normalize(sign, ua.exp + ub.exp + 1, p));
}

Float80 div(FpEnv& env, Float80 a, Float80 b) {
  Float80 out;
  if (nan_operands(env, a, b, out)) return out;
  Class ca = classify(a), cb = classify(b);
  bool sign = a.sign() != b.sign();
  if (ca == Class::Infinity) {
    if (cb == Class::Infinity) {
      env.raise(kInvalid);
      return kIndefinite;
    }
    check_denormal(env, b, 1);
    return inf80(sign);
  }
  if (cb == Class::Infinity) {
    check_denormal(env, a, 0);
    return zero80(sign);
  }
  if (cb == Class::Zero) {
    if (ca == Class::Zero) {
      env.raise(kInvalid);
      return kIndefinite;
    }
    env.raise(kZeroDivide);  // no DE even when a is denormal
    return inf80(sign);
  }
  check_denormal(env, a, 0);
  check_denormal(env, b, 1);
  if (ca == Class::Zero) return zero80(sign);
  Unpacked ua = unpack(a), ub = unpack(b);
  // Two 64-bit steps of long division give a 128-bit quotient whose top
  // bit is set; the last remainder becomes the sticky bit.
  bool ge = ua.hi >= ub.hi;
  u128 n = u128{ua.hi} << (ge ? 63 : 64);
  uint64_t q1 = static_cast<uint64_t>(n / ub.hi);
  uint64_t r1 = static_cast<uint64_t>(n % ub.hi);
  u128 n2 = u128{r1} << 64;
  uint64_t q2 = static_cast<uint64_t>(n2 / ub.hi);
  uint64_t r2 = static_cast<uint64_t>(n2 % ub.hi);
  Unpacked q;
  q.sign = sign;
  q.exp = ua.exp - ub.exp - (ge ? 0 : 1);
  q.hi = q1;
  q.lo = q2 | (r2 != 0);
  return round_pack80(env, q);
}

Float80 sqrt(FpEnv& env, Float80 a) {
  Float80 out;
  if (nan_operand(env, a, out)) return out;
  Class c = classify(a);
  if (c == Class::Zero) return a;
  if (a.sign()) {
    env.raise(kInvalid);
    return kIndefinite;
  }
  if (c == Class::Infinity) return a;
  check_denormal(env, a);
  Unpacked u = unpack(a);
  // value = hi * 2^(exp - 63); make the power of two even.
  int32_t e = u.exp - 63;
  bool odd = e & 1;
  u128 radicand = u128{u.hi} << (odd ? 63 : 64);
  int32_t half_e = (e - (odd ? 63 : 64)) / 2;
  u128 rem;
  uint64_t root = isqrt128(radicand, rem);
  Unpacked r;
  r.hi = root;
  r.exp = half_e + 63;
  // The exact root lies above root + 1/2 exactly when rem > root.
  r.lo = rem == 0 ? 0 : rem > root ? 0xc000000000000000ull : 0x4000000000000000ull;
  return round_pack80(env, r);
}

Order compare(FpEnv& env, Float80 a, Float80 b, bool quiet_compare) {
  Class ca = classify(a), cb = classify(b);
  if (ca == Class::Unsupported || cb == Class::Unsupported) {
    env.raise(kInvalid);
    return Order::Unordered;
  }
  bool na = ca == Class::QNaN || ca == Class::SNaN;
  bool nb = cb == Class::QNaN || cb == Class::SNaN;
  if (na || nb) {
    if (!quiet_compare || ca == Class::SNaN || cb == Class::SNaN) env.raise(kInvalid);
    return Order::Unordered;
  }
  check_denormal(env, a, 0);
  check_denormal(env, b, 1);
  if (ca == Class::Zero && cb == Class::Zero) return Order::Equal;
  if (a.sign() != b.sign()) {
    if (ca == Class::Zero) return b.sign() ? Order::Greater : Order::Less;
    return a.sign() ? Order::Less : Order::Greater;
  }
  // Same sign: order the magnitudes by (effective exponent, significand).
  auto key = [](Float80 x) -> u128 {
    uint32_t e = x.exp() == 0 && x.sig != 0 ? 1 : x.exp();
    return (u128{e} << 64) | x.sig;
  };
  u128 ka = key(a), kb = key(b);
  if (ka == kb) return Order::Equal;
  bool less = (ka < kb) != a.sign();
  return less ? Order::Less : Order::Greater;
}

uint16_t condition_bits(Order o) {
  switch (o) {
    case Order::Less: return kC0;
    case Order::Equal: return kC3;
    case Order::Greater: return 0;
    default: return kC3 | kC2 | kC0;
  }
}

uint16_t examine(Float80 a) {
  uint16_t sign = a.sign() ? kRoundedUp : 0;
  switch (classify(a)) {
    case Class::Unsupported: return sign;
    case Class::QNaN:
    case Class::SNaN: return sign | kC0;
    case Class::Normal: return sign | kC2;
    case Class::Infinity: return sign | kC2 | kC0;
    case Class::Zero: return sign | kC3;
    default: return sign | kC3 | kC2;  // denormal, pseudo-denormal
  }
}

}  // namespace phybin::x87
