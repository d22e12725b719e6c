// Tests of the integer extensions (family_bmi.cpp, family_intext.cpp) and
// SSE4.2 (family_sse42.cpp, sse42_helpers.cpp): the IR the frontend makes
// for them (encodings checked with `as --64` and `objdump -d -M intel`),
// and the helpers against the x86-64 CPU running the tests where it has
// the instructions (skipped where it does not) or hand-worked values.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstring>
#include <initializer_list>
#include <random>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "common/error.h"
#include "guest_code.h"
#include "common/guest_state.h"
#include "ir/ir.h"
#include "x86/frontend.h"
#include "x86/helpers.h"
#include "x86/sse42.h"

namespace phybin::x86 {
namespace {

using ir::Block;
using ir::Opcode;
using ir::Type;

// crc32 translates one way or the other by the host's CRC32 instructions.
struct Code : GuestCode {
  using GuestCode::GuestCode;
  Block translate(bool host_crc32 = true) const {
    FrontendOptions options;
    options.host_crc32 = host_crc32;
    return GuestCode::translate(options);
  }
};

int count(const Block& b, Opcode op) {
  return static_cast<int>(std::count_if(b.insts.begin(), b.insts.end(), [op](const ir::Inst& i) { return i.op == op; }));
}

bool sets_flag(const Block& b, uint8_t bit) {
  return std::any_of(b.insts.begin(), b.insts.end(),
                     [bit](const ir::Inst& i) { return i.op == Opcode::SetFlag && i.aux == bit; });
}

const ir::Inst* call_of(const Block& b, const void* fn) {
  for (const ir::Inst& i : b.insts)
    if (i.op == Opcode::CallHelper && i.imm == reinterpret_cast<uint64_t>(fn)) return &i;
  return nullptr;
}

// ---------------------------------------------------------------------------
// Frontend

TEST(IntExtFrontend, TzcntLzcntDecodeAsThemselvesWithTheirFlags) {
  Block tz = Code{0xf3, 0x48, 0x0f, 0xbc, 0xc3}.translate();  // tzcnt rax, rbx
  EXPECT_EQ(count(tz, Opcode::Ctz), 1) << ir::print_block(tz);
  EXPECT_EQ(count(tz, Opcode::Select), 0) << "tzcnt of zero gives the width, no bsf-style select";
  for (uint8_t bit : {kCF, kZF, kSF, kOF, kPF, kAF}) EXPECT_TRUE(sets_flag(tz, bit)) << int(bit);
  Block lz = Code{0xf3, 0x0f, 0xbd, 0xca}.translate();  // lzcnt ecx, edx
  EXPECT_EQ(count(lz, Opcode::Clz), 1) << ir::print_block(lz);
  Block tz16 = Code{0x66, 0xf3, 0x0f, 0xbc, 0xc3}.translate();  // tzcnt ax, bx
  ASSERT_EQ(count(tz16, Opcode::Ctz), 1);
  for (const ir::Inst& i : tz16.insts) {
    if (i.op == Opcode::Ctz) {
      EXPECT_EQ(i.type, Type::I32) << "a 16-bit count is taken in 32 bits, bounded at 16";
    }
  }
}

TEST(IntExtFrontend, VexBmiInstructionsTranslate) {
  Block andn = Code{0xc4, 0xe2, 0xe0, 0xf2, 0xc1}.translate();  // andn rax, rbx, rcx
  EXPECT_EQ(count(andn, Opcode::AndNot), 1) << ir::print_block(andn);
  Block pdep = Code{0xc4, 0xe2, 0xe3, 0xf5, 0xc1}.translate();  // pdep rax, rbx, rcx
  EXPECT_NE(call_of(pdep, reinterpret_cast<const void*>(&helper_pdep)), nullptr) << ir::print_block(pdep);
  Block mulx = Code{0xc4, 0xe2, 0xe3, 0xf6, 0xc1}.translate();  // mulx rax, rbx, rcx
  EXPECT_EQ(count(mulx, Opcode::MulHiU), 1);
  EXPECT_FALSE(sets_flag(mulx, kCF)) << "mulx leaves the flags alone";
  Block bextr = Code{0xc4, 0xe2, 0x70, 0xf7, 0xc3}.translate();  // bextr eax, ebx, ecx
  EXPECT_TRUE(sets_flag(bextr, kZF));
  EXPECT_GE(count(bextr, Opcode::Lshr), 1);
}

TEST(IntExtFrontend, AvxStaysUntranslatable) {
  Code code{0xc5, 0xf4, 0x58, 0xc2};  // vaddps ymm0, ymm1, ymm2
  Block b = code.translate();
  ASSERT_EQ(count(b, Opcode::Trap), 1);
  const auto trap = std::find_if(b.insts.begin(), b.insts.end(), [](const ir::Inst& i) { return i.op == Opcode::Trap; });
  EXPECT_EQ(trap->aux, kTrapUntranslatable);
  const std::string msg = Frontend(Hooks{}).untranslatable_message(code.addr());
  EXPECT_NE(msg.find("vaddps"), std::string::npos) << msg;
}

TEST(IntExtFrontend, AdoxTouchesOnlyOverflow) {
  Block b = Code{0xf3, 0x48, 0x0f, 0x38, 0xf6, 0xc3}.translate();  // adox rax, rbx
  EXPECT_TRUE(sets_flag(b, kOF));
  for (uint8_t bit : {kCF, kZF, kSF, kPF, kAF}) EXPECT_FALSE(sets_flag(b, bit)) << int(bit);
}

TEST(IntExtFrontend, MovbeLoadsAndSwaps) {
  Block b = Code{0x0f, 0x38, 0xf0, 0x07}.translate();  // movbe eax, [rdi]
  EXPECT_EQ(count(b, Opcode::Load), 1);
  EXPECT_EQ(count(b, Opcode::Bswap), 1);
}

TEST(IntExtFrontend, Cmpxchg16bChecksAlignmentThenCallsTheHelper) {
  Block b = Code{0x48, 0x0f, 0xc7, 0x0f}.translate();  // cmpxchg16b [rdi]
  EXPECT_EQ(count(b, Opcode::VCheckAlign), 1);
  EXPECT_NE(call_of(b, reinterpret_cast<const void*>(&helper_cmpxchg16b)), nullptr);
  Block b8 = Code{0x0f, 0xc7, 0x0f}.translate();  // cmpxchg8b [rdi]
  EXPECT_EQ(count(b8, Opcode::Load), 1);
  EXPECT_EQ(count(b8, Opcode::Store), 1) << "x86 always writes the destination";
  EXPECT_TRUE(sets_flag(b8, kZF));
  EXPECT_FALSE(sets_flag(b8, kCF));
}

TEST(IntExtFrontend, XgetbvIsUndefinedWithoutOsxsave) {
  Block b = Code{0x0f, 0x01, 0xd0}.translate();
  ASSERT_EQ(count(b, Opcode::Trap), 1);
  for (const ir::Inst& i : b.insts) {
    if (i.op == Opcode::Trap) {
      EXPECT_EQ(i.aux, SIGILL);
    }
  }
}

TEST(Sse42Frontend, Crc32InlineOrHelperByHostFeature) {
  Code code{0xf2, 0x48, 0x0f, 0x38, 0xf1, 0xc3};  // crc32 rax, rbx
  Block inline_block = code.translate(true);
  EXPECT_EQ(count(inline_block, Opcode::Crc32c), 1);
  EXPECT_EQ(count(inline_block, Opcode::CallHelper), 0);
  Block helper_block = code.translate(false);
  EXPECT_EQ(count(helper_block, Opcode::Crc32c), 0);
  EXPECT_NE(call_of(helper_block, reinterpret_cast<const void*>(&helper_crc32c<8>)), nullptr);
  Block byte = Code{0xf2, 0x0f, 0x38, 0xf0, 0x07}.translate(false);  // crc32 eax, byte [rdi]
  EXPECT_NE(call_of(byte, reinterpret_cast<const void*>(&helper_crc32c<1>)), nullptr);
}

TEST(Sse42Frontend, PcmpstrPacksItsOperands) {
  Block b = Code{0x66, 0x0f, 0x3a, 0x63, 0xca, 0x0c}.translate();  // pcmpistri xmm1, xmm2, 0x0c
  const ir::Inst* call = call_of(b, reinterpret_cast<const void*>(&helper_pcmpstr));
  ASSERT_NE(call, nullptr);
  ASSERT_EQ(b.at(call->args[0]).op, Opcode::Const);
  PcmpstrDesc d = PcmpstrDesc::unpack(b.at(call->args[0]).imm);
  EXPECT_EQ(d.imm, 0x0c);
  EXPECT_EQ(d.reg_a, 1);
  EXPECT_TRUE(d.b_in_register);
  EXPECT_EQ(d.reg_b, 2);
  EXPECT_FALSE(d.explicit_length);
  EXPECT_FALSE(d.mask_output);

  Block m = Code{0x66, 0x0f, 0x3a, 0x60, 0x1e, 0x44}.translate();  // pcmpestrm xmm3, [rsi], 0x44
  call = call_of(m, reinterpret_cast<const void*>(&helper_pcmpstr));
  ASSERT_NE(call, nullptr);
  d = PcmpstrDesc::unpack(m.at(call->args[0]).imm);
  EXPECT_EQ(d.imm, 0x44);
  EXPECT_EQ(d.reg_a, 3);
  EXPECT_FALSE(d.b_in_register);
  EXPECT_TRUE(d.explicit_length);
  EXPECT_TRUE(d.mask_output);
  EXPECT_FALSE(d.wide_lengths);
}

TEST(Sse42Frontend, PcmpgtqIsASigned64BitCompare) {
  Block b = Code{0x66, 0x0f, 0x38, 0x37, 0xc1}.translate();  // pcmpgtq xmm0, xmm1
  bool found = false;
  for (const ir::Inst& i : b.insts)
    if (i.op == Opcode::VBinary && i.aux == static_cast<uint8_t>(ir::VecOp::CmpGtS)) found = i.lane == 3;
  EXPECT_TRUE(found) << ir::print_block(b);
}

// ---------------------------------------------------------------------------
// Helpers against hand-worked values

TEST(IntExtHelpers, PdepPextHandWorked) {
  EXPECT_EQ(helper_pdep(nullptr, 0b1011, 0xf0f0), 0xb0u);
  EXPECT_EQ(helper_pdep(nullptr, 0b110101, 0b1010101010), 0b1000100010u);
  EXPECT_EQ(helper_pext(nullptr, 0xabcd, 0xff00), 0xabu);
  EXPECT_EQ(helper_pext(nullptr, ~0ull, 0x8000000000000001ull), 3u);
  EXPECT_EQ(helper_pdep(nullptr, ~0ull, 0), 0u);
}

TEST(IntExtHelpers, Cmpxchg16bUpdatesMemoryAccumulatorAndZf) {
  GuestState s{};
  alignas(16) uint64_t mem[2] = {5, 6};
  s.gpr[RAX] = 5, s.gpr[RDX] = 6, s.gpr[RBX] = 7, s.gpr[RCX] = 8, s.rflags = 0x202;
  helper_cmpxchg16b(&s, reinterpret_cast<uint64_t>(mem), 0);
  EXPECT_EQ(mem[0], 7u);
  EXPECT_EQ(mem[1], 8u);
  EXPECT_EQ(s.rflags, 0x202u | kFlagMask(kZF));
  EXPECT_EQ(s.gpr[RAX], 5u);
  helper_cmpxchg16b(&s, reinterpret_cast<uint64_t>(mem), 0);  // now unequal
  EXPECT_EQ(s.gpr[RAX], 7u);
  EXPECT_EQ(s.gpr[RDX], 8u);
  EXPECT_EQ(s.rflags, 0x202u);
}

TEST(Sse42Helpers, Crc32cKnownAnswer) {
  uint64_t crc = 0xffffffff;
  for (const char* p = "123456789"; *p; ++p) crc = helper_crc32c<1>(nullptr, crc, static_cast<uint8_t>(*p));
  EXPECT_EQ(static_cast<uint32_t>(~crc), 0xe3069283u);
}

TEST(Sse42Helpers, PcmpstrHandWorked) {
  const uint8_t ranges[16] = {'a', 'z', 'A', 'Z'};
  const uint8_t text[16] = {'1', 'a', 'Q', ' ', 'z', '~', 0};
  // Unsigned bytes, ranges, positive: letters at 1, 2 and 4; b ends at 6.
  PcmpstrResult r = pcmpstr_compute(ranges, text, 0x04, false, 0, 0);
  EXPECT_EQ(r.mask, 0b10110u);
  EXPECT_EQ(r.length_a, 4);
  EXPECT_EQ(r.length_b, 6);
  // Masked negative: inverted within b's 6 elements only.
  EXPECT_EQ(pcmpstr_compute(ranges, text, 0x34, false, 0, 0).mask, 0b101001u);
  // Equal ordered: "Q " found at 2 ("needle" a = "Q ", explicit lengths).
  const uint8_t needle[16] = {'Q', ' '};
  EXPECT_EQ(pcmpstr_compute(needle, text, 0x0c, true, 2, 6).mask, 0b100u);
  // Explicit lengths saturate at 16 and take the absolute value.
  r = pcmpstr_compute(needle, text, 0x08, true, -100, 3);
  EXPECT_EQ(r.length_a, 16);
  EXPECT_EQ(r.length_b, 3);
}

// ---------------------------------------------------------------------------
// Helpers against this machine's CPU

#if defined(__x86_64__)
__attribute__((target("bmi2"))) uint64_t native_pdep(uint64_t a, uint64_t m) {
  uint64_t r;
  asm("pdep %2, %1, %0" : "=r"(r) : "r"(a), "r"(m));
  return r;
}
__attribute__((target("bmi2"))) uint64_t native_pext(uint64_t a, uint64_t m) {
  uint64_t r;
  asm("pext %2, %1, %0" : "=r"(r) : "r"(a), "r"(m));
  return r;
}

TEST(IntExtHelpers, PdepPextMatchTheCpu) {
  if (!__builtin_cpu_supports("bmi2")) GTEST_SKIP() << "this CPU has no BMI2";
  std::mt19937_64 rng(1);
  for (int i = 0; i < 20000; ++i) {
    uint64_t a = rng(), m = rng();
    if (i % 3 == 0) m &= rng();
    ASSERT_EQ(helper_pdep(nullptr, a, m), native_pdep(a, m)) << std::hex << a << " " << m;
    ASSERT_EQ(helper_pext(nullptr, a, m), native_pext(a, m)) << std::hex << a << " " << m;
  }
}

struct NativeStr {
  uint64_t ecx = 0, mask_lo = 0, mask_hi = 0, flags = 0;
};

// One instantiation per instruction and imm8 (the immediate is part of
// the encoding); kind: 0 pcmpistri, 1 pcmpistrm, 2 pcmpestri, 3 pcmpestrm.
template <int kKind, uint8_t kImm>
__attribute__((target("sse4.2"))) NativeStr native_pcmpstr(const uint8_t* a, const uint8_t* b, int64_t rax,
                                                              int64_t rdx) {
  NativeStr r;
  __m128i va, vb, mask;
  std::memcpy(&va, a, 16);
  std::memcpy(&vb, b, 16);
  if constexpr (kKind == 0)
    asm("pcmpistri %[imm], %[b], %[a]; pushfq; popq %[fl]"
        : "=c"(r.ecx), [fl] "=r"(r.flags) : [a] "x"(va), [b] "x"(vb), [imm] "i"(kImm) : "cc");
  else if constexpr (kKind == 1)
    asm("pcmpistrm %[imm], %[b], %[a]; pushfq; popq %[fl]"
        : "=Yz"(mask), [fl] "=r"(r.flags) : [a] "x"(va), [b] "x"(vb), [imm] "i"(kImm) : "cc");
  else if constexpr (kKind == 2)
    asm("pcmpestri %[imm], %[b], %[a]; pushfq; popq %[fl]"
        : "=c"(r.ecx), [fl] "=r"(r.flags)
        : [a] "x"(va), [b] "x"(vb), [imm] "i"(kImm), "a"(static_cast<int32_t>(rax)), "d"(static_cast<int32_t>(rdx))
        : "cc");
  else
    asm("pcmpestrm %[imm], %[b], %[a]; pushfq; popq %[fl]"
        : "=Yz"(mask), [fl] "=r"(r.flags)
        : [a] "x"(va), [b] "x"(vb), [imm] "i"(kImm), "a"(static_cast<int32_t>(rax)), "d"(static_cast<int32_t>(rdx))
        : "cc");
  if constexpr (kKind == 1 || kKind == 3) {
    std::memcpy(&r.mask_lo, &mask, 8);
    std::memcpy(&r.mask_hi, reinterpret_cast<const char*>(&mask) + 8, 8);
  }
  r.flags &= kArithFlags;
  return r;
}

using NativeFn = NativeStr (*)(const uint8_t*, const uint8_t*, int64_t, int64_t);

template <int kKind, size_t... kImms>
constexpr std::array<NativeFn, sizeof...(kImms)> native_table(std::index_sequence<kImms...>) {
  return {&native_pcmpstr<kKind, static_cast<uint8_t>(kImms)>...};
}

NativeStr emulated_pcmpstr(int kind, uint8_t imm, const uint8_t* a, const uint8_t* b, int64_t rax, int64_t rdx) {
  GuestState s{};
  std::memcpy(&s.xmm[1], a, 16);
  std::memcpy(&s.xmm[2], b, 16);
  s.gpr[RAX] = static_cast<uint64_t>(rax), s.gpr[RDX] = static_cast<uint64_t>(rdx);
  s.gpr[RCX] = 0x1234567812345678ull;
  s.rflags = 0x202 | kArithFlags;
  PcmpstrDesc d;
  d.imm = imm, d.reg_a = 1, d.reg_b = 2, d.b_in_register = true;
  d.explicit_length = kind >= 2, d.mask_output = kind % 2;
  helper_pcmpstr(&s, d.pack(), 0);
  NativeStr r;
  if (d.mask_output) r.mask_lo = s.xmm[0].lo, r.mask_hi = s.xmm[0].hi;
  else r.ecx = s.gpr[RCX];
  r.flags = s.rflags & kArithFlags;
  return r;
}

TEST(Sse42Helpers, PcmpstrMatchesTheCpuInEveryMode) {
  if (!__builtin_cpu_supports("sse4.2")) GTEST_SKIP() << "this CPU has no SSE4.2";
  static const std::array<std::array<NativeFn, 128>, 4> table = {
      native_table<0>(std::make_index_sequence<128>()), native_table<1>(std::make_index_sequence<128>()),
      native_table<2>(std::make_index_sequence<128>()), native_table<3>(std::make_index_sequence<128>())};
  static const int64_t lengths[] = {0, 1, 5, 8, 9, 15, 16, 17, -3, -16, -40, 0x7fffffff, -0x7fffffffll - 1};
  std::mt19937_64 rng(3);
  const uint8_t alphabet[] = {'a', 'b', 'c', 0, 0x80, 0xff, 0x7f, 1};
  for (int trial = 0; trial < 60; ++trial) {
    uint8_t a[16], b[16];
    for (int i = 0; i < 16; ++i) {
      a[i] = trial % 2 ? alphabet[rng() % 8] : static_cast<uint8_t>(rng());
      b[i] = trial % 2 ? alphabet[rng() % 8] : static_cast<uint8_t>(rng());
      if (trial % 4 < 2 && a[i] == 0) a[i] = 'x';  // some operands without a terminator
      if (trial % 4 < 2 && b[i] == 0) b[i] = 'y';
    }
    int64_t rax = lengths[rng() % std::size(lengths)], rdx = lengths[rng() % std::size(lengths)];
    for (int kind = 0; kind < 4; ++kind)
      for (int imm = 0; imm < 128; ++imm) {
        NativeStr want = table[kind][imm](a, b, rax, rdx);
        NativeStr got = emulated_pcmpstr(kind, static_cast<uint8_t>(imm), a, b, rax, rdx);
        ASSERT_EQ(got.ecx, want.ecx) << "kind " << kind << " imm " << imm << " trial " << trial;
        ASSERT_EQ(got.mask_lo, want.mask_lo) << "kind " << kind << " imm " << imm << " trial " << trial;
        ASSERT_EQ(got.mask_hi, want.mask_hi) << "kind " << kind << " imm " << imm << " trial " << trial;
        ASSERT_EQ(got.flags, want.flags) << "kind " << kind << " imm " << imm << " trial " << trial;
      }
  }
}
#endif

}  // namespace
}  // namespace phybin::x86
