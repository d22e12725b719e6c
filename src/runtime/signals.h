// Guest signals.  For now: synchronous faults of the guest (SIGFPE from a
// divide, SIGILL, SIGTRAP) end the process with that signal, exactly as an
// unhandled one does natively.  Delivery to guest handlers comes later.
#pragma once

#include "common/guest_state.h"

namespace phybin::runtime {

[[noreturn]] void raise_guest_signal(GuestState* state, int signal);

}  // namespace phybin::runtime
