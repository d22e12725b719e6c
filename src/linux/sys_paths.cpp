// System calls on paths.  AArch64 has only the *at forms, so the old
// x86-64 calls become *at calls relative to AT_FDCWD.
#include <fcntl.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>

#include "linux/sys_internal.h"

namespace phybin::sys {
namespace {

int64_t sys_access(const SyscallArgs& s) {
  return host_syscall(SYS_faccessat, AT_FDCWD, s.a[0], s.a[1]);
}

int64_t sys_rename(const SyscallArgs& s) {
  return host_syscall(SYS_renameat2, AT_FDCWD, s.a[0], AT_FDCWD, s.a[1], 0);
}

int64_t sys_renameat(const SyscallArgs& s) {
  return host_syscall(SYS_renameat2, s.a[0], s.a[1], s.a[2], s.a[3], 0);
}

int64_t sys_mkdir(const SyscallArgs& s) {
  return host_syscall(SYS_mkdirat, AT_FDCWD, s.a[0], s.a[1]);
}

int64_t sys_rmdir(const SyscallArgs& s) {
  return host_syscall(SYS_unlinkat, AT_FDCWD, s.a[0], AT_REMOVEDIR);
}

int64_t sys_unlink(const SyscallArgs& s) { return host_syscall(SYS_unlinkat, AT_FDCWD, s.a[0], 0); }

int64_t sys_link(const SyscallArgs& s) {
  return host_syscall(SYS_linkat, AT_FDCWD, s.a[0], AT_FDCWD, s.a[1], 0);
}

int64_t sys_symlink(const SyscallArgs& s) {
  return host_syscall(SYS_symlinkat, s.a[0], AT_FDCWD, s.a[1]);
}

// readlink of /proc/self/exe would name phybin; the guest gets its own
// executable.  Like the kernel: no NUL, truncated to the buffer.
int64_t do_readlinkat(uint64_t dirfd, uint64_t guest_path, uint64_t buf, uint64_t size) {
  const std::string& exe = process().config.guest_exe_path;
  if (!unmapped_guest_ptr(guest_path) && !exe.empty() &&
      names_own_exe(guest_ptr<const char>(guest_path))) {
    if (static_cast<int>(size) <= 0) return -EINVAL;
    if (unmapped_guest_ptr(buf)) return -EFAULT;
    const size_t n = std::min<size_t>(exe.size(), static_cast<size_t>(static_cast<int>(size)));
    std::memcpy(guest_ptr<char>(buf), exe.data(), n);
    return static_cast<int64_t>(n);
  }
  return host_syscall(SYS_readlinkat, static_cast<int>(dirfd), guest_path, buf, size);
}

int64_t sys_readlink(const SyscallArgs& s) { return do_readlinkat(AT_FDCWD, s.a[0], s.a[1], s.a[2]); }
int64_t sys_readlinkat(const SyscallArgs& s) { return do_readlinkat(s.a[0], s.a[1], s.a[2], s.a[3]); }

int64_t sys_chmod(const SyscallArgs& s) { return host_syscall(SYS_fchmodat, AT_FDCWD, s.a[0], s.a[1]); }

int64_t sys_chown(const SyscallArgs& s) {
  return host_syscall(SYS_fchownat, AT_FDCWD, s.a[0], s.a[1], s.a[2], 0);
}

int64_t sys_lchown(const SyscallArgs& s) {
  return host_syscall(SYS_fchownat, AT_FDCWD, s.a[0], s.a[1], s.a[2], AT_SYMLINK_NOFOLLOW);
}

// Inside the x86-64 root the host's directory names carry its prefix.
int64_t sys_getcwd(const SyscallArgs& s) {
  const GuestRoot& root = process().config.root;
  if (!root.active()) return host_syscall(SYS_getcwd, s.a[0], s.a[1]);
  char host[PATH_MAX];
  const int64_t r = host_syscall(SYS_getcwd, host, sizeof host);
  if (r < 0) return r;
  const std::string guest = root.guest_view(host);
  if (guest.size() + 1 > s.a[1]) return -ERANGE;
  if (unmapped_guest_ptr(s.a[0])) return -EFAULT;
  std::memcpy(guest_ptr<char>(s.a[0]), guest.c_str(), guest.size() + 1);
  return static_cast<int64_t>(guest.size() + 1);
}

}  // namespace

// Every call that names files, by x86-64 argument position.  execve and
// execveat look their names up themselves (sys_exec.cpp).
void register_path_names(SyscallTable& t) {
  using F = PathArgs::Follow;
  const auto one = [&](uint32_t nr, int8_t arg, F follow, int8_t flags_arg = -1) {
    t.names(nr, PathArgs{{arg, -1}, follow, flags_arg});
  };
  const auto two = [&](uint32_t nr, int8_t a, int8_t b, F follow) { t.names(nr, PathArgs{{a, b}, follow, -1}); };
  one(X86_NR_open, 0, F::OpenFlags, 1);
  one(X86_NR_openat, 1, F::OpenFlags, 2);
  one(X86_NR_creat, 0, F::Yes);
  one(X86_NR_stat, 0, F::Yes);
  one(X86_NR_lstat, 0, F::No);
  one(X86_NR_newfstatat, 1, F::AtFlag, 3);
  one(X86_NR_statx, 1, F::AtFlag, 2);
  one(X86_NR_statfs, 0, F::Yes);
  one(X86_NR_truncate, 0, F::Yes);
  one(X86_NR_access, 0, F::Yes);
  one(X86_NR_faccessat, 1, F::Yes);
  one(X86_NR_faccessat2, 1, F::AtFlag, 3);
  one(X86_NR_chdir, 0, F::Yes);
  one(X86_NR_mkdir, 0, F::No);
  one(X86_NR_mkdirat, 1, F::No);
  one(X86_NR_rmdir, 0, F::No);
  one(X86_NR_unlink, 0, F::No);
  one(X86_NR_unlinkat, 1, F::No);
  two(X86_NR_rename, 0, 1, F::No);
  two(X86_NR_renameat, 1, 3, F::No);
  two(X86_NR_renameat2, 1, 3, F::No);
  two(X86_NR_link, 0, 1, F::No);
  two(X86_NR_linkat, 1, 3, F::No);
  one(X86_NR_symlink, 1, F::No);  // the link's name; its target is text
  one(X86_NR_symlinkat, 2, F::No);
  one(X86_NR_readlink, 0, F::No);
  one(X86_NR_readlinkat, 1, F::No);
  one(X86_NR_chmod, 0, F::Yes);
  one(X86_NR_fchmodat, 1, F::Yes);
  one(X86_NR_chown, 0, F::Yes);
  one(X86_NR_lchown, 0, F::No);
  one(X86_NR_fchownat, 1, F::AtFlag, 4);
  one(X86_NR_utimensat, 1, F::AtFlag, 3);
  one(X86_NR_inotify_add_watch, 1, F::Yes);
}

void register_path_syscalls(SyscallTable& t) {
  t.add(X86_NR_access, sys_access);
  t.pass(X86_NR_faccessat, SYS_faccessat);
  t.pass(X86_NR_faccessat2, SYS_faccessat2);
  t.add(X86_NR_getcwd, sys_getcwd);
  t.pass(X86_NR_chdir, SYS_chdir);
  t.pass(X86_NR_fchdir, SYS_fchdir);
  t.add(X86_NR_rename, sys_rename);
  t.add(X86_NR_renameat, sys_renameat);
  t.pass(X86_NR_renameat2, SYS_renameat2);
  t.add(X86_NR_mkdir, sys_mkdir);
  t.pass(X86_NR_mkdirat, SYS_mkdirat);
  t.add(X86_NR_rmdir, sys_rmdir);
  t.add(X86_NR_unlink, sys_unlink);
  t.pass(X86_NR_unlinkat, SYS_unlinkat);
  t.add(X86_NR_link, sys_link);
  t.pass(X86_NR_linkat, SYS_linkat);
  t.add(X86_NR_symlink, sys_symlink);
  t.pass(X86_NR_symlinkat, SYS_symlinkat);
  t.add(X86_NR_readlink, sys_readlink);
  t.add(X86_NR_readlinkat, sys_readlinkat);
  t.add(X86_NR_chmod, sys_chmod);
  t.pass(X86_NR_fchmod, SYS_fchmod);
  t.pass(X86_NR_fchmodat, SYS_fchmodat);
  t.add(X86_NR_chown, sys_chown);
  t.pass(X86_NR_fchown, SYS_fchown);
  t.add(X86_NR_lchown, sys_lchown);
  t.pass(X86_NR_fchownat, SYS_fchownat);
  t.pass(X86_NR_umask, SYS_umask);
  t.pass(X86_NR_utimensat, SYS_utimensat);
}

}  // namespace phybin::sys
