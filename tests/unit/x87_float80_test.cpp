// The x87 soft-float core (src/x86/x87_*.cpp) against the host's own x87:
// the unit tests run on x86-64, so every operation is also run on the real
// FPU through inline asm, with random operands of every class (normals
// near each other and at the range ends, denormals, pseudo-denormals,
// zeros, infinities, NaNs, unnormals) under all rounding modes and
// precision controls; result bits and FSW (exception bits, C0-C3) must
// match.  Transcendentals are compared with a tolerance (see the end).
//
// phybin follows Intel CPUs where the manuals leave something undefined
// (the condition codes C0, C2, C3 after arithmetic, loads and stores) or
// where CPUs are not correctly rounded (UE/PE of transcendentals).  Those
// are compared only when the host CPU is an Intel one;
// PHYBIN_TEST_VENDOR_NEUTRAL=1 compares as on any other CPU (ctest runs
// these tests that way too).
#include <cpuid.h>
#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include "x86/x87_float80.h"

#if defined(__x86_64__)

namespace phybin::x87 {
namespace {

// The FSW bits compared: exceptions, SF, C0-C3.
constexpr uint16_t kFswMask = 0x477f;

std::string host_vendor() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return "unknown";
  char text[13];
  std::memcpy(text, &ebx, 4);  // EBX, EDX, ECX
  std::memcpy(text + 4, &edx, 4);
  std::memcpy(text + 8, &ecx, 4);
  text[12] = '\0';
  return text;
}

// Whether the host CPU is of phybin's model vendor (its CPUID says
// GenuineIntel), so that what phybin does as Intel CPUs do is compared.
bool model_vendor() {
  static const bool yes = [] {
    const char* neutral = std::getenv("PHYBIN_TEST_VENDOR_NEUTRAL");
    const bool forced = neutral && *neutral && std::strcmp(neutral, "0") != 0;
    const bool intel = host_vendor() == "GenuineIntel";
    std::printf("x87 tests: host CPU %s%s: %s\n", host_vendor().c_str(), forced ? ", forced vendor-neutral" : "",
                intel && !forced ? "Intel's behaviour compared (C0-C3 where undefined, UE/PE one ulp apart)"
                                 : "only what both vendors' manuals define compared");
    return intel && !forced;
  }();
  return yes;
}

// The FSW bits compared after an operation that leaves `undefined`
// (condition codes) undefined in the manuals.
uint16_t compared_fsw(uint16_t undefined) {
  return model_vendor() ? kFswMask : static_cast<uint16_t>(kFswMask & ~undefined);
}
constexpr uint16_t kC023 = kC0 | kC2 | kC3;

struct Rng {
  uint64_t s;
  uint64_t next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 0x2545f4914f6cdd1dull;
  }
  unsigned below(unsigned n) { return static_cast<unsigned>(next() % n); }
};

// A significand with runs of equal bits, so that rounding boundaries
// (halfway cases, all ones) come up often.
uint64_t random_sig(Rng& r) {
  uint64_t s = r.next();
  switch (r.below(6)) {
    case 0: s &= ~uint64_t{0} << r.below(64); break;
    case 1: s |= (uint64_t{1} << r.below(64)) - 1; break;
    case 2: s = (s & (~uint64_t{0} << r.below(64))) | (uint64_t{1} << r.below(64)); break;
    default: break;
  }
  return s;
}

Float80 random_value(Rng& r, const Float80* near = nullptr) {
  bool sign = r.next() & 1;
  uint64_t sig = random_sig(r);
  switch (r.below(32)) {
    case 0: return make80(sign, 0, 0);
    case 1: return make80(sign, 0x7fff, kIntBit);
    case 2: return make80(sign, 0x7fff, kIntBit | kQuietBit | (sig >> 2));
    case 3: return make80(sign, 0x7fff, kIntBit | ((sig >> 2) | 1));  // signaling
    case 4: return make80(sign, 0, sig >> (1 + r.below(63)));        // denormal
    case 5: return make80(sign, 0, sig | kIntBit);                     // pseudo-denormal
    case 6:
      if (r.below(4) == 0) return make80(sign, static_cast<uint16_t>(1 + r.below(0x7ffe)), sig & ~kIntBit);
      break;
    case 7: return make80(sign, static_cast<uint16_t>(0x7ffe - r.below(80)), sig | kIntBit);
    case 8: return make80(sign, static_cast<uint16_t>(1 + r.below(80)), sig | kIntBit);
    case 9: return make80(sign, static_cast<uint16_t>(1 + r.below(0x7ffe)), sig | kIntBit);
    default: break;
  }
  int base = near && near->exp() > 0 && near->exp() < 0x7fff ? near->exp() : kBias;
  int e = base + static_cast<int>(r.below(140)) - 70;
  if (r.below(3) == 0) e = base + static_cast<int>(r.below(5)) - 2;
  if (e < 1) e = 1;
  if (e > 0x7ffe) e = 0x7ffe;
  return make80(sign, static_cast<uint16_t>(e), sig | kIntBit);
}

