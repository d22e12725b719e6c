// What running a program and `phybin info` both set up from the settings.
#pragma once

#include <string>

#include "app/config.h"
#include "forward/forwarder.h"

namespace phybin::app {

// phybin's own executable, for execve of x86-64 programs (read before the
// guest can change what /proc/self/exe answers phybin: nothing can yet).
std::string own_executable();

// The forwarder's options: the guest sides beside `phybin` (guest-libs/),
// the libraries PHYBIN_FORWARD enables, ROCm's place, the watchdog.
forward::Forwarder::Options forwarder_options(const Settings& settings, const std::string& phybin);

}  // namespace phybin::app
