// phybin scan: whether x86-64 ELF files will run under phybin, told
// without running them (app/scan.cpp is the command; doc/scan-schema.md the
// JSON it prints).  Files, directories (walked) and Python wheels.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "scan/libraries.h"

namespace phybin::x86 {
class Frontend;
}

namespace phybin::scan {

// The highest x86-64 level whose every instruction phybin translates (its
// CPUID presents SSE4.2 and POPCNT, not AVX).
inline constexpr int kTranslatedLevel = 2;

struct Instruction {
  uint64_t address = 0;
  std::string function;  // the symbol holding it, or the nearest one before it
  std::string text, extension;
  int level = 1;
  std::string guard;  // why it never runs under phybin; "" when nothing guards it
};

struct FunctionNeed {
  uint64_t address = 0;  // where the function (or code unit) starts
  std::string name;
  int level = 1;
  std::string extension;  // of its first instruction at that level
  unsigned untranslatable = 0;
  std::string guard;
};

struct FileReport {
  std::string path;  // a wheel's member: "WHEEL!MEMBER"
  std::string kind;  // "executable", "static executable", "shared object"
  std::string interpreter;
  bool interpreter_found = true;
  int level_needed = 1;  // by code nothing guards
  int level_any = 1;     // by any code, guarded included
  uint64_t level_needed_at = 0;  // the first unguarded instruction needing level_needed
  std::string level_needed_extension;
  std::vector<FunctionNeed> functions;  // those phybin cannot translate all of
  std::vector<Instruction> untranslatable;
  std::vector<LibraryStatus> libraries;
  uint64_t code_bytes = 0, instructions = 0, undecodable_bytes = 0;
  double seconds = 0;
  bool runs = false;
  std::string verdict;  // one line
};

struct ScanOptions {
  unsigned threads = 0;  // 0: one per CPU
};

// Scans `image`.  Libraries are looked up with `libraries`; `bundled`
// names the files that come with it (a wheel's own).
FileReport scan_image(const Image& image, const x86::Frontend& frontend, LibraryLookup& libraries,
                      const ScanOptions& options, const std::map<std::string, std::string>& bundled = {});

std::string level_name(int level);  // "x86-64-v2"

// Output: one verdict line per file (with what stops it, or everything
// with `details`), or the JSON document of doc/scan-schema.md.
std::string text_report(const FileReport& report, bool details);
std::string json_report(const std::vector<FileReport>& reports, const std::vector<std::string>& skipped,
                        const std::vector<std::string>& errors);

}  // namespace phybin::scan