uint16_t random_fcw(Rng& r) { return static_cast<uint16_t>(0x7f | (r.below(4) << 8) | (r.below(4) << 10)); }

std::string hex(Float80 v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04x:%016" PRIx64, v.se, v.sig);
  return buf;
}

struct Hw {
  Float80 v, v2;
  uint16_t fsw = 0;
  uint64_t flags = 0;
};

#define X87_CLOBBERS "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", "st(7)", "memory"

// ST0 = a, ST1 = b, run `insn`, store ST0 (and ST1 into v2).
#define HW_BINARY(name, insn)                                                                         \
  Hw name(uint16_t fcw, Float80 a, Float80 b) {                                                       \
    Hw h;                                                                                             \
    asm volatile("fninit\n fldcw %[cw]\n fldt %[b]\n fldt %[a]\n" insn                               \
                 "\n fnstsw %[sw]\n fstpt %[out]\n fstpt %[out2]\n fninit\n"                          \
                 : [out] "=m"(h.v), [out2] "=m"(h.v2), [sw] "=m"(h.fsw)                               \
                 : [cw] "m"(fcw), [a] "m"(a), [b] "m"(b)                                              \
                 : X87_CLOBBERS);                                                                     \
    return h;                                                                                         \
  }

HW_BINARY(hw_add, "fadd %%st(1), %%st")
HW_BINARY(hw_sub, "fsub %%st(1), %%st")
HW_BINARY(hw_mul, "fmul %%st(1), %%st")
HW_BINARY(hw_div, "fdiv %%st(1), %%st")
HW_BINARY(hw_sqrt, "fsqrt")
HW_BINARY(hw_rndint, "frndint")
HW_BINARY(hw_scale, "fscale")
HW_BINARY(hw_prem, "fprem")
HW_BINARY(hw_prem1, "fprem1")
HW_BINARY(hw_com, "fcom %%st(1)")
HW_BINARY(hw_ucom, "fucom %%st(1)")
HW_BINARY(hw_tst, "ftst")
HW_BINARY(hw_xam, "fxam")
HW_BINARY(hw_sin, "fsin")
HW_BINARY(hw_cos, "fcos")
HW_BINARY(hw_tan, "fptan")
HW_BINARY(hw_f2xm1, "f2xm1")
HW_BINARY(hw_patan, "fpatan")
HW_BINARY(hw_yl2x, "fyl2x")
HW_BINARY(hw_yl2xp1, "fyl2xp1")

// fxtract leaves the significand in ST0 and the exponent in ST1.
Hw hw_xtract(uint16_t fcw, Float80 a) {
  Hw h;
  asm volatile("fninit\n fldcw %[cw]\n fldt %[a]\n fxtract\n fnstsw %[sw]\n fstpt %[out]\n fstpt %[out2]\n fninit\n"
               : [out] "=m"(h.v), [out2] "=m"(h.v2), [sw] "=m"(h.fsw)
               : [cw] "m"(fcw), [a] "m"(a)
               : X87_CLOBBERS);
  return h;
}

// RFLAGS after fcomi/fucomi: lahf (SF ZF AF PF CF) and seto, not pushf,
// which would write below the stack pointer (the red zone).
Hw hw_comi(uint16_t fcw, Float80 a, Float80 b, bool quiet) {
  Hw h;
  uint16_t ax = 0;
  uint8_t of = 0;
  if (quiet)
    asm volatile("fninit\n fldcw %[cw]\n fldt %[b]\n fldt %[a]\n fucomi %%st(1), %%st\n lahf\n seto %[of]\n"
                 " fnstsw %[sw]\n fninit\n"
                 : "=a"(ax), [of] "=q"(of), [sw] "=m"(h.fsw)
                 : [cw] "m"(fcw), [a] "m"(a), [b] "m"(b)
                 : X87_CLOBBERS, "cc");
  else
    asm volatile("fninit\n fldcw %[cw]\n fldt %[b]\n fldt %[a]\n fcomi %%st(1), %%st\n lahf\n seto %[of]\n"
                 " fnstsw %[sw]\n fninit\n"
                 : "=a"(ax), [of] "=q"(of), [sw] "=m"(h.fsw)
                 : [cw] "m"(fcw), [a] "m"(a), [b] "m"(b)
                 : X87_CLOBBERS, "cc");
  h.flags = ((ax >> 8) & 0xd5) | (uint64_t{of} << 11);  // OF SF ZF AF PF CF
  return h;
}

