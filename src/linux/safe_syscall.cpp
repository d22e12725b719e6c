// A host system call that a guest signal cannot slip past.  The runtime
// delivers a guest signal when the guest's system call returns; a signal
// that arrives just before a blocking call starts would otherwise be seen
// only after the call (a pause() or read() that never ends).  The call
// checks the runtime's "signal pending" flag right before `svc`, and the
// runtime's host signal handler moves the PC of a thread caught between
// that check and the `svc` to the "not started" exit
// (rewind_unstarted_syscall), so the check and the start are atomic.
#include <csignal>

#include "linux/sys_internal.h"

#if defined(__aarch64__)

extern "C" {
// x0 = flag, x1 = number, x2..x7 = arguments.
long phybin_safe_syscall(const volatile sig_atomic_t* flag, long nr, long a0, long a1, long a2, long a3, long a4,
                         long a5);
extern const uint32_t phybin_safe_syscall_start[], phybin_safe_syscall_end[], phybin_safe_syscall_unstarted[];
}

asm(R"(
    .text
    .balign 4
    .global phybin_safe_syscall
    .type phybin_safe_syscall, %function
phybin_safe_syscall:
    mov x9, x0
    mov x8, x1
    mov x0, x2
    mov x1, x3
    mov x2, x4
    mov x3, x5
    mov x4, x6
    mov x5, x7
    .global phybin_safe_syscall_start
phybin_safe_syscall_start:
    cbz x9, 1f
    ldr w10, [x9]
    cbnz w10, phybin_safe_syscall_unstarted
1:  svc #0
    .global phybin_safe_syscall_end
phybin_safe_syscall_end:
    ret
    .global phybin_safe_syscall_unstarted
phybin_safe_syscall_unstarted:
    mov x0, #-512
    ret
    .size phybin_safe_syscall, . - phybin_safe_syscall
)");

namespace phybin::sys {

int64_t interruptible_syscall6(const SyscallArgs& s, long nr, long a0, long a1, long a2, long a3, long a4, long a5) {
  return phybin_safe_syscall(s.interrupt, nr, a0, a1, a2, a3, a4, a5);
}

bool rewind_unstarted_syscall(uint64_t& pc, const unsigned long long* regs) {
  const auto p = reinterpret_cast<const uint32_t*>(pc);
  if (p < phybin_safe_syscall_start || p >= phybin_safe_syscall_end) return false;
  if (regs[9] == 0) return false;  // a call made without the flag: not interruptible
  pc = reinterpret_cast<uint64_t>(phybin_safe_syscall_unstarted);
  return true;
}

}  // namespace phybin::sys

#else  // the unit tests' x86-64 host has no guest signals: check, then call

namespace phybin::sys {

int64_t interruptible_syscall6(const SyscallArgs& s, long nr, long a0, long a1, long a2, long a3, long a4, long a5) {
  if (s.interrupt && *s.interrupt) return kSyscallNotStarted;
  return host_syscall(nr, a0, a1, a2, a3, a4, a5);
}

bool rewind_unstarted_syscall(uint64_t&, const unsigned long long*) { return false; }

}  // namespace phybin::sys

#endif
