// The code cache: one RWX mapping of PHYBIN_CACHE_SIZE bytes.  The stubs
// sit at its start and survive flushes; translated blocks fill the rest
// and are thrown away all at once when it is full.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "arm64/backend.h"

namespace phybin::runtime {

class CodeCache {
 public:
  explicit CodeCache(size_t bytes);
  ~CodeCache();
  CodeCache(const CodeCache&) = delete;
  CodeCache& operator=(const CodeCache&) = delete;

  const arm64::Stubs& stubs() const { return stubs_; }
  // Space for the next block; after emitting, commit() the words written.
  uint32_t* free_begin() const { return free_; }
  uint32_t* blocks_begin() const { return blocks_begin_; }
  size_t free_words() const { return static_cast<size_t>(end_ - free_); }
  void commit(uint32_t* new_free);
  void flush();
  size_t used_bytes() const { return static_cast<size_t>(free_ - blocks_begin_) * 4; }
  size_t capacity_bytes() const { return static_cast<size_t>(end_ - blocks_begin_) * 4; }
  // Read without the tables' lock too (a thread about to enter code, or
  // back from a system call, checks that no flush came since).
  unsigned flush_count() const { return flushes_.load(); }
  // True for addresses of the stubs and of translated blocks.
  bool contains(const void* p) const { return p >= base_ && p < end_; }

  static void sync_icache(const void* begin, const void* end);

 private:
  uint32_t* base_ = nullptr;
  uint32_t* blocks_begin_ = nullptr;
  uint32_t* free_ = nullptr;
  uint32_t* end_ = nullptr;
  size_t bytes_ = 0;
  std::atomic<unsigned> flushes_{0};
  arm64::Stubs stubs_;
};

}  // namespace phybin::runtime
