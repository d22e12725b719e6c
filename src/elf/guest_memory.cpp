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

uint64_t map_anywhere_for_guest(uint64_t size, int prot, int extra_flags, const std::string& what) {
  bool too_high = false;
  void* mapped = map_below_guest_limit(size, prot, MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0, &too_high);
  if (mapped == MAP_FAILED)
    throw Error(ErrorCode::PHYBIN_ERR_HOST_MMAP,
                "cannot map " + std::to_string(size) + " bytes for the " + what + ": " + std::strerror(errno));
  if (too_high)
    logf(LogLevel::Warn, "phybin: the %s lies at %p, above the x86-64 user address space", what.c_str(), mapped);
  return reinterpret_cast<uint64_t>(mapped);
}

}  // namespace phybin::elf