// Counts and prints (the first few) mismatches of one operation.
struct Checker {
  const char* name;
  int failures = 0;
  void check(bool ok, uint16_t fcw, Float80 a, Float80 b, const std::string& got, const std::string& want) {
    if (ok) return;
    if (++failures <= 8)
      ADD_FAILURE() << name << " fcw=" << std::hex << fcw << " a=" << hex(a) << " b=" << hex(b) << " got " << got
                    << " want " << want;
  }
  std::string show(Float80 v, uint16_t fsw) const {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s sw=%04x", hex(v).c_str(), fsw & kFswMask);
    return buf;
  }
};

using BinaryFn = Float80 (*)(FpEnv&, Float80, Float80);
using HwFn = Hw (*)(uint16_t, Float80, Float80);

// Operand pairs: mostly independent, sometimes arranged so that the
// result lands at the edges of the exponent range.
enum class Pairs { Any, Product, Quotient, Scale };

uint16_t clamp_exp(int e) { return static_cast<uint16_t>(e < 1 ? 1 : e > 0x7ffe ? 0x7ffe : e); }

void random_pair(Rng& r, Pairs kind, Float80& a, Float80& b) {
  a = random_value(r);
  b = random_value(r, &a);
  if (r.below(2)) std::swap(a, b);
  if (kind == Pairs::Any || r.below(2) || a.exp() == 0 || a.exp() == 0x7fff) return;
  int ea = a.exp() - kBias;
  int edge = r.below(2) ? -16382 + static_cast<int>(r.below(80)) - 70 : 16383 + static_cast<int>(r.below(6)) - 3;
  bool sign = r.next() & 1;
  switch (kind) {
    case Pairs::Product: b = make80(sign, clamp_exp(edge - ea + kBias), random_sig(r) | kIntBit); break;
    case Pairs::Quotient: b = make80(sign, clamp_exp(ea - edge + kBias), random_sig(r) | kIntBit); break;
    default: {
      int64_t n = static_cast<int64_t>(r.below(70000)) - 35000;
      if (r.below(2)) n = edge - ea;
      Float80 whole = from_int(n);
      // Sometimes a fraction, which fscale truncates.
      b = r.below(4) == 0 && whole.exp() != 0 ? make80(whole.sign(), whole.exp(), whole.sig | (r.next() >> 20)) : whole;
      break;
    }
  }
}

// fprem/fprem1 report quotient bits in C0, C3, C1; for a NaN, unsupported
// or infinite dividend or a zero divisor there is no quotient and the
// manuals do not say what they hold.
uint16_t remainder_undefined(Float80 a, Float80 b) {
  auto bad = [](Class k) { return k == Class::QNaN || k == Class::SNaN || k == Class::Unsupported; };
  const Class ka = classify(a), kb = classify(b);
  const bool quotient = !bad(ka) && !bad(kb) && ka != Class::Infinity && kb != Class::Zero;
  return quotient ? 0 : static_cast<uint16_t>(kC0 | kRoundedUp | kC3);
}

// `undefined`: the condition codes the operation leaves undefined (C0, C2
// and C3 after arithmetic); null for fprem/fprem1 (remainder_undefined).
void run_binary(const char* name, BinaryFn soft, HwFn hw, int count, uint64_t seed, bool pc_applies,
                Pairs kind = Pairs::Any, uint16_t undefined = kC023) {
  Rng r{seed};
  Checker c{name};
  for (int i = 0; i < count; ++i) {
    uint16_t fcw = random_fcw(r);
    Float80 a, b;
    random_pair(r, kind, a, b);
    Hw h = hw(fcw, a, b);
    FpEnv env = FpEnv::from_fcw(fcw, pc_applies);
    Float80 got = soft(env, a, b);
    const uint16_t mask = compared_fsw(undefined ? undefined : remainder_undefined(a, b));
    c.check(got == h.v && (env.status & mask) == (h.fsw & mask), fcw, a, b, c.show(got, env.status),
            c.show(h.v, h.fsw));
  }
}

