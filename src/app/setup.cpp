#include "app/setup.h"

#include <limits.h>
#include <unistd.h>

namespace phybin::app {

std::string own_executable() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

forward::Forwarder::Options forwarder_options(const Settings& settings, const std::string& phybin) {
  forward::Forwarder::Options options;
  options.guest_dir = phybin.substr(0, phybin.rfind('/') + 1) + "guest-libs";
  options.which = settings.forward;
  if (!settings.rocm_path.empty()) {
    options.rocm_path = settings.rocm_path;
    options.rocm_path_set = true;
  }
  options.watchdog_seconds = settings.watchdog_seconds;
  options.watchdog_abort = settings.watchdog_abort;
  options.count_calls = !settings.profile.empty();
  return options;
}

}  // namespace phybin::app
