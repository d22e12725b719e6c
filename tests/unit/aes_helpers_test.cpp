// The C++ AES rounds, aeskeygenassist and carry-less multiply
// (src/x86/aes_helpers.cpp) against the host CPU's own AES-NI and PCLMULQDQ,
// for every AES instruction, several round constants and every qword
// selection, on pseudo-random inputs.
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

// The host's result of the x86 instruction aes_round does for `step`.
__attribute__((target("aes"))) __m128i host_round(__m128i state, __m128i key, AesStep step) {
  switch (step) {
    case AesStep::Enc: return _mm_aesenc_si128(state, key);
    case AesStep::EncLast: return _mm_aesenclast_si128(state, key);
    case AesStep::Dec: return _mm_aesdec_si128(state, key);
    case AesStep::DecLast: return _mm_aesdeclast_si128(state, key);
    case AesStep::Imc: return _mm_aesimc_si128(key);
  }
  return state;
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

void check_round(std::mt19937_64& rng, AesStep step) {
  for (int i = 0; i < 5000; ++i) {
    __m128i state = random_vec(rng), key = random_vec(rng), expected = host_round(state, key, step);
    uint8_t got[16];
    aes_round(got, reinterpret_cast<const uint8_t*>(&state), reinterpret_cast<const uint8_t*>(&key), step);
    ASSERT_EQ(std::memcmp(got, &expected, 16), 0) << "step " << static_cast<int>(step) << " case " << i;
  }
}

TEST(AesHelpers, RoundsMatchTheCpu) {
  std::mt19937_64 rng(3);
  for (AesStep step : {AesStep::Enc, AesStep::EncLast, AesStep::Dec, AesStep::DecLast, AesStep::Imc})
    check_round(rng, step);
}

// FIPS-197 appendix C.1 (AES-128) through the helper's rounds: the
// equivalent inverse cipher with aesimc'd keys must decrypt it again.
TEST(AesHelpers, Fips197Aes128RoundTrip) {
  const uint8_t plain[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                             0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
  const uint8_t cipher[16] = {0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30,
                              0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a};
  uint8_t keys[11][16];
  for (unsigned i = 0; i < 16; ++i) keys[0][i] = static_cast<uint8_t>(i);
  const uint8_t rcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36};
  for (unsigned r = 1; r <= 10; ++r) {
    uint8_t assist[16];
    aes_keygen_assist(assist, keys[r - 1], rcon[r - 1]);
    uint32_t w[4], t;
    std::memcpy(w, keys[r - 1], 16);
    std::memcpy(&t, assist + 12, 4);
    for (unsigned i = 0; i < 4; ++i) t = w[i] ^= t;
    std::memcpy(keys[r], w, 16);
  }
  uint8_t s[16], t[16];
  for (unsigned i = 0; i < 16; ++i) s[i] = plain[i] ^ keys[0][i];
  for (unsigned r = 1; r <= 10; ++r) {
    aes_round(t, s, keys[r], r == 10 ? AesStep::EncLast : AesStep::Enc);
    std::memcpy(s, t, 16);
  }
  ASSERT_EQ(std::memcmp(s, cipher, 16), 0);
  for (unsigned i = 0; i < 16; ++i) s[i] ^= keys[10][i];
  for (unsigned r = 9; r >= 1; --r) {
    uint8_t inv_key[16];
    aes_round(inv_key, nullptr, keys[r], AesStep::Imc);
    aes_round(t, s, inv_key, AesStep::Dec);
    std::memcpy(s, t, 16);
  }
  aes_round(t, s, keys[0], AesStep::DecLast);
  EXPECT_EQ(std::memcmp(t, plain, 16), 0);
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
