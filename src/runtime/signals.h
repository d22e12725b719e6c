// Guest signals.  Host signals are caught by phybin's handlers and turned
// into x86-64 signal frames for the guest's handlers:
//
//  - synchronous faults of the guest (a bad load or store in translated
//    code, a divide error, ud2/int3/hlt, a misaligned movaps) become a
//    pending synchronous signal with the guest's registers at the faulting
//    instruction; the guest leaves translated code at once;
//  - asynchronous signals (kill, alarm, SIGCHLD...) with a guest handler
//    are recorded by the host handler and delivered at the next safe
//    point: a block exit to the dispatcher or a system call.  The host
//    handler makes translated code come back to the dispatcher soon (see
//    GuestThread::force_exit);
//  - the dispatcher builds the frames (deliver_pending_signals), and the
//    guest's rt_sigreturn restores what the frame holds (sigreturn).
//
// A signal the guest does not handle has its native effect: a fault kills
// the process with the same signal.
#pragma once

#include <csignal>
#include <cstdint>

#include "common/guest_state.h"

namespace phybin::runtime {

// What the guest thread of the calling host thread is doing, for the host
// signal handlers.
struct GuestThreadFlags {
  volatile sig_atomic_t in_guest = 0;    // translated code (or a helper it called) runs
  volatile sig_atomic_t busy = 0;        // the runtime's tables are being changed
  volatile sig_atomic_t in_syscall = 0;  // a guest system call runs on the host
  volatile sig_atomic_t pending = 0;     // a signal waits for delivery
};
inline thread_local GuestThreadFlags g_guest_thread_flags;
inline GuestThreadFlags& thread_flags() { return g_guest_thread_flags; }

// The hook of traps and helpers: synchronous signal `signal` at the guest
// instruction state->rip (guest state in memory).  Leaves translated code
// for the guest's handler, or ends the process with the signal.
[[noreturn]] void raise_guest_signal(GuestState* state, int signal);

// Installs phybin's SIGSEGV and SIGBUS handlers (faults of translated code,
// writes to protected code pages) on an alternate host stack.
void install_fault_handlers();
// The host handler of signals the guest handles (ProcessConfig).
void host_signal_handler(int sig, siginfo_t* info, void* ucontext);

inline bool signals_pending() { return thread_flags().pending != 0; }
// A SIGSEGV or SIGBUS sent while the guest blocks it waits for the guest to
// unblock it (checked after system calls and in the dispatcher).
bool signals_held();
// At a safe point, with the guest state in memory: builds a frame for each
// pending signal the guest may take now.  True when the guest now starts
// a handler (state.rip changed).  Ends the process for a fatal signal.
bool deliver_pending_signals(GuestState& st);
// The guest's sa_flags for the signal deliver_pending_signals would deliver
// first, or 0 when none would be.
uint64_t first_pending_signal_flags();
// The system call the guest thread is in blocks with a mask of its own
// (sigsuspend, ppoll...): a signal it lets through is delivered afterwards
// even though the restored mask blocks it.
void set_temporary_mask_syscall(bool on);

// rt_sigreturn: restores registers, RIP, RFLAGS, XMM, MXCSR, the signal
// mask and the alternate stack from the frame at RSP - 8.
void sigreturn(GuestState& st);

// The instruction at st.rip cannot be fetched: its bytes from `address`
// on are unmapped (`mapped` false) or not executable.  Queues the SIGSEGV
// the x86-64 kernel gives for that fetch.
void raise_exec_fault(GuestState& st, uint64_t address, bool mapped);

// Copies n bytes of guest memory at `src`; false when they are not all
// readable (no fault reaches the guest).
bool guest_read(void* dst, uint64_t src, size_t n);

// Whether a fault raising `sig` now would run a guest handler (one is set
// and the signal is not blocked).
bool guest_handles_fault(int sig);

// Ends the process with `sig` as if the guest had not handled it.
[[noreturn]] void die_of_signal(int sig);

}  // namespace phybin::runtime
