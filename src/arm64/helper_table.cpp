#include "arm64/helper_table.h"

#include "common/error.h"

namespace phybin::arm64 {

uint32_t HelperTable::slot_of(uint64_t fn) {
  // A few dozen helpers exist: a linear search beats hashing here.
  for (size_t i = 0; i < count_; ++i)
    if (fns_[i] == fn) return static_cast<uint32_t>(i);
  if (count_ == kSlots) throw Error(ErrorCode::PHYBIN_ERR_INTERNAL, "helper table full");
  fns_[count_] = fn;
  return static_cast<uint32_t>(count_++);
}

}  // namespace phybin::arm64
