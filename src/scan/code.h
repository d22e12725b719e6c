// Decoding a file's code without running it: every instruction of its
// executable sections, in parallel, with what phybin's frontend says of
// each.  Code is cut into units: the functions the image knows (symbols,
// FDEs), and in the bytes between them, runs of instructions that end at a
// ret or jmp.  A run that meets bytes that do not decode is data, and its
// instructions are dropped; so is a run between functions that nothing
// refers to, once the references are known (scan/guards).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scan/image.h"

namespace phybin::x86 {
class Frontend;
}

namespace phybin::scan {

// x86-64 psABI micro-architecture levels: 1 baseline, 2 (SSE4.2, POPCNT,
// CMPXCHG16B), 3 (AVX2, FMA, BMI), 4 (AVX-512).
int isa_level(uint32_t zydis_isa_set, uint32_t zydis_isa_ext);

struct Unit {
  uint64_t begin = 0, end = 0;
  bool between_functions = false;  // a run outside every known function
  bool runs_cpuid = false;
  uint8_t level = 1;           // the highest its instructions need
  uint64_t level_address = 0;  // the first instruction needing it
  std::string level_extension;
};

struct Finding {
  uint64_t address = 0;
  uint32_t unit = 0;
  uint8_t level = 1;
  std::string text;       // "vpaddd ymm0, ymm1, ymm2"
  std::string extension;  // Zydis's ISA extension: "AVX2"
};

struct Reference {
  // Compared: an address taken only to compare a pointer with it (which
  // function a pointer holds), not to call it.
  enum Kind : uint8_t { Call, Jump, Address, Read, Compared };
  uint64_t to = 0;
  uint32_t unit = 0;  // where the instruction is
  Kind kind = Call;
};

struct CodeFacts {
  std::vector<Unit> units;  // by address
  std::vector<Finding> untranslatable;
  std::vector<Reference> references;  // in the order of their units
  uint64_t instructions = 0;
  uint64_t undecodable_bytes = 0;
};

// Decodes all of `image`'s code with `threads` threads (0: one per CPU).
CodeFacts decode_code(const Image& image, const x86::Frontend& frontend, unsigned threads);

}  // namespace phybin::scan
