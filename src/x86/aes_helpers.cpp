// C++ side of aeskeygenassist, of the AES rounds on hosts without the
// AArch64 AES instructions and of pclmulqdq on hosts without PMULL: the AES
// S-box and its inverse (computed at compile time from FIPS-197 5.1.1),
// GF(2^8) product tables for (Inv)MixColumns, and a bitwise carry-less
// multiply.
#include <array>
#include <cstring>

#include "x86/aes_helpers.h"

namespace phybin::x86::sse {

namespace {

constexpr uint8_t gf_mul(uint8_t a, uint8_t b) {
  uint8_t p = 0;
  for (int i = 0; i < 8; ++i) {
    if (b & 1) p ^= a;
    const bool carry = a & 0x80;
    a = static_cast<uint8_t>(a << 1);
    if (carry) a ^= 0x1b;  // x^8 = x^4 + x^3 + x + 1
    b >>= 1;
  }
  return p;
}

constexpr uint8_t rotl8(uint8_t x, unsigned n) { return static_cast<uint8_t>(x << n | x >> (8 - n)); }

// Multiplicative inverse (x^254; 0 maps to 0), then the affine transform.
constexpr std::array<uint8_t, 256> make_sbox() {
  std::array<uint8_t, 256> box{};
  for (unsigned x = 0; x < 256; ++x) {
    uint8_t inv = 1, base = static_cast<uint8_t>(x);
    for (unsigned e = 254; e; e >>= 1) {
      if (e & 1) inv = gf_mul(inv, base);
      base = gf_mul(base, base);
    }
    if (x == 0) inv = 0;
    box[x] = inv ^ rotl8(inv, 1) ^ rotl8(inv, 2) ^ rotl8(inv, 3) ^ rotl8(inv, 4) ^ 0x63;
  }
  return box;
}

constexpr std::array<uint8_t, 256> kSbox = make_sbox();
static_assert(kSbox[0x00] == 0x63 && kSbox[0x53] == 0xed && kSbox[0xff] == 0x16, "FIPS-197 figure 7");

constexpr std::array<uint8_t, 256> invert(const std::array<uint8_t, 256>& box) {
  std::array<uint8_t, 256> inv{};
  for (unsigned x = 0; x < 256; ++x) inv[box[x]] = static_cast<uint8_t>(x);
  return inv;
}

constexpr std::array<uint8_t, 256> kInvSbox = invert(kSbox);
static_assert(kInvSbox[0x63] == 0x00 && kInvSbox[0x16] == 0xff, "inverse of FIPS-197 figure 7");

// kMul[k][x] = k * x in GF(2^8), for the MixColumns coefficients (up to 14).
constexpr std::array<std::array<uint8_t, 256>, 15> make_mul_tables() {
  std::array<std::array<uint8_t, 256>, 15> t{};
  for (unsigned k = 0; k < 15; ++k)
    for (unsigned x = 0; x < 256; ++x) t[k][x] = gf_mul(static_cast<uint8_t>(k), static_cast<uint8_t>(x));
  return t;
}

constexpr auto kMul = make_mul_tables();

// The first row of the circulant matrix each column is multiplied by
// (FIPS-197 5.1.3 and 5.3.3).
constexpr std::array<uint8_t, 4> kMixRow = {2, 3, 1, 1};
constexpr std::array<uint8_t, 4> kInvMixRow = {14, 11, 13, 9};

// The state is column-major as in FIPS-197 (and in the XMM register): byte
// 4 * column + row.  ShiftRows rotates row r left by r columns, its inverse
// right; SubBytes commutes with it, so both go in one pass.
void shift_sub(uint8_t* out, const uint8_t* in, bool inverse) {
  const std::array<uint8_t, 256>& box = inverse ? kInvSbox : kSbox;
  for (unsigned col = 0; col < 4; ++col)
    for (unsigned row = 0; row < 4; ++row) {
      const unsigned from = inverse ? (col + 4 - row) % 4 : (col + row) % 4;
      out[4 * col + row] = box[in[4 * from + row]];
    }
}

void mix_columns(uint8_t* out, const uint8_t* in, const std::array<uint8_t, 4>& first_row) {
  for (unsigned col = 0; col < 4; ++col)
    for (unsigned row = 0; row < 4; ++row) {
      uint8_t sum = 0;
      for (unsigned k = 0; k < 4; ++k) sum ^= kMul[first_row[(k + 4 - row) % 4]][in[4 * col + k]];
      out[4 * col + row] = sum;
    }
}

uint32_t sub_word(uint32_t w) {
  uint32_t r = 0;
  for (unsigned i = 0; i < 4; ++i) r |= uint32_t{kSbox[(w >> (8 * i)) & 0xff]} << (8 * i);
  return r;
}

uint32_t rot_word(uint32_t w) { return w >> 8 | w << 24; }

}  // namespace

void aes_keygen_assist(uint8_t* r, const uint8_t* src, unsigned rcon) {
  uint32_t x[4], out[4];
  std::memcpy(x, src, 16);
  for (unsigned half = 0; half < 2; ++half) {
    const uint32_t sub = sub_word(x[2 * half + 1]);
    out[2 * half] = sub;
    out[2 * half + 1] = rot_word(sub) ^ rcon;
  }
  std::memcpy(r, out, 16);
}

// Intel SDM: aesenc = MixColumns(SubBytes(ShiftRows(state))) ^ key, aesdec
// the same with the inverses; the *last forms skip (Inv)MixColumns; aesimc
// = InvMixColumns(key operand).
void aes_round(uint8_t* r, const uint8_t* state, const uint8_t* key, AesStep step) {
  if (step == AesStep::Imc) {
    mix_columns(r, key, kInvMixRow);
    return;
  }
  const bool decrypt = step == AesStep::Dec || step == AesStep::DecLast;
  uint8_t t[16];
  shift_sub(t, state, decrypt);
  if (step == AesStep::Enc || step == AesStep::Dec) mix_columns(r, t, decrypt ? kInvMixRow : kMixRow);
  else std::memcpy(r, t, 16);
  for (unsigned i = 0; i < 16; ++i) r[i] ^= key[i];
}

void carryless_multiply(uint8_t* r, const uint8_t* a, const uint8_t* b, unsigned imm) {
  uint64_t x, y;
  std::memcpy(&x, a + 8 * (imm & 1), 8);
  std::memcpy(&y, b + 8 * (imm >> 4 & 1), 8);
  uint64_t lo = 0, hi = 0;
  for (unsigned i = 0; i < 64; ++i)
    if (y >> i & 1) {
      lo ^= x << i;
      if (i) hi ^= x >> (64 - i);
    }
  std::memcpy(r, &lo, 8);
  std::memcpy(r + 8, &hi, 8);
}

}  // namespace phybin::x86::sse
