// Which host register holds what inside translated code.  Guest state
// lives in fixed registers for the whole time the guest runs; the rest are
// the backend's scratch and value registers.
#pragma once

#include <array>

#include "arm64/emitter_types.h"

namespace phybin::arm64::regmap {

// Guest RAX..R11 in x4..x15, R12..R15 in x19..x22.
inline constexpr std::array<Reg, 16> kGuestGpr = {x4,  x5,  x6,  x7,  x8,  x9,  x10, x11,
                                                  x12, x13, x14, x15, x19, x20, x21, x22};
inline constexpr Reg kFlags = x25;   // guest RFLAGS, x86 bit layout
inline constexpr Reg kState = x26;   // GuestState*
// Temporaries of a single IR instruction's expansion, never allocated.
inline constexpr Reg kTmp0 = x16, kTmp1 = x17, kTmp2 = x30;
// Registers the allocator hands to IR values: callee-saved ones first, so
// that fewer values need moving around helper calls.
inline constexpr std::array<Reg, 9> kValueGprs = {x23, x24, x27, x28, x29, x0, x1, x2, x3};
inline constexpr bool is_caller_saved(Reg r) { return r.code <= 18; }

// Guest XMM0..15 in v16..v31.
inline constexpr VReg guest_xmm(unsigned i) { return VReg{static_cast<uint8_t>(16 + i)}; }
inline constexpr VReg kVTmp0 = v14, kVTmp1 = v15;
inline constexpr unsigned kNumValueVregs = 14;  // v0..v13

}  // namespace phybin::arm64::regmap
