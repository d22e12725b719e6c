// What the runtime knows about each translated block: its guest range, its
// host code, where each guest instruction's code starts (so a fault can be
// traced back to the instruction), the guest pages it was made from (so a
// change to them drops it), and the exits of other blocks linked straight
// to it (so dropping it can unlink them).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "arm64/backend.h"
#include "runtime/guest_index.h"
#include "runtime/translation_file.h"

namespace phybin::runtime {

struct BlockInfo {
  uint64_t guest_start = 0;
  uint64_t guest_end = 0;  // address after the last instruction
  const uint32_t* host = nullptr;
  uint32_t host_words = 0;
  // Where the indirect-branch table enters it, in words from host (blocks
  // that read flags apply a lazy record there first).
  uint32_t indirect_words = 0;
  uint32_t marks_begin = 0;  // in BlockTable's mark array
  uint32_t marks_count = 0;
  uint32_t pages_begin = 0;  // in BlockTable's page array
  uint32_t pages_count = 0;
  arm64::AddressPool pool;  // the guest addresses its code uses
  bool valid = true;  // false once its guest code changed

  const uint32_t* indirect_entry() const { return host + indirect_words; }
  uint64_t lookup_key() const { return arm64::lookup_key(guest_start, indirect_words != 0); }
};

class BlockTable {
 public:
  using Index = uint32_t;
  static constexpr Index kNone = ~Index{0};
  // Offsets from the block's host start and guest start; saved as they are.
  // The guest offset's top bits hold the mark's replay count and, above
  // it, its restores_fpsr (InsnMark).
  using PackedMark = SavedMark;
  static constexpr unsigned kMarkReplayShift = 10;
  static constexpr unsigned kMarkOffsetMask = (1u << kMarkReplayShift) - 1;
  static constexpr unsigned kMarkRestoresFpsr = 1u << 15;
  static constexpr unsigned kMaxMarkReplay = (kMarkRestoresFpsr - 1) >> kMarkReplayShift;
  struct Link {
    uint32_t* site;
    uint32_t* unlinked;  // where the branch at site went before linking
    Index target;
  };

  explicit BlockTable(uint64_t page_size);

  // Records a block just emitted into the code cache: blocks arrive in
  // increasing host address order until clear().  The caller then names
  // the guest pages the translation was made from (depends_on_page).
  Index add(uint64_t guest_start, uint64_t guest_end, const uint32_t* host, uint32_t words,
            const std::vector<arm64::InsnMark>& marks);
  // Saved blocks put back into the code cache (at cache_begin + offset)
  // but not in use yet: known by their host code only (so blocks stay in
  // host order) until wake() gives each the guest range it has in this
  // run; invalid until then.  `marks` are all theirs, in block order.
  // Returns the index of the first.
  Index add_dormant(std::span<const SavedBlock> saved, const uint32_t* cache_begin,
                    std::span<const PackedMark> marks);
  // The dormant `block` now translates guest [start, end).  Its file's
  // runs of pages and entries come for all its woken blocks at once
  // (add_saved_file).
  void wake(Index block, uint64_t guest_start, uint64_t guest_end) {
    BlockInfo& info = blocks_[block];
    info.guest_start = guest_start;
    info.guest_end = guest_end;
    info.valid = true;
  }
  // A woken file's sorted runs of the image: the pages its blocks were made
  // from (for invalidation) and its blocks by guest offset (for
  // find_guest), offsets counted from `file_start`, blocks from `first`.
  void add_saved_file(uint64_t file_start, Index first, std::span<const SavedPage> pages,
                      std::span<const SavedEntry> entries);
  // Saved links of woken blocks (image indices counted from `first`,
  // code offsets from `cache_begin`), linked in the code already: those
  // from a woken block into one that stays dormant are undone.  With
  // `all_woken` every block of their file woke: all of them hold.
  void add_saved_links(std::span<const SavedLink> links, Index first, uint32_t* cache_begin, bool all_woken);
  // The block's translation depends on the guest bytes of `page`.  The
  // pages of a block are given right after add(), before the next block.
  void depends_on_page(Index block, uint64_t page);
  void set_indirect_entry(Index block, uint32_t words) { blocks_[block].indirect_words = words; }
  void set_address_pool(Index block, arm64::AddressPool pool) { blocks_[block].pool = pool; }

  Index find_guest(uint64_t pc) const;
  const BlockInfo& at(Index block) const { return blocks_[block]; }
  const PackedMark* marks_of(Index block) const { return marks_.data() + blocks_[block].marks_begin; }
  const uint64_t* pages_of(Index block) const { return pages_.data() + blocks_[block].pages_begin; }
  const std::vector<Link>& links() const { return links_; }

