// SHA extensions (family_sha.cpp, sha_helpers.cpp): every instruction is
// one helper call on the guest state.
#pragma once

#include <cstdint>

#include "common/guest_state.h"

namespace phybin::x86 {

enum class ShaOp : uint8_t { Sha1Rnds4, Sha1Nexte, Sha1Msg1, Sha1Msg2, Sha256Rnds2, Sha256Msg1, Sha256Msg2 };

// The operands of one call, packed into the helper's first argument.
struct ShaDesc {
  ShaOp op = ShaOp::Sha1Rnds4;
  uint8_t dst = 0;             // XMM of the first operand (read and written)
  uint8_t src = 0;             // XMM of the second, when src_in_register
  bool src_in_register = false;  // else the helper's second argument is its address
  uint8_t imm = 0;             // sha1rnds4's round function

  uint64_t pack() const {
    return static_cast<uint64_t>(op) | (uint64_t{dst} << 8) | (uint64_t{src} << 16) |
           (uint64_t{src_in_register} << 24) | (uint64_t{imm} << 32);
  }
  static ShaDesc unpack(uint64_t v) {
    ShaDesc d;
    d.op = static_cast<ShaOp>(v & 0xff);
    d.dst = static_cast<uint8_t>((v >> 8) & 15);
    d.src = static_cast<uint8_t>((v >> 16) & 15);
    d.src_in_register = (v >> 24) & 1;
    d.imm = static_cast<uint8_t>(v >> 32);
    return d;
  }
};

// a = ShaDesc::pack(), b = address of a memory second operand.
uint64_t helper_sha(GuestState* s, uint64_t desc, uint64_t address);

// The operation on plain values: dword i of each operand is a[i] (a[3] is
// bits 127:96); `xmm0` is sha256rnds2's implicit operand.
void sha_compute(ShaOp op, uint32_t dst[4], const uint32_t src[4], const uint32_t xmm0[4], uint8_t imm);

}  // namespace phybin::x86
