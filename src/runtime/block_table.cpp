#include "runtime/block_table.h"

#include <algorithm>

#include "runtime/code_cache.h"

namespace phybin::runtime {

BlockTable::BlockTable(uint64_t page_size) : page_size_(page_size) {
  // Room for a typical program's blocks: no copying while translating.
  blocks_.reserve(16384);
  marks_.reserve(1 << 17);
  pages_.reserve(1 << 15);
  links_.reserve(16384);
}

BlockTable::Index BlockTable::add(uint64_t guest_start, uint64_t guest_end, const uint32_t* host, uint32_t words,
                                  const std::vector<arm64::InsnMark>& marks) {
  const size_t marks_begin = marks_.size();
  for (const arm64::InsnMark& m : marks) {
    // Blocks are at most 64 instructions: both offsets fit.  Should one
    // not, later instructions map to the last mark that fit.
    if (m.host_offset > 0xffff || m.guest - guest_start > 0xffff) break;
    marks_.push_back(PackedMark{static_cast<uint16_t>(m.host_offset), static_cast<uint16_t>(m.guest - guest_start)});
  }
  const Index index = push_block(guest_start, guest_end, host, words, marks_begin);
  by_guest_.set(guest_start, index);
  return index;
}

uint32_t BlockTable::append_marks(const PackedMark* marks, size_t count) {
  const auto begin = static_cast<uint32_t>(marks_.size());
  marks_.insert(marks_.end(), marks, marks + count);
  return begin;
}

BlockTable::Index BlockTable::add_dormant(const uint32_t* host, uint32_t words, uint32_t marks_begin,
                                          uint32_t marks_count) {
  const Index index = push_block(0, 0, host, words, marks_begin);
  blocks_[index].marks_count = marks_count;
  blocks_[index].valid = false;
  return index;
}

void BlockTable::wake(Index block, uint64_t guest_start, uint64_t guest_end) {
  BlockInfo& info = blocks_[block];
  info.guest_start = guest_start;
  info.guest_end = guest_end;
  info.pages_begin = static_cast<uint32_t>(pages_.size());
  info.pages_count = 0;
  info.valid = true;
  by_guest_.set(guest_start, block);
}

// The block whose marks were just appended from `marks_begin` on.
BlockTable::Index BlockTable::push_block(uint64_t guest_start, uint64_t guest_end, const uint32_t* host,
                                         uint32_t words, size_t marks_begin) {
  BlockInfo info;
  info.guest_start = guest_start;
  info.guest_end = guest_end;
  info.host = host;
  info.host_words = words;
  info.marks_begin = static_cast<uint32_t>(marks_begin);
  info.marks_count = static_cast<uint32_t>(marks_.size() - marks_begin);
  info.pages_begin = static_cast<uint32_t>(pages_.size());
  const auto index = static_cast<Index>(blocks_.size());
  blocks_.push_back(info);
  return index;
}

void BlockTable::depends_on_page(Index block, uint64_t page) {
  pages_.push_back(page);
  ++blocks_[block].pages_count;
  if (page != last_page_ || !last_page_blocks_) {
    last_page_blocks_ = &by_page_[page];
    last_page_ = page;
  }
  last_page_blocks_->push_back(block);
}

BlockTable::Index BlockTable::find_guest(uint64_t pc) const {
  return by_guest_.find(pc);
}

BlockTable::Index BlockTable::find_host(const void* pc) const {
  const auto* p = static_cast<const uint32_t*>(pc);
  // The last block starting at or before pc.
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), p,
                             [](const uint32_t* x, const BlockInfo& b) { return x < b.host; });
  if (it == blocks_.begin()) return kNone;
  --it;
  if (p >= it->host + it->host_words) return kNone;
  return static_cast<Index>(it - blocks_.begin());
}

uint64_t BlockTable::guest_pc_at(Index block, const void* pc) const {
  const BlockInfo& info = blocks_[block];
  const auto offset = static_cast<uint64_t>(static_cast<const uint32_t*>(pc) - info.host);
  uint64_t guest = info.guest_start;
  // The last instruction whose code starts at or before pc.
  for (uint32_t i = 0; i < info.marks_count; ++i) {
    const PackedMark& m = marks_[info.marks_begin + i];
    if (m.host_words > offset) break;
    guest = info.guest_start + m.guest_bytes;
  }
  return guest;
}

void BlockTable::add_link(uint32_t* site, uint32_t* unlinked, Index target) {
  links_.push_back(Link{site, unlinked, target});
}

void BlockTable::unlink_at(size_t link) {
  uint32_t* site = links_[link].site;
  if (arm64::Assembler::patch_branch(site, links_[link].unlinked)) CodeCache::sync_icache(site, site + 1);
  links_[link] = links_.back();
  links_.pop_back();
}

void BlockTable::unlink_all() {
  while (!links_.empty()) unlink_at(links_.size() - 1);
}

void BlockTable::unlink_exits_of(Index block) {
  const BlockInfo& info = blocks_[block];
  for (size_t i = links_.size(); i-- > 0;)
    if (links_[i].site >= info.host && links_[i].site < info.host + info.host_words) unlink_at(i);
}

void BlockTable::unlink_exits_of_blocks_at(uint64_t pc) {
  auto it = by_page_.find(page_of(pc));
  if (it == by_page_.end()) return;
  for (Index b : it->second) {
    const BlockInfo& info = blocks_[b];
    if (info.valid && pc >= info.guest_start && pc < info.guest_end) unlink_exits_of(b);
  }
}

void BlockTable::unlink_dropped() {
  for (size_t i = links_.size(); i-- > 0;)
    if (!blocks_[links_[i].target].valid) unlink_at(i);
}

bool BlockTable::has_code_in(uint64_t begin, uint64_t end) const {
  auto it = by_page_.lower_bound(page_of(begin));
  return it != by_page_.end() && it->first < end;
}

void BlockTable::clear() {
  last_page_blocks_ = nullptr;
  last_page_ = 1;
  blocks_.clear();
  marks_.clear();
  pages_.clear();
  by_guest_.clear();
  by_page_.clear();
  links_.clear();
}

}  // namespace phybin::runtime
