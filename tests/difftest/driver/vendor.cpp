#include "vendor.h"

#include <cpuid.h>

#include <cstdlib>
#include <cstring>

#include "gen.h"

namespace difftest {

std::string build_cpu_vendor() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return "unknown";
  char text[13];
  std::memcpy(text, &ebx, 4);  // the string is EBX, EDX, ECX in that order
  std::memcpy(text + 4, &edx, 4);
  std::memcpy(text + 8, &ecx, 4);
  text[12] = '\0';
  return text;
}

bool VendorMode::model_vendor() const { return !forced_neutral && vendor == kModelVendor; }

std::string VendorMode::describe() const {
  std::string out = "build CPU " + vendor;
  if (vendor == kModelVendor) out += " (phybin's model vendor)";
  if (forced_neutral) out += ", forced vendor-neutral";
  out += model_vendor() ? ": vendor-specific results compared" : ": vendor-specific results not compared";
  return out;
}

VendorMode vendor_mode(bool force_neutral) {
  VendorMode m;
  m.vendor = build_cpu_vendor();
  const char* env = std::getenv("PHYBIN_TEST_VENDOR_NEUTRAL");
  m.forced_neutral = force_neutral || (env && *env && std::strcmp(env, "0") != 0);
  return m;
}

}  // namespace difftest