Float80 soft_sqrt(FpEnv& env, Float80 a, Float80) { return sqrt(env, a); }
Float80 soft_rndint(FpEnv& env, Float80 a, Float80) { return round_to_int(env, a); }
Float80 soft_prem(FpEnv& env, Float80 a, Float80 b) { return remainder(env, a, b, false); }
Float80 soft_prem1(FpEnv& env, Float80 a, Float80 b) { return remainder(env, a, b, true); }

// Operands per operation: sized so that the sanitized debug build runs
// this file in about 5 s.  PHYBIN_X87_TEST_SCALE=N multiplies the counts
// (N = 20 gives a million operands per operation, ~30 s optimized).
int scaled(int n) {
  static const int scale = [] {
    const char* s = std::getenv("PHYBIN_X87_TEST_SCALE");
    int v = s ? std::atoi(s) : 1;
    return v > 0 ? v : 1;
  }();
  return n * scale;
}
const int kCount = scaled(50000);

TEST(X87Float80, Add) { run_binary("fadd", add, hw_add, kCount, 1, true); }
TEST(X87Float80, Sub) { run_binary("fsub", sub, hw_sub, kCount, 2, true); }
TEST(X87Float80, Mul) { run_binary("fmul", mul, hw_mul, kCount, 3, true, Pairs::Product); }
TEST(X87Float80, Div) { run_binary("fdiv", div, hw_div, kCount, 4, true, Pairs::Quotient); }
TEST(X87Float80, Sqrt) { run_binary("fsqrt", soft_sqrt, hw_sqrt, kCount, 5, true); }
TEST(X87Float80, RoundToInt) { run_binary("frndint", soft_rndint, hw_rndint, kCount / 2, 6, false); }
TEST(X87Float80, Scale) { run_binary("fscale", scale, hw_scale, kCount / 2, 7, false, Pairs::Scale); }
TEST(X87Float80, Prem) { run_binary("fprem", soft_prem, hw_prem, kCount / 2, 8, false, Pairs::Any, 0); }
TEST(X87Float80, Prem1) { run_binary("fprem1", soft_prem1, hw_prem1, kCount / 2, 9, false, Pairs::Any, 0); }


// Comparisons: C3/C2/C0 (and IE, DE) of fcom, fucom, ftst; fxam's class.
// Two NaNs with the same significand: the CPU returns the positive one,
// whichever operand it is (seen on the host x87; found by difftest).
TEST(X87Float80, NaNTieTakesPositive) {
  const Float80 pos = make80(false, 0x7fff, 0xc000000000000001ull);
  const Float80 neg = make80(true, 0x7fff, 0xc000000000000001ull);
  FpEnv env;
  EXPECT_EQ(add(env, pos, neg), pos);
  EXPECT_EQ(add(env, neg, pos), pos);
  EXPECT_EQ(div(env, neg, pos), pos);
  EXPECT_EQ(mul(env, neg, pos), pos);
}

TEST(X87Float80, Compare) {
  Rng r{10};
  Checker c{"fcom"};
  Float80 zero = make80(false, 0, 0);
  for (int i = 0; i < kCount / 2; ++i) {
    uint16_t fcw = random_fcw(r);
    Float80 a, b;
    random_pair(r, Pairs::Any, a, b);
    if (r.below(8) == 0) b = a;
    if (r.below(8) == 0) b = negate(a);
    int kind = static_cast<int>(r.below(4));
    Hw h = kind == 0 ? hw_com(fcw, a, b) : kind == 1 ? hw_ucom(fcw, a, b) : kind == 2 ? hw_tst(fcw, a, b)
                                                                                       : hw_xam(fcw, a, b);
    FpEnv env = FpEnv::from_fcw(fcw);
    if (kind == 3) env.raise(examine(a));
    else env.raise(condition_bits(compare(env, a, kind == 2 ? zero : b, kind == 1)));
    c.check((env.status & kFswMask) == (h.fsw & kFswMask), static_cast<uint16_t>(fcw | kind << 12), a, b,
            c.show(a, env.status), c.show(a, h.fsw));
  }
}

// fcomi/fucomi: ZF, PF, CF (OF, SF, AF cleared).
TEST(X87Float80, CompareFlags) {
  Rng r{11};
  Checker c{"fcomi"};
  for (int i = 0; i < kCount / 4; ++i) {
    uint16_t fcw = random_fcw(r);
    Float80 a, b;
    random_pair(r, Pairs::Any, a, b);
    bool quiet = r.below(2);
    Hw h = hw_comi(fcw, a, b, quiet);
    FpEnv env = FpEnv::from_fcw(fcw);
    uint16_t bits = condition_bits(compare(env, a, b, quiet));
    uint64_t flags = (bits & kC3 ? 0x40 : 0) | (bits & kC2 ? 4 : 0) | (bits & kC0 ? 1 : 0);
    c.check(flags == h.flags && (env.status & kFswMask) == (h.fsw & kFswMask), fcw, a, b,
            c.show(make80(false, 0, flags), env.status), c.show(make80(false, 0, h.flags), h.fsw));
  }
}

