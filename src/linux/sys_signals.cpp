// Signal system calls.  Signal numbers and sigset bits are the same on
// x86-64 and AArch64.  Guest handlers are recorded but not delivered yet
// (the runtime will build x86-64 signal frames); SIG_DFL and SIG_IGN take
// effect on the host at once.
#include <csignal>

#include "common/log.h"
#include "linux/sys_internal.h"

namespace phybin::sys {
namespace {

// The kernel's struct sigaction has this layout on AArch64 too.
using HostKernelSigaction = X86KernelSigaction;

// Faults in translated code arrive as the synchronous signals, whose host
// handlers belong to the runtime; 32 and 33 are the host libc's own
// (thread cancellation, setxid).  For these the guest's choice is only
// recorded.
bool runtime_owns_signal(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE || sig == SIGTRAP ||
         sig == 32 || sig == 33;
}

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

void warn_handler_not_delivered(int sig) {
  static OnceSet warned;
  if (warned.first(0)) {
    logf(LogLevel::Warn,
         "phybin: warning: the guest installed a handler for signal %d; guest signal handlers "
         "are not delivered yet (the signal keeps its host disposition)", sig);
  }
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
    if (is_default_or_ignore(act.handler)) {
      if (!runtime_owns_signal(sig)) {
        const int64_t r = apply_on_host(sig, act);
        if (r < 0) return r;
      }
    } else {
      warn_handler_not_delivered(sig);
    }
    p.signal_actions[sig] = act;
  }
  if (s.a[2] != 0) *guest_ptr<X86KernelSigaction>(s.a[2]) = old;
  return 0;
}

// The guest's alternate stack is for guest handlers only; phybin's own
// (if any) stays in place.
int64_t sys_sigaltstack(const SyscallArgs& s) {
  if ((s.a[0] != 0 && unmapped_guest_ptr(s.a[0])) || (s.a[1] != 0 && unmapped_guest_ptr(s.a[1]))) {
    return -EFAULT;
  }
  ProcessInfo& p = process();
  const X86StackT old = p.alt_stack;
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
    p.alt_stack = next;
  }
  if (s.a[1] != 0) *guest_ptr<X86StackT>(s.a[1]) = old;
  return 0;
}

}  // namespace

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
  t.pass(X86_NR_rt_sigprocmask, SYS_rt_sigprocmask);
  t.pass(X86_NR_rt_sigpending, SYS_rt_sigpending);
  t.add(X86_NR_sigaltstack, sys_sigaltstack);
  t.pass(X86_NR_kill, SYS_kill);
  t.pass(X86_NR_tkill, SYS_tkill);
  t.pass(X86_NR_tgkill, SYS_tgkill);
}

}  // namespace phybin::sys
