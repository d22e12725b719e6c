// frndint, fscale, fxtract, fprem and fprem1 on the soft-float core.
#include "x86/x87_internal.h"

namespace phybin::x87 {

Float80 round_to_int(FpEnv& env, Float80 a) {
  Float80 out;
  if (nan_operand(env, a, out)) return out;
  Class c = classify(a);
  if (c == Class::Zero || c == Class::Infinity) return a;
  check_denormal(env, a);
  Unpacked u = unpack(a);
  if (u.exp >= 63) return make80(a.sign(), static_cast<uint16_t>(u.exp + kBias), u.hi);
  uint64_t mag;
  bool inexact, up;
  round_magnitude(u, env.rc, mag, inexact, up);
  if (inexact) env.raise(kInexact);
  if (up) env.raise(kRoundedUp);
  if (mag == 0) return zero80(a.sign());
  Float80 r = from_int(static_cast<int64_t>(mag));  // mag <= 2^63: exact
  if (mag == kIntBit) r = make80(false, kBias + 63, kIntBit);
  return a.sign() ? negate(r) : r;
}

Float80 scale(FpEnv& env, Float80 a, Float80 b) {
  Float80 out;
  if (nan_operands(env, a, b, out)) return out;
  Class ca = classify(a), cb = classify(b);
  if (cb == Class::Infinity) {
    bool grow = !b.sign();
    if ((grow && ca == Class::Zero) || (!grow && ca == Class::Infinity)) {
      env.raise(kInvalid);
      return kIndefinite;
    }
    check_denormal(env, a);
    if (ca == Class::Zero || ca == Class::Infinity) return a;
    return grow ? inf80(a.sign()) : zero80(a.sign());
  }
  check_denormal(env, a);
  check_denormal(env, b);
  if (ca == Class::Zero || ca == Class::Infinity) return a;
  // trunc(b), clamped well beyond any exponent a result can have.
  int64_t n = 0;
  if (cb != Class::Zero) {
    Unpacked ub = unpack(b);
    if (ub.exp >= 20) n = 1 << 20;
    else if (ub.exp >= 0) n = static_cast<int64_t>(ub.hi >> (63 - ub.exp));
    if (ub.sign) n = -n;
  }
  Unpacked u = unpack(a);
  u.exp += static_cast<int32_t>(n);
  FpEnv full = env;
  full.precision = 64;
  Float80 r = round_pack80(full, u);
  env.status = full.status;
  return r;
}

Extracted extract(FpEnv& env, Float80 a) {
  Float80 out;
  if (nan_operand(env, a, out)) return {out, out};
  Class c = classify(a);
  if (c == Class::Zero) {
    env.raise(kZeroDivide);
    return {inf80(true), a};
  }
  if (c == Class::Infinity) return {inf80(false), a};
  check_denormal(env, a);
  Unpacked u = unpack(a);
  return {from_int(u.exp), make80(a.sign(), kBias, u.hi)};
}

namespace {

// Exact a - q*b when a's exponent exceeds b's by d < 64 (so q < 2^64),
// with the x87's quotient bits in C0/C3/C1; `nearest` rounds the quotient
// to nearest-even (fprem1) instead of truncating (fprem).
Float80 exact_remainder(FpEnv& env, const Unpacked& ua, const Unpacked& ub, int d, bool nearest) {
  // Work in units of b's last significand bit: a = A * 2^d, b = B.
  u128 b_units = ub.hi;
  uint64_t q = 0;
  u128 r;
  bool flip = false;
  if (d >= 0) {
    u128 a_units = u128{ua.hi} << d;
    u128 q128 = a_units / b_units;
    r = a_units - q128 * b_units;
    q = static_cast<uint64_t>(q128);
  } else {
    // |a| < |b|: q is 0, or 1 when fprem1 rounds a/b > 1/2 up.  Use
    // units of half of b's last bit so that d = -1 stays exact.
    r = d >= -64 ? (u128{ua.hi} << 64) >> (-d) : 0;
    b_units <<= 64;
    if (d < -64) r = 1;  // far smaller than b: only "nonzero" matters
  }
  if (nearest) {
    u128 twice = r << 1;
    if (twice > b_units || (twice == b_units && (q & 1))) {
      r = b_units - r;
      ++q;
      flip = true;
    }
  }
  if (d < 0 && !flip) return round_pack80(env, ua);  // a itself, quotient 0
  uint16_t bits = 0;
  if (q & 4) bits |= kC0;
  if (q & 2) bits |= kC3;
  if (q & 1) bits |= kRoundedUp;
  env.raise(bits);
  bool sign = ua.sign != flip;
  if (r == 0) return zero80(ua.sign);
  int32_t unit_exp = ub.exp - 63 - (d < 0 ? 64 : 0);  // weight of r's bit 0
  return round_pack80(env, normalize(sign, unit_exp + 127, r));
}

}  // namespace

Float80 remainder(FpEnv& env, Float80 a, Float80 b, bool ieee) {
  Float80 out;
  if (nan_operands(env, a, b, out)) return out;
  Class ca = classify(a), cb = classify(b);
  if (ca == Class::Infinity || cb == Class::Zero) {
    env.raise(kInvalid);
    return kIndefinite;
  }
  check_denormal(env, a);
  check_denormal(env, b);
  if (ca == Class::Zero || cb == Class::Infinity) return ca == Class::Zero ? a : round_pack80(env, unpack(a));
  FpEnv exact = env;
  exact.precision = 64;
  Unpacked ua = unpack(a), ub = unpack(b);
  int d = ua.exp - ub.exp;
  if (d < 64) {
    Float80 r = exact_remainder(exact, ua, ub, d, ieee);
    env.status = exact.status;
    return r;
  }
  // Partial reduction: reduce against b * 2^(d - n) with a truncated
  // quotient, n = 32 + d mod 32 (what the CPU does), so that the exponent
  // difference left is a multiple of 32.
  int n = 32 + d % 32;
  Unpacked scaled = ub;
  scaled.exp += d - n;
  FpEnv partial = exact;
  Float80 r = exact_remainder(partial, ua, scaled, n, false);
  env.status = static_cast<uint16_t>(exact.status | (partial.status & ~(kC0 | kC3 | kRoundedUp)) | kC2);
  return r;
}

}  // namespace phybin::x87
