// Small helpers shared by the loader and the initial-stack builder: the host
// page size, page rounding, and placing a new guest mapping where an x86-64
// program can address it.
#pragma once

#include <cstdint>
#include <string>

#include "common/guest_address.h"

namespace phybin::elf {

constexpr uint64_t kGuestPageSize = 4096;

uint64_t host_page_size();

constexpr uint64_t align_down(uint64_t value, uint64_t alignment) { return value & ~(alignment - 1); }
constexpr uint64_t align_up(uint64_t value, uint64_t alignment) { return (value + alignment - 1) & ~(alignment - 1); }

std::string hex_address(uint64_t value);
std::string address_range(uint64_t begin, uint64_t end);

// mmap(NULL, size, prot, MAP_PRIVATE | MAP_ANONYMOUS | extra_flags) placed
// below kGuestAddressLimit when the kernel lets us (map_below_guest_limit).
// Throws PHYBIN_ERR_HOST_MMAP naming `what` on failure.
uint64_t map_anywhere_for_guest(uint64_t size, int prot, int extra_flags, const std::string& what);

}  // namespace phybin::elf
