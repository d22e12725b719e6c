#include "runtime/fork_hints.h"

#include <sys/mman.h>

#include <new>

namespace phybin::runtime {

ForkHints::~ForkHints() {
  if (collect_) munmap(collect_, sizeof(Shared));
}

// A page per fork: a child still running from an earlier fork writes its
// own copy, never an entry the next child writes.  No page, no hints.
void ForkHints::prepare(unsigned generation) {
  if (collect_) munmap(collect_, sizeof(Shared));
  void* page = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  collect_ = page == MAP_FAILED ? nullptr : new (page) Shared;  // trivial: nothing written
  if (collect_) collect_->generation = generation;
}

void ForkHints::in_child(const uint32_t* code_end) {
  report_ = collect_;
  collect_ = nullptr;
  code_end_ = code_end;
}

// The first entries are the child's way back from fork.
void ForkHints::add(uint64_t pc, uint64_t site) {
  const uint32_t i = std::atomic_ref(report_->count).fetch_add(1, std::memory_order_relaxed);
  if (i >= kCapacity) return;
  report_->entries[i].site = site;
  std::atomic_ref(report_->entries[i].pc).store(pc, std::memory_order_release);
}

}  // namespace phybin::runtime