TEST(X87Float80, Extract) {
  Rng r{12};
  Checker c{"fxtract"};
  for (int i = 0; i < kCount / 4; ++i) {
    uint16_t fcw = random_fcw(r);
    Float80 a = random_value(r);
    Hw h = hw_xtract(fcw, a);
    FpEnv env = FpEnv::from_fcw(fcw, false);
    Extracted e = extract(env, a);
    const uint16_t mask = compared_fsw(kC023);
    c.check(e.significand == h.v && e.exponent == h.v2 && (env.status & mask) == (h.fsw & mask), fcw, a,
            e.exponent, c.show(e.significand, env.status) + " " + hex(e.exponent),
            c.show(h.v, h.fsw) + " " + hex(h.v2));
  }
}

// Loads of float32/float64 and stores to float32/float64 and integers.
Hw hw_load32(uint16_t fcw, uint32_t v) {
  Hw h;
  asm volatile("fninit\n fldcw %[cw]\n flds %[in]\n fnstsw %[sw]\n fstpt %[out]\n fninit\n"
               : [out] "=m"(h.v), [sw] "=m"(h.fsw) : [cw] "m"(fcw), [in] "m"(v) : X87_CLOBBERS);
  return h;
}
Hw hw_load64(uint16_t fcw, uint64_t v) {
  Hw h;
  asm volatile("fninit\n fldcw %[cw]\n fldl %[in]\n fnstsw %[sw]\n fstpt %[out]\n fninit\n"
               : [out] "=m"(h.v), [sw] "=m"(h.fsw) : [cw] "m"(fcw), [in] "m"(v) : X87_CLOBBERS);
  return h;
}

// Stores ST0 = a with `insn` into h.flags (the low bytes) or h.v (m80).
#define HW_STORE(name, insn)                                                                           \
  Hw name(uint16_t fcw, Float80 a) {                                                                   \
    Hw h;                                                                                              \
    h.v = Float80{};                                                                                   \
    asm volatile("fninit\n fldcw %[cw]\n fldt %[a]\n " insn " %[out]\n fnstsw %[sw]\n fninit\n"       \
                 : [out] "+m"(h.v), [sw] "=m"(h.fsw) : [cw] "m"(fcw), [a] "m"(a) : X87_CLOBBERS);       \
    return h;                                                                                          \
  }
HW_STORE(hw_st32, "fstps")
HW_STORE(hw_st64, "fstpl")
HW_STORE(hw_ist16, "fistps")
HW_STORE(hw_ist32, "fistpl")
HW_STORE(hw_ist64, "fistpll")
HW_STORE(hw_istt16, "fisttps")
HW_STORE(hw_istt32, "fisttpl")
HW_STORE(hw_istt64, "fisttpll")
HW_STORE(hw_bstp, "fbstp")

Float80 random_for_store(Rng& r) {
  Float80 a = random_value(r);
  if (r.below(2) && a.exp() != 0 && a.exp() != 0x7fff) {
    // Near the float32/float64 ranges, or a value that fits an integer.
    static constexpr int kEdges[] = {-126, 127, -1022, 1023, 0, 14, 30, 62, 63, 59};
    int e = kEdges[r.below(10)] + static_cast<int>(r.below(60)) - 30;
    a = make80(a.sign(), clamp_exp(e + kBias), a.sig);
  }
  return a;
}

