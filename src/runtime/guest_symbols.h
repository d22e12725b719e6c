// Names of guest code: the function symbol of the file the code was
// mapped from (elf/symbols.h), for the perf map and the profile.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "elf/symbols.h"

namespace phybin::runtime {

class GuestSymbols {
 public:
  // "x86:SYMBOL+OFFSET [FILE]" (with_offset) or "SYMBOL [FILE]"; the file
  // offset when no symbol holds it, "anonymous" outside files.
  std::string name_of(uint64_t guest, bool with_offset);

 private:
  std::map<std::string, elf::SymbolTable> tables_;  // by file
};

}  // namespace phybin::runtime