  // The block whose code holds host address `pc` (kNone outside blocks).
  // Safe in a signal handler while the table is not being changed.
  Index find_host(const void* pc) const;
  // The guest instruction whose code holds `pc`, inside `block`; with
  // `replay`, its count of instructions to run again (InsnMark::replay).
  uint64_t guest_pc_at(Index block, const void* pc, unsigned* replay = nullptr, bool* restores_fpsr = nullptr) const;

  // Block linking: `site` (an exit's branch) now jumps to `target`; it
  // went to `unlinked` before and goes there again when unlinked.
  void add_link(uint32_t* site, uint32_t* unlinked, Index target);
  // Puts linked exits back to their way out to the dispatcher: all of them,
  // those inside one block's code, those of the valid blocks whose guest
  // range holds `pc`.  No allocation: usable from a signal handler.
  void unlink_all();
  void unlink_exits_of(Index block);
  void unlink_exits_of_blocks_at(uint64_t pc);

  // Drops the blocks made from guest bytes in [begin, end) and unlinks the
  // exits into them; calls on_drop(block info) for each.  Returns how many.
  template <typename Fn>
  size_t invalidate(uint64_t begin, uint64_t end, Fn&& on_drop);
  // True when some block depends on guest bytes in [begin, end).
  bool has_code_in(uint64_t begin, uint64_t end) const;

  // The code cache was flushed: forget everything.
  void clear();
  size_t size() const { return blocks_.size(); }

 private:
  Index push_block(uint64_t guest_start, uint64_t guest_end, const uint32_t* host, uint32_t words,
                   size_t marks_begin);
  uint64_t page_of(uint64_t address) const { return address & ~(page_size_ - 1); }
  void unlink_at(size_t link);  // restores links_[link] and removes it
  void unlink_dropped();
  // A woken file's pages and entries (add_saved_file).
  struct SavedRun {
    uint64_t file_start;
    Index first;
    std::vector<SavedPage> pages;
    std::vector<SavedEntry> entries;
    // Per kBucketBytes of guest offsets from the first entry's bucket on:
    // the first entry at or after the bucket's start (find searches only
    // from there to the next bucket's).
    std::vector<uint32_t> buckets;
    static constexpr unsigned kBucketShift = 10;
    void index_buckets();
    // Its entries for the pages in [begin, end).
    std::span<const SavedPage> within(uint64_t begin, uint64_t end) const;
    // Its valid block starting at pc, or kNone.
    Index find(uint64_t pc, const std::vector<BlockInfo>& blocks) const;
  };
  // Calls fn(block index) for each block of a saved run made from a page
  // in [begin, end); valid or not.
  template <typename Fn>
  void for_saved_blocks_in(uint64_t begin, uint64_t end, Fn&& fn) const {
    for (const SavedRun& run : saved_runs_)
      for (const SavedPage& p : run.within(page_of(begin), end)) fn(run.first + p.block);
  }

  uint64_t page_size_;
  std::vector<BlockInfo> blocks_;
  std::vector<PackedMark> marks_;
  std::vector<uint64_t> pages_;
  GuestIndex by_guest_;
  // Guest page -> blocks made from it: those translated in this run, and
  // those woken from saved translations, a sorted run per file.
  std::map<uint64_t, std::vector<Index>> by_page_;
  std::vector<SavedRun> saved_runs_;
  // Consecutive blocks mostly come from the same page: its list, cached.
  uint64_t last_page_ = 1;
  std::vector<Index>* last_page_blocks_ = nullptr;
  std::vector<Link> links_;
};

template <typename Fn>
size_t BlockTable::invalidate(uint64_t begin, uint64_t end, Fn&& on_drop) {
  if (end <= begin) return 0;
  size_t dropped = 0;
  auto drop = [&](Index b) {
    BlockInfo& info = blocks_[b];
    if (!info.valid) return;
    info.valid = false;
    by_guest_.erase(info.guest_start, b);
    on_drop(info);
    ++dropped;
  };
  auto first = by_page_.lower_bound(page_of(begin));
  auto last = first;
  for (; last != by_page_.end() && last->first < end; ++last)
    for (Index b : last->second) drop(b);
  by_page_.erase(first, last);
  last_page_blocks_ = nullptr;
  last_page_ = 1;
  // Saved runs keep their entries: the blocks are invalid from now on.
  for_saved_blocks_in(begin, end, drop);
  if (dropped) unlink_dropped();
  return dropped;
}

}  // namespace phybin::runtime
