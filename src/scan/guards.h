// Which code a program only runs after asking the CPU: phybin presents an
// x86-64 without AVX (CPUID), so code the program chooses by CPU features
// never runs under it.  A unit of code is guarded when
//   - an IFUNC resolver chooses it (STT_GNU_IFUNC, R_X86_64_IRELATIVE), or
//     it is a vector function ABI variant for AVX callers (_ZGVd...);
//   - it checks the CPU itself: runs cpuid, reads a CPU-capability object
//     (glibc's, libgcc's __cpu_model for function multiversioning and
//     __builtin_cpu_supports, OpenSSL's OPENSSL_ia32cap_P, or data that
//     code running cpuid fills), or calls a function that does;
//   - everything that refers to it is guarded, and nothing outside code
//     (exports, data, the entry point) does; or nothing refers to it.
// Between functions, code nothing refers to is taken for data.
#pragma once

#include <string>
#include <vector>

#include "scan/code.h"
#include "scan/image.h"

namespace phybin::scan {

struct Guards {
  std::vector<bool> kept;          // by unit: code, not data between functions
  std::vector<std::string> guard;  // by unit: why it is guarded; "" when it is not
};

Guards find_guards(const Image& image, const CodeFacts& facts);

// Extensions most x86-64 CPUs lack (TSX's RTM, turned off on Intel's and
// absent from AMD's until lately; protection keys; CET's shadow stack, on
// only when the kernel turned it on), which programs use only after asking
// CPUID or the kernel, often through data the scanner does not follow
// (glibc's lock elision, libgcc's unwinder testing rdssp's result): why an
// instruction of `extension` (Zydis's name) is taken as guarded, or nullptr.
const char* optional_extension(const std::string& extension);

}  // namespace phybin::scan
