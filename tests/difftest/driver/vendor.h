// Which vendor's CPU the native reference run uses.  phybin follows one
// vendor model (kModelVendor, gen.h: its CPUID says GenuineIntel); where
// the manuals leave a result undefined or the vendors differ, a run on a
// CPU of another vendor compares only what every x86-64 CPU defines.
#pragma once

#include <string>

namespace difftest {

// The CPUID leaf 0 vendor string of the build CPU ("GenuineIntel",
// "AuthenticAMD", ...).
std::string build_cpu_vendor();

// Where the run compares vendor-specific results: the build CPU is of the
// model's vendor and the run is not forced vendor-neutral (--vendor-neutral
// or PHYBIN_TEST_VENDOR_NEUTRAL=1, which test the other path on an
// Intel machine).
struct VendorMode {
  std::string vendor;
  bool forced_neutral = false;
  bool model_vendor() const;
  std::string describe() const;  // for the report lines
};

VendorMode vendor_mode(bool force_neutral);

}  // namespace difftest
