// sigaction for the native libraries phybin loads (src/forward): phybin's
// executable defines the symbol and exports it, so their calls bind here
// rather than to libc's.  PoCL's LLVM installs crash handlers for SIGSEGV
// and SIGBUS; phybin's must stay, since faults of translated code and
// writes to protected code pages arrive there: a library's handler for
// those two is kept aside (runtime::keep_native_fault_action) and runs for
// the faults that are not the guest's.  Every other call, phybin's own
// included, goes to libc's sigaction.
#include <dlfcn.h>

#include <csignal>

#include "runtime/signals.h"

extern "C" {
extern const char __executable_start[];
extern const char etext[];
}

namespace {

using SigactionFn = int (*)(int, const struct sigaction*, struct sigaction*);

int libc_sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  static const auto real = reinterpret_cast<SigactionFn>(dlsym(RTLD_NEXT, "sigaction"));
  return real(sig, act, old);
}

bool from_phybin(const void* caller) { return caller >= __executable_start && caller < etext; }

}  // namespace

extern "C" int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  if (!from_phybin(__builtin_return_address(0)) && phybin::runtime::is_fault_signal_kept_aside(sig))
    return phybin::runtime::keep_native_fault_action(sig, act, old);
  return libc_sigaction(sig, act, old);
}
