#include "runtime/signals.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include "common/log.h"

namespace phybin::runtime {

void raise_guest_signal(GuestState* state, int sig) {
  logf(LogLevel::Info, "phybin: guest signal %d at %#llx", sig, static_cast<unsigned long long>(state->rip));
  std::fflush(stderr);
  std::signal(sig, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
  raise(sig);
  // A signal the host ignores by default (none of ours) must still end us.
  _exit(128 + sig);
}

}  // namespace phybin::runtime
