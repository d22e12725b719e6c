// The guest's initial stack, laid out as the Linux x86-64 kernel lays it out
// for a new program (fs/binfmt_elf.c create_elf_tables):
//
//   high  [8 zero bytes]
//         AT_EXECFN string, environment strings, argument strings
//         "x86_64" (AT_PLATFORM), 16 random bytes (AT_RANDOM)
//         padding to 16 bytes
//         auxv pairs ... AT_NULL 0
//         envp[0..n-1] NULL
//         argv[0..argc-1] NULL
//   low   argc                      <- RSP, 16-byte aligned (psABI)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "elf/loader.h"

namespace phybin::elf {

struct StackOptions {
  uint64_t stack_size = 8 << 20;  // usable bytes, below a guard page
  // AT_HWCAP on x86-64 is CPUID.1:EDX of the CPU the program runs on: the
  // caller passes the value of the CPU phybin presents to the guest.
  uint64_t hwcap = 0;
  uint64_t hwcap2 = 0;
  uint64_t clock_ticks = 100;  // AT_CLKTCK (USER_HZ)
  // AT_MINSIGSTKSZ: the smallest signal stack the guest may use.  2048 is
  // x86-64's MINSIGSTKSZ; it must stay at least as large as the signal
  // frame the Linux layer writes (an SSE-only fpstate needs about 1 KiB;
  // Linux computes the value from the CPU's XSAVE size).
  uint64_t min_signal_stack_size = 2048;
  // AT_BASE: where the program interpreter (ld-linux-x86-64.so.2) was
  // loaded; 0 for a program without one.
  uint64_t interpreter_base = 0;
  // AT_EXECFN: the path the program was started by; "" means the image's path.
  std::string execfn;
  // PT_GNU_STACK asks for PF_X (GCC's nested-function trampolines).
  bool executable = false;
};

// Where the pieces of the initial stack ended up; addresses are guest ==
// host addresses.
struct StackInfo {
  uint64_t rsp = 0;            // points at argc
  uint64_t argv = 0;           // argv[0]'s slot
  uint64_t envp = 0;           // envp[0]'s slot
  uint64_t auxv = 0;           // first auxv pair
  uint64_t auxv_bytes = 0;     // including the AT_NULL pair (for /proc/self/auxv)
  uint64_t execfn = 0;         // AT_EXECFN string
  uint64_t platform = 0;       // AT_PLATFORM string
  uint64_t random = 0;         // AT_RANDOM bytes
  uint64_t stack_top = 0;      // highest address + 1 of the stack
  uint64_t stack_low = 0;      // lowest usable address (above the guard)
  uint64_t mapping_start = 0;  // guard page included
  uint64_t mapping_size = 0;
};

// Maps the stack and writes argc, argv, envp, auxv and the strings.  Returns
// the initial RSP; `info`, when given, receives where everything is.
// Throws PHYBIN_ERR_HOST_MMAP if the stack cannot be mapped and
// PHYBIN_ERR_USAGE if the arguments and environment do not fit in a quarter
// of the stack (Linux's limit, E2BIG).
uint64_t build_initial_stack(const LoadedImage& image, const std::vector<std::string>& argv,
                             const std::vector<std::string>& envp, const StackOptions& options,
                             StackInfo* info = nullptr);

// Unmaps a stack made by build_initial_stack (tests, and a failed start).
void release_stack(const StackInfo& info);

}  // namespace phybin::elf
