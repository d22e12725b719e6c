// Guest signal delivery, the Linux layer's with the dispositions and masks
// (sys_signals.cpp): one owner for what a guest signal is and when it
// reaches the guest.
//
//  - Host signals the guest handles are recorded per thread by the
//    runtime's host handler (record_async_signal); faults and traps of the
//    guest's code arrive as one pending synchronous signal
//    (queue_sync_signal), already described as the x86-64 kernel reports
//    them (trap_signal, simd_fp_signal, exec_fault_signal).
//  - At a safe point (the runtime's dispatcher, a system call), with the
//    guest state in memory, deliver_pending_signals builds the x86-64
//    frames and points the guest at its handlers; rt_sigreturn undoes one
//    (sigreturn).  A signal the guest does not handle has its native
//    effect: a fault kills the process with the same signal.
//
// The runtime keeps what needs translated code: catching host signals,
// finding the guest instruction of a fault, and bringing a thread out of
// translated code so that it reaches a safe point.
#pragma once

#include <setjmp.h>

#include <csignal>
#include <cstdint>

#include "common/guest_state.h"
#include "linux/signal_frame.h"

namespace phybin::sys {

// Set while a guest signal waits for delivery on this thread: the runtime
// enters translated code only without it, and an interruptible system call
// does not start with it (handle_syscall's `interrupt`).
volatile sig_atomic_t& signal_pending_flag();
inline bool signals_pending() { return signal_pending_flag() != 0; }
// A SIGSEGV or SIGBUS sent while the guest blocks it waits for the guest to
// unblock it (checked after system calls and in the dispatcher).
bool signals_held();

// In a host signal handler (async-signal-safe): `sig` arrived with the
// host's siginfo `host_info` (the same layout as x86-64's).
void record_async_signal(int sig, const void* host_info);
// A fault or trap of the instruction at the guest's RIP (at most one waits).
void queue_sync_signal(const GuestSignal& signal);

// What the x86-64 kernel reports for the CPU's traps: #DE (SIGFPE), #UD
// (SIGILL), #BP (SIGTRAP) or #GP (SIGSEGV) at `rip`, and #DB of icebp
// (kTrapDebug) or #OF (kTrapOverflow) with `rip` after them; #XM with MXCSR's
// flags and masks; a fetch from `address`, unmapped or not executable.
GuestSignal trap_signal(int sig, uint64_t rip);
GuestSignal simd_fp_signal(uint64_t rip, uint32_t mxcsr);
GuestSignal exec_fault_signal(uint64_t address, bool mapped);

// At a safe point, with the guest state in memory: builds a frame for each
// pending signal the guest may take now.  True when the guest now starts
// a handler (st.rip changed).  Ends the process for a fatal signal.
bool deliver_pending_signals(GuestState& st);
// The guest's sa_flags for the signal deliver_pending_signals would deliver
// first, or 0 when none would be.
uint64_t first_pending_signal_flags();
// The system call the thread is in blocks with a mask of its own
// (sigsuspend, ppoll...): a signal it lets through is delivered afterwards
// even though the restored mask blocks it.
void set_temporary_mask_syscall(bool on);

// rt_sigreturn: restores registers, RIP, RFLAGS, XMM, MXCSR, the signal
// mask and the alternate stack from the frame at RSP - 8.
void sigreturn(GuestState& st);

// Copies n bytes of guest memory at `src`; false when they are not all
// readable (no fault reaches the guest).
bool guest_read(void* dst, uint64_t src, size_t n);
// Set while such a copy runs: the runtime's SIGSEGV handler jumps there.
sigjmp_buf* copy_guard();

// Whether a fault raising `sig` now would run a guest handler (one is set
// and the signal is not blocked).
bool guest_handles_fault(int sig);

// Ends the process with `sig` as if the guest had not handled it.
[[noreturn]] void die_of_signal(int sig);

}  // namespace phybin::sys
