// /proc/cpuinfo for the CPU phybin presents: what a program reading it
// (instead of running CPUID) must find is the same CPU CPUID describes.
// The flag names are Linux's (arch/x86/include/asm/cpufeatures.h).
#include "x86/cpuinfo.h"

#include <cstdio>
#include <initializer_list>
#include <string>

#include "common/guest_state.h"
#include "x86/helpers.h"

namespace phybin::x86 {
namespace {

struct Leaf {
  uint32_t a, b, c, d;
};

Leaf query(uint32_t leaf, uint32_t sub = 0) {
  GuestState s{};
  s.gpr[RAX] = leaf;
  s.gpr[RCX] = sub;
  helper_cpuid(&s, 0, 0);
  return {static_cast<uint32_t>(s.gpr[RAX]), static_cast<uint32_t>(s.gpr[RBX]), static_cast<uint32_t>(s.gpr[RCX]),
          static_cast<uint32_t>(s.gpr[RDX])};
}

struct FlagName {
  uint8_t bit;
  const char* name;
};

// In Linux's order: leaf 1 EDX, leaf 0x80000001 EDX, leaf 1 ECX, leaf
// 0x80000001 ECX, leaf 7 EBX, leaf 7 ECX.
constexpr FlagName kLeaf1Edx[] = {
    {0, "fpu"},    {1, "vme"},   {2, "de"},     {3, "pse"},      {4, "tsc"},   {5, "msr"},  {6, "pae"},
    {7, "mce"},    {8, "cx8"},   {9, "apic"},   {11, "sep"},     {12, "mtrr"}, {13, "pge"}, {14, "mca"},
    {15, "cmov"},  {16, "pat"},  {17, "pse36"}, {19, "clflush"}, {23, "mmx"},  {24, "fxsr"}, {25, "sse"},
    {26, "sse2"},  {28, "ht"}};
constexpr FlagName kExtEdx[] = {{11, "syscall"}, {20, "nx"}, {26, "pdpe1gb"}, {27, "rdtscp"}, {29, "lm"}};
constexpr FlagName kLeaf1Ecx[] = {
    {0, "pni"},     {1, "pclmulqdq"}, {3, "monitor"},  {9, "ssse3"}, {12, "fma"},  {13, "cx16"},
    {19, "sse4_1"}, {20, "sse4_2"},   {22, "movbe"},   {23, "popcnt"}, {25, "aes"}, {26, "xsave"},
    {28, "avx"},    {29, "f16c"},     {30, "rdrand"},  {31, "hypervisor"}};
constexpr FlagName kExtEcx[] = {{0, "lahf_lm"}, {5, "abm"}, {8, "3dnowprefetch"}};
constexpr FlagName kLeaf7Ebx[] = {{0, "fsgsbase"}, {3, "bmi1"},  {5, "avx2"},       {8, "bmi2"},  {9, "erms"},
                                  {18, "rdseed"},  {19, "adx"},  {23, "clflushopt"}, {24, "clwb"}, {29, "sha_ni"}};
constexpr FlagName kLeaf7Ecx[] = {{22, "rdpid"}};

template <size_t N>
void add_flags(std::string& out, uint32_t reg, const FlagName (&names)[N]) {
  for (const FlagName& f : names)
    if (reg >> f.bit & 1) {
      out += ' ';
      out += f.name;
    }
}

// The bytes of registers that hold text (vendor, brand), in order.
std::string registers_text(std::initializer_list<uint32_t> regs) {
  std::string s;
  for (uint32_t r : regs)
    for (int i = 0; i < 4; ++i) s += static_cast<char>(r >> (8 * i));
  return s;
}

// Linux's "cache size": the last level's, as leaf 4 describes it.
unsigned last_level_cache_kib() {
  unsigned kib = 0;
  for (uint32_t sub = 0;; ++sub) {
    const Leaf l = query(4, sub);
    if ((l.a & 0x1f) == 0) return kib;
    const unsigned ways = (l.b >> 22) + 1, partitions = (l.b >> 12 & 0x3ff) + 1, line = (l.b & 0xfff) + 1;
    kib = ways * partitions * line * (l.c + 1) >> 10;
  }
}

}  // namespace

std::string proc_cpuinfo(unsigned cpus) {
  const Leaf l0 = query(0), l1 = query(1), e0 = query(0x80000000);
  const Leaf ext = e0.a >= 0x80000001 ? query(0x80000001) : Leaf{};
  const Leaf l7 = l0.a >= 7 ? query(7) : Leaf{};
  const std::string vendor = registers_text({l0.b, l0.d, l0.c});
  std::string brand;
  if (e0.a >= 0x80000004)
    for (uint32_t leaf = 0x80000002; leaf <= 0x80000004; ++leaf) {
      const Leaf l = query(leaf);
      brand += registers_text({l.a, l.b, l.c, l.d});
    }
  while (!brand.empty() && (brand.back() == ' ' || brand.back() == '\0')) brand.pop_back();
  const unsigned family = (l1.a >> 8 & 0xf) + ((l1.a >> 8 & 0xf) == 0xf ? (l1.a >> 20 & 0xff) : 0);
  const unsigned model = (l1.a >> 4 & 0xf) | ((l1.a >> 8 & 0xf) >= 6 ? (l1.a >> 12 & 0xf0) : 0);
  std::string flags = "flags\t\t:";
  add_flags(flags, l1.d, kLeaf1Edx);
  add_flags(flags, ext.d, kExtEdx);
  add_flags(flags, l1.c, kLeaf1Ecx);
  add_flags(flags, ext.c, kExtEcx);
  add_flags(flags, l7.b, kLeaf7Ebx);
  add_flags(flags, l7.c, kLeaf7Ecx);
  const unsigned cache_kib = last_level_cache_kib();
  std::string out;
  char line[320];
  for (unsigned cpu = 0; cpu < cpus; ++cpu) {
    std::snprintf(line, sizeof line,
                  "processor\t: %u\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\nmodel name\t: %s\n"
                  "stepping\t: %u\ncache size\t: %u KB\nphysical id\t: 0\nsiblings\t: %u\ncore id\t\t: %u\ncpu cores\t: %u\n"
                  "apicid\t\t: %u\nfpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: %u\nwp\t\t: yes\n",
                  cpu, vendor.c_str(), family, model, brand.c_str(), l1.a & 0xf, cache_kib, cpus, cpu, cpus, cpu, l0.a);
    out += line;
    out += flags;
    out += "\nclflush size\t: 64\ncache_alignment\t: 64\naddress sizes\t: 48 bits physical, 48 bits virtual\n"
           "power management:\n\n";
  }
  return out;
}

}  // namespace phybin::x86
