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
    if (m.host_offset > 0xffff || m.guest - guest_start > kMarkOffsetMask || m.replay > kMaxMarkReplay) break;
    const auto bytes = static_cast<uint16_t>((m.guest - guest_start) | (unsigned{m.replay} << kMarkReplayShift) |
                                             (m.restores_fpsr ? kMarkRestoresFpsr : 0));
    marks_.push_back(PackedMark{static_cast<uint16_t>(m.host_offset), bytes});
  }
  const Index index = push_block(guest_start, guest_end, host, words, marks_begin);
  by_guest_.set(guest_start, index);
  return index;
}

BlockTable::Index BlockTable::add_dormant(std::span<const SavedBlock> saved, const uint32_t* cache_begin,
                                          std::span<const PackedMark> marks) {
  const auto first = static_cast<Index>(blocks_.size());
  auto mark = static_cast<uint32_t>(marks_.size());
  marks_.insert(marks_.end(), marks.begin(), marks.end());
  // Headroom for the blocks translated later: growing would copy all.
  blocks_.reserve(blocks_.size() + saved.size() + std::max<size_t>(4096, saved.size() / 4));
  blocks_.resize(blocks_.size() + saved.size());
  BlockInfo* info = blocks_.data() + first;
  const auto pages = static_cast<uint32_t>(pages_.size());
  for (const SavedBlock& b : saved) {
    info->host = cache_begin + b.offset;
    info->host_words = b.words;
    info->indirect_words = b.indirect_words;
    info->marks_begin = mark;
    info->marks_count = b.marks_count;
    info->pages_begin = pages;
    info->pool = arm64::AddressPool{b.pool_words, b.pool_count};
    info->valid = false;
    mark += b.marks_count;
    ++info;
  }
  return first;
}

void BlockTable::add_saved_file(uint64_t file_start, Index first, std::span<const SavedPage> pages,
                                std::span<const SavedEntry> entries) {
  saved_runs_.push_back(SavedRun{file_start, first, {pages.begin(), pages.end()}, {entries.begin(), entries.end()}, {}});
  saved_runs_.back().index_buckets();
}

void BlockTable::SavedRun::index_buckets() {
  if (entries.empty()) return;
  const uint32_t base = entries.front().guest_offset >> kBucketShift;
  buckets.resize((entries.back().guest_offset >> kBucketShift) - base + 2);
  uint32_t bucket = 0;
  for (uint32_t i = 0; i < entries.size(); ++i)
    for (const uint32_t mine = (entries[i].guest_offset >> kBucketShift) - base; bucket <= mine;) buckets[bucket++] = i;
  while (bucket < buckets.size()) buckets[bucket++] = static_cast<uint32_t>(entries.size());
}

// Several blocks may start at one offset (one dropped, say): the first
// valid one.  Dormant ones (not the file's code here) are invalid.
BlockTable::Index BlockTable::SavedRun::find(uint64_t pc, const std::vector<BlockInfo>& blocks) const {
  if (pc < file_start || entries.empty() || pc - file_start > entries.back().guest_offset) return kNone;
  const auto offset = static_cast<uint32_t>(pc - file_start);
  if (offset < entries.front().guest_offset) return kNone;
  const uint32_t bucket = (offset >> kBucketShift) - (entries.front().guest_offset >> kBucketShift);
  const auto from = entries.begin() + buckets[bucket], to = entries.begin() + buckets[bucket + 1];
  auto it = std::lower_bound(from, to, offset, [](const SavedEntry& e, uint32_t x) { return e.guest_offset < x; });
  for (; it != to && it->guest_offset == offset; ++it)  // equal offsets share a bucket
    if (blocks[first + it->block].valid) return first + it->block;
  return kNone;
}

