#include <cstring>

#include "x86/sha.h"

namespace phybin::x86 {

namespace {

uint32_t rol(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
uint32_t ror(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

// ---- SHA-1 (FIPS 180-4 section 4.1.1); dword 3 holds A or W0

uint32_t sha1_f(int round_kind, uint32_t b, uint32_t c, uint32_t d) {
  switch (round_kind) {
    case 0: return (b & c) ^ (~b & d);
    case 2: return (b & c) ^ (b & d) ^ (c & d);
    default: return b ^ c ^ d;
  }
}

void sha1_rnds4(uint32_t x[4], const uint32_t w[4], int kind) {
  static const uint32_t kK[4] = {0x5A827999, 0x6ED9EBA1, 0x8F1BBCDC, 0xCA62C1D6};
  uint32_t a = x[3], b = x[2], c = x[1], d = x[0], e = 0;
  // The first W already has E added (sha1nexte): E starts at 0.
  for (int i = 0; i < 4; ++i) {
    uint32_t next = sha1_f(kind, b, c, d) + rol(a, 5) + w[3 - i] + e + kK[kind];
    e = d, d = c, c = rol(b, 30), b = a, a = next;
  }
  x[3] = a, x[2] = b, x[1] = c, x[0] = d;
}

void sha1_msg1(uint32_t x[4], const uint32_t y[4]) {
  uint32_t w0 = x[3], w1 = x[2], w2 = x[1], w3 = x[0], w4 = y[3], w5 = y[2];
  x[3] = w2 ^ w0, x[2] = w3 ^ w1, x[1] = w4 ^ w2, x[0] = w5 ^ w3;
}

void sha1_msg2(uint32_t x[4], const uint32_t y[4]) {
  uint32_t w16 = rol(x[3] ^ y[2], 1);
  uint32_t w17 = rol(x[2] ^ y[1], 1);
  uint32_t w18 = rol(x[1] ^ y[0], 1);
  uint32_t w19 = rol(x[0] ^ w16, 1);
  x[3] = w16, x[2] = w17, x[1] = w18, x[0] = w19;
}

// ---- SHA-256 (FIPS 180-4 section 4.1.2)

uint32_t big_sigma0(uint32_t x) { return ror(x, 2) ^ ror(x, 13) ^ ror(x, 22); }
uint32_t big_sigma1(uint32_t x) { return ror(x, 6) ^ ror(x, 11) ^ ror(x, 25); }
uint32_t small_sigma0(uint32_t x) { return ror(x, 7) ^ ror(x, 18) ^ (x >> 3); }
uint32_t small_sigma1(uint32_t x) { return ror(x, 17) ^ ror(x, 19) ^ (x >> 10); }

// dst holds C D G H, src A B E F (high to low), xmm0's low two dwords W+K.
void sha256_rnds2(uint32_t x[4], const uint32_t y[4], const uint32_t wk[4]) {
  uint32_t a = y[3], b = y[2], c = x[3], d = x[2], e = y[1], f = y[0], g = x[1], h = x[0];
  uint32_t a_out[2], e_out[2];
  for (int i = 0; i < 2; ++i) {
    uint32_t t1 = ((e & f) ^ (~e & g)) + big_sigma1(e) + wk[i] + h;
    uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    uint32_t new_a = t1 + maj + big_sigma0(a), new_e = t1 + d;
    h = g, g = f, f = e, e = new_e, d = c, c = b, b = a, a = new_a;
    a_out[i] = a, e_out[i] = e;
  }
  x[3] = a_out[1], x[2] = a_out[0], x[1] = e_out[1], x[0] = e_out[0];
}

void sha256_msg1(uint32_t x[4], const uint32_t y[4]) {
  uint32_t w4 = y[0];
  x[0] += small_sigma0(x[1]);
  x[1] += small_sigma0(x[2]);
  x[2] += small_sigma0(x[3]);
  x[3] += small_sigma0(w4);
}

void sha256_msg2(uint32_t x[4], const uint32_t y[4]) {
  uint32_t w14 = y[2], w15 = y[3];
  uint32_t w16 = x[0] + small_sigma1(w14);
  uint32_t w17 = x[1] + small_sigma1(w15);
  uint32_t w18 = x[2] + small_sigma1(w16);
  uint32_t w19 = x[3] + small_sigma1(w17);
  x[0] = w16, x[1] = w17, x[2] = w18, x[3] = w19;
}

}  // namespace

void sha_compute(ShaOp op, uint32_t dst[4], const uint32_t src[4], const uint32_t xmm0[4], uint8_t imm) {
  switch (op) {
    case ShaOp::Sha1Rnds4: sha1_rnds4(dst, src, imm & 3); break;
    case ShaOp::Sha1Nexte:
      dst[3] = src[3] + rol(dst[3], 30);
      dst[2] = src[2], dst[1] = src[1], dst[0] = src[0];
      break;
    case ShaOp::Sha1Msg1: sha1_msg1(dst, src); break;
    case ShaOp::Sha1Msg2: sha1_msg2(dst, src); break;
    case ShaOp::Sha256Rnds2: sha256_rnds2(dst, src, xmm0); break;
    case ShaOp::Sha256Msg1: sha256_msg1(dst, src); break;
    case ShaOp::Sha256Msg2: sha256_msg2(dst, src); break;
  }
}

uint64_t helper_sha(GuestState* s, uint64_t packed, uint64_t address) {
  ShaDesc d = ShaDesc::unpack(packed);
  uint32_t dst[4], src[4], xmm0[4];
  std::memcpy(dst, &s->xmm[d.dst], 16);
  std::memcpy(src, d.src_in_register ? static_cast<const void*>(&s->xmm[d.src]) : reinterpret_cast<const void*>(address),
              16);
  std::memcpy(xmm0, &s->xmm[0], 16);
  sha_compute(d.op, dst, src, xmm0, d.imm);
  std::memcpy(&s->xmm[d.dst], dst, 16);
  return 0;
}

}  // namespace phybin::x86
