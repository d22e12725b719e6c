// The runtime: owns the code cache and the translation map, runs the
// dispatcher loop of the guest thread, and links blocks to each other.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <cstdlib>
#include <vector>

#include "arm64/backend.h"
#include "runtime/code_cache.h"
#include "x86/frontend.h"

namespace phybin::runtime {

struct RuntimeOptions {
  size_t cache_bytes = 64u << 20;
  bool strict_flags = false;
  unsigned max_block_insns = 48;
};

struct LookupEntry {
  uint64_t guest;
  const void* host;
};

class Runtime {
 public:
  explicit Runtime(const RuntimeOptions& options);
  // Runs the guest from state.rip; returns only if the guest thread ends
  // without exiting the process (never for now: exit_group exits).
  void run(GuestState& state);
  // Drops every translation (code cache full, or guest code changed).
  void flush();

  static Runtime* current();
  // One line of translation statistics for PHYBIN_LOG_LEVEL >= 2.
  void log_stats() const;

 private:
  const void* lookup_or_translate(uint64_t pc);
  const void* translate(uint64_t pc);
  const void* emit_block(const ir::Block& block);
  void link(uint32_t* site, const void* target);
  void log_block(const ir::Block& block, const void* code, size_t words) const;

  RuntimeOptions options_;
  CodeCache cache_;
  x86::Frontend frontend_;
  arm64::BackendConfig backend_;
  std::unordered_map<uint64_t, const void*> blocks_;
  struct FreeDeleter {
    void operator()(LookupEntry* p) const { std::free(p); }
  };
  std::unique_ptr<LookupEntry[], FreeDeleter> lookup_;
  uint64_t blocks_translated_ = 0;
  uint64_t guest_insns_translated_ = 0;
};

}  // namespace phybin::runtime
