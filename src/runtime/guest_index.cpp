#include "runtime/guest_index.h"

#include <bit>

namespace phybin::runtime {

void GuestIndex::rebuild(size_t capacity) {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(capacity, Slot{});
  mask_ = capacity - 1;
  shift_ = 64 - static_cast<unsigned>(std::countr_zero(capacity));
  used_ = 0;
  for (const Slot& s : old)
    if (s.value != kNone) set(s.key, s.value);
}

void GuestIndex::reserve(size_t count) {
  size_t capacity = slots_.empty() ? 1024 : slots_.size();
  while (capacity < 2 * count) capacity *= 2;  // at most half full
  if (capacity != slots_.size()) rebuild(capacity);
}

void GuestIndex::set(uint64_t key, uint32_t value) {
  if (2 * (used_ + 1) > slots_.size()) reserve(used_ + 1);
  for (size_t i = home(key);; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.value == kNone) {
      s = Slot{key, value};
      ++used_;
      return;
    }
    if (s.key == key) {
      s.value = value;
      return;
    }
  }
}

// The hole at `hole` is filled by each later entry of the run that could
// not be found past it (its home lies outside (hole, i], cyclically).
void GuestIndex::erase(uint64_t key, uint32_t value) {
  if (used_ == 0) return;
  size_t hole = home(key);
  for (;; hole = (hole + 1) & mask_) {
    const Slot& s = slots_[hole];
    if (s.value == kNone) return;
    if (s.key == key) break;
  }
  if (slots_[hole].value != value) return;
  for (size_t i = (hole + 1) & mask_; slots_[i].value != kNone; i = (i + 1) & mask_) {
    const size_t h = home(slots_[i].key);
    const bool reachable = hole < i ? (h > hole && h <= i) : (h > hole || h <= i);
    if (!reachable) {
      slots_[hole] = slots_[i];
      hole = i;
    }
  }
  slots_[hole] = Slot{};
  --used_;
}

void GuestIndex::clear() {
  for (Slot& s : slots_) s = Slot{};
  used_ = 0;
}

}  // namespace phybin::runtime
