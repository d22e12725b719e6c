// The C++ functions translated code calls (helpers, the signal raiser),
// numbered in the order the backend first needs them.  Translated code
// loads a helper's address from GuestState::helper_table[slot] instead of
// holding it: phybin is position independent, so the addresses change from
// run to run while the slot numbers, and the code using them, do not.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace phybin::arm64 {

class HelperTable {
 public:
  // Enough for every helper phybin has, several times over; an ldr with a
  // scaled 12-bit offset reaches 4096 slots.
  static constexpr size_t kSlots = 512;

  // The slot holding `fn`, given the next free one on first use.  Throws
  // Error(PHYBIN_ERR_INTERNAL) when the table is full.
  uint32_t slot_of(uint64_t fn);

  const uint64_t* entries() const { return fns_.data(); }
  size_t size() const { return count_; }
  uint64_t at(size_t slot) const { return fns_[slot]; }

 private:
  std::array<uint64_t, kSlots> fns_{};
  size_t count_ = 0;
};

}  // namespace phybin::arm64
