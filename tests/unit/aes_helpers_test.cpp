// The C++ aeskeygenassist and carry-less multiply (src/x86/aes_helpers.cpp)
// against the host CPU's own AESKEYGENASSIST and PCLMULQDQ, for every round
// constant and every qword selection, on pseudo-random inputs.
#include "x86/aes_helpers.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#if defined(__x86_64__)
#include <wmmintrin.h>

namespace phybin::x86::sse {
namespace {

template <int kRcon>
__attribute__((target("aes"))) __m128i host_keygen(__m128i x) {
  return _mm_aeskeygenassist_si128(x, kRcon);
}

template <int kImm>
__attribute__((target("pclmul"))) __m128i host_clmul(__m128i a, __m128i b) {
  return _mm_clmulepi64_si128(a, b, kImm);
}

__m128i random_vec(std::mt19937_64& rng) {
  uint64_t q[2] = {rng(), rng()};
  __m128i v;
  std::memcpy(&v, q, 16);
  return v;
}

template <int kRcon>
void check_keygen(std::mt19937_64& rng) {
  for (int i = 0; i < 200; ++i) {
    __m128i x = random_vec(rng), expected = host_keygen<kRcon>(x);
    uint8_t got[16];
    aes_keygen_assist(got, reinterpret_cast<const uint8_t*>(&x), kRcon);
    ASSERT_EQ(std::memcmp(got, &expected, 16), 0) << "rcon " << kRcon;
  }
}

template <int kImm>
void check_clmul(std::mt19937_64& rng) {
  for (int i = 0; i < 500; ++i) {
    __m128i a = random_vec(rng), b = random_vec(rng), expected = host_clmul<kImm>(a, b);
    uint8_t got[16];
    carryless_multiply(got, reinterpret_cast<const uint8_t*>(&a), reinterpret_cast<const uint8_t*>(&b), kImm);
    ASSERT_EQ(std::memcmp(got, &expected, 16), 0) << "imm " << kImm;
  }
}

TEST(AesHelpers, KeygenAssistMatchesTheCpu) {
  std::mt19937_64 rng(1);
  check_keygen<0x00>(rng);
  check_keygen<0x01>(rng);
  check_keygen<0x1b>(rng);
  check_keygen<0x36>(rng);
  check_keygen<0xff>(rng);
}

TEST(AesHelpers, CarrylessMultiplyMatchesTheCpu) {
  std::mt19937_64 rng(2);
  check_clmul<0x00>(rng);
  check_clmul<0x01>(rng);
  check_clmul<0x10>(rng);
  check_clmul<0x11>(rng);
}

}  // namespace
}  // namespace phybin::x86::sse
#endif