std::span<const SavedPage> BlockTable::SavedRun::within(uint64_t begin, uint64_t end) const {
  if (end <= file_start || pages.empty()) return {};
  const uint64_t lo = begin > file_start ? begin - file_start : 0, hi = end - file_start;
  auto by_page = [](const SavedPage& p, uint64_t page) { return p.page < page; };
  auto from = std::lower_bound(pages.begin(), pages.end(), lo, by_page);
  auto to = std::lower_bound(from, pages.end(), hi, by_page);
  return {from, to};
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

// Blocks translated in this run are indexed; woken saved blocks are
// searched in their file's run (waking tens of thousands costs no index
// entries, and lookups only come from the dispatcher's misses).
BlockTable::Index BlockTable::find_guest(uint64_t pc) const {
  const Index b = by_guest_.find(pc);
  if (b != kNone) return b;
  for (const SavedRun& run : saved_runs_)
    if (const Index s = run.find(pc, blocks_); s != kNone) return s;
  return kNone;
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

uint64_t BlockTable::guest_pc_at(Index block, const void* pc, unsigned* replay, bool* restores_fpsr) const {
  const BlockInfo& info = blocks_[block];
  const auto offset = static_cast<uint64_t>(static_cast<const uint32_t*>(pc) - info.host);
  uint64_t guest = info.guest_start;
  unsigned bits = 0;
  // The last instruction whose code starts at or before pc.
  for (uint32_t i = 0; i < info.marks_count; ++i) {
    const PackedMark& m = marks_[info.marks_begin + i];
    if (m.host_words > offset) break;
    guest = info.guest_start + (m.guest_bytes & kMarkOffsetMask);
    bits = m.guest_bytes;
  }
  if (replay) *replay = (bits & ~kMarkRestoresFpsr) >> kMarkReplayShift;
  if (restores_fpsr) *restores_fpsr = bits & kMarkRestoresFpsr;
  return guest;
}

void BlockTable::add_link(uint32_t* site, uint32_t* unlinked, Index target) {
  links_.push_back(Link{site, unlinked, target});
}

void BlockTable::add_saved_links(std::span<const SavedLink> links, Index first, uint32_t* cache_begin,
                                 bool all_woken) {
  if (all_woken) {  // the usual case: every link holds, no block to look at
    const size_t at = links_.size();
    links_.resize(at + links.size());
    Link* out = links_.data() + at;
    for (const SavedLink& l : links) *out++ = Link{cache_begin + l.site, cache_begin + l.unlinked, first + l.target};
    return;
  }
  links_.reserve(links_.size() + links.size());
  for (const SavedLink& l : links) {
    if (!blocks_[first + l.source].valid) continue;
    uint32_t* site = cache_begin + l.site;
    if (blocks_[first + l.target].valid) {
      links_.push_back(Link{site, cache_begin + l.unlinked, first + l.target});
    } else if (arm64::Assembler::patch_branch(site, cache_begin + l.unlinked)) {
      CodeCache::sync_icache(site, site + 1);
    }
  }
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
  auto unlink_if_at = [&](Index b) {
    const BlockInfo& info = blocks_[b];
    if (info.valid && pc >= info.guest_start && pc < info.guest_end) unlink_exits_of(b);
  };
  if (auto it = by_page_.find(page_of(pc)); it != by_page_.end())
    for (Index b : it->second) unlink_if_at(b);
  for_saved_blocks_in(page_of(pc), page_of(pc) + 1, unlink_if_at);
}

void BlockTable::unlink_dropped() {
  for (size_t i = links_.size(); i-- > 0;)
    if (!blocks_[links_[i].target].valid) unlink_at(i);
}

bool BlockTable::has_code_in(uint64_t begin, uint64_t end) const {
  auto it = by_page_.lower_bound(page_of(begin));
  if (it != by_page_.end() && it->first < end) return true;
  bool any = false;
  for_saved_blocks_in(begin, end, [&](Index b) { any = any || blocks_[b].valid; });
  return any;
}

void BlockTable::clear() {
  last_page_blocks_ = nullptr;
  last_page_ = 1;
  blocks_.clear();
  marks_.clear();
  pages_.clear();
  by_guest_.clear();
  by_page_.clear();
  saved_runs_.clear();
  links_.clear();
}

}  // namespace phybin::runtime