TEST(X87Float80, Store) {
  Rng r{13};
  Checker c{"store"};
  for (int i = 0; i < kCount; ++i) {
    uint16_t fcw = random_fcw(r);
    Float80 a = random_for_store(r);
    unsigned kind = r.below(9);
    static constexpr Hw (*kHw[])(uint16_t, Float80) = {hw_st32,    hw_st64,    hw_ist16,   hw_ist32, hw_ist64,
                                                         hw_istt16, hw_istt32, hw_istt64, hw_bstp};
    Hw h = kHw[kind](fcw, a);
    FpEnv env = FpEnv::from_fcw(fcw, false);
    Float80 got{};
    switch (kind) {
      case 0: got.sig = to_f32(env, a); break;
      case 1: got.sig = to_f64(env, a); break;
      case 2: case 3: case 4: {
        static constexpr unsigned kBits[] = {16, 32, 64};
        uint64_t v = to_int(env, a, kBits[kind - 2], false);
        std::memcpy(&got.sig, &v, kBits[kind - 2] / 8);
        break;
      }
      case 5: case 6: case 7: {
        static constexpr unsigned kBits[] = {16, 32, 64};
        uint64_t v = to_int(env, a, kBits[kind - 5], true);
        std::memcpy(&got.sig, &v, kBits[kind - 5] / 8);
        break;
      }
      default: {
        uint8_t bcd[10];
        to_bcd(env, a, bcd);
        std::memcpy(&got.sig, bcd, 8);
        std::memcpy(&got.se, bcd + 8, 2);
        break;
      }
    }
    const uint16_t mask = compared_fsw(kC023);
    c.check(got == h.v && (env.status & mask) == (h.fsw & mask), static_cast<uint16_t>(fcw | kind << 12), a, a,
            c.show(got, env.status), c.show(h.v, h.fsw));
  }
}

TEST(X87Float80, Load) {
  Rng r{14};
  Checker c{"load"};
  for (int i = 0; i < kCount / 2; ++i) {
    uint16_t fcw = random_fcw(r);
    uint64_t bits = r.next();
    switch (r.below(6)) {
      case 0: bits &= 0x807fffff807fffffull; break;               // denormals / zeros
      case 1: bits |= 0x7f8000007ff00000ull; break;               // NaN / inf
      case 2: bits &= 0x8000000080000000ull | (r.next() & 0x000fffff007fffffull) >> r.below(52); break;
      default: break;
    }
    bool wide_load = r.below(2);
    Hw h = wide_load ? hw_load64(fcw, bits) : hw_load32(fcw, static_cast<uint32_t>(bits));
    FpEnv env = FpEnv::from_fcw(fcw);
    Float80 got = wide_load ? from_f64(env, bits) : from_f32(env, static_cast<uint32_t>(bits));
    const uint16_t mask = compared_fsw(kC023);
    c.check(got == h.v && (env.status & mask) == (h.fsw & mask), fcw, make80(false, 0, bits), got,
            c.show(got, env.status), c.show(h.v, h.fsw));
  }
}

TEST(X87Float80, Bcd) {
  Rng r{15};
  Checker c{"fbld"};
  for (int i = 0; i < kCount / 10; ++i) {
    uint8_t bcd[10];
    for (int k = 0; k < 9; ++k) bcd[k] = static_cast<uint8_t>(r.below(10) << 4 | r.below(10));
    bcd[9] = r.below(2) ? 0x80 : 0;
    if (r.below(8) == 0) std::memset(bcd, 0, 9);
    Float80 got = from_bcd(bcd), want;
    asm volatile("fninit\n fbld %[in]\n fstpt %[out]\n" : [out] "=m"(want) : [in] "m"(bcd) : X87_CLOBBERS);
    c.check(got == want, 0, got, got, hex(got), hex(want));
  }
}

TEST(X87Float80, Constants) {
  for (uint16_t rc = 0; rc < 4; ++rc) {
    uint16_t fcw = static_cast<uint16_t>(0x37f | rc << 10);
    Float80 hw[7];
    asm volatile(
        "fninit\n fldcw %[cw]\n fld1\n fstpt 0(%[o])\n fldz\n fstpt 16(%[o])\n fldpi\n fstpt 32(%[o])\n"
        " fldl2e\n fstpt 48(%[o])\n fldl2t\n fstpt 64(%[o])\n fldlg2\n fstpt 80(%[o])\n fldln2\n fstpt 96(%[o])\n"
        " fninit\n"
        :
        : [cw] "m"(fcw), [o] "r"(hw)
        : X87_CLOBBERS);
    for (int k = 0; k < 7; ++k)
      EXPECT_EQ(hex(load_constant(static_cast<uint8_t>(rc), static_cast<Constant>(k))), hex(hw[k]))
          << "constant " << k << " rc " << rc;
  }
}


// ---- Transcendentals ------------------------------------------------------
// The CPU's results are not always correctly rounded; ours are (nearly)
// always.  Required: within one unit in the last place everywhere (C1,
// PE and UE may then differ, as they describe the rounding), identical
// flags otherwise, and identical results in the vast majority.

