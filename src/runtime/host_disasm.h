// Text of generated AArch64 code for PHYBIN_LOG_LEVEL=3.  Uses Capstone
// when the host has it (loaded on first use, so phybin neither links it nor
// pays for it at start-up); otherwise prints the instruction words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace phybin::runtime {

std::string disassemble_host(const uint32_t* code, size_t words);

}  // namespace phybin::runtime
