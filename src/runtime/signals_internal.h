// Shared by signals.cpp (delivery) and host_signals.cpp (host handlers):
// how the host handlers queue signals for the guest.
#pragma once

#include <setjmp.h>

#include "linux/signal_frame.h"

namespace phybin::runtime {

// Set while phybin copies to or from guest memory that may be unmapped:
// the SIGSEGV handler jumps there instead of treating the fault.
sigjmp_buf* copy_guard();

void queue_sync_signal(const sys::GuestSignal& signal);
// In a host handler: `sig` arrived with host siginfo `host_info`.
void record_async_signal(int sig, const void* host_info);

}  // namespace phybin::runtime
