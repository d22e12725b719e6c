// Guest signals, the runtime's part.  The Linux layer owns the signal
// state and delivery (linux/signal_delivery.h: pending signals, frames,
// rt_sigreturn); the runtime catches host signals and makes them reach it:
//
//  - synchronous faults of the guest (a bad load or store in translated
//    code, a divide error, ud2/int3/hlt, a misaligned movaps) are queued
//    with the guest's registers at the faulting instruction; the guest
//    leaves translated code at once;
//  - asynchronous signals (kill, alarm, SIGCHLD...) with a guest handler
//    are recorded by the host handler and delivered at the next safe
//    point: a block exit to the dispatcher or a system call.  The host
//    handler makes translated code come back to the dispatcher soon (see
//    GuestThread::force_exit).
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

// A native library's sigaction for SIGSEGV or SIGBUS (PoCL's LLVM installs
// crash handlers): phybin's handlers stay installed, since translated code
// and code-page protection need them; the library's is kept aside and runs
// for the faults that are neither the guest's nor phybin's own (those of
// the library's own threads).  Returns 0, or -1 with errno for another
// signal.  `old` gets what the library set before (SIG_DFL at first).
int keep_native_fault_action(int sig, const struct sigaction* act, struct sigaction* old);
bool is_fault_signal_kept_aside(int sig);
// The host handler of signals the guest handles (ProcessConfig).
void host_signal_handler(int sig, siginfo_t* info, void* ucontext);

// The instruction at st.rip cannot be fetched: its bytes from `address`
// on are unmapped (`mapped` false) or not executable.  Queues the SIGSEGV
// the x86-64 kernel gives for that fetch.
void raise_exec_fault(GuestState& st, uint64_t address, bool mapped);

// The x86 layer's x87/SSE state functions the Linux layer's signal frames
// use (sys::ProcessConfig): FXSAVE image out and in, and MXCSR.
void save_fpu_state(GuestState& st, void* image);
void restore_fpu_state(GuestState& st, const void* image);
void set_guest_mxcsr(GuestState& st, uint32_t value);

}  // namespace phybin::runtime
