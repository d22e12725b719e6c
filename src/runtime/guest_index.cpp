#include "runtime/guest_index.h"

#include <bit>
#include <new>

namespace phybin::runtime {

void GuestIndex::rebuild(size_t capacity) {
  std::unique_ptr<Slot[], FreeSlots> old(static_cast<Slot*>(std::calloc(capacity, sizeof(Slot))));
  if (!old) throw std::bad_alloc();
  old.swap(slots_);
  const size_t old_capacity = capacity_;
  capacity_ = capacity;
  mask_ = capacity - 1;
  shift_ = 64 - static_cast<unsigned>(std::countr_zero(capacity));
  used_ = 0;
  for (size_t i = 0; i < old_capacity; ++i)
    if (old[i].tag != 0) set(old[i].key, old[i].tag - 1);
}

void GuestIndex::reserve(size_t count) {
  size_t capacity = capacity_ ? capacity_ : 1024;
  while (capacity < 2 * count) capacity *= 2;  // at most half full
  if (capacity != capacity_) rebuild(capacity);
}

void GuestIndex::set(uint64_t key, uint32_t value) {
  if (2 * (used_ + 1) > capacity_) reserve(used_ + 1);
  for (size_t i = home(key);; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.tag == 0) {
      s = Slot{key, value + 1};
      ++used_;
      return;
    }
    if (s.key == key) {
      s.tag = value + 1;
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
    if (s.tag == 0) return;
    if (s.key == key) break;
  }
  if (slots_[hole].tag != value + 1) return;
  for (size_t i = (hole + 1) & mask_; slots_[i].tag != 0; i = (i + 1) & mask_) {
    const size_t h = home(slots_[i].key);
    const bool reachable = hole < i ? (h > hole && h <= i) : (h > hole || h <= i);
    if (!reachable) {
      slots_[hole] = slots_[i];
      hole = i;
    }
  }
  slots_[hole] = Slot{0, 0};
  --used_;
}

void GuestIndex::clear() {
  for (size_t i = 0; i < capacity_; ++i) slots_[i] = Slot{0, 0};
  used_ = 0;
}

}  // namespace phybin::runtime
