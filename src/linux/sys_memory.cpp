// Memory system calls.  mmap's flags and prot bits have the same values on
// both architectures, except x86-64's MAP_32BIT (emulated here) and
// AArch64's PROT_BTI/PROT_MTE (never passed from a guest).  brk is
// emulated: the kernel's break belongs to phybin's own process.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "common/guest_address.h"
#include "common/log.h"
#include "linux/sys_internal.h"

namespace phybin::sys {
namespace {

// The protection bits the address space records (PROT_GROWSDOWN & co.
// only say how the call applies).
constexpr uint64_t kGuestProtBits = PROT_READ | PROT_WRITE | PROT_EXEC;

// What /proc/self/maps names a mapping of descriptor `fd` by: the file
// as the guest knows it (inside the x86-64 root, the root's own name).
AddressSpace::Source file_source(uint64_t flags, uint64_t fd, uint64_t offset) {
  AddressSpace::Source source;
  if ((flags & MAP_ANONYMOUS) || static_cast<int>(fd) < 0) {
    source.shared = (flags & MAP_SHARED) != 0;
    if (source.shared) source.name = "/dev/zero (deleted)";  // as Linux shows shared anonymous memory
    return source;
  }
  struct stat st {};
  if (host_syscall(SYS_fstat, static_cast<int>(fd), &st) != 0) return source;
  char link[64], target[PATH_MAX];
  std::snprintf(link, sizeof link, "/proc/self/fd/%d", static_cast<int>(fd));
  const int64_t n = host_syscall(SYS_readlinkat, AT_FDCWD, link, target, sizeof target - 1);
  if (n <= 0) return source;
  source.name = process().config.root.guest_view(std::string(target, static_cast<size_t>(n)));
  source.offset = offset;
  source.identify(st);
  source.shared = (flags & MAP_SHARED) != 0;
  return source;
}

// Calls visit(line) for each line of the host's /proc/self/maps (sorted
// by address) until it returns false; false when the file cannot be read.
template <typename Visit>
bool scan_host_maps(Visit visit) {
  FILE* maps = std::fopen("/proc/self/maps", "re");
  if (maps == nullptr) return false;
  char* line = nullptr;
  size_t capacity = 0;
  while (getline(&line, &capacity, maps) > 0 && visit(static_cast<const char*>(line))) {
  }
  std::free(line);
  std::fclose(maps);
  return true;
}

uint64_t page_up(uint64_t value) {
  const uint64_t page = process().page_size;
  return (value + page - 1) & ~(page - 1);
}

// First gap of `length` bytes in [1 GiB, 2 GiB) after the mappings listed
// in /proc/self/maps (sorted by address), or 0.
uint64_t find_low_gap(uint64_t length) {
  uint64_t candidate = kX86Map32BitLow;
  const bool read = scan_host_maps([&](const char* line) {
    unsigned long low, high;
    if (std::sscanf(line, "%lx-%lx", &low, &high) != 2 || high <= candidate) return true;
    if (low >= candidate + length) return false;
    candidate = page_up(high);
    return candidate + length <= kX86Map32BitHigh;
  });
  if (!read) return 0;
  return candidate + length <= kX86Map32BitHigh ? candidate : 0;
}

// MAP_32BIT: x86-64 puts the mapping in [1 GiB, 2 GiB) (JITs use it for
// 32-bit displacements).  AArch64 has no such flag: find a gap there and
// map it without replacing anything.
int64_t mmap_32bit(const SyscallArgs& s, uint64_t prot, uint64_t flags) {
  const uint64_t length = page_up(s.a[1]);
  if (length == 0 || length > kX86Map32BitHigh - kX86Map32BitLow) return -ENOMEM;
  for (int attempt = 0; attempt < 4; ++attempt) {
    const uint64_t address = find_low_gap(length);
    if (address == 0) return -ENOMEM;
    const int64_t r = host_syscall(SYS_mmap, address, s.a[1], prot, flags | MAP_FIXED_NOREPLACE,
                                   s.a[4], s.a[5]);
    if (r == static_cast<int64_t>(address)) {
      process().address_space.map(address, s.a[1], static_cast<int>(prot & kGuestProtBits),
                                  file_source(flags, s.a[4], s.a[5]));
      return r;
    }
    // A kernel older than 4.17 takes MAP_FIXED_NOREPLACE as a mere hint.
    if (r >= 0) host_syscall(SYS_munmap, r, s.a[1]);
    if (r != -EEXIST) return r >= 0 ? -ENOMEM : r;  // EEXIST: lost a race, look again
  }
  return -ENOMEM;
}

// Every guest mapping lies below x86-64's user-space limit: a fixed one
// above it fails as on x86-64, a hint above it is no hint, and where the
// host would place one higher it goes lower (map_below_guest_limit).
int64_t mmap_in_guest_space(uint64_t address, uint64_t length, uint64_t prot, uint64_t flags, uint64_t fd,
                            uint64_t offset) {
  const bool fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE);
  if (length > kGuestAddressLimit || (address > kGuestAddressLimit - length && (fixed || address != 0))) {
    if (fixed) return -ENOMEM;
    address = 0;
  }
  if (fixed) return host_syscall(SYS_mmap, address, length, prot, flags, fd, offset);
  if (address != 0) {  // taken when that range is free, else the host places it
    const int64_t r = host_syscall(SYS_mmap, address, length, prot, flags, fd, offset);
    if (r < 0 || static_cast<uint64_t>(r) <= kGuestAddressLimit - length) return r;
    host_syscall(SYS_munmap, r, length);
  }
  bool too_high = false;
  void* mapped = map_below_guest_limit(length, static_cast<int>(prot), static_cast<int>(flags), static_cast<int>(fd),
                                       static_cast<off_t>(offset), &too_high);
  if (mapped == MAP_FAILED) return -int64_t{errno};
  if (too_high) {
    host_syscall(SYS_munmap, mapped, length);
    return -ENOMEM;
  }
  return reinterpret_cast<int64_t>(mapped);
}

int64_t sys_mmap(const SyscallArgs& s) {
  // x86-64 ignores prot bits it does not know; AArch64 would read 0x10 and
  // 0x20 as PROT_BTI and PROT_MTE.
  const uint64_t prot = s.a[2] & ~kAarch64OnlyProt;
  const uint64_t flags = s.a[3] & ~kX86Map32Bit;
  if ((s.a[3] & kX86Map32Bit) && !(flags & MAP_FIXED)) return mmap_32bit(s, prot, flags);
  std::optional<CodeReadersHeld> held;  // a fixed mapping may replace code
  if (flags & MAP_FIXED) held.emplace();
  const int64_t r = mmap_in_guest_space(s.a[0], s.a[1], prot, flags, s.a[4], s.a[5]);
  if (r < 0) return r;
  AddressSpace::Source source = file_source(flags, s.a[4], s.a[5]);
  if (source.shared && source.inode == 0) host_mapping_identity(static_cast<uint64_t>(r), source);
  process().address_space.map(static_cast<uint64_t>(r), s.a[1], static_cast<int>(prot & kGuestProtBits), source);
  if (flags & MAP_FIXED) invalidate_guest_code(s.a[0], s.a[1]);
  return r;
}

int64_t sys_munmap(const SyscallArgs& s) {
  const CodeReadersHeld held;
  const int64_t r = host_syscall(SYS_munmap, s.a[0], s.a[1]);
  if (r == 0) {
    process().address_space.unmap(s.a[0], s.a[1]);
    invalidate_guest_code(s.a[0], s.a[1]);
  }
  return r;
}

int64_t sys_mprotect(const SyscallArgs& s) {
  if (s.a[2] & ~kX86ProtKnown) return -EINVAL;  // as x86-64's mprotect answers
  const CodeReadersHeld held;
  const int64_t r = host_syscall(SYS_mprotect, s.a[0], s.a[1], s.a[2]);
  if (r == 0) {
    process().address_space.protect(s.a[0], s.a[1], static_cast<int>(s.a[2] & kGuestProtBits));
    invalidate_guest_code(s.a[0], s.a[1]);
  }
  return r;
}

int64_t sys_mremap(const SyscallArgs& s) {
  const CodeReadersHeld held;
  const int64_t r = host_syscall(SYS_mremap, s.a[0], s.a[1], s.a[2], s.a[3], s.a[4]);
  if (r >= 0) {
    process().address_space.remap(s.a[0], s.a[1], static_cast<uint64_t>(r), s.a[2], (s.a[3] & MREMAP_DONTUNMAP) != 0);
    invalidate_guest_code(s.a[0], s.a[1]);
  }
  return r;
}

// The guest's break, like the kernel's brk(): a request below the start
// or one that cannot be mapped leaves the break where it is; the answer
// is always the break in force.  Pages come and go in host-page steps.
int64_t sys_brk(const SyscallArgs& s) {
  ProcessInfo& p = process();
  const uint64_t request = s.a[0];
  if (p.brk_start == 0 || request < p.brk_start) return static_cast<int64_t>(p.brk_current);
  const uint64_t new_end = page_up(request);
  if (new_end > p.brk_mapped_end) {
    const uint64_t grow = new_end - p.brk_mapped_end;
    const int64_t r = host_syscall(SYS_mmap, p.brk_mapped_end, grow, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (r != static_cast<int64_t>(p.brk_mapped_end)) {
      // Something else lives there (or an old kernel mapped elsewhere).
      if (r >= 0) host_syscall(SYS_munmap, r, grow);
      logf(LogLevel::Debug, "brk: cannot grow to 0x%llx (%lld)",
           static_cast<unsigned long long>(request), static_cast<long long>(r));
      return static_cast<int64_t>(p.brk_current);
    }
    AddressSpace::Source heap;
    heap.name = "[heap]";
    p.address_space.map(p.brk_mapped_end, grow, PROT_READ | PROT_WRITE, heap);
  } else if (new_end < p.brk_mapped_end) {
    const uint64_t shrink = p.brk_mapped_end - new_end;
    const CodeReadersHeld held;
    if (host_syscall(SYS_munmap, new_end, shrink) != 0) {
      return static_cast<int64_t>(p.brk_current);
    }
    p.address_space.unmap(new_end, shrink);
    invalidate_guest_code(new_end, shrink);
  }
  p.brk_mapped_end = new_end;
  p.brk_current = request;
  return static_cast<int64_t>(request);
}

}  // namespace

// Shared anonymous memory is a file of the kernel's own: its device and
// inode are what the host's /proc/self/maps says of the mapping at `start`.
void host_mapping_identity(uint64_t start, MappingSource& source) {
  scan_host_maps([&](const char* line) {
    unsigned long low, high, offset, inode;
    unsigned major_number, minor_number;
    if (std::sscanf(line, "%lx-%lx %*s %lx %x:%x %lu", &low, &high, &offset, &major_number, &minor_number, &inode) != 6 ||
        low != start)
      return true;
    source.dev = makedev(major_number, minor_number);
    source.inode = inode;
    return false;
  });
}


uint64_t map_guest_code(const void* code, size_t bytes) {
  const int64_t r = mmap_in_guest_space(0, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                                        static_cast<uint64_t>(-1), 0);
  if (r < 0) return 0;
  std::memcpy(reinterpret_cast<void*>(r), code, bytes);
  host_syscall(SYS_mprotect, r, bytes, PROT_READ | PROT_EXEC);
  process().address_space.map(static_cast<uint64_t>(r), bytes, PROT_READ | PROT_EXEC);
  return static_cast<uint64_t>(r);
}

void register_memory_syscalls(SyscallTable& t) {
  t.add(X86_NR_mmap, sys_mmap);
  t.add(X86_NR_munmap, sys_munmap);
  t.add(X86_NR_mprotect, sys_mprotect);
  t.add(X86_NR_mremap, sys_mremap);
  t.pass(X86_NR_madvise, SYS_madvise);
  t.pass(X86_NR_msync, SYS_msync);
  t.pass(X86_NR_mincore, SYS_mincore);
  t.pass(X86_NR_mlock, SYS_mlock);
  t.pass(X86_NR_mlock2, SYS_mlock2);
  t.pass(X86_NR_munlock, SYS_munlock);
  t.pass(X86_NR_mlockall, SYS_mlockall);
  t.pass(X86_NR_munlockall, SYS_munlockall);
  // NUMA memory policies: node masks are arrays of unsigned long and page
  // lists arrays of pointers on both, and guest addresses are host ones.
  t.pass(X86_NR_mbind, SYS_mbind);
  t.pass(X86_NR_set_mempolicy, SYS_set_mempolicy);
  t.pass(X86_NR_get_mempolicy, SYS_get_mempolicy);
  t.pass(X86_NR_migrate_pages, SYS_migrate_pages);
  t.pass(X86_NR_move_pages, SYS_move_pages);
  t.pass(X86_NR_set_mempolicy_home_node, SYS_set_mempolicy_home_node);
  t.add(X86_NR_brk, sys_brk);
}

}  // namespace phybin::sys
