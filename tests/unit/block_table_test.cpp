// The block table's saved blocks: loaded dormant, woken at the address
// their file has in this run, with their pages and entries given as sorted
// runs per file (no per-block registration).  Guest code changes must find them
// through that run exactly as they find translated blocks, and saved links
// into blocks that stay dormant must go back to their way out.
#include "runtime/block_table.h"

#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "arm64/emitter.h"

namespace phybin::runtime {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kFileStart = 0x7f0000000000;

// Four saved blocks of one file, 8 words of code each: blocks 0 and 1 on
// the file's page 0x1000, block 2 on pages 0x2000 and 0x3000, block 3 (left
// dormant) on 0x3000.
struct SavedFixture {
  std::array<uint32_t, 32> code{};
  std::vector<SavedBlock> blocks;
  std::vector<SavedMark> marks;
  std::vector<SavedPage> pages = {{0x1000, 0}, {0x1000, 1}, {0x2000, 2}, {0x3000, 2}, {0x3000, 3}};
  std::vector<SavedEntry> entries = {{0x1000, 0}, {0x1040, 1}, {0x2ff0, 2}, {0x3100, 3}};
  BlockTable table{kPage};
  BlockTable::Index first = 0;

  SavedFixture() {
    for (uint32_t i = 0; i < 4; ++i) {
      const uint32_t guest = i == 2 ? 0x2ff0 : i == 3 ? 0x3100 : 0x1000 + 0x40 * i;
      blocks.push_back(SavedBlock{guest, 8 * i, 0x20, 8, 0, 1, 0, 0, 0, 0});
      marks.push_back(SavedMark{0, 0});
    }
    first = table.add_dormant(blocks, code.data(), marks);
    for (uint32_t i = 0; i < 3; ++i)
      table.wake(first + i, kFileStart + blocks[i].guest_offset, kFileStart + blocks[i].guest_offset + 0x20);
    table.add_saved_file(kFileStart, first, pages, entries);
  }
  uint64_t guest(uint32_t block) const { return kFileStart + blocks[block].guest_offset; }
};

TEST(BlockTable, WokenSavedBlocksAreFoundDormantOnesAreNot) {
  SavedFixture f;
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(f.table.find_guest(f.guest(i)), f.first + i);
  EXPECT_EQ(f.table.find_guest(f.guest(3)), BlockTable::kNone);
  EXPECT_FALSE(f.table.at(f.first + 3).valid);
  EXPECT_EQ(f.table.find_host(f.code.data() + 9), f.first + 1);
}

TEST(BlockTable, CodeChangesFindSavedBlocksByTheirPages) {
  SavedFixture f;
  EXPECT_TRUE(f.table.has_code_in(kFileStart + 0x1000, kFileStart + 0x1001));
  EXPECT_FALSE(f.table.has_code_in(kFileStart, kFileStart + 0x1000));
  EXPECT_FALSE(f.table.has_code_in(kFileStart + 0x4000, kFileStart + 0x9000));
  // Page 0x3000 holds the second page of block 2 and dormant block 3.
  std::vector<uint64_t> dropped;
  auto record = [&](const BlockInfo& info) { dropped.push_back(info.guest_start); };
  EXPECT_EQ(f.table.invalidate(kFileStart + 0x3008, kFileStart + 0x3010, record), 1u);
  EXPECT_EQ(dropped, std::vector<uint64_t>{f.guest(2)});
  EXPECT_EQ(f.table.find_guest(f.guest(2)), BlockTable::kNone);
  EXPECT_FALSE(f.table.has_code_in(kFileStart + 0x2000, kFileStart + 0x4000));
  // Both blocks of page 0x1000 go with a change anywhere in it; again, nothing.
  dropped.clear();
  EXPECT_EQ(f.table.invalidate(kFileStart + 0x1ff8, kFileStart + 0x2000, record), 2u);
  EXPECT_EQ(dropped.size(), 2u);
  EXPECT_EQ(f.table.invalidate(kFileStart, kFileStart + 0x10000, record), 0u);
  EXPECT_FALSE(f.table.has_code_in(kFileStart, kFileStart + 0x10000));
}

TEST(BlockTable, TranslatedAndSavedBlocksOfOnePageGoTogether) {
  SavedFixture f;
  std::array<uint32_t, 4> more{};
  const BlockTable::Index made = f.table.add(kFileStart + 0x1800, kFileStart + 0x1810, more.data(), 4, {});
  f.table.depends_on_page(made, kFileStart + 0x1000);
  size_t count = 0;
  EXPECT_EQ(f.table.invalidate(kFileStart + 0x1000, kFileStart + 0x1001, [&](const BlockInfo&) { ++count; }), 3u);
  EXPECT_EQ(count, 3u);
  EXPECT_EQ(f.table.find_guest(kFileStart + 0x1800), BlockTable::kNone);
}

// Lookups find a saved block by its start only; a block translated where a
// dropped saved one was is found instead of it.
TEST(BlockTable, TranslatedBlockTakesADroppedSavedOnesPlace) {
  SavedFixture f;
  EXPECT_EQ(f.table.find_guest(f.guest(0) + 4), BlockTable::kNone);
  EXPECT_EQ(f.table.find_guest(kFileStart - 0x1000), BlockTable::kNone);
  f.table.invalidate(f.guest(1), f.guest(1) + 1, [](const BlockInfo&) {});
  EXPECT_EQ(f.table.find_guest(f.guest(1)), BlockTable::kNone);
  std::array<uint32_t, 4> more{};
  const BlockTable::Index made = f.table.add(f.guest(1), f.guest(1) + 0x20, more.data(), 4, {});
  EXPECT_EQ(f.table.find_guest(f.guest(1)), made);
  EXPECT_EQ(f.table.find_guest(f.guest(2)), f.first + 2);
}

// Many blocks over a file's range, some starting together (one of them
// dropped): every start finds its valid block, nothing else finds any.
TEST(BlockTable, SavedRunFindsEveryStart) {
  constexpr uint32_t kBlocks = 400;
  std::vector<uint32_t> code(kBlocks * 2);
  std::vector<SavedBlock> blocks;
  std::vector<SavedMark> marks(kBlocks, SavedMark{0, 0});
  uint32_t guest = 0x40;
  for (uint32_t i = 0; i < kBlocks; ++i) {
    if (i % 7 != 3) guest += 1 + (i * 2654435761u >> 20) % 3000;  // gaps below and above a bucket
    blocks.push_back(SavedBlock{guest, 2 * i, 1, 2, 0, 1, 0, 0, 0, 0});
  }
  BlockTable table{kPage};
  const BlockTable::Index first = table.add_dormant(blocks, code.data(), marks);
  std::vector<SavedEntry> entries;
  for (uint32_t i = 0; i < kBlocks; ++i) {
    if (i % 7 != 3) table.wake(first + i, kFileStart + blocks[i].guest_offset, kFileStart + blocks[i].guest_offset + 1);
    entries.push_back(SavedEntry{blocks[i].guest_offset, i});
  }
  table.add_saved_file(kFileStart, first, {}, entries);
  for (uint32_t i = 0; i < kBlocks; ++i) {
    const uint64_t start = kFileStart + blocks[i].guest_offset;
    const BlockTable::Index want = i % 7 == 3 ? first + i - 1 : first + i;  // shares the previous one's start
    EXPECT_EQ(table.find_guest(start), want) << i;
    if (i + 1 < kBlocks && blocks[i + 1].guest_offset > blocks[i].guest_offset + 1) {
      EXPECT_EQ(table.find_guest(start + 1), BlockTable::kNone) << i;
    }
  }
  EXPECT_EQ(table.find_guest(kFileStart + blocks.back().guest_offset + 1), BlockTable::kNone);
  EXPECT_EQ(table.find_guest(kFileStart), BlockTable::kNone);
}

// Block 0's word 2 is a saved link to block 1, word 3 one to dormant block
// 3; both branch past their block when unlinked (word 6).
TEST(BlockTable, SavedLinksIntoDormantBlocksAreUndone) {
  SavedFixture f;
  using arm64::Assembler;
  Assembler::patch_branch(&f.code[2], &f.code[8]);
  Assembler::patch_branch(&f.code[3], &f.code[24]);
  const std::vector<SavedLink> links = {{2, 6, 0, 1}, {3, 6, 0, 3}};
  f.table.add_saved_links(links, f.first, f.code.data(), false);
  ASSERT_EQ(f.table.links().size(), 1u);
  EXPECT_EQ(f.table.links()[0].site, &f.code[2]);
  EXPECT_EQ(f.table.links()[0].target, f.first + 1);
  EXPECT_EQ(Assembler::branch_target(&f.code[2]), &f.code[8]);
  EXPECT_EQ(Assembler::branch_target(&f.code[3]), &f.code[6]);
  // Dropping block 1 puts block 0's exit back to its way out.
  f.table.invalidate(kFileStart + 0x1000, kFileStart + 0x1001, [](const BlockInfo&) {});
  EXPECT_TRUE(f.table.links().empty());
  EXPECT_EQ(Assembler::branch_target(&f.code[2]), &f.code[6]);
}

// When every block of the file woke, the links enter as they are, and an
// unlink still finds them.
TEST(BlockTable, SavedLinksOfAFullyWokenFileAllHold) {
  SavedFixture f;
  using arm64::Assembler;
  Assembler::patch_branch(&f.code[2], &f.code[8]);
  Assembler::patch_branch(&f.code[10], &f.code[16]);
  const std::vector<SavedLink> links = {{2, 6, 0, 1}, {10, 14, 1, 2}};
  f.table.add_saved_links(links, f.first, f.code.data(), true);
  ASSERT_EQ(f.table.links().size(), 2u);
  EXPECT_EQ(f.table.links()[1].site, &f.code[10]);
  EXPECT_EQ(f.table.links()[1].unlinked, &f.code[14]);
  EXPECT_EQ(f.table.links()[1].target, f.first + 2);
  f.table.unlink_exits_of(f.first + 1);
  ASSERT_EQ(f.table.links().size(), 1u);
  EXPECT_EQ(Assembler::branch_target(&f.code[10]), &f.code[14]);
  EXPECT_EQ(Assembler::branch_target(&f.code[2]), &f.code[8]);
}

}  // namespace
}  // namespace phybin::runtime
