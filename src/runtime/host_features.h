// The AArch64 features phybin looks for on the host, as the kernel reports
// them (AT_HWCAP): the optional ones are used only where present.  One
// table for the runtime and for `phybin info`.
#pragma once

namespace phybin::runtime {

enum class HostFeature { Aes, Pmull, Crc32, Lse, Lrcpc, Sha2, FlagM, Sve };

struct HostFeatureInfo {
  HostFeature feature;
  const char* name;
  unsigned hwcap_bit;  // in AT_HWCAP
  const char* use;     // what phybin does with it, or why it does not use it
};

inline constexpr HostFeatureInfo kHostFeatures[] = {
    {HostFeature::Lse, "LSE", 8, "locked x86 instructions become single atomic instructions (else exclusive loops)"},
    {HostFeature::Lrcpc, "LRCPC", 15, "x86 loads under PHYBIN_TSO use LDAPR (else LDAR)"},
    {HostFeature::Aes, "AES", 3, "x86 AES rounds inline (else a helper)"},
    {HostFeature::Pmull, "PMULL", 4, "pclmulqdq inline (else a helper)"},
    {HostFeature::Crc32, "CRC32", 7, "x86 crc32 inline (else a helper)"},
    {HostFeature::Sha2, "SHA2", 6, "not used: x86 has no SHA instructions phybin advertises"},
    {HostFeature::FlagM, "FlagM", 35, "not used: x86 flags are computed where read"},
    {HostFeature::Sve, "SVE", 22, "not used: SSE maps to 128-bit NEON"},
};

// Whether the host has `feature` (false when phybin is not on AArch64).
bool host_has(HostFeature feature);

}  // namespace phybin::runtime
