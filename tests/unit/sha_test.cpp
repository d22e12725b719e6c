// The SHA-extension helpers (sha_helpers.cpp) against this machine's CPU,
// on random operands (skipped where the CPU has no SHA extensions), and
// the frontend's call descriptor.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>

#include "x86/frontend.h"
#include "x86/sha.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace phybin::x86 {
namespace {

TEST(ShaFrontend, Sha256Rnds2WithAMemoryOperand) {
  // sha256rnds2 xmm1, [rdi] (implicit xmm0): 0f 38 cb 0f
  alignas(16) std::array<uint8_t, 32> code;
  code.fill(0xcc);
  const uint8_t insn[] = {0x0f, 0x38, 0xcb, 0x0f};
  std::memcpy(code.data(), insn, sizeof insn);
  ir::Block b = Frontend(Hooks{}).translate(reinterpret_cast<uint64_t>(code.data()), 1);
  const ir::Inst* call = nullptr;
  for (const ir::Inst& i : b.insts)
    if (i.op == ir::Opcode::CallHelper && i.imm == reinterpret_cast<uint64_t>(&helper_sha)) call = &i;
  ASSERT_NE(call, nullptr) << ir::print_block(b);
  ShaDesc d = ShaDesc::unpack(b.at(call->args[0]).imm);
  EXPECT_EQ(d.op, ShaOp::Sha256Rnds2);
  EXPECT_EQ(d.dst, 1);
  EXPECT_FALSE(d.src_in_register);
}

#if defined(__x86_64__)
using Vec = std::array<uint32_t, 4>;

template <int kOp>
__attribute__((target("sha,sse4.1"))) Vec native_sha(Vec dst, Vec src, Vec wk) {
  __m128i x, y, k;
  std::memcpy(&x, dst.data(), 16);
  std::memcpy(&y, src.data(), 16);
  std::memcpy(&k, wk.data(), 16);
  if constexpr (kOp < 4) asm("sha1rnds4 %[imm], %[y], %[x]" : [x] "+x"(x) : [y] "x"(y), [imm] "i"(kOp));
  else if constexpr (kOp == 4) x = _mm_sha1nexte_epu32(x, y);
  else if constexpr (kOp == 5) x = _mm_sha1msg1_epu32(x, y);
  else if constexpr (kOp == 6) x = _mm_sha1msg2_epu32(x, y);
  else if constexpr (kOp == 7) x = _mm_sha256rnds2_epu32(x, y, k);
  else if constexpr (kOp == 8) x = _mm_sha256msg1_epu32(x, y);
  else x = _mm_sha256msg2_epu32(x, y);
  Vec out;
  std::memcpy(out.data(), &x, 16);
  return out;
}

Vec emulated_sha(int op, Vec dst, Vec src, Vec wk) {
  static const ShaOp kOps[] = {ShaOp::Sha1Rnds4,   ShaOp::Sha1Rnds4,  ShaOp::Sha1Rnds4,  ShaOp::Sha1Rnds4,
                               ShaOp::Sha1Nexte,   ShaOp::Sha1Msg1,   ShaOp::Sha1Msg2,   ShaOp::Sha256Rnds2,
                               ShaOp::Sha256Msg1,  ShaOp::Sha256Msg2};
  sha_compute(kOps[op], dst.data(), src.data(), wk.data(), static_cast<uint8_t>(op < 4 ? op : 0));
  return dst;
}

TEST(ShaHelpers, MatchTheCpu) {
  if (!__builtin_cpu_supports("sha")) GTEST_SKIP() << "this CPU has no SHA extensions";
  using Fn = Vec (*)(Vec, Vec, Vec);
  static const Fn natives[] = {native_sha<0>, native_sha<1>, native_sha<2>, native_sha<3>, native_sha<4>,
                               native_sha<5>, native_sha<6>, native_sha<7>, native_sha<8>, native_sha<9>};
  std::mt19937 rng(7);
  for (int trial = 0; trial < 5000; ++trial) {
    Vec a, b, k;
    for (int i = 0; i < 4; ++i) a[i] = rng(), b[i] = rng(), k[i] = rng();
    for (int op = 0; op < 10; ++op)
      ASSERT_EQ(emulated_sha(op, a, b, k), natives[op](a, b, k)) << "op " << op << " trial " << trial;
  }
}
#endif

}  // namespace
}  // namespace phybin::x86