// Position of a finite value on the line of representable magnitudes.
__int128 ordinal(Float80 v) {
  __int128 m = v.exp() == 0 ? static_cast<__int128>(v.sig)
                            : (static_cast<__int128>(v.exp()) << 63) + static_cast<__int128>(v.sig & ~kIntBit);
  return v.sign() ? -m : m;
}

enum class Fn { Sin, Cos, Tan, F2xm1, Patan, Yl2x, Yl2xp1 };

Float80 random_in(Rng& r, int lo_exp, int hi_exp) {
  return make80(r.next() & 1, clamp_exp(kBias + lo_exp + static_cast<int>(r.below(hi_exp - lo_exp + 1))),
                random_sig(r) | kIntBit);
}

void transcendental_operands(Rng& r, Fn fn, Float80& a, Float80& b) {
  b = random_value(r);
  if (r.below(8) == 0) {  // any class
    a = random_value(r);
    return;
  }
  switch (fn) {
    case Fn::Sin: case Fn::Cos: case Fn::Tan:
      a = random_in(r, -40, 64);
      if (r.below(4) == 0) {  // near k * pi / 2
        FpEnv env;
        Float80 k = from_int(static_cast<int64_t>(r.below(1 << (r.below(20) + 1))) + 1);
        a = mul(env, k, make80(false, kBias, 0xc90fdaa22168c235ull));
        a.sig += r.below(64) - 32;
      }
      break;
    case Fn::F2xm1: a = random_in(r, -70, -1); if (r.below(16) == 0) a = make80(r.next() & 1, kBias, kIntBit); break;
    case Fn::Patan: a = random_in(r, -80, 80); b = random_in(r, -80, 80); break;
    case Fn::Yl2x:
      a = absolute(random_in(r, -80, 80));
      if (r.below(4) == 0) a = make80(false, static_cast<uint16_t>(kBias - r.below(2)), r.below(2) ? ~0ull - r.below(1000) : kIntBit + r.below(1000));
      b = random_in(r, -20, 20);
      break;
    case Fn::Yl2xp1: a = random_in(r, -70, -3); b = random_in(r, -20, 20); break;
  }
  if (r.below(4) == 0) b = make80(false, kBias, kIntBit);
}

// Operands whose result is at or below the smallest normal (denormals and
// the smallest normals): the result is inexact and tiny, so UE is set.
void tiny_operands(Rng& r, Fn fn, Float80& a, Float80& b) {
  bool sign = r.next() & 1;
  uint16_t exp = static_cast<uint16_t>(r.below(2) ? 0 : r.below(70));
  uint64_t sig = random_sig(r) >> r.below(64);
  a = make80(sign, exp, exp == 0 ? sig & ~kIntBit : sig | kIntBit);
  b = r.below(2) ? make80(false, kBias, kIntBit) : random_in(r, -2, 2);
  if (fn == Fn::Patan || fn == Fn::Yl2x) std::swap(a, b);  // atan(tiny / x), tiny * log2(x)
  if (fn == Fn::Yl2x) a = absolute(a);
}

struct TranscendentalStats {
  int total = 0, exact = 0, one_ulp = 0, worse = 0;

};

