#include "runtime/profile.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>

namespace phybin::runtime {

namespace {

uint64_t now_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
}

double percent(uint64_t part, uint64_t whole) { return whole ? 100.0 * static_cast<double>(part) / whole : 0.0; }

void print_counts(FILE* out, const char* what, const std::vector<std::pair<std::string, uint64_t>>& counts) {
  uint64_t total = 0;
  for (const auto& c : counts) total += c.second;
  std::fprintf(out, "  %s: %llu\n", what, static_cast<unsigned long long>(total));
  for (size_t i = 0; i < counts.size() && i < 20; ++i)
    std::fprintf(out, "    %10llu  %s\n", static_cast<unsigned long long>(counts[i].second), counts[i].first.c_str());
  if (counts.size() > 20) std::fprintf(out, "    (%zu more)\n", counts.size() - 20);
}

}  // namespace

void Profile::enable(const std::string& destination) {
  destination_ = destination;
  counts_.reset(new uint64_t[kCounters]());
  guest_.reset(new uint64_t[kCounters]());
  insns_.reset(new uint32_t[kCounters]());
  start_ns_ = now_ns();
}

uint64_t* Profile::new_counter(uint64_t guest) {
  const size_t i = next_.fetch_add(1, std::memory_order_relaxed);
  if (i >= kCounters) {
    t_last = SIZE_MAX;
    return nullptr;
  }
  guest_[i] = guest;
  t_last = i;
  return &counts_[i];
}

void Profile::block_registered(uint32_t guest_insns) {
  if (t_last != SIZE_MAX) insns_[t_last] = guest_insns;
  t_last = SIZE_MAX;
}

void Profile::report(const Facts& facts, const std::function<std::string(uint64_t)>& name_of) const {
  std::map<std::string, uint64_t> by_function;
  uint64_t total = 0;
  const size_t used = std::min(next_.load(std::memory_order_relaxed), kCounters);
  for (size_t i = 0; i < used; ++i) {
    const uint64_t runs = counts_[i] * insns_[i];
    if (runs == 0) continue;
    by_function[name_of(guest_[i])] += runs;
    total += runs;
  }
  std::vector<std::pair<std::string, uint64_t>> hot(by_function.begin(), by_function.end());
  std::sort(hot.begin(), hot.end(), [](const auto& a, const auto& b) { return a.second > b.second; });

  FILE* out = destination_ == "1" ? stderr : std::fopen(destination_.c_str(), "ae");
  if (!out) return;
  const uint64_t wall = now_ns() - start_ns_, translating = translate_ns_.load(std::memory_order_relaxed);
  std::fprintf(out, "phybin profile of %s (pid %d): %.3f s\n", facts.program.c_str(), static_cast<int>(getpid()),
               static_cast<double>(wall) / 1e9);
  std::fprintf(out, "  translation: %.3f s (%.1f %%), %llu blocks of %llu guest instructions\n",
               static_cast<double>(translating) / 1e9, percent(translating, wall),
               static_cast<unsigned long long>(facts.blocks), static_cast<unsigned long long>(facts.guest_insns));
  std::fprintf(out, "  translated code: about %llu guest instructions run\n", static_cast<unsigned long long>(total));
  std::fprintf(out, "  code cache: %llu of %llu KiB used, %llu flushes; saved translations: not used while profiling\n",
               static_cast<unsigned long long>(facts.cache_used >> 10),
               static_cast<unsigned long long>(facts.cache_bytes >> 10), static_cast<unsigned long long>(facts.flushes));
  print_counts(out, "forwarded calls", facts.forwarded_calls);
  print_counts(out, "system calls", facts.syscalls);
  std::fprintf(out, "  hottest guest functions (share of the guest instructions run):\n");
  for (size_t i = 0; i < hot.size() && i < 20; ++i)
    std::fprintf(out, "    %5.1f %%  %s\n", percent(hot[i].second, total), hot[i].first.c_str());
  if (out != stderr) std::fclose(out);
}

}  // namespace phybin::runtime
