#include "linux/address_space.h"

#include <iterator>

namespace phybin::sys {

void AddressSpace::split_at(uint64_t address) {
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin()) return;
  --it;
  if (it->first == address || it->second.end <= address) return;
  const Entry tail{it->second.end, it->second.prot};
  it->second.end = address;
  ranges_.emplace_hint(std::next(it), address, tail);
}

void AddressSpace::unmap(uint64_t start, uint64_t length) {
  const Guard guard(lock_);
  const uint64_t begin = page_down(start), end = page_up(start + length);
  if (end <= begin) return;
  split_at(begin);
  split_at(end);
  ranges_.erase(ranges_.lower_bound(begin), ranges_.lower_bound(end));
}

void AddressSpace::map(uint64_t start, uint64_t length, int prot) {
  const Guard guard(lock_);
  const uint64_t begin = page_down(start), end = page_up(start + length);
  if (end <= begin) return;
  unmap(begin, end - begin);
  ranges_.emplace(begin, Entry{end, prot});
}

void AddressSpace::protect(uint64_t start, uint64_t length, int prot) {
  const Guard guard(lock_);
  const uint64_t begin = page_down(start), end = page_up(start + length);
  if (end <= begin) return;
  split_at(begin);
  split_at(end);
  for (auto it = ranges_.lower_bound(begin); it != ranges_.end() && it->first < end; ++it) it->second.prot = prot;
}

void AddressSpace::remap(uint64_t old_start, uint64_t old_length, uint64_t new_start, uint64_t new_length,
                         bool keep_old) {
  const Guard guard(lock_);
  // The pieces (with their protections) of the old range, in order.
  struct Piece {
    uint64_t offset, length;
    int prot;
  };
  Piece pieces[16];
  size_t count = 0;
  const uint64_t old_begin = page_down(old_start), old_end = page_up(old_start + old_length);
  auto it = ranges_.upper_bound(old_begin);
  if (it != ranges_.begin() && std::prev(it)->second.end > old_begin) --it;
  for (; it != ranges_.end() && it->first < old_end && count < std::size(pieces); ++it) {
    const uint64_t b = it->first < old_begin ? old_begin : it->first;
    const uint64_t e = it->second.end > old_end ? old_end : it->second.end;
    pieces[count++] = Piece{b - old_begin, e - b, it->second.prot};
  }
  if (!keep_old) unmap(old_begin, old_end - old_begin);
  // A grown mapping extends its last part (Linux grows one mapping only).
  const uint64_t new_begin = page_down(new_start), new_end = page_up(new_start + new_length);
  map(new_begin, new_end - new_begin, count ? pieces[count - 1].prot : 0);
  const uint64_t new_size = new_end - new_begin;
  for (size_t i = 0; i < count && pieces[i].offset < new_size; ++i) {
    const uint64_t length = pieces[i].length < new_size - pieces[i].offset ? pieces[i].length : new_size - pieces[i].offset;
    protect(new_begin + pieces[i].offset, length, pieces[i].prot);
  }
}

std::optional<AddressSpace::Range> AddressSpace::find(uint64_t address) const {
  const Guard guard(lock_);
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin()) return std::nullopt;
  --it;
  if (address >= it->second.end) return std::nullopt;
  return Range{it->first, it->second.end, it->second.prot};
}

}  // namespace phybin::sys