// `tiny`: operands from tiny_operands, and UE/PE must agree even where the
// values are one ulp apart.
TranscendentalStats run_transcendental(Fn fn, int count, uint64_t seed, bool tiny = false) {
  Rng r{seed};
  Checker c{"transcendental"};
  TranscendentalStats st;
  for (int i = 0; i < count; ++i) {
    uint16_t fcw = random_fcw(r);
    Float80 a, b;
    if (tiny) tiny_operands(r, fn, a, b);
    else transcendental_operands(r, fn, a, b);
    FpEnv env = FpEnv::from_fcw(fcw, false);
    Float80 got = a;
    Hw h;
    switch (fn) {
      case Fn::Sin: h = hw_sin(fcw, a, b); if (!sin(env, a, got)) env.raise(kC2); break;
      case Fn::Cos: h = hw_cos(fcw, a, b); if (!cos(env, a, got)) env.raise(kC2); break;
      case Fn::Tan: {
        h = hw_tan(fcw, a, b);
        if (!tan(env, a, got)) env.raise(kC2);  // nothing pushed: ST0 is a
        else h.v = h.v2;                       // ST0 is the 1.0 pushed, ST1 tan(a)
        break;
      }
      case Fn::F2xm1: h = hw_f2xm1(fcw, a, b); got = exp2m1(env, a); break;
      case Fn::Patan: h = hw_patan(fcw, a, b); got = atan2(env, b, a); break;
      case Fn::Yl2x: h = hw_yl2x(fcw, a, b); got = ylog2x(env, b, a); break;
      case Fn::Yl2xp1: h = hw_yl2xp1(fcw, a, b); got = ylog2xp1(env, b, a); break;
    }
    ++st.total;
    // C2 reports the range check of the trigonometric ones; C0 and C3 (and
    // C2 of the others) are undefined
    const bool trigonometric = fn == Fn::Sin || fn == Fn::Cos || fn == Fn::Tan;
    const uint16_t mask = compared_fsw(trigonometric ? kC0 | kC3 : kC023);
    bool same_flags = (env.status & mask) == (h.fsw & mask);
    if (got == h.v && same_flags) {
      ++st.exact;
      continue;
    }
    // Where the CPU is not correctly rounded: one ulp off, with C1 and
    // maybe PE/UE telling the other rounding direction.
    bool finite = classify(got) != Class::QNaN && classify(got) != Class::Infinity && got.sign() == h.v.sign() &&
                  classify(h.v) != Class::QNaN && classify(h.v) != Class::Infinity;
    __int128 d = finite ? ordinal(got) - ordinal(h.v) : 99;
    // Intel CPUs report UE/PE for tiny results as phybin does even where
    // the values are one ulp apart; other CPUs (AMD) need not.
    uint16_t free_bits = tiny && model_vendor() ? kRoundedUp : kRoundedUp | kUnderflow | kInexact;
    if (d >= -1 && d <= 1 && ((env.status ^ h.fsw) & mask & ~free_bits) == 0) {
      ++st.one_ulp;
      continue;
    }
    ++st.worse;
    c.check(false, fcw, a, b, c.show(got, env.status), c.show(h.v, h.fsw));
  }
  return st;
}

void check_transcendental(const char* name, Fn fn, uint64_t seed) {
  TranscendentalStats st = run_transcendental(fn, scaled(5000), seed);
  std::printf("%-8s %d operands: %d identical, %d one ulp apart, %d worse\n", name, st.total, st.exact, st.one_ulp,
              st.worse);
  EXPECT_EQ(st.worse, 0) << name;
  // Measured on an Intel Xeon: 97% for fsin/fcos/fpatan, 84-92% for the
  // others (the CPU's own results are up to ~0.2 ulp off, mostly in one
  // direction, so near rounding boundaries it lands on the other side).
  // How often another vendor's CPU lands on the same side is its own
  // matter: there the bound only says that most results agree.
  EXPECT_GE(st.exact, st.total * (model_vendor() ? 80 : 50) / 100) << name;
}

// fsin/fptan/fpatan of a denormal come out exactly x in the 128-bit series;
// an Intel CPU still reports the tiny, inexact result with UE (and PE),
// also where its value is one ulp off ours: that is compared on Intel
// CPUs.  Elsewhere (AMD CPUs differ in the last bit and in UE there) the
// ordinary one-ulp tolerance applies.
TEST(X87Transcendental, TinyOperandsUnderflow) {
  static const Fn fns[] = {Fn::Sin, Fn::Cos, Fn::Tan, Fn::F2xm1, Fn::Patan, Fn::Yl2x, Fn::Yl2xp1};
  std::printf("tiny operands, host CPU %s%s: %s\n", host_vendor().c_str(),
              model_vendor() ? "" : " (compared vendor-neutral)",
              model_vendor() ? "UE/PE must agree also one ulp apart" : "UE/PE free one ulp apart");
  for (Fn fn : fns) {
    TranscendentalStats st = run_transcendental(fn, scaled(2000), 40 + static_cast<uint64_t>(fn), true);
    EXPECT_EQ(st.worse, 0) << static_cast<int>(fn);
  }
}

TEST(X87Transcendental, Sin) { check_transcendental("fsin", Fn::Sin, 21); }
TEST(X87Transcendental, Cos) { check_transcendental("fcos", Fn::Cos, 22); }
TEST(X87Transcendental, Tan) { check_transcendental("fptan", Fn::Tan, 23); }
TEST(X87Transcendental, F2xm1) { check_transcendental("f2xm1", Fn::F2xm1, 24); }
TEST(X87Transcendental, Patan) { check_transcendental("fpatan", Fn::Patan, 25); }
TEST(X87Transcendental, Yl2x) { check_transcendental("fyl2x", Fn::Yl2x, 26); }
TEST(X87Transcendental, Yl2xp1) { check_transcendental("fyl2xp1", Fn::Yl2xp1, 27); }

}  // namespace
}  // namespace phybin::x87

#endif  // __x86_64__
