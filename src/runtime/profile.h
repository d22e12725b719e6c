// PHYBIN_PROFILE: a short report at exit of where the run went.  Each
// translated block counts its runs (a counter the block increments as it
// starts: made by the frontend through Hooks::block_counter), so that
// functions are ranked by the guest instructions their blocks ran
// (approximately: a block's side exits and other threads' races are not
// counted apart).  Translation time is measured around each translation;
// forwarded calls and system calls are counted where they are made.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace phybin::runtime {

class Profile {
 public:
  // `destination`: "1" (standard error) or a file the report is appended to.
  void enable(const std::string& destination);
  bool on() const { return counts_ != nullptr; }

  // A counter for the block being translated at `guest` on this thread:
  // its address, or 0 when all are taken.
  uint64_t* new_counter(uint64_t guest);
  // The guest instructions of this thread's block just registered.
  void block_registered(uint32_t guest_insns);
  void add_translation_ns(uint64_t ns) { translate_ns_.fetch_add(ns, std::memory_order_relaxed); }

  // What the rest of phybin reports (Process::report_profile gathers it).
  struct Facts {
    std::string program;
    uint64_t blocks = 0, guest_insns = 0, flushes = 0;
    uint64_t cache_used = 0, cache_bytes = 0;
    std::vector<std::pair<std::string, uint64_t>> forwarded_calls, syscalls;
  };
  // The report; `name_of` names a guest address's function.
  void report(const Facts& facts, const std::function<std::string(uint64_t)>& name_of) const;

 private:
  static constexpr size_t kCounters = size_t{1} << 20;
  std::string destination_;
  std::unique_ptr<uint64_t[]> counts_;  // fixed: translated code holds their addresses
  std::unique_ptr<uint64_t[]> guest_;
  std::unique_ptr<uint32_t[]> insns_;
  std::atomic<size_t> next_{0};
  std::atomic<uint64_t> translate_ns_{0};
  uint64_t start_ns_ = 0;
  static inline thread_local size_t t_last = SIZE_MAX;
};

}  // namespace phybin::runtime
