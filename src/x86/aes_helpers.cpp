// C++ side of aeskeygenassist and of pclmulqdq on hosts without PMULL:
// the AES S-box (computed at compile time from its definition in FIPS-197
// 5.1.1) and a bitwise carry-less multiply.
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
