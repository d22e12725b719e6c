// /proc/cpuinfo's text for the x86-64 CPU phybin presents (its CPUID), one
// entry per host CPU the guest may run on.
#pragma once

#include <string>

namespace phybin::x86 {

std::string proc_cpuinfo(unsigned cpus);

}  // namespace phybin::x86
