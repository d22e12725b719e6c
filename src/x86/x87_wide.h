// A 128-bit-significand binary float for the transcendental functions:
// each operation truncates to 128 bits (relative error below 2^-126), so
// a series evaluated in it is far more precise than the 64-bit result it
// is rounded to at the end.
#pragma once

#include "x86/x87_internal.h"

namespace phybin::x87 {

// sig * 2^(exp - 127); sig has bit 127 set, or is 0 for zero.
struct Wide {
  bool sign = false;
  int32_t exp = 0;
  u128 sig = 0;

  bool is_zero() const { return sig == 0; }
};

Wide wide_from(Float80 a);  // finite values only
Wide wide_from_int(int64_t v);
Wide wide_from_fixed(bool sign, u128 magnitude, int32_t unit_exp);  // magnitude * 2^unit_exp
// Rounds per env (64-bit precision) to a Float80.
Float80 wide_round(FpEnv& env, const Wide& w);

Wide wide_neg(Wide a);
Wide wide_add(const Wide& a, const Wide& b);
Wide wide_sub(const Wide& a, const Wide& b);
Wide wide_mul(const Wide& a, const Wide& b);
Wide wide_div(const Wide& a, const Wide& b);
Wide wide_div_small(const Wide& a, uint32_t d);
Wide wide_sqrt(const Wide& a);
inline Wide wide_ldexp(Wide a, int32_t n) {
  if (!a.is_zero()) a.exp += n;
  return a;
}

// Constants to 128 bits.
Wide wide_pi();
Wide wide_ln2();
Wide wide_log2e();

}  // namespace phybin::x87
