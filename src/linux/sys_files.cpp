// System calls on file descriptors: open, I/O, stat, fcntl, ioctl, dup,
// pipes, directory reading.
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "common/log.h"
#include "linux/abi_convert.h"
#include "linux/sys_internal.h"

namespace phybin::sys {
namespace {

static_assert(F_GETFL == kX86FGetfl && F_SETFL == kX86FSetfl);

// Path for an open: the guest's own executable stands in for
// /proc/self/exe unless the guest asked not to follow the link.
const char* open_path(uint64_t guest_path, uint64_t guest_flags) {
  const char* path = guest_ptr<const char>(guest_path);
  if (unmapped_guest_ptr(guest_path) || (guest_flags & kX86OpenFlags.nofollow)) return path;
  return host_path_following_links(path);
}

int64_t do_openat(uint64_t dirfd, uint64_t path, uint64_t flags, uint64_t mode) {
  if (!unmapped_guest_ptr(path))
    if (std::optional<int64_t> fd = open_emulated_proc_file(guest_ptr<const char>(path), flags)) return *fd;
  return host_syscall(SYS_openat, static_cast<int>(dirfd), open_path(path, flags),
                      open_flags_to_host(static_cast<uint32_t>(flags)), mode);
}

int64_t sys_open(const SyscallArgs& s) { return do_openat(AT_FDCWD, s.a[0], s.a[1], s.a[2]); }
int64_t sys_openat(const SyscallArgs& s) { return do_openat(s.a[0], s.a[1], s.a[2], s.a[3]); }

int64_t sys_creat(const SyscallArgs& s) {
  return do_openat(AT_FDCWD, s.a[0], O_CREAT | O_WRONLY | O_TRUNC, s.a[1]);
}

// ---- stat family: the host fills its struct stat, the guest gets x86's.

int64_t store_stat(int64_t result, const struct stat& host, uint64_t guest_buf) {
  if (result < 0) return result;
  *guest_ptr<X86Stat>(guest_buf) = stat_to_x86(host);
  return 0;
}

int64_t do_fstatat(uint64_t dirfd, uint64_t guest_path, uint64_t guest_buf, uint64_t flags) {
  if (unmapped_guest_ptr(guest_buf)) return -EFAULT;
  const char* path = guest_ptr<const char>(guest_path);
  if (!unmapped_guest_ptr(guest_path) && !(flags & AT_SYMLINK_NOFOLLOW)) {
    path = host_path_following_links(path);
  }
  struct stat host {};
  const int64_t r = host_syscall(SYS_newfstatat, static_cast<int>(dirfd), path, &host, flags);
  return store_stat(r, host, guest_buf);
}

int64_t sys_stat(const SyscallArgs& s) { return do_fstatat(AT_FDCWD, s.a[0], s.a[1], 0); }
int64_t sys_lstat(const SyscallArgs& s) {
  return do_fstatat(AT_FDCWD, s.a[0], s.a[1], AT_SYMLINK_NOFOLLOW);
}
int64_t sys_newfstatat(const SyscallArgs& s) { return do_fstatat(s.a[0], s.a[1], s.a[2], s.a[3]); }

int64_t sys_fstat(const SyscallArgs& s) {
  if (unmapped_guest_ptr(s.a[1])) return -EFAULT;
  struct stat host {};
  const int64_t r = host_syscall(SYS_fstat, static_cast<int>(s.a[0]), &host);
  return store_stat(r, host, s.a[1]);
}

// statx's struct is the same on every architecture.
int64_t sys_statx(const SyscallArgs& s) {
  const char* path = guest_ptr<const char>(s.a[1]);
  if (!unmapped_guest_ptr(s.a[1]) && !(s.a[2] & AT_SYMLINK_NOFOLLOW)) {
    path = host_path_following_links(path);
  }
  return host_syscall(SYS_statx, static_cast<int>(s.a[0]), path, s.a[2], s.a[3], s.a[4]);
}

// ---- descriptors

int64_t sys_fcntl(const SyscallArgs& s) {
  const int fd = static_cast<int>(s.a[0]);
  const int cmd = static_cast<int>(s.a[1]);
  if (cmd == F_GETFL) {
    const int64_t r = host_syscall(SYS_fcntl, fd, cmd);
    return r < 0 ? r : open_flags_to_guest(static_cast<uint32_t>(r));
  }
  if (cmd == F_SETFL) {
    return host_syscall(SYS_fcntl, fd, cmd, open_flags_to_host(static_cast<uint32_t>(s.a[2])));
  }
  // The other commands' numbers and structs (flock, f_owner_ex) are the
  // same on both architectures.
  return host_syscall(SYS_fcntl, fd, cmd, s.a[2]);
}

int64_t sys_dup2(const SyscallArgs& s) {
  const int old_fd = static_cast<int>(s.a[0]);
  const int new_fd = static_cast<int>(s.a[1]);
  // dup3 refuses old == new; dup2 answers the fd if it is open.
  if (old_fd == new_fd) {
    const int64_t r = host_syscall(SYS_fcntl, old_fd, F_GETFD);
    return r < 0 ? r : new_fd;
  }
  return host_syscall(SYS_dup3, old_fd, new_fd, 0);
}

int64_t sys_pipe(const SyscallArgs& s) { return host_syscall(SYS_pipe2, s.a[0], 0); }

// pipe2 takes O_DIRECT (packet mode), whose value differs.
int64_t sys_pipe2(const SyscallArgs& s) {
  return host_syscall(SYS_pipe2, s.a[0], open_flags_to_host(static_cast<uint32_t>(s.a[1])));
}

// The old getdents: read linux_dirent64 records straight into the guest's
// buffer (the kernel checks it) and rewrite them in place; the records
// have the same sizes.
int64_t sys_getdents(const SyscallArgs& s) {
  const int64_t r = host_syscall(SYS_getdents64, static_cast<int>(s.a[0]), s.a[1], s.a[2]);
  if (r > 0) dirent64_to_x86_dirent(guest_ptr<uint8_t>(s.a[1]), static_cast<size_t>(r));
  return r;
}

// Terminal and file ioctls: x86-64 and AArch64 both use the generic
// numbering (asm-generic/ioctls.h) and the generic 36-byte struct termios
// (asm-generic/termbits.h), so these pass through unchanged.
bool known_ioctl(uint64_t request) {
  switch (request) {
    case TCGETS: case TCSETS: case TCSETSW: case TCSETSF:
    case TCSBRK: case TCXONC: case TCFLSH:
    case TIOCGWINSZ: case TIOCSWINSZ: case TIOCGPGRP: case TIOCSPGRP:
    case TIOCSCTTY: case TIOCNOTTY: case TIOCOUTQ: case TIOCGPTN: case TIOCSPTLCK:
    case FIONREAD: case FIONBIO: case FIOASYNC: case FIOCLEX: case FIONCLEX:
      return true;
    default:
      return false;
  }
}

int64_t sys_ioctl(const SyscallArgs& s) {
  // Other requests pass too: on 64-bit Linux their numbers and structs are
  // almost always the same on both architectures; say so once per request
  // in case one is not.
  static OnceSet logged;
  const uint64_t request = static_cast<uint32_t>(s.a[1]);
  if (!known_ioctl(request) && log_enabled(LogLevel::Info) && logged.first(request)) {
    logf(LogLevel::Info, "phybin: ioctl request 0x%lx passed to the host unchanged",
         static_cast<unsigned long>(request));
  }
  return host_syscall(SYS_ioctl, static_cast<int>(s.a[0]), request, s.a[2]);
}

}  // namespace

void register_file_syscalls(SyscallTable& t) {
  t.pass(X86_NR_read, SYS_read);
  t.pass(X86_NR_write, SYS_write);
  t.add(X86_NR_open, sys_open);
  t.add(X86_NR_openat, sys_openat);
  t.add(X86_NR_creat, sys_creat);
  t.pass(X86_NR_close, SYS_close);
  t.pass(X86_NR_close_range, SYS_close_range);
  t.add(X86_NR_stat, sys_stat);
  t.add(X86_NR_fstat, sys_fstat);
  t.add(X86_NR_lstat, sys_lstat);
  t.add(X86_NR_newfstatat, sys_newfstatat);
  t.add(X86_NR_statx, sys_statx);
  t.pass(X86_NR_statfs, SYS_statfs);
  t.pass(X86_NR_fstatfs, SYS_fstatfs);
  t.pass(X86_NR_lseek, SYS_lseek);
  t.pass(X86_NR_pread64, SYS_pread64);
  t.pass(X86_NR_pwrite64, SYS_pwrite64);
  t.pass(X86_NR_readv, SYS_readv);
  t.pass(X86_NR_writev, SYS_writev);
  t.pass(X86_NR_preadv, SYS_preadv);
  t.pass(X86_NR_pwritev, SYS_pwritev);
  t.pass(X86_NR_preadv2, SYS_preadv2);
  t.pass(X86_NR_pwritev2, SYS_pwritev2);
  t.add(X86_NR_ioctl, sys_ioctl);
  t.add(X86_NR_fcntl, sys_fcntl);
  t.pass(X86_NR_dup, SYS_dup);
  t.add(X86_NR_dup2, sys_dup2);
  t.pass(X86_NR_dup3, SYS_dup3);
  t.add(X86_NR_pipe, sys_pipe);
  t.add(X86_NR_pipe2, sys_pipe2);
  t.pass(X86_NR_flock, SYS_flock);
  t.pass(X86_NR_fsync, SYS_fsync);
  t.pass(X86_NR_fdatasync, SYS_fdatasync);
  t.pass(X86_NR_sync, SYS_sync);
  t.pass(X86_NR_syncfs, SYS_syncfs);
  t.pass(X86_NR_truncate, SYS_truncate);
  t.pass(X86_NR_ftruncate, SYS_ftruncate);
  t.pass(X86_NR_fallocate, SYS_fallocate);
  t.add(X86_NR_getdents, sys_getdents);
  t.pass(X86_NR_getdents64, SYS_getdents64);
  t.pass(X86_NR_sendfile, SYS_sendfile);
  t.pass(X86_NR_copy_file_range, SYS_copy_file_range);
  t.pass(X86_NR_fadvise64, SYS_fadvise64);
  t.pass(X86_NR_memfd_create, SYS_memfd_create);
}

}  // namespace phybin::sys
