// The MXCSR settings AArch64 cannot mirror in FPCR, and what the builder
// adds around each floating-point vector operation for them:
//  - DAZ without FTZ (and MINPS/MAXPS under DAZ, which return the flushed
//    operand): inputs flushed in software (FlushDenorm);
//  - FTZ without DAZ: results flushed in software (FlushTiny), with the UE
//    and PE flags x86 raises for a flush;
//  - exact DE (PHYBIN_EXACT_MXCSR or DE unmasked, never with DAZ): a
//    denormal input sets MXCSR.DE, as x86 does (DenormCheck), and FPSR.IDC,
//    which the checked mode of unmasked exceptions traps on.
// FTZ and DAZ together, the common case, are FPCR.FZ and cost nothing here.
#pragma once

#include <cstdint>

#include "ir/ir.h"

namespace phybin::ir {

struct FpMode {
  bool flush_inputs = false;   // DAZ without FTZ
  bool flush_outputs = false;  // FTZ without DAZ
  bool flush_minmax = false;   // DAZ (with or without FTZ)
  bool check_denormals = false;

  bool any() const { return flush_inputs || flush_outputs || flush_minmax || check_denormals; }
  bool operator==(const FpMode&) const = default;
  // From an MXCSR value and the exact-flags setting.
  static FpMode of_mxcsr(uint32_t mxcsr, bool exact_flags);
  // As kept in GuestState::fp_mode.
  uint32_t bits() const {
    return uint32_t{flush_inputs} | uint32_t{flush_outputs} << 1 | uint32_t{flush_minmax} << 2 |
           uint32_t{check_denormals} << 3;
  }
  static FpMode of_bits(uint32_t b) {
    return FpMode{(b & 1) != 0, (b & 2) != 0, (b & 4) != 0, (b & 8) != 0};
  }
};

// DenormCheck's imm: which elements count, and the cases where x86 raises
// a higher-priority exception instead of DE.
enum FpCheck : uint64_t {
  kCheckAll = 0,          // every element
  kCheckLow1 = 1,         // element 0 (scalar operations)
  kCheckLow2 = 2,         // elements 0-1 (cvtps2pd)
  kCheckElems = 3,        // mask of the above
  kCheckDiv = 4,          // no DE where the divisor (b) is zero: #Z instead
  kCheckSqrt = 8,         // no DE where the operand is negative: #I instead
};

// FCmpFlag's imm bit for a comis whose flags are all dead: the compare
// stays for the IE it may raise.
inline constexpr uint64_t kKeepCompare = 0x200;

// Whether the instruction can change MXCSR's flags: never removed when its
// result is unused (eliminate_dead_code), since the flags are its effect.
bool raises_fp_flags(const Inst& in);

}  // namespace phybin::ir
