// What a forked child translated, told to its parent so that the next
// child finds it translated (GuestThread::translate_for_children).
//
// A child's translations die with it: each child of a program that forks
// again and again translated the same code (glibc's fork in the child,
// _exit), about 1.3 M AArch64 instructions under qemu where the native
// child runs 362.  The parent owns a shared page; its children write the
// guest address of each block they translate there (the first
// kCapacity), and the parent translates those it lacks before its next
// fork.  Only hints: an entry lost to a race, or code that differs in the
// parent, costs a translation and nothing else (the parent translates its
// own bytes, as if it had run there).
#pragma once

#include <atomic>
#include <cstdint>

namespace phybin::runtime {

class ForkHints {
 public:
  static constexpr uint32_t kCapacity = 255;

  // Before a fork, in the parent: the page its children report into (made
  // at its first fork).  False when it could not be mapped (no hints).
  bool prepare();
  // In the child after a fork: it reports into its parent's page; its own
  // children get a page of their own.
  void in_child() {
    report_ = collect_;
    collect_ = nullptr;
  }
  // A block was translated at `guest_start` (a child tells its parent).
  void note(uint64_t guest_start) {
    if (report_) report(guest_start);
  }
  // The reported addresses, each once, each passed to `translate`, which
  // returns false to stop; the page is empty again afterwards.
  template <typename Fn>
  void take(Fn&& translate) {
    if (!collect_) return;
    const uint32_t n = collect_->count.load(std::memory_order_acquire);
    for (uint32_t i = 0; i < n && i < kCapacity; ++i) {
      const uint64_t pc = collect_->pcs[i].exchange(0, std::memory_order_relaxed);
      if (pc && !translate(pc)) break;
    }
    collect_->count.store(0, std::memory_order_relaxed);
  }

 private:
  struct Shared {
    std::atomic<uint32_t> count;
    std::atomic<uint64_t> pcs[kCapacity];
  };
  void report(uint64_t guest_start);

  Shared* collect_ = nullptr;  // mapped shared: this process's children write it
  Shared* report_ = nullptr;   // the parent's
};

}  // namespace phybin::runtime
