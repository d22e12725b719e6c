#include "linux/abi_convert.h"

#include <fcntl.h>

#include <cstring>

namespace phybin::sys {

// The host's own headers must agree with the layout chosen above.
static_assert(O_DIRECT == kHostOpenFlags.direct);
static_assert(O_DIRECTORY == kHostOpenFlags.directory);
static_assert(O_NOFOLLOW == kHostOpenFlags.nofollow);
#if defined(__aarch64__)
static_assert(sizeof(struct stat) == 128);
static_assert(sizeof(struct epoll_event) == 16);
#else
static_assert(sizeof(struct stat) == sizeof(X86Stat));
static_assert(sizeof(struct epoll_event) == sizeof(X86EpollEvent));
#endif

namespace {

uint32_t all_bits(const OpenFlagLayout& l) {
  return l.direct | l.largefile | l.directory | l.nofollow;
}

uint32_t move_bit(uint32_t flags, uint32_t from_bit, uint32_t to_bit) {
  return (flags & from_bit) ? to_bit : 0;
}

}  // namespace

uint32_t convert_open_flags(uint32_t flags, const OpenFlagLayout& from, const OpenFlagLayout& to) {
  uint32_t out = flags & ~all_bits(from);
  out |= move_bit(flags, from.direct, to.direct);
  out |= move_bit(flags, from.largefile, to.largefile);
  out |= move_bit(flags, from.directory, to.directory);
  out |= move_bit(flags, from.nofollow, to.nofollow);
  return out;
}

X86Stat stat_to_x86(const struct stat& host) {
  X86Stat out{};
  out.st_dev = host.st_dev;
  out.st_ino = host.st_ino;
  out.st_nlink = host.st_nlink;
  out.st_mode = host.st_mode;
  out.st_uid = host.st_uid;
  out.st_gid = host.st_gid;
  out.st_rdev = host.st_rdev;
  out.st_size = host.st_size;
  out.st_blksize = host.st_blksize;
  out.st_blocks = host.st_blocks;
  out.st_atime_sec = host.st_atim.tv_sec;
  out.st_atime_nsec = host.st_atim.tv_nsec;
  out.st_mtime_sec = host.st_mtim.tv_sec;
  out.st_mtime_nsec = host.st_mtim.tv_nsec;
  out.st_ctime_sec = host.st_ctim.tv_sec;
  out.st_ctime_nsec = host.st_ctim.tv_nsec;
  return out;
}

X86EpollEvent epoll_event_to_x86(const struct epoll_event& host) {
  X86EpollEvent out;
  out.events = host.events;
  out.data = host.data.u64;
  return out;
}

struct epoll_event epoll_event_from_x86(const X86EpollEvent& guest) {
  struct epoll_event out{};
  out.events = guest.events;
  out.data.u64 = guest.data;
  return out;
}

void dirent64_to_x86_dirent(uint8_t* buf, size_t length) {
  size_t pos = 0;
  while (pos + kDirent64NameOffset < length) {
    uint8_t* rec = buf + pos;
    uint16_t reclen;
    std::memcpy(&reclen, rec + 16, sizeof reclen);
    // A record always holds its header, a name and a NUL; stop on anything
    // else rather than run past the buffer.
    if (reclen <= kDirent64NameOffset + 1 || pos + reclen > length) return;
    const uint8_t type = rec[kDirent64TypeOffset];
    const size_t name_len = strnlen(reinterpret_cast<char*>(rec + kDirent64NameOffset),
                                    reclen - kDirent64NameOffset - 1);
    std::memmove(rec + kX86DirentNameOffset, rec + kDirent64NameOffset, name_len);
    // NUL after the name, zero padding, d_type in the last byte.
    std::memset(rec + kX86DirentNameOffset + name_len, 0,
                reclen - kX86DirentNameOffset - name_len - 1);
    rec[reclen - 1] = type;
    pos += reclen;
  }
}

}  // namespace phybin::sys
