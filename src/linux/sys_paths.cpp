// System calls on paths.  AArch64 has only the *at forms, so the old
// x86-64 calls become *at calls relative to AT_FDCWD.
#include <fcntl.h>

#include <algorithm>
#include <cstring>

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

}  // namespace

void register_path_syscalls(SyscallTable& t) {
  t.add(X86_NR_access, sys_access);
  t.pass(X86_NR_faccessat, SYS_faccessat);
  t.pass(X86_NR_faccessat2, SYS_faccessat2);
  t.pass(X86_NR_getcwd, SYS_getcwd);
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
