// Signal system calls.  Signal numbers and sigset bits are the same on
// x86-64 and AArch64.  The guest's dispositions are recorded here; a guest
// handler gets the runtime's host handler (ProcessConfig::host_signal_handler),
// which queues the signal for delivery with an x86-64 frame; SIG_DFL and
// SIG_IGN take effect on the host at once.  rt_sigreturn belongs to the
// runtime (it redirects the guest), not to this table.
#include <pthread.h>

#include <csignal>
#include <mutex>

#include "common/log.h"
#include "linux/sys_internal.h"

namespace phybin::sys {
namespace {

// The kernel's struct sigaction has this layout on AArch64 too.
using HostKernelSigaction = X86KernelSigaction;

constexpr uint64_t bit(int sig) { return uint64_t{1} << (sig - 1); }

// Faults in translated code and writes to protected code pages arrive as
// SIGSEGV and SIGBUS, whose host handlers belong to the runtime: for these
// the guest's choice is only recorded.  (32 and 33, the C library's
// cancellation and set-ID signals, are the guest's like any other: its
// glibc sends them to its own threads, and phybin's host code sends
// neither.)
bool runtime_owns_signal(int sig) { return sig == SIGSEGV || sig == SIGBUS; }

// Signals the guest may block only in its own view.
constexpr uint64_t kNeverBlockedOnHost = bit(SIGSEGV) | bit(SIGBUS);

bool is_default_or_ignore(uint64_t handler) {
  return handler == kX86SigDfl || handler == kX86SigIgn;
}

// Makes the host disposition of `sig` match a guest SIG_DFL or SIG_IGN.
int64_t apply_on_host(int sig, const X86KernelSigaction& guest) {
  HostKernelSigaction host{};
  host.handler = guest.handler;
  host.flags = guest.flags & ~kX86SaRestorer;  // the restorer is guest code
  host.mask = guest.mask;
  return host_syscall(SYS_rt_sigaction, sig, &host, nullptr, kX86SigsetSize);
}

// A guest handler: the runtime's host handler catches the signal.  No
// SA_RESTART on the host: a blocking call must return (EINTR) so that the
// guest handler runs; the runtime restarts the call when the guest asked
// for SA_RESTART.  Every signal is blocked while the host handler runs.
int64_t install_host_handler(int sig) {
  ProcessInfo& p = process();
  HostKernelSigaction host{};
  host.handler = reinterpret_cast<uint64_t>(p.config.host_signal_handler);
  host.flags = SA_SIGINFO | SA_ONSTACK;
  host.mask = ~uint64_t{0};
  return host_syscall(SYS_rt_sigaction, sig, &host, nullptr, kX86SigsetSize);
}

void warn_handler_not_delivered(int sig) {
  static OnceSet warned;
  if (warned.first(0)) {
    logf(LogLevel::Warn,
         "phybin: warning: the guest installed a handler for signal %d; guest signal handlers "
         "are not delivered yet (the signal keeps its host disposition)", sig);
  }
}

// The host C library (glibc 2.34 and later) installs its own SIGSETXID
// handler the first time the process starts a second thread, whoever
// starts it: phybin for a guest thread, or a forwarded native library.  A
// guest handler for 32 or 33 would be lost then, so before the first one
// goes in, that first time is made to happen, with a thread that does
// nothing (every signal blocked in it).
void settle_host_libc_threads() {
  static std::once_flag once;
  std::call_once(once, [] {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t nothing;
    if (pthread_create(&nothing, nullptr, [](void*) -> void* { return nullptr; }, nullptr) == 0)
      pthread_join(nothing, nullptr);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
  });
}

bool is_host_libc_signal(int sig) { return sig == 32 || sig == 33; }

int64_t apply_guest_action(int sig, const X86KernelSigaction& act) {
  if (runtime_owns_signal(sig)) return 0;
  if (is_host_libc_signal(sig)) settle_host_libc_threads();
  if (is_default_or_ignore(act.handler)) return apply_on_host(sig, act);
  if (process().config.host_signal_handler == nullptr) {
    warn_handler_not_delivered(sig);
    return 0;
  }
  return install_host_handler(sig);
}

int64_t sys_rt_sigaction(const SyscallArgs& s) {
  const int sig = static_cast<int>(s.a[0]);
  if (s.a[3] != kX86SigsetSize || sig < 1 || sig > kX86NumSignals) return -EINVAL;
  if (s.a[1] != 0 && (sig == SIGKILL || sig == SIGSTOP)) return -EINVAL;
  if ((s.a[1] != 0 && unmapped_guest_ptr(s.a[1])) || (s.a[2] != 0 && unmapped_guest_ptr(s.a[2]))) {
    return -EFAULT;
  }
  ProcessInfo& p = process();
  const X86KernelSigaction old = p.signal_actions[sig];
  if (s.a[1] != 0) {
    const X86KernelSigaction act = *guest_ptr<const X86KernelSigaction>(s.a[1]);
    const int64_t r = apply_guest_action(sig, act);
    if (r < 0) return r;
    p.signal_actions[sig] = act;
  }
  if (s.a[2] != 0) *guest_ptr<X86KernelSigaction>(s.a[2]) = old;
  return 0;
}

int64_t sys_rt_sigprocmask(const SyscallArgs& s) {
  if (s.a[3] != kX86SigsetSize) return -EINVAL;
  if ((s.a[1] != 0 && unmapped_guest_ptr(s.a[1])) || (s.a[2] != 0 && unmapped_guest_ptr(s.a[2]))) {
    return -EFAULT;
  }
  const uint64_t old = guest_signal_mask();
  if (s.a[1] != 0) {
    const uint64_t set = *guest_ptr<const uint64_t>(s.a[1]);
    uint64_t next;
    switch (s.a[0]) {
      case SIG_BLOCK: next = old | set; break;
      case SIG_UNBLOCK: next = old & ~set; break;
      case SIG_SETMASK: next = set; break;
      default: return -EINVAL;
    }
    set_guest_signal_mask(next);
  }
  if (s.a[2] != 0) *guest_ptr<uint64_t>(s.a[2]) = old;
  return 0;
}

int64_t sys_rt_sigpending(const SyscallArgs& s) {
  if (s.a[1] != kX86SigsetSize) return -EINVAL;
  if (unmapped_guest_ptr(s.a[0])) return -EFAULT;
  uint64_t host = 0;
  const int64_t r = host_syscall(SYS_rt_sigpending, &host, kX86SigsetSize);
  if (r < 0) return r;
  *guest_ptr<uint64_t>(s.a[0]) = host | thread_signals().held_runtime_signals;
  return 0;
}

// The guest's alternate stack is for guest handlers only; phybin's own
// (if any) stays in place.
int64_t sys_sigaltstack(const SyscallArgs& s) {
  if ((s.a[0] != 0 && unmapped_guest_ptr(s.a[0])) || (s.a[1] != 0 && unmapped_guest_ptr(s.a[1]))) {
    return -EFAULT;
  }
  ThreadSignals& t = thread_signals();
  const X86StackT old = t.alt_stack;
  if (s.a[0] != 0) {
    X86StackT next = *guest_ptr<const X86StackT>(s.a[0]);
    const int32_t mode = next.ss_flags & ~kX86SsAutodisarm;
    if (mode != 0 && mode != kX86SsDisable && mode != kX86SsOnstack) return -EINVAL;
    if (mode == kX86SsDisable) {
      next = X86StackT{0, kX86SsDisable, 0, 0};
    } else {
      if (next.ss_size < kX86MinSigStkSz) return -ENOMEM;
      next.ss_flags &= kX86SsAutodisarm;  // the kernel keeps only this bit
    }
    t.alt_stack = next;
  }
  if (s.a[1] != 0) *guest_ptr<X86StackT>(s.a[1]) = old;
  return 0;
}

}  // namespace

ThreadSignals& thread_signals() {
  static thread_local ThreadSignals signals;
  return signals;
}

uint64_t guest_signal_mask() {
  uint64_t host = 0;
  host_syscall(SYS_rt_sigprocmask, SIG_BLOCK, nullptr, &host, kX86SigsetSize);
  return (host & ~kNeverBlockedOnHost) | thread_signals().blocked_runtime_signals;
}

void set_guest_signal_mask(uint64_t mask) {
  mask &= ~(bit(SIGKILL) | bit(SIGSTOP));
  thread_signals().blocked_runtime_signals = mask & kNeverBlockedOnHost;
  const uint64_t host = mask & ~kNeverBlockedOnHost;
  host_syscall(SYS_rt_sigprocmask, SIG_SETMASK, &host, nullptr, kX86SigsetSize);
}

void reset_guest_signal_action(int sig) {
  X86KernelSigaction& act = process().signal_actions[sig];
  act = X86KernelSigaction{};
  if (!runtime_owns_signal(sig)) apply_on_host(sig, act);
}

void init_guest_signals(ProcessInfo& info) {
  for (int sig = 1; sig <= kX86NumSignals; ++sig) {
    HostKernelSigaction host{};
    X86KernelSigaction& guest = info.signal_actions[sig];
    guest = X86KernelSigaction{};
    if (host_syscall(SYS_rt_sigaction, sig, nullptr, &host, kX86SigsetSize) == 0 &&
        host.handler == kX86SigIgn) {
      guest.handler = kX86SigIgn;
    }
  }
}

void register_signal_syscalls(SyscallTable& t) {
  t.add(X86_NR_rt_sigaction, sys_rt_sigaction);
  t.add(X86_NR_rt_sigprocmask, sys_rt_sigprocmask);
  t.add(X86_NR_rt_sigpending, sys_rt_sigpending);
  t.pass(X86_NR_rt_sigsuspend, SYS_rt_sigsuspend);
  t.pass(X86_NR_rt_sigtimedwait, SYS_rt_sigtimedwait);
  t.pass(X86_NR_rt_sigqueueinfo, SYS_rt_sigqueueinfo);
  t.pass(X86_NR_rt_tgsigqueueinfo, SYS_rt_tgsigqueueinfo);
  t.add(X86_NR_sigaltstack, sys_sigaltstack);
  t.pass(X86_NR_kill, SYS_kill);
  t.pass(X86_NR_tkill, SYS_tkill);
  t.pass(X86_NR_tgkill, SYS_tgkill);
}

}  // namespace phybin::sys
