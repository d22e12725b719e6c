#include "runtime/code_cache.h"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/error.h"

namespace phybin::runtime {

namespace {
constexpr size_t kStubBytes = 4096;
}

CodeCache::CodeCache(size_t bytes) : bytes_(bytes + kStubBytes) {
  void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    throw Error(ErrorCode::PHYBIN_ERR_HOST_MMAP,
                "cannot map a code cache of " + std::to_string(bytes_ >> 10) + " KiB: " + std::strerror(errno) +
                    "; lower PHYBIN_CACHE_SIZE or check the memory limits");
  base_ = static_cast<uint32_t*>(p);
  end_ = base_ + bytes_ / 4;
  arm64::Assembler a(base_, kStubBytes / 4);
  stubs_ = arm64::emit_stubs(a);
  sync_icache(base_, a.cursor());
  blocks_begin_ = base_ + kStubBytes / 4;
  free_ = blocks_begin_;
}

CodeCache::~CodeCache() { munmap(base_, bytes_); }

void CodeCache::commit(uint32_t* new_free) {
  sync_icache(free_, new_free);
  free_ = new_free;
}

void CodeCache::flush() {
  free_ = blocks_begin_;
  ++flushes_;
}

void CodeCache::sync_icache(const void* begin, const void* end) {
  __builtin___clear_cache(const_cast<char*>(static_cast<const char*>(begin)),
                          const_cast<char*>(static_cast<const char*>(end)));
}

}  // namespace phybin::runtime
