// PHYBIN_PERF_MAP: /tmp/perf-PID.map, the file Linux perf reads to name
// code that a JIT made: one line per translated block, "HOST_START SIZE
// x86:SYMBOL+OFFSET [FILE]", the guest function taken from the symbols of
// the file the guest code was mapped from.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "runtime/guest_symbols.h"

namespace phybin::runtime {

class PerfMap {
 public:
  PerfMap() = default;
  PerfMap(const PerfMap&) = delete;
  PerfMap& operator=(const PerfMap&) = delete;
  ~PerfMap();

  // Opens /tmp/perf-PID.map for this process: new, or appended to when the
  // process was here before (an execve of phybin by phybin).
  void open(bool append);
  bool on() const { return file_ != nullptr; }
  // One block's line.
  void add(const void* host, size_t bytes, uint64_t guest);
  void flush();

 private:
  FILE* file_ = nullptr;
  GuestSymbols symbols_;
};

}  // namespace phybin::runtime
