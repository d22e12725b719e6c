// The x86-64 code of an entry into a forwarded native function, as the
// guest sides of forwarded libraries have it (cmake/forward_generate.cmake
// writes the same as assembly): RCX (which syscall overwrites, and which
// holds the fourth argument) to R10, the private number to EAX, syscall,
// ret.  src/forward makes such entries at run time for functions a
// library hands out.
#pragma once

#include <array>
#include <cstdint>

namespace phybin::x86 {

inline constexpr size_t kForwardEntryBytes = 16;

inline constexpr std::array<uint8_t, kForwardEntryBytes> forward_entry(uint32_t number) {
  return {0x49, 0x89, 0xca,  // mov %rcx, %r10
          0xb8, static_cast<uint8_t>(number), static_cast<uint8_t>(number >> 8), static_cast<uint8_t>(number >> 16),
          static_cast<uint8_t>(number >> 24),  // mov $number, %eax
          0x0f, 0x05,                          // syscall
          0xc3,                                // ret
          0xcc, 0xcc, 0xcc, 0xcc, 0xcc};       // int3 up to 16 bytes
}

}  // namespace phybin::x86
