// Guest address -> block index, the dispatcher's lookup of translated
// blocks.  Open addressing (linear probing, deletion by moving later
// entries back), so that entering a block allocates nothing most of the
// time: tens of thousands of saved blocks enter at once when a library's
// translations wake, where a node-based map spent more on malloc than on
// the blocks.  Reading never writes: a fault handler may look up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

namespace phybin::runtime {

class GuestIndex {
 public:
  static constexpr uint32_t kNone = ~uint32_t{0};

  uint32_t find(uint64_t key) const {
    if (used_ == 0) return kNone;
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.tag == 0 || s.key == key) return s.tag - 1;  // empty: kNone
    }
  }
  // key -> value, replacing what key mapped to.
  void set(uint64_t key, uint32_t value);
  // Removes key when it maps to `value` (a newer block may have taken it).
  void erase(uint64_t key, uint32_t value);
  // Room for `count` keys in all without growing.
  void reserve(size_t count);
  void clear();
  size_t size() const { return used_; }

 private:
  // The value plus one: 0 marks an empty slot, so that a new table is
  // zeroed memory (calloc) instead of a loop filling in kNone.
  struct Slot {
    uint64_t key;
    uint32_t tag;
  };
  struct FreeSlots {
    void operator()(Slot* p) const { std::free(p); }
  };
  size_t home(uint64_t key) const { return static_cast<size_t>((key * 0x9e3779b97f4a7c15ull) >> shift_); }
  void rebuild(size_t capacity);

  std::unique_ptr<Slot[], FreeSlots> slots_;
  size_t capacity_ = 0;
  size_t mask_ = 0;
  unsigned shift_ = 64;
  size_t used_ = 0;
};

}  // namespace phybin::runtime
