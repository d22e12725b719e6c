#include "common/guest_address.h"

#include <sys/mman.h>
#include <unistd.h>

namespace phybin {
namespace {

constexpr uint64_t kHintStep = uint64_t{1} << 30;
constexpr uint64_t kHintAttempts = 16;

bool fits(void* mapped, uint64_t size) {
  const auto start = reinterpret_cast<uint64_t>(mapped);
  return start < kGuestAddressLimit && size <= kGuestAddressLimit - start;
}

}  // namespace

// A hint is only a hint (no MAP_FIXED): the kernel takes it when the range
// is free and otherwise searches as before, so we step down a few times.
void* map_below_guest_limit(uint64_t size, int prot, int flags, int fd, off_t offset, bool* too_high) {
  *too_high = false;
  void* mapped = ::mmap(nullptr, size, prot, flags, fd, offset);
  if (mapped == MAP_FAILED || fits(mapped, size)) return mapped;
  ::munmap(mapped, size);
  const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t step = ((size > kHintStep ? size : kHintStep) + page - 1) & ~(page - 1);
  for (uint64_t attempt = 1; attempt <= kHintAttempts && attempt * step < kGuestAddressLimit; ++attempt) {
    auto* hint = reinterpret_cast<void*>((kGuestAddressLimit - attempt * step) & ~(page - 1));
    mapped = ::mmap(hint, size, prot, flags, fd, offset);
    if (mapped == MAP_FAILED) return mapped;
    if (fits(mapped, size)) return mapped;
    ::munmap(mapped, size);
  }
  mapped = ::mmap(nullptr, size, prot, flags, fd, offset);
  *too_high = mapped != MAP_FAILED;
  return mapped;
}

}  // namespace phybin
