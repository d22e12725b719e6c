// Process, identity, time and scheduling system calls; arch_prctl and the
// thread-setup calls glibc makes at start-up.
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/utsname.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "common/log.h"
#include "linux/sys_internal.h"

namespace phybin::sys {

void before_process_exit(int status) {
  if (process().config.before_exit != nullptr) process().config.before_exit(status);
}

namespace {

static_assert(sizeof(struct utsname) == sizeof(X86Utsname));

[[noreturn]] void exit_process(int status) {
  before_process_exit(status);
  std::fflush(nullptr);
  _exit(status);
}

// exit ends the calling thread; the last one's ends the process.
int64_t sys_exit(const SyscallArgs& s) {
  if (process().config.exit_thread) process().config.exit_thread(s.st);
  exit_process(static_cast<int>(s.a[0]));
}

int64_t sys_exit_group(const SyscallArgs& s) { exit_process(static_cast<int>(s.a[0])); }

int64_t sys_uname(const SyscallArgs& s) {
  if (unmapped_guest_ptr(s.a[0])) return -EFAULT;
  struct utsname host {};
  const int64_t r = host_syscall(SYS_uname, &host);
  if (r < 0) return r;
  X86Utsname* guest = guest_ptr<X86Utsname>(s.a[0]);
  std::memcpy(guest, &host, sizeof *guest);
  // The guest must see an x86-64 machine.
  std::memset(guest->machine, 0, sizeof guest->machine);
  std::strcpy(guest->machine, "x86_64");
  return 0;
}

// Setting a base also nulls the selector, as Linux does (a selector
// reloaded later would otherwise replace the base with its descriptor's).
int64_t sys_arch_prctl(const SyscallArgs& s) {
  const uint64_t code = s.a[0];
  const uint64_t value = s.a[1];
  switch (code) {
    case kX86ArchSetFs: s.st.fs_base = value; s.st.selector[kFS] = 0; return 0;
    case kX86ArchSetGs: s.st.gs_base = value; s.st.selector[kGS] = 0; return 0;
    case kX86ArchGetFs:
    case kX86ArchGetGs:
      if (unmapped_guest_ptr(value)) return -EFAULT;
      *guest_ptr<uint64_t>(value) = code == kX86ArchGetFs ? s.st.fs_base : s.st.gs_base;
      return 0;
    default:
      // CET, CPUID faulting, AMX permissions...: "not supported".
      return -EINVAL;
  }
}

// Recorded, not passed: the host kernel would clear (and futex-wake) the
// address when phybin's host thread exits, which is a host pthread that
// the host's libc tracks the same way.  The runtime does the clearing when
// the guest thread exits.
int64_t sys_set_tid_address(const SyscallArgs& s) {
  s.st.clear_child_tid = s.a[0];
  return host_syscall(SYS_gettid);
}

int64_t sys_set_robust_list(const SyscallArgs& s) {
  if (s.a[1] != kRobustListHeadSize) return -EINVAL;
  process().robust_list_head = s.a[0];
  process().robust_list_len = s.a[1];
  return 0;
}

// Without rseq glibc falls back to plain sched_getcpu; registering the
// guest's area with the host kernel would let it write into guest memory
// on every preemption, against a layout we do not manage.
int64_t sys_rseq(const SyscallArgs&) { return -ENOSYS; }

constexpr int kPrSetVma = 0x53564d41;
constexpr uint64_t kCloneIntoCgroup = 0x200000000ull;  // CLONE_INTO_CGROUP (Linux 5.7)

int64_t sys_prctl(const SyscallArgs& s) {
  const int option = static_cast<int>(s.a[0]);
  switch (option) {
    case PR_SET_NAME: case PR_GET_NAME:
    case PR_SET_PDEATHSIG: case PR_GET_PDEATHSIG:
    case PR_SET_DUMPABLE: case PR_GET_DUMPABLE:
    case PR_SET_NO_NEW_PRIVS: case PR_GET_NO_NEW_PRIVS:
    case PR_SET_CHILD_SUBREAPER: case PR_GET_CHILD_SUBREAPER:
    case kPrSetVma:
      return host_syscall(SYS_prctl, option, s.a[1], s.a[2], s.a[3], s.a[4]);
    default:
      logf(LogLevel::Debug, "prctl option %d not supported, returning EINVAL", option);
      return -EINVAL;
  }
}

int64_t sys_getrlimit(const SyscallArgs& s) {
  return host_syscall(SYS_prlimit64, 0, s.a[0], nullptr, s.a[1]);
}

int64_t sys_setrlimit(const SyscallArgs& s) {
  return host_syscall(SYS_prlimit64, 0, s.a[0], s.a[1], nullptr);
}

int64_t sys_time(const SyscallArgs& s) {
  struct timespec now {};
  const int64_t r = host_syscall(SYS_clock_gettime, CLOCK_REALTIME, &now);
  if (r < 0) return r;
  if (s.a[0] != 0) {
    if (unmapped_guest_ptr(s.a[0])) return -EFAULT;
    *guest_ptr<int64_t>(s.a[0]) = now.tv_sec;
  }
  return now.tv_sec;
}

// alarm is setitimer(ITIMER_REAL) with whole seconds; the kernel rounds the
// old remaining time to the nearest second, and never to 0.
int64_t sys_alarm(const SyscallArgs& s) {
  struct itimerval set {};
  struct itimerval old {};
  set.it_value.tv_sec = static_cast<unsigned>(s.a[0]);
  const int64_t r = host_syscall(SYS_setitimer, ITIMER_REAL, &set, &old);
  if (r < 0) return r;
  int64_t seconds = old.it_value.tv_sec;
  if ((seconds == 0 && old.it_value.tv_usec != 0) || old.it_value.tv_usec >= 500000) ++seconds;
  return seconds;
}

// pause: sleep until a signal is handled.
int64_t sys_pause(const SyscallArgs& s) {
  return interruptible_syscall(s, SYS_ppoll, nullptr, 0, nullptr, nullptr, kX86SigsetSize);
}

int64_t sys_getpgrp(const SyscallArgs&) { return host_syscall(SYS_getpgid, 0); }

// A TID address clone's flags ask it to write that phybin cannot reach
// (Linux answers EFAULT).
bool tid_pointer_unmapped(uint64_t flags, uint64_t parent_tid, uint64_t child_tid) {
  for (uint64_t flag : {uint64_t{CLONE_PARENT_SETTID}, uint64_t{CLONE_CHILD_SETTID}, uint64_t{CLONE_CHILD_CLEARTID}}) {
    const uint64_t where = flag == CLONE_PARENT_SETTID ? parent_tid : child_tid;
    if ((flags & flag) && unmapped_guest_ptr(where)) return true;
  }
  return false;
}

// Runs a fork stage on every layer, in the order locks are taken in
// (the runtime's tables, then the forwarder's, then the address space),
// and back in reverse.
void fork_stage(ForkStage stage) {
  ProcessConfig& config = process().config;
  if (stage == ForkStage::Prepare) {
    if (config.on_fork) config.on_fork(stage);
    if (config.forwarded) config.forwarded->on_fork(stage);
    process().address_space.lock_for_fork();
    return;
  }
  process().address_space.unlock_after_fork();
  if (config.forwarded) config.forwarded->on_fork(stage);
  if (config.on_fork) config.on_fork(stage);
}

// The host side of a guest fork, translations included: the child
// continues in the same place.  What other threads may hold is taken
// first and given back on both sides (fork_stage), so that the child,
// which has only the forking thread, never finds it held by a thread it
// lacks.  A plain fork (SIGCHLD, TID stores) goes through the host C
// library's fork(), which also keeps its allocator usable in the child and
// runs the native libraries' pthread_atfork handlers, as in a native
// program; other flags take the system call.
constexpr uint64_t kPlainForkFlags = CLONE_PARENT_SETTID | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD;

int64_t host_fork(uint64_t flags, uint64_t parent_tid, uint64_t child_tid) {
  fork_stage(ForkStage::Prepare);
  int64_t r;
  if ((flags & ~kPlainForkFlags) == 0 && (flags & CSIGNAL) == SIGCHLD) {
    r = fork();
    if (r < 0) r = -errno;
    if (r > 0 && (flags & CLONE_PARENT_SETTID)) *guest_ptr<int32_t>(parent_tid) = static_cast<int32_t>(r);
    if (r == 0 && (flags & CLONE_CHILD_SETTID)) *guest_ptr<int32_t>(child_tid) = static_cast<int32_t>(gettid());
    if (r == 0 && (flags & CLONE_CHILD_CLEARTID)) host_syscall(SYS_set_tid_address, child_tid);
  } else {
    // x86-64: clone(flags, stack, parent_tid, child_tid, tls); AArch64 (and
    // the generic order): clone(flags, stack, parent_tid, tls, child_tid).
    // The host child goes on on phybin's own stack, a copy of the parent's.
    r = host_syscall(SYS_clone, flags, 0, parent_tid, 0, child_tid);
  }
  fork_stage(r == 0 ? ForkStage::Child : ForkStage::Parent);
  return r;
}

// vfork's sharing of the address space is an optimisation a fork is
// allowed to replace.
int64_t sys_fork(const SyscallArgs&) { return host_fork(SIGCHLD, 0, 0); }

// A thread: one host thread per guest thread, started by the runtime.
// Linux's rules for the flags: CLONE_THREAD needs CLONE_SIGHAND, which
// needs CLONE_VM.
int64_t clone_thread(const SyscallArgs& s) {
  const uint64_t flags = s.a[0];
  if (!(flags & CLONE_SIGHAND) || !(flags & CLONE_VM)) return -EINVAL;
  if (!process().config.start_thread) return -ENOSYS;
  process().address_space.share();
  ThreadStart start;
  start.flags = flags;
  start.stack = s.a[1];
  start.parent_tid = s.a[2];
  start.child_tid = s.a[3];
  start.tls = s.a[4];
  if (tid_pointer_unmapped(flags, start.parent_tid, start.child_tid)) return -EFAULT;
  return process().config.start_thread(s.st, start);
}

// clone without CLONE_VM is a fork with options (glibc's fork() uses it);
// with CLONE_THREAD a thread.  CLONE_VM with CLONE_VFORK (posix_spawn's
// child, which runs on a stack of its own until it execs) becomes a fork
// that keeps CLONE_VFORK: the parent still waits for the exec, but what the
// child writes before it is not seen by the parent, so posix_spawn reports
// a failed exec as the child's exit status 127 instead of an error (as
// under qemu-user).  CLONE_VM alone, a process sharing the memory for
// longer, is not supported.
int64_t sys_clone(const SyscallArgs& s) {
  uint64_t flags = s.a[0];
  if (flags & CLONE_THREAD) return clone_thread(s);
  if ((flags & CLONE_VM) && (flags & CLONE_VFORK)) flags &= ~static_cast<uint64_t>(CLONE_VM | CLONE_SIGHAND);
  if (flags & (CLONE_VM | CLONE_SIGHAND)) {
    static OnceSet warned;
    if (warned.first(1))
      logf(LogLevel::Warn, "phybin: warning: clone with CLONE_VM but neither CLONE_THREAD nor CLONE_VFORK (a "
                           "process sharing the memory) is not supported, returning ENOSYS");
    return -ENOSYS;
  }
  // The guest's TLS is its FS base, not the host thread pointer.
  bool set_tls = flags & CLONE_SETTLS;
  flags &= ~static_cast<uint64_t>(CLONE_SETTLS);
  if (tid_pointer_unmapped(flags, s.a[2], s.a[3])) return -EFAULT;
  // The guest's stack is the guest's: the host child goes on on phybin's.
  int64_t r = host_fork(flags, s.a[2], s.a[3]);
  if (r == 0) {
    if (set_tls) {  // as arch_prctl(ARCH_SET_FS)
      s.st.fs_base = s.a[4];
      s.st.selector[kFS] = 0;
    }
    if (s.a[1]) s.st.gpr[RSP] = s.a[1];
  }
  return r;
}

// clone3 as clone: the struct's fields become clone's arguments (the
// child's stack pointer is the top of the stack it gives).  What clone
// cannot say (a pidfd, chosen TIDs, a cgroup) answers ENOSYS, as a kernel
// without clone3 would, and glibc falls back to clone.
int64_t sys_clone3(const SyscallArgs& s) {
  struct CloneArgs {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, cgroup;
  };
  constexpr uint64_t kFirstSize = 64;  // CLONE_ARGS_SIZE_VER0
  const uint64_t size = s.a[1];
  if (size < kFirstSize || size > 4096) return size < kFirstSize ? -EINVAL : -E2BIG;
  if (unmapped_guest_ptr(s.a[0])) return -EFAULT;
  CloneArgs a{};
  std::memcpy(&a, guest_ptr<const uint8_t>(s.a[0]), size < sizeof a ? size : sizeof a);
  for (uint64_t i = sizeof a; i < size; ++i)
    if (guest_ptr<const uint8_t>(s.a[0])[i] != 0) return -E2BIG;
  if ((a.flags & (CLONE_PIDFD | kCloneIntoCgroup)) || a.set_tid_size != 0) return -ENOSYS;
  if ((a.exit_signal & ~uint64_t{0xff}) || (a.flags & 0xff)) return -EINVAL;
  if ((a.stack == 0) != (a.stack_size == 0)) return -EINVAL;
  const SyscallArgs as_clone{s.st,
                             {a.flags | a.exit_signal, a.stack ? a.stack + a.stack_size : 0, a.parent_tid,
                              a.child_tid, a.tls, 0},
                             -1,
                             s.interrupt};
  return sys_clone(as_clone);
}

void register_identity(SyscallTable& t) {
  t.pass(X86_NR_getpid, SYS_getpid);
  t.pass(X86_NR_gettid, SYS_gettid);
  t.pass(X86_NR_getppid, SYS_getppid);
  t.pass(X86_NR_getuid, SYS_getuid);
  t.pass(X86_NR_geteuid, SYS_geteuid);
  t.pass(X86_NR_getgid, SYS_getgid);
  t.pass(X86_NR_getegid, SYS_getegid);
  t.pass(X86_NR_getresuid, SYS_getresuid);
  t.pass(X86_NR_getresgid, SYS_getresgid);
  t.pass(X86_NR_getgroups, SYS_getgroups);
  t.pass(X86_NR_getpgid, SYS_getpgid);
  t.pass(X86_NR_setpgid, SYS_setpgid);
  t.add(X86_NR_getpgrp, sys_getpgrp);
  t.pass(X86_NR_getsid, SYS_getsid);
  t.pass(X86_NR_setsid, SYS_setsid);
  t.add(X86_NR_uname, sys_uname);
  // Credentials are per thread in the kernel: the guest's C library sends
  // its other threads SIGSETXID to repeat a change, as natively.  Threads
  // of forwarded native libraries are not among them (see README).
  t.pass(X86_NR_setuid, SYS_setuid);
  t.pass(X86_NR_setgid, SYS_setgid);
  t.pass(X86_NR_setreuid, SYS_setreuid);
  t.pass(X86_NR_setregid, SYS_setregid);
  t.pass(X86_NR_setresuid, SYS_setresuid);
  t.pass(X86_NR_setresgid, SYS_setresgid);
  t.pass(X86_NR_setfsuid, SYS_setfsuid);
  t.pass(X86_NR_setfsgid, SYS_setfsgid);
  t.pass(X86_NR_setgroups, SYS_setgroups);
  t.pass(X86_NR_capget, SYS_capget);
  t.pass(X86_NR_capset, SYS_capset);
}

void register_time(SyscallTable& t) {
  t.pass(X86_NR_clock_gettime, SYS_clock_gettime);
  t.pass(X86_NR_clock_getres, SYS_clock_getres);
  t.pass(X86_NR_clock_nanosleep, SYS_clock_nanosleep);
  t.pass(X86_NR_nanosleep, SYS_nanosleep);
  t.pass(X86_NR_gettimeofday, SYS_gettimeofday);
  t.add(X86_NR_time, sys_time);
  t.pass(X86_NR_getitimer, SYS_getitimer);
  t.pass(X86_NR_setitimer, SYS_setitimer);
  t.add(X86_NR_alarm, sys_alarm);
  t.add(X86_NR_pause, sys_pause);
  t.pass(X86_NR_times, SYS_times);
}

void register_resources(SyscallTable& t) {
  t.add(X86_NR_getrlimit, sys_getrlimit);
  t.add(X86_NR_setrlimit, sys_setrlimit);
  t.pass(X86_NR_prlimit64, SYS_prlimit64);
  t.pass(X86_NR_getrusage, SYS_getrusage);
  t.pass(X86_NR_sysinfo, SYS_sysinfo);
  t.pass(X86_NR_getpriority, SYS_getpriority);
  t.pass(X86_NR_setpriority, SYS_setpriority);
  t.pass(X86_NR_sched_yield, SYS_sched_yield);
  t.pass(X86_NR_sched_getaffinity, SYS_sched_getaffinity);
  t.pass(X86_NR_sched_setaffinity, SYS_sched_setaffinity);
  t.pass(X86_NR_getcpu, SYS_getcpu);
  t.pass(X86_NR_getrandom, SYS_getrandom);
}

}  // namespace

void register_process_syscalls(SyscallTable& t) {
  t.add(X86_NR_exit, sys_exit);
  t.add(X86_NR_exit_group, sys_exit_group);
  t.add(X86_NR_fork, sys_fork);
  t.add(X86_NR_vfork, sys_fork);
  t.add(X86_NR_clone, sys_clone);
  t.add(X86_NR_clone3, sys_clone3);
  t.pass(X86_NR_wait4, SYS_wait4);
  t.pass(X86_NR_waitid, SYS_waitid);
  // A pidfd names a process, not memory: the host's calls as they are
  // (pidfd_send_signal's siginfo has one layout on both).
  t.pass(X86_NR_pidfd_open, SYS_pidfd_open);
  t.pass(X86_NR_pidfd_send_signal, SYS_pidfd_send_signal);
  t.pass(X86_NR_pidfd_getfd, SYS_pidfd_getfd);
  t.add(X86_NR_arch_prctl, sys_arch_prctl);
  t.add(X86_NR_set_tid_address, sys_set_tid_address);
  t.add(X86_NR_set_robust_list, sys_set_robust_list);
  t.add(X86_NR_rseq, sys_rseq);
  t.pass(X86_NR_futex, SYS_futex);
  t.add(X86_NR_prctl, sys_prctl);
  register_identity(t);
  register_time(t);
  register_resources(t);
}

}  // namespace phybin::sys
