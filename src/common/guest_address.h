// Where an x86-64 program's memory may lie.  x86-64 user space (4-level
// paging) ends below 2^47; an AArch64 kernel with 48-bit (or 52-bit)
// virtual addresses hands out mappings above that, which programs that tag
// pointers or box NaNs cannot use.  Shared by the loader (the program, its
// interpreter, its stack) and the guest's own mmap.
#pragma once

#include <sys/types.h>

#include <cstdint>

namespace phybin {

// x86-64's TASK_SIZE: one page below 2^47.
constexpr uint64_t kGuestAddressLimit = (uint64_t{1} << 47) - 4096;

// mmap(NULL, size, prot, flags, fd, offset) placed below kGuestAddressLimit
// when the host lets us: the kernel picks first; when its choice is too
// high, hints stepping down from the limit.  MAP_FAILED (errno set) when
// nothing can be mapped; a mapping above the limit when no hint worked
// (`*too_high` then says so).
void* map_below_guest_limit(uint64_t size, int prot, int flags, int fd, off_t offset, bool* too_high);

}  // namespace phybin
