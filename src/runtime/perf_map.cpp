#include "runtime/perf_map.h"

#include <unistd.h>

#include <cinttypes>

#include "linux/syscalls.h"

namespace phybin::runtime {

PerfMap::~PerfMap() {
  if (file_) std::fclose(file_);
}

void PerfMap::open(bool append) {
  if (file_) std::fclose(file_);
  const std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
  file_ = std::fopen(path.c_str(), append ? "ae" : "we");
}

std::string PerfMap::name_of(uint64_t guest) {
  const std::optional<sys::MappedFile> m = sys::process().address_space.mapped_file(guest);
  if (!m) return "x86:anonymous";
  auto it = tables_.find(m->name);
  if (it == tables_.end()) it = tables_.emplace(m->name, elf::SymbolTable::read(m->name)).first;
  const std::string base = m->name.substr(m->name.rfind('/') + 1);
  const std::string symbol = it->second.name_of(it->second.link_address(guest - m->file_start));
  char offset[32];
  std::snprintf(offset, sizeof offset, "0x%" PRIx64, guest - m->file_start);
  return "x86:" + (symbol.empty() ? std::string(offset) : symbol) + " [" + base + "]";
}

void PerfMap::add(const void* host, size_t bytes, uint64_t guest) {
  if (!file_) return;
  std::fprintf(file_, "%" PRIxPTR " %zx %s\n", reinterpret_cast<uintptr_t>(host), bytes, name_of(guest).c_str());
}

void PerfMap::flush() {
  if (file_) std::fflush(file_);
}

}  // namespace phybin::runtime
