// The bits of the x86 MXCSR register, for every layer that reads or sets
// it (helpers, the FP-mode analysis, the backend's flag checks).  A header
// of its own so that a change here does not rebuild every guest_state.h user.
#pragma once

#include <cstdint>

namespace phybin::mxcsr {

// Exception flags (sticky), bits 0..5.
constexpr uint32_t kIe = 1u << 0, kDe = 1u << 1, kZe = 1u << 2, kOe = 1u << 3, kUe = 1u << 4, kPe = 1u << 5;
constexpr uint32_t kFlags = 0x3f;
constexpr uint32_t kDaz = 1u << 6;
// Exception masks, bits 7..12: the mask of a flag is the flag shifted by this.
constexpr unsigned kMaskShift = 7;
constexpr uint32_t kDm = kDe << kMaskShift;
constexpr unsigned kRoundingShift = 13;  // RC, bits 13..14
constexpr uint32_t kFtz = 1u << 15;
// The value at process start: all exceptions masked, round to nearest.
constexpr uint32_t kDefault = 0x1f80;

}  // namespace phybin::mxcsr
