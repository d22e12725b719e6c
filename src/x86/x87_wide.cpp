// Wide: 128-bit-significand arithmetic, truncating, for the
// transcendental functions.
#include "x86/x87_wide.h"

namespace phybin::x87 {

namespace {

Wide make_wide(bool sign, int32_t top_exp, u128 v) {
  Wide w;
  if (v == 0) return w;
  int lz = clz128(v);
  w.sign = sign;
  w.exp = top_exp - lz;
  w.sig = v << lz;
  return w;
}

// The top 128 bits of a 128 x 128-bit product, with the rest jammed into
// bit 0.
u128 mul_high(u128 a, u128 b) {
  uint64_t ah = static_cast<uint64_t>(a >> 64), al = static_cast<uint64_t>(a);
  uint64_t bh = static_cast<uint64_t>(b >> 64), bl = static_cast<uint64_t>(b);
  u128 hh = u128{ah} * bh, hl = u128{ah} * bl, lh = u128{al} * bh, ll = u128{al} * bl;
  u128 mid = (ll >> 64) + static_cast<uint64_t>(hl) + static_cast<uint64_t>(lh);
  bool lost = static_cast<uint64_t>(ll) != 0 || static_cast<uint64_t>(mid) != 0;
  return (hh + (hl >> 64) + (lh >> 64) + (mid >> 64)) | lost;
}

}  // namespace

Wide wide_from(Float80 a) {
  if (classify(a) == Class::Zero) return Wide{};
  Unpacked u = unpack(a);
  return Wide{u.sign, u.exp, wide(u)};
}

Wide wide_from_int(int64_t v) {
  bool sign = v < 0;
  uint64_t mag = sign ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  return make_wide(sign, 127, mag);
}

Wide wide_from_fixed(bool sign, u128 magnitude, int32_t unit_exp) {
  return make_wide(sign, unit_exp + 127, magnitude);
}

Float80 wide_round(FpEnv& env, const Wide& w) {
  if (w.is_zero()) return zero80(w.sign);
  Unpacked u;
  u.sign = w.sign;
  u.exp = w.exp;
  set_wide(u, w.sig);
  FpEnv full = env;
  full.precision = 64;
  Float80 r = round_pack80(full, u);
  env.status = full.status;
  return r;
}

Wide wide_neg(Wide a) {
  a.sign = !a.sign;
  return a;
}

Wide wide_add(const Wide& a, const Wide& b) {
  if (a.is_zero()) return b;
  if (b.is_zero()) return a;
  const Wide& big = (a.exp > b.exp || (a.exp == b.exp && a.sig >= b.sig)) ? a : b;
  const Wide& small = &big == &a ? b : a;
  int d = big.exp - small.exp;
  // One bit of headroom for the carry; the smaller operand is truncated.
  // Bits of the smaller operand that fall off are jammed into bit 0, so
  // that 1 - tiny still rounds below 1 in the directed modes.
  u128 x = big.sig >> 1;
  u128 y = shift_right_sticky(small.sig, d + 1);
  u128 r = big.sign == small.sign ? x + y : x - y;
  return make_wide(big.sign, big.exp + 1, r);
}

Wide wide_sub(const Wide& a, const Wide& b) { return wide_add(a, wide_neg(b)); }

Wide wide_mul(const Wide& a, const Wide& b) {
  if (a.is_zero() || b.is_zero()) return Wide{};
  // sig_a * sig_b * 2^(ea + eb - 254): bit 255 of the product weighs
  // 2^(ea + eb + 1).
  return make_wide(a.sign != b.sign, a.exp + b.exp + 1, mul_high(a.sig, b.sig));
}

Wide wide_div(const Wide& a, const Wide& b) {
  if (a.is_zero()) return Wide{};
  // Restoring division, one quotient bit at a time: 128 bits with the
  // leading one in bit 127 or 126.
  u128 rem = a.sig, q = 0;
  bool carry = false;
  for (int i = 0; i < 128; ++i) {
    q <<= 1;
    if (carry || rem >= b.sig) {
      rem -= b.sig;
      q |= 1;
    }
    carry = rem >> 127;
    rem <<= 1;
  }
  // q = floor(sig_a / sig_b * 2^127): its bit 127 weighs 2^(ea - eb).
  return make_wide(a.sign != b.sign, a.exp - b.exp, q | (carry || rem != 0));
}

Wide wide_div_small(const Wide& a, uint32_t d) {
  if (a.is_zero()) return a;
  uint64_t hi = static_cast<uint64_t>(a.sig >> 64), lo = static_cast<uint64_t>(a.sig);
  uint64_t q_hi = hi / d, r = hi % d;
  u128 n = (u128{r} << 64) | lo;
  uint64_t q_lo = static_cast<uint64_t>(n / d);
  r = static_cast<uint64_t>(n % d);
  // One more step so a small divisor does not cost precision.
  uint64_t q_extra = static_cast<uint64_t>((u128{r} << 64) / d);
  u128 q = (u128{q_hi} << 64) | q_lo;
  int lz = clz128(q);
  uint64_t r_extra = static_cast<uint64_t>((u128{r} << 64) % d);
  u128 v = (q << lz) | (lz ? q_extra >> (64 - lz) : 0);  // lz <= 32
  v |= (r_extra != 0 || (q_extra << lz) != 0);
  Wide w;
  w.sign = a.sign;
  w.exp = a.exp - lz;
  w.sig = v;
  return w;
}

Wide wide_sqrt(const Wide& a) {
  if (a.is_zero()) return a;
  // A 64-bit first guess from the top bits, then one Newton step.
  int32_t e = a.exp;
  bool odd = e & 1;
  u128 top = odd ? a.sig : a.sig >> 1;  // value = top * 2^(e - 127 (+1))
  int32_t root_exp = odd ? (e - 1) / 2 : e / 2;
  // Integer square root of the top 64 bits (as a 128-bit radicand).
  u128 rad = top;
  u128 rem = 0, root = 0;
  for (int i = 0; i < 64; ++i) {
    rem = (rem << 2) | (rad >> 126);
    rad <<= 2;
    root <<= 1;
    u128 trial = (root << 1) | 1;
    if (rem >= trial) {
      rem -= trial;
      root |= 1;
    }
  }
  Wide guess = make_wide(false, root_exp + 64, root);
  Wide next = wide_add(guess, wide_div(a, guess));
  return wide_ldexp(next, -1);
}

Wide wide_pi() { return Wide{false, 1, (u128{0xc90fdaa22168c234ull} << 64) | 0xc4c6628b80dc1cd1ull}; }
Wide wide_ln2() { return Wide{false, -1, (u128{0xb17217f7d1cf79abull} << 64) | 0xc9e3b39803f2f6afull}; }
Wide wide_log2e() { return Wide{false, 0, (u128{0xb8aa3b295c17f0bbull} << 64) | 0xbe87fed0691d3e88ull}; }

}  // namespace phybin::x87
