// The /proc files whose host contents would describe phybin rather than
// the guest: /proc/self/maps (the guest's mappings, from AddressSpace, not
// phybin's nor the code cache's), /proc/self/auxv (the guest's auxiliary
// vector) and /proc/cpuinfo (the x86-64 CPU that CPUID presents).  Opening
// one gives a memory file with the text made at that moment, as the
// kernel makes it at open.
#include <fcntl.h>
#include <sys/mman.h>

#include <cstring>
#include <string>

#include "linux/sys_internal.h"

namespace phybin::sys {
namespace {

// Linux's line for the vsyscall page phybin emulates (vsyscall=xonly).
constexpr char kVsyscallLine[] =
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

std::optional<std::string> proc_text(const char* path) {
  const ProcessInfo& p = process();
  if (names_own_proc_file(path, "maps")) return p.address_space.maps_text() + kVsyscallLine;
  if (names_own_proc_file(path, "auxv") && !p.config.auxv.empty())
    return std::string(reinterpret_cast<const char*>(p.config.auxv.data()), p.config.auxv.size());
  if (std::strcmp(path, "/proc/cpuinfo") == 0 && p.config.cpuinfo) return p.config.cpuinfo();
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> open_emulated_proc_file(const char* path, uint64_t guest_flags) {
  std::optional<std::string> text = proc_text(path);
  if (!text) return std::nullopt;
  if ((guest_flags & O_ACCMODE) != O_RDONLY) return -EACCES;
  const int64_t fd = host_syscall(SYS_memfd_create, "phybin-proc", (guest_flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
  if (fd < 0) return fd;
  for (size_t done = 0; done < text->size();) {
    const int64_t n = host_syscall(SYS_write, fd, text->data() + done, text->size() - done);
    if (n <= 0) {
      host_syscall(SYS_close, fd);
      return n < 0 ? n : -EIO;
    }
    done += static_cast<size_t>(n);
  }
  host_syscall(SYS_lseek, fd, 0, SEEK_SET);
  return fd;
}

}  // namespace phybin::sys
