#include <cstring>

#include "x86/sse42.h"

namespace phybin::x86 {

// ---- crc32 ---------------------------------------------------------------

namespace {

constexpr uint32_t kCrc32cReflected = 0x82F63B78;  // Castagnoli polynomial, bit-reversed

uint32_t crc32c_byte(uint32_t crc, uint8_t byte) {
  crc ^= byte;
  for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ (kCrc32cReflected & (0u - (crc & 1)));
  return crc;
}

}  // namespace

template <unsigned kBytes>
uint64_t helper_crc32c(GuestState*, uint64_t crc, uint64_t data) {
  auto r = static_cast<uint32_t>(crc);
  for (unsigned i = 0; i < kBytes; ++i) r = crc32c_byte(r, static_cast<uint8_t>(data >> (8 * i)));
  return r;
}

template uint64_t helper_crc32c<1>(GuestState*, uint64_t, uint64_t);
template uint64_t helper_crc32c<2>(GuestState*, uint64_t, uint64_t);
template uint64_t helper_crc32c<4>(GuestState*, uint64_t, uint64_t);
template uint64_t helper_crc32c<8>(GuestState*, uint64_t, uint64_t);

// ---- pcmpestri / pcmpestrm / pcmpistri / pcmpistrm ------------------------

namespace {

enum Aggregation { EqualAny = 0, Ranges = 1, EqualEach = 2, EqualOrdered = 3 };

// The elements of one operand, widened; `signed_elements` per imm8 bit 1.
struct Elements {
  int32_t v[16];
  Elements(const uint8_t* bytes, bool words, bool signed_elements) {
    for (int i = 0; i < (words ? 8 : 16); ++i) {
      if (words) {
        uint16_t w;
        std::memcpy(&w, bytes + 2 * i, 2);
        v[i] = signed_elements ? static_cast<int16_t>(w) : w;
      } else {
        v[i] = signed_elements ? static_cast<int8_t>(bytes[i]) : bytes[i];
      }
    }
  }
};

// Explicit length: the absolute value of the register, at most n.
int explicit_length(int64_t value, int n) {
  uint64_t magnitude = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  return magnitude > static_cast<uint64_t>(n) ? n : static_cast<int>(magnitude);
}

// Implicit length: elements before the first zero one.
int implicit_length(const Elements& e, int n) {
  for (int i = 0; i < n; ++i)
    if (e.v[i] == 0) return i;
  return n;
}

// IntRes1: bit j for element j of b (equal each: of both), with the SDM's
// rules for elements past the lengths.
uint32_t aggregate(const Elements& a, const Elements& b, int n, int la, int lb, Aggregation mode) {
  uint32_t r = 0;
  for (int j = 0; j < n; ++j) {
    bool bit = false;
    bool vb = j < lb;
    switch (mode) {
      case EqualAny:
        for (int i = 0; i < la && vb && !bit; ++i) bit = a.v[i] == b.v[j];
        break;
      case Ranges:
        // Pairs (a[i], a[i+1]) are inclusive ranges; an incomplete pair never matches.
        for (int i = 0; i + 1 < la && vb && !bit; i += 2) bit = a.v[i] <= b.v[j] && b.v[j] <= a.v[i + 1];
        break;
      case EqualEach: {
        bool va = j < la;
        bit = va && vb ? a.v[j] == b.v[j] : !va && !vb;
        break;
      }
      case EqualOrdered:
        // a occurs at b[j]: a running past its length matches anything,
        // b running past its length matches nothing.
        bit = true;
        for (int k = 0; k < n - j && k < la && bit; ++k) bit = j + k < lb && a.v[k] == b.v[j + k];
        break;
    }
    r |= uint32_t{bit} << j;
  }
  return r;
}

}  // namespace

PcmpstrResult pcmpstr_compute(const uint8_t* a_bytes, const uint8_t* b_bytes, uint8_t imm, bool explicit_lengths,
                              int64_t rax, int64_t rdx) {
  bool words = imm & 1;
  bool signed_elements = imm & 2;
  int n = words ? 8 : 16;
  Elements a(a_bytes, words, signed_elements), b(b_bytes, words, signed_elements);
  int la = explicit_lengths ? explicit_length(rax, n) : implicit_length(a, n);
  int lb = explicit_lengths ? explicit_length(rdx, n) : implicit_length(b, n);
  uint32_t all = (1u << n) - 1;
  uint32_t r = aggregate(a, b, n, la, lb, static_cast<Aggregation>((imm >> 2) & 3));
  switch ((imm >> 4) & 3) {
    case 1: r ^= all; break;                   // negative
    case 3: r ^= (1u << lb) - 1; break;        // masked negative: only b's valid elements
    default: break;                            // positive, masked positive
  }
  return {r, n, la, lb};
}

uint64_t helper_pcmpstr(GuestState* s, uint64_t packed, uint64_t address) {
  PcmpstrDesc d = PcmpstrDesc::unpack(packed);
  uint8_t a[16], b[16];
  std::memcpy(a, &s->xmm[d.reg_a], 16);
  std::memcpy(b, d.b_in_register ? static_cast<const void*>(&s->xmm[d.reg_b]) : reinterpret_cast<const void*>(address),
              16);
  int64_t rax = d.wide_lengths ? static_cast<int64_t>(s->gpr[RAX]) : static_cast<int32_t>(s->gpr[RAX]);
  int64_t rdx = d.wide_lengths ? static_cast<int64_t>(s->gpr[RDX]) : static_cast<int32_t>(s->gpr[RDX]);
  PcmpstrResult res = pcmpstr_compute(a, b, d.imm, d.explicit_length, rax, rdx);
  bool most_significant = d.imm & 0x40;
  if (!d.mask_output) {
    int index = res.elements;
    if (res.mask) index = most_significant ? 31 - __builtin_clz(res.mask) : __builtin_ctz(res.mask);
    s->gpr[RCX] = static_cast<uint32_t>(index);
  } else if (!most_significant) {
    s->xmm[0] = Vec128{res.mask, 0};
  } else {
    // Each element of XMM0 all ones where its bit is set.
    uint8_t out[16];
    int width = 16 / res.elements;
    for (int i = 0; i < 16; ++i) out[i] = (res.mask >> (i / width)) & 1 ? 0xff : 0;
    std::memcpy(&s->xmm[0], out, 16);
  }
  uint64_t flags = s->rflags & ~kArithFlags;
  if (res.mask) flags |= kFlagMask(kCF);
  if (res.length_b < res.elements) flags |= kFlagMask(kZF);
  if (res.length_a < res.elements) flags |= kFlagMask(kSF);
  if (res.mask & 1) flags |= kFlagMask(kOF);
  s->rflags = flags;
  return 0;
}

}  // namespace phybin::x86
