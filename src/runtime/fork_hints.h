// What a forked child translated and linked, told to its parent so that
// the next child finds it done (GuestThread::translate_for_children).
//
// A child's translations die with it: each child of a program that forks
// again and again translated the same code (glibc's fork in the child,
// _exit), about 1.3 M AArch64 instructions under qemu where the native
// child runs 362, and then went through the dispatcher at each exit it
// took first (20 k).  Before each fork the parent maps a shared page for
// that fork's child, which writes there the guest address of each block it
// translates and each exit it links (the first kCapacity); the parent
// translates and links the same before its next fork.  Only hints: an
// entry lost, or code that differs in the parent, costs a translation and
// nothing else (the parent translates its own bytes, as if it had run
// there).  A link is only told of an exit of the code the child was
// forked with, and taken only while the parent's cache holds that code
// (no flush since): the same host address is then the same exit of the
// same block in both.
#pragma once

#include <atomic>
#include <cstdint>

namespace phybin::runtime {

class ForkHints {
 public:
  static constexpr uint32_t kCapacity = 255;

  ~ForkHints();
  // Before a fork, in the parent: a new page for this fork's child (the
  // previous one's was taken first), with the cache's flush count.
  void prepare(unsigned generation);
  // In the child after a fork: it reports into its parent's page, links
  // only from code below `code_end` (the cache's free space at the fork);
  // its own children get pages of their own.
  void in_child(const uint32_t* code_end);
  // A block was translated at `guest_start`.
  void note_block(uint64_t guest_start) {
    if (report_) add(guest_start, 0);
  }
  // The exit branch at `site` was linked to the block at `guest_target`,
  // `generation` the cache's flush count.
  void note_link(const uint32_t* site, uint64_t guest_target, unsigned generation) {
    if (report_ && site < code_end_ && generation == report_->generation)
      add(guest_target, reinterpret_cast<uint64_t>(site));
  }
  // The previous child's hints, in its order: `fn(pc, site)` (site null:
  // a translation; else a link, to be made only while the cache's flush
  // count is `generation`), which returns false to stop.
  template <typename Fn>
  void take(Fn&& fn) {
    if (!collect_) return;
    const uint32_t n = std::atomic_ref(collect_->count).load(std::memory_order_relaxed);
    for (uint32_t i = 0; i < n && i < kCapacity; ++i) {
      Entry& e = collect_->entries[i];
      const uint64_t pc = std::atomic_ref(e.pc).exchange(0, std::memory_order_acquire);  // site came first
      if (pc && !fn(pc, reinterpret_cast<uint32_t*>(e.site), collect_->generation)) break;
    }
  }

 private:
  // Plain words, used through atomic_ref: the page comes zeroed from the
  // kernel, and constructing 255 atomics cost 760 instructions a fork.
  struct Entry {
    uint64_t pc;
    uint64_t site;
  };
  struct Shared {
    unsigned generation;  // the parent's cache flush count at the fork
    uint32_t count;
    Entry entries[kCapacity];
  };
  void add(uint64_t pc, uint64_t site);

  Shared* collect_ = nullptr;  // this process's last child writes it
  Shared* report_ = nullptr;   // the parent's page for this process
  const uint32_t* code_end_ = nullptr;
};

}  // namespace phybin::runtime
