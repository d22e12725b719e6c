// Shared by signals.cpp (delivery) and host_signals.cpp (host handlers):
// the queue of signals waiting for the guest.
#pragma once

#include <setjmp.h>

#include <cstdint>

#include "linux/signal_frame.h"

namespace phybin::runtime {

struct PendingSignals {
  uint64_t async = 0;                   // caught by the host handler (bit sig - 1)
  uint64_t through_temporary_mask = 0;  // of those, caught inside sigsuspend & co.
  sys::X86SigInfo info[sys::kX86NumSignals + 1] = {};
  bool sync = false;  // a fault of the guest waits (there is at most one)
  sys::GuestSignal sync_signal;
};
PendingSignals& pending_signals();

// Set while phybin copies to or from guest memory that may be unmapped:
// the SIGSEGV handler jumps there instead of treating the fault.
sigjmp_buf* copy_guard();

void queue_sync_signal(const sys::GuestSignal& signal);
// In a host handler: `sig` arrived with host siginfo `host_info`.
void record_async_signal(int sig, const void* host_info);

}  // namespace phybin::runtime
