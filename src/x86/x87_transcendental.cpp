// fsin, fcos, fsincos, fptan, fpatan, f2xm1, fyl2x, fyl2xp1: special
// operands as the x87 treats them, everything else evaluated with series
// in Wide (128-bit significands) and rounded once to 64 bits per FCW.RC.
//
// Argument reduction for sin/cos/tan follows the x87: it subtracts
// multiples of pi/2 using pi to 66 bits, exactly, so results near
// multiples of pi match the hardware rather than the true function.
#include "x86/x87_wide.h"

namespace phybin::x87 {

namespace {

// Adds series terms until they no longer matter at 128-bit precision.
// `next` turns term n-1 into term n.
template <typename Next>
Wide sum_series(Wide sum, Wide term, Next next) {
  for (uint32_t n = 1; n < 200; ++n) {
    term = next(term, n);
    sum = wide_add(sum, term);
    if (term.is_zero() || term.exp < sum.exp - 140) break;
  }
  return sum;
}

// sin and cos of |r| <= ~0.8 (Taylor series).
Wide sin_series(const Wide& r) {
  Wide r2 = wide_mul(r, r);
  return sum_series(r, r, [&](const Wide& t, uint32_t n) {
    return wide_neg(wide_div_small(wide_mul(t, r2), (2 * n) * (2 * n + 1)));
  });
}

Wide cos_series(const Wide& r) {
  Wide r2 = wide_mul(r, r);
  Wide one = wide_from_int(1);
  return sum_series(one, one, [&](const Wide& t, uint32_t n) {
    return wide_neg(wide_div_small(wide_mul(t, r2), (2 * n - 1) * (2 * n)));
  });
}

// atanh(s) = s + s^3/3 + s^5/5 + ... for |s| <= 0.18.
Wide atanh_series(const Wide& s) {
  Wide s2 = wide_mul(s, s);
  Wide power = s;
  return sum_series(s, s, [&](const Wide&, uint32_t n) {
    power = wide_mul(power, s2);
    return wide_div_small(power, 2 * n + 1);
  });
}

// atan(z) = z - z^3/3 + ... for |z| <= 0.1.
Wide atan_series(const Wide& z) {
  Wide z2 = wide_neg(wide_mul(z, z));
  Wide power = z;
  return sum_series(z, z, [&](const Wide&, uint32_t n) {
    power = wide_mul(power, z2);
    return wide_div_small(power, 2 * n + 1);
  });
}

// atan(z) for 0 <= z <= 1: three halvings atan(z) = 2 atan(z / (1 +
// sqrt(1 + z^2))) bring z below 0.1.
Wide atan_unit(Wide z) {
  Wide one = wide_from_int(1);
  for (int i = 0; i < 3; ++i) z = wide_div(z, wide_add(one, wide_sqrt(wide_add(one, wide_mul(z, z)))));
  return wide_ldexp(atan_series(z), 3);
}

// log2(v) for v > 0.
Wide log2_wide(Wide v) {
  int32_t e = v.exp;
  Wide m{false, 0, v.sig};  // in [1, 2)
  static constexpr u128 kSqrt2 = u128{0xb504f333f9de6484ull} << 64;
  if (m.sig > kSqrt2) {  // use m / 2 in [sqrt(1/2), 1)
    m.exp = -1;
    ++e;
  }
  Wide one = wide_from_int(1);
  Wide s = wide_div(wide_sub(m, one), wide_add(m, one));
  Wide ln_m = wide_ldexp(atanh_series(s), 1);
  return wide_add(wide_from_int(e), wide_mul(ln_m, wide_log2e()));
}

// x mod (pi/2) with the x87's 66-bit pi, for 0 < x < 2^63.
struct Reduced {
  Wide r;
  unsigned quadrant = 0;
};

Reduced reduce(Float80 x) {
  Wide xw = wide_from(absolute(x));
  Wide pi = wide_pi();
  Reduced out;
  Wide beyond = wide_sub(xw, wide_ldexp(pi, -2));
  if (beyond.sign || beyond.is_zero()) {
    out.r = xw;  // |x| <= pi/4: nothing to reduce
    return out;
  }
  // In units of 2^-65: pi/2 is the 66-bit integer m66, x is X << (e + 2).
  u128 m66 = pi.sig >> 62;
  Unpacked u = unpack(absolute(x));
  u128 x_units = u128{u.hi} << (u.exp + 2);
  Wide q = wide_mul(xw, wide_ldexp(wide_div(wide_from_int(1), pi), 1));  // x * 2/pi
  uint64_t k = 0;
  if (q.exp >= -1) {
    u128 fixed = q.sig >> (126 - q.exp);  // q * 2, truncated
    k = static_cast<uint64_t>((fixed + 1) >> 1);
  }
  __int128 r = static_cast<__int128>(x_units - u128{k} * m66);  // wraps to the small exact difference
  // Keep |r| <= pi/4 should the estimate of k be one off.
  __int128 half = static_cast<__int128>(m66 >> 1);
  if (r > half) {
    r -= static_cast<__int128>(m66);
    ++k;
  } else if (r < -half) {
    r += static_cast<__int128>(m66);
    --k;
  }
  bool neg = r < 0;
  out.r = wide_from_fixed(neg, static_cast<u128>(neg ? -r : r), -65);
  out.quadrant = static_cast<unsigned>(k & 3);
  return out;
}

// sin (or cos) of |x| from its reduction.
Wide sin_reduced(const Reduced& red, bool cosine) {
  unsigned q = (red.quadrant + (cosine ? 1 : 0)) & 3;
  Wide v = (q & 1) ? cos_series(red.r) : sin_series(red.r);
  return (q & 2) ? wide_neg(v) : v;
}

// Results of the series: the CPU reports them inexact even when they
// happen to be exact (fyl2x of a power of two, f2xm1(1)).  Being inexact,
// a result below the smallest normal also underflows (UE): the series of a
// tiny operand (sin, tan, atan of a denormal) can come out exactly x in
// 128 bits, where round_value sees nothing lost and so no underflow.
Float80 rounded_inexact(FpEnv& env, const Wide& w) {
  FpEnv rounding = env;
  rounding.status = 0;
  Float80 r = wide_round(rounding, w);
  env.status = static_cast<uint16_t>(env.status | rounding.status);
  bool exact = (rounding.status & kInexact) == 0;
  if (exact && !w.is_zero() && w.exp + kBias < 1) env.raise(kUnderflow);
  env.raise(kInexact);
  return r;
}

// Shared special cases of sin/cos/tan; returns true when `out` is final.
bool trig_special(FpEnv& env, Float80 a, Float80& out, bool& in_range) {
  in_range = true;
  if (nan_operand(env, a, out)) return true;
  Class c = classify(a);
  if (c == Class::Infinity) {
    env.raise(kInvalid);
    out = kIndefinite;
    return true;
  }
  if (c != Class::Zero && a.exp() >= kBias + 63) {
    in_range = false;  // C2: the caller leaves the operand alone
    return true;
  }
  check_denormal(env, a);
  return false;
}

// For |x| < 2^-68 the CPU returns sin x = tan x = x and cos x = 1 in every
// rounding mode (measured; correct rounding would step one ulp away in the
// directed modes), inexact, C1 clear.
bool tiny_argument(Float80 a) { return a.exp() < kBias - 68; }

// sin/tan of a tiny x: x itself, underflowing when x is denormal; a
// pseudo-denormal comes back normalized, without underflow.
bool tiny_identity(FpEnv& env, Float80 a, Float80& out) {
  if (!tiny_argument(a)) return false;
  bool pseudo = a.exp() == 0 && (a.sig & kIntBit) != 0;
  out = pseudo ? make80(a.sign(), 1, a.sig) : a;
  if (a.exp() == 0 && !pseudo) env.raise(kUnderflow);
  env.raise(kInexact);
  return true;
}

}  // namespace

bool sin(FpEnv& env, Float80 a, Float80& out) {
  bool in_range;
  if (trig_special(env, a, out, in_range)) return in_range;
  if (classify(a) == Class::Zero) {
    out = a;
    return true;
  }
  if (tiny_identity(env, a, out)) return true;
  Wide v = sin_reduced(reduce(a), false);
  out = rounded_inexact(env, a.sign() ? wide_neg(v) : v);
  return true;
}

bool cos(FpEnv& env, Float80 a, Float80& out) {
  bool in_range;
  if (trig_special(env, a, out, in_range)) return in_range;
  if (classify(a) == Class::Zero || tiny_argument(a)) {
    out = make80(false, kBias, kIntBit);
    if (classify(a) != Class::Zero) env.raise(kInexact);
    return true;
  }
  out = rounded_inexact(env, sin_reduced(reduce(a), true));
  return true;
}

bool sincos(FpEnv& env, Float80 a, Float80& sin_out, Float80& cos_out) {
  FpEnv env_cos = env;
  if (!sin(env, a, sin_out)) return false;
  cos(env_cos, a, cos_out);
  env.status = static_cast<uint16_t>((env.status & ~kRoundedUp) | env_cos.status);
  return true;
}

bool tan(FpEnv& env, Float80 a, Float80& out) {
  bool in_range;
  if (trig_special(env, a, out, in_range)) return in_range;
  if (classify(a) == Class::Zero) {
    out = a;
    return true;
  }
  if (tiny_identity(env, a, out)) return true;
  Reduced red = reduce(a);
  Wide s = sin_series(red.r), c = cos_series(red.r);
  Wide t = (red.quadrant & 1) ? wide_neg(wide_div(c, s)) : wide_div(s, c);
  out = rounded_inexact(env, a.sign() ? wide_neg(t) : t);
  return true;
}

Float80 atan2(FpEnv& env, Float80 y, Float80 x) {
  Float80 out;
  if (nan_operands(env, y, x, out)) return out;
  Class cy = classify(y), cx = classify(x);
  check_denormal(env, y);
  check_denormal(env, x);
  Wide pi = wide_pi();
  Wide t;
  if (cy == Class::Zero || (cx == Class::Infinity && cy != Class::Infinity)) {
    if (!x.sign()) return zero80(y.sign());
    t = pi;  // y = 0 or x = -inf: +-pi
  } else if (cx == Class::Zero || (cy == Class::Infinity && cx != Class::Infinity)) {
    t = wide_ldexp(pi, -1);
  } else if (cy == Class::Infinity) {
    t = wide_ldexp(pi, -2);
    if (x.sign()) t = wide_mul(t, wide_from_int(3));
  } else {
    Wide ay = wide_from(absolute(y)), ax = wide_from(absolute(x));
    bool swap = ay.exp > ax.exp || (ay.exp == ax.exp && ay.sig > ax.sig);
    Wide z = swap ? wide_div(ax, ay) : wide_div(ay, ax);
    // atan z of z < 2^-40 is z itself on the CPU (measured: fpatan(y, 1)
    // returns y in every rounding mode), not z - z^3/3 rounded.
    t = !swap && z.exp < -40 ? z : atan_unit(z);
    if (swap) t = wide_sub(wide_ldexp(pi, -1), t);
    if (x.sign()) t = wide_sub(pi, t);
  }
  return rounded_inexact(env, y.sign() ? wide_neg(t) : t);
}

Float80 exp2m1(FpEnv& env, Float80 a) {
  Float80 out;
  if (nan_operand(env, a, out)) return out;
  Class c = classify(a);
  if (c == Class::Zero) return a;
  if (c == Class::Infinity) return a.sign() ? make80(true, kBias, kIntBit) : a;
  check_denormal(env, a);
  if (a.exp() >= kBias) {
    // 2^1 - 1 = 1, 2^-1 - 1 = -1/2 exactly (still flagged inexact);
    // outside the documented domain -1..1 the CPU returns x unchanged.
    env.raise(kInexact);
    if (a == make80(true, kBias, kIntBit)) return make80(true, kBias - 1, kIntBit);
    return a;
  }
  Wide t = wide_mul(wide_from(a), wide_ln2());
  // expm1(t) = t + t^2/2! + t^3/3! + ...
  Wide v = sum_series(t, t, [&](const Wide& term, uint32_t n) { return wide_div_small(wide_mul(term, t), n + 1); });
  return rounded_inexact(env, v);
}

Float80 ylog2x(FpEnv& env, Float80 y, Float80 x) {
  Float80 out;
  if (nan_operands(env, y, x, out)) return out;
  Class cy = classify(y), cx = classify(x);
  if (x.sign() && cx != Class::Zero) {
    env.raise(kInvalid);
    return kIndefinite;
  }
  bool one = x == make80(false, kBias, kIntBit);
  if (cx == Class::Zero) {  // log2 = -inf; like division by zero, no DE
    if (cy == Class::Zero) {
      env.raise(kInvalid);
      return kIndefinite;
    }
    if (cy != Class::Infinity) env.raise(kZeroDivide);
    return inf80(!y.sign());
  }
  check_denormal(env, y);
  check_denormal(env, x);
  if (cx == Class::Infinity) {
    if (cy == Class::Zero) {
      env.raise(kInvalid);
      return kIndefinite;
    }
    return inf80(y.sign());
  }
  if (cy == Class::Infinity) {
    if (one) {
      env.raise(kInvalid);
      return kIndefinite;
    }
    return inf80(y.sign() != (x.exp() < kBias));
  }
  if (cy == Class::Zero || one) {
    bool below_one = !one && (x.exp() < kBias);
    return zero80(y.sign() != below_one);
  }
  return rounded_inexact(env, wide_mul(wide_from(y), log2_wide(wide_from(x))));
}

Float80 ylog2xp1(FpEnv& env, Float80 y, Float80 x) {
  Float80 out;
  if (nan_operands(env, y, x, out)) return out;
  Class cy = classify(y), cx = classify(x);
  bool zero = cx == Class::Zero || cy == Class::Zero;
  if ((cx == Class::Infinity && (x.sign() || cy == Class::Zero)) || (zero && cy == Class::Infinity)) {
    env.raise(kInvalid);  // log2(-inf), 0 * inf: invalid before any DE
    return kIndefinite;
  }
  check_denormal(env, y);
  check_denormal(env, x);
  if (zero) return zero80(x.sign() != y.sign());
  if (cx == Class::Infinity) return inf80(y.sign());
  if (cy == Class::Infinity) return inf80(y.sign() != x.sign());
  Wide xw = wide_from(x);
  Wide onep = wide_add(wide_from_int(1), xw);
  if (onep.sign || onep.is_zero()) {
    // x <= -1, where log2(1 + x) is not real: the CPU returns x.
    env.raise(kInexact);
    return x;
  }
  Wide log2;
  if (xw.exp < -2) {
    // ln(1 + x) = 2 atanh(x / (2 + x)) keeps the precision of a small x.
    Wide s = wide_div(xw, wide_add(wide_from_int(2), xw));
    log2 = wide_mul(wide_ldexp(atanh_series(s), 1), wide_log2e());
  } else {
    log2 = log2_wide(onep);  // |x| >= 1/4: beyond the documented domain
  }
  return rounded_inexact(env, wide_mul(wide_from(y), log2));
}

}  // namespace phybin::x87
