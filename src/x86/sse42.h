// SSE4.2 helpers (sse42_helpers.cpp): software CRC32C and the
// pcmpestri/pcmpestrm/pcmpistri/pcmpistrm string compares.
#pragma once

#include <cstdint>

#include "common/guest_state.h"

namespace phybin::x86 {

// crc32 with a `kBytes`-byte source: a = crc (low 32 bits), b = data.
template <unsigned kBytes>
uint64_t helper_crc32c(GuestState* s, uint64_t crc, uint64_t data);

// What a pcmpXstrX helper call works on, packed into one argument.
struct PcmpstrDesc {
  uint8_t imm = 0;              // the instruction's imm8
  uint8_t reg_a = 0;            // XMM of the first operand
  uint8_t reg_b = 0;            // XMM of the second, when b_in_register
  bool b_in_register = false;   // else the helper's second argument is its address
  bool explicit_length = false; // pcmpestr*: lengths in RAX/RDX (EAX/EDX)
  bool mask_output = false;     // pcmp*strm: XMM0; else pcmp*stri: ECX
  bool wide_lengths = false;    // REX.W: 64-bit RAX/RDX

  uint64_t pack() const {
    return imm | (uint64_t{reg_a} << 8) | (uint64_t{reg_b} << 16) | (uint64_t{b_in_register} << 24) |
           (uint64_t{explicit_length} << 25) | (uint64_t{mask_output} << 26) | (uint64_t{wide_lengths} << 27);
  }
  static PcmpstrDesc unpack(uint64_t v) {
    PcmpstrDesc d;
    d.imm = static_cast<uint8_t>(v);
    d.reg_a = static_cast<uint8_t>((v >> 8) & 15);
    d.reg_b = static_cast<uint8_t>((v >> 16) & 15);
    d.b_in_register = (v >> 24) & 1;
    d.explicit_length = (v >> 25) & 1;
    d.mask_output = (v >> 26) & 1;
    d.wide_lengths = (v >> 27) & 1;
    return d;
  }
};

// a = PcmpstrDesc::pack(), b = address of the second operand in memory.
uint64_t helper_pcmpstr(GuestState* s, uint64_t desc, uint64_t address);

// The pcmpXstrX computation itself, on plain values (unit-testable).
struct PcmpstrResult {
  uint32_t mask;    // IntRes2: one bit per element
  int elements;     // 16 (bytes) or 8 (words)
  int length_a, length_b;
};
PcmpstrResult pcmpstr_compute(const uint8_t* a, const uint8_t* b, uint8_t imm, bool explicit_length, int64_t rax,
                              int64_t rdx);

}  // namespace phybin::x86
