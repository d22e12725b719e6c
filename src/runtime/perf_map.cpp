#include "runtime/perf_map.h"

#include <unistd.h>

#include <cinttypes>

namespace phybin::runtime {

PerfMap::~PerfMap() {
  if (file_) std::fclose(file_);
}

void PerfMap::open(bool append) {
  if (file_) std::fclose(file_);
  const std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
  file_ = std::fopen(path.c_str(), append ? "ae" : "we");
}

void PerfMap::add(const void* host, size_t bytes, uint64_t guest) {
  if (!file_) return;
  std::fprintf(file_, "%" PRIxPTR " %zx %s\n", reinterpret_cast<uintptr_t>(host), bytes,
               symbols_.name_of(guest, true).c_str());
}

void PerfMap::flush() {
  if (file_) std::fflush(file_);
}

}  // namespace phybin::runtime
