#include "linux/address_space.h"

#include <sys/mman.h>
#include <sys/sysmacros.h>

#include <cstdio>
#include <iterator>

namespace phybin::sys {

void AddressSpace::split_at(uint64_t address) {
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin()) return;
  --it;
  if (it->first == address || it->second.end <= address) return;
  Entry tail = it->second;
  if (tail.source != 0) tail.offset += address - it->first;
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

uint32_t AddressSpace::intern(const Source& source) {
  if (source.name.empty()) return 0;
  for (uint32_t i = 1; i < sources_.size(); ++i) {
    const Source& s = sources_[i];
    if (s.name == source.name && s.dev == source.dev && s.inode == source.inode && s.size == source.size &&
        s.mtime_ns == source.mtime_ns && s.ctime_ns == source.ctime_ns && s.shared == source.shared)
      return i;
  }
  sources_.push_back(source);
  sources_.back().offset = 0;
  return static_cast<uint32_t>(sources_.size() - 1);
}

void AddressSpace::map(uint64_t start, uint64_t length, int prot, const Source& source) {
  const Guard guard(lock_);
  const uint64_t begin = page_down(start), end = page_up(start + length);
  if (end <= begin) return;
  unmap(begin, end - begin);
  const uint32_t index = intern(source);
  const bool pristine = index != 0 && !source.shared && !(prot & PROT_WRITE);
  ranges_.emplace(begin, Entry{end, prot, index, source.offset, pristine});
}

void AddressSpace::protect(uint64_t start, uint64_t length, int prot) {
  const Guard guard(lock_);
  const uint64_t begin = page_down(start), end = page_up(start + length);
  if (end <= begin) return;
  split_at(begin);
  split_at(end);
  set_protection(begin, end, prot, false);
}

void AddressSpace::set_protection(uint64_t begin, uint64_t end, int prot, bool changed) {
  for (auto it = ranges_.lower_bound(begin); it != ranges_.end() && it->first < end; ++it) {
    it->second.prot = prot;
    if (changed || (prot & PROT_WRITE)) it->second.pristine = false;
  }
}

void AddressSpace::remap(uint64_t old_start, uint64_t old_length, uint64_t new_start, uint64_t new_length,
                         bool keep_old) {
  const Guard guard(lock_);
  // The pieces (with their protections) of the old range, in order.
  struct Piece {
    uint64_t offset, length;
    int prot;
    bool pristine;
  };
  Source first_source;
  Piece pieces[16];
  size_t count = 0;
  const uint64_t old_begin = page_down(old_start), old_end = page_up(old_start + old_length);
  auto it = ranges_.upper_bound(old_begin);
  if (it != ranges_.begin() && std::prev(it)->second.end > old_begin) --it;
  for (; it != ranges_.end() && it->first < old_end && count < std::size(pieces); ++it) {
    const uint64_t b = it->first < old_begin ? old_begin : it->first;
    const uint64_t e = it->second.end > old_end ? old_end : it->second.end;
    if (count == 0 && it->second.source != 0) {
      first_source = sources_[it->second.source];
      first_source.offset = it->second.offset + (b - it->first);
    }
    pieces[count++] = Piece{b - old_begin, e - b, it->second.prot, it->second.pristine};
  }
  if (!keep_old) unmap(old_begin, old_end - old_begin);
  // A grown mapping extends its last part (Linux grows one mapping only).
  const uint64_t new_begin = page_down(new_start), new_end = page_up(new_start + new_length);
  map(new_begin, new_end - new_begin, count ? pieces[count - 1].prot : 0, first_source);
  const uint64_t new_size = new_end - new_begin;
  for (size_t i = 0; i < count && pieces[i].offset < new_size; ++i) {
    const uint64_t length = pieces[i].length < new_size - pieces[i].offset ? pieces[i].length : new_size - pieces[i].offset;
    const uint64_t begin = new_begin + pieces[i].offset;
    split_at(begin);
    split_at(begin + length);
    set_protection(begin, begin + length, pieces[i].prot, !pieces[i].pristine);
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

std::optional<MappedFile> AddressSpace::mapped_file(uint64_t address) const {
  const Guard guard(lock_);
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin()) return std::nullopt;
  --it;
  const Entry& e = it->second;
  if (address >= e.end || e.source == 0 || sources_[e.source].inode == 0) return std::nullopt;
  const Source& s = sources_[e.source];
  return MappedFile{s.dev, s.inode, s.size, s.mtime_ns, s.ctime_ns, it->first - e.offset, e.prot, e.pristine, s.name,
                    it->first, e.end};
}

std::string AddressSpace::maps_text() const {
  const Guard guard(lock_);
  std::string text;
  char line[128];
  for (const auto& [start, e] : ranges_) {
    const Source& src = sources_[e.source];
    // Linux: "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu", the name from
    // column 74.
    int n = std::snprintf(line, sizeof line, "%08lx-%08lx %c%c%c%c %08llx %02x:%02x %lu", static_cast<unsigned long>(start),
                          static_cast<unsigned long>(e.end), e.prot & 1 ? 'r' : '-', e.prot & 2 ? 'w' : '-',
                          e.prot & 4 ? 'x' : '-', src.shared ? 's' : 'p', static_cast<unsigned long long>(e.offset),
                          major(src.dev), minor(src.dev),
                          static_cast<unsigned long>(src.inode));
    text.append(line, static_cast<size_t>(n));
    if (!src.name.empty()) {
      text.append(n < 73 ? static_cast<size_t>(73 - n) : 1, ' ');
      text += src.name;
    }
    text += '\n';
  }
  return text;
}

}  // namespace phybin::sys
