#include "elf/guest_memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.h"
#include "common/log.h"

namespace phybin::elf {

uint64_t host_page_size() {
  static const uint64_t size = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

std::string hex_address(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

std::string address_range(uint64_t begin, uint64_t end) {
  return "[" + hex_address(begin) + ", " + hex_address(end) + ")";
}

namespace {

constexpr uint64_t kHintStep = uint64_t{1} << 30;
constexpr uint64_t kHintAttempts = 16;

void* try_map(void* hint, uint64_t size, int prot, int flags) {
  return ::mmap(hint, size, prot, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
}

[[noreturn]] void map_failed(uint64_t size, const std::string& what) {
  throw Error(ErrorCode::PHYBIN_ERR_HOST_MMAP,
              "cannot map " + std::to_string(size) + " bytes for the " + what + ": " + std::strerror(errno));
}

bool fits_guest(void* mapped, uint64_t size) {
  auto start = reinterpret_cast<uint64_t>(mapped);
  return start < kGuestAddressLimit && size <= kGuestAddressLimit - start;
}

}  // namespace

uint64_t map_anywhere_for_guest(uint64_t size, int prot, int extra_flags, const std::string& what) {
  void* mapped = try_map(nullptr, size, prot, extra_flags);
  if (mapped == MAP_FAILED) map_failed(size, what);
  if (fits_guest(mapped, size)) return reinterpret_cast<uint64_t>(mapped);

  // Too high for an x86-64 program: ask again with hints below 2^47.  A hint
  // is only a hint (no MAP_FIXED): the kernel takes it when the range is free
  // and otherwise searches as above, so we step down a few times.
  ::munmap(mapped, size);
  const uint64_t step = align_up(size > kHintStep ? size : kHintStep, host_page_size());
  for (uint64_t attempt = 1; attempt <= kHintAttempts && attempt * step < kGuestAddressLimit; ++attempt) {
    auto* hint = reinterpret_cast<void*>(kGuestAddressLimit - attempt * step);
    mapped = try_map(hint, size, prot, extra_flags);
    if (mapped == MAP_FAILED) break;
    if (fits_guest(mapped, size)) return reinterpret_cast<uint64_t>(mapped);
    ::munmap(mapped, size);
  }
  mapped = try_map(nullptr, size, prot, extra_flags);
  if (mapped == MAP_FAILED) map_failed(size, what);
  logf(LogLevel::Warn, "phybin: the %s lies at %p, above the x86-64 user address space", what.c_str(), mapped);
  return reinterpret_cast<uint64_t>(mapped);
}

}  // namespace phybin::elf
