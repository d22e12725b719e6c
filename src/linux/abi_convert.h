// Pure conversions between the x86-64 guest's kernel ABI and the host's:
// open flags, struct stat, struct epoll_event, directory records.  They
// touch no guest state, so unit tests can check them on any host.
#pragma once

#include <sys/epoll.h>
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>

#include "linux/x86_abi.h"

namespace phybin::sys {

// The open-flag layout of the host this file is compiled for.  The unit
// tests run on x86-64, where guest and host layouts happen to coincide.
#if defined(__aarch64__)
constexpr OpenFlagLayout kHostOpenFlags = kArm64OpenFlags;
#elif defined(__x86_64__)
constexpr OpenFlagLayout kHostOpenFlags = kX86OpenFlags;
#else
#error "phybin's Linux layer knows AArch64 hosts (and x86-64 hosts for unit tests)"
#endif

// Moves the four bits whose values differ (O_DIRECT, O_LARGEFILE,
// O_DIRECTORY, O_NOFOLLOW) from the `from` layout to the `to` layout; every
// other bit passes unchanged.
uint32_t convert_open_flags(uint32_t flags, const OpenFlagLayout& from, const OpenFlagLayout& to);

inline uint32_t open_flags_to_host(uint32_t guest_flags) {
  return convert_open_flags(guest_flags, kX86OpenFlags, kHostOpenFlags);
}
inline uint32_t open_flags_to_guest(uint32_t host_flags) {
  return convert_open_flags(host_flags, kHostOpenFlags, kX86OpenFlags);
}

// `struct stat` is glibc's, which on 64-bit hosts is the kernel's layout
// for fstat/newfstatat.
X86Stat stat_to_x86(const struct stat& host);

X86EpollEvent epoll_event_to_x86(const struct epoll_event& host);
struct epoll_event epoll_event_from_x86(const X86EpollEvent& guest);

// Rewrites the linux_dirent64 records in buf[0, length) as x86-64
// linux_dirent records (old getdents), in place.  Both kinds of record
// have the same size for the same name, so offsets and the total length
// stay as the kernel returned them.
void dirent64_to_x86_dirent(uint8_t* buf, size_t length);

}  // namespace phybin::sys
