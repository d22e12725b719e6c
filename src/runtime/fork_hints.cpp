#include "runtime/fork_hints.h"

#include <sys/mman.h>

#include <new>

namespace phybin::runtime {

bool ForkHints::prepare() {
  if (collect_) return true;
  void* page = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return false;
  collect_ = new (page) Shared{};  // zero-filled by the kernel as well
  return true;
}

// Past the capacity the count still grows (the parent reads at most
// kCapacity): the first blocks are the child's way back from fork.
void ForkHints::report(uint64_t guest_start) {
  const uint32_t i = report_->count.fetch_add(1, std::memory_order_relaxed);
  if (i < kCapacity) report_->pcs[i].store(guest_start, std::memory_order_release);
}

}  // namespace phybin::runtime
