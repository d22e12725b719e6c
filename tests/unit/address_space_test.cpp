// The Linux layer's model of the guest address space: mappings replace
// what they overlap, protections split mappings, mremap keeps each part's
// protection.  Expected values worked out by hand.
#include <sys/mman.h>

#include <gtest/gtest.h>

#include "linux/address_space.h"

namespace phybin::sys {
namespace {

constexpr uint64_t kPage = 4096;
constexpr int kRW = PROT_READ | PROT_WRITE, kRX = PROT_READ | PROT_EXEC;

int prot_at(const AddressSpace& s, uint64_t a) {
  auto r = s.find(a);
  return r ? r->prot : -1;
}

TEST(AddressSpace, MapRoundsToPagesAndFinds) {
  AddressSpace s;
  s.map(0x10000, 100, kRX);
  ASSERT_TRUE(s.find(0x10000).has_value());
  EXPECT_EQ(s.find(0x10fff)->end, 0x11000u);
  EXPECT_FALSE(s.find(0x11000).has_value());
  EXPECT_FALSE(s.find(0xffff).has_value());
  EXPECT_EQ(prot_at(s, 0x10010), kRX);
}

TEST(AddressSpace, MapReplacesOverlap) {
  AddressSpace s;
  s.map(0x10000, 4 * kPage, kRW);
  s.map(0x11000, kPage, kRX);
  EXPECT_EQ(s.mapping_count(), 3u);
  EXPECT_EQ(prot_at(s, 0x10000), kRW);
  EXPECT_EQ(prot_at(s, 0x11000), kRX);
  EXPECT_EQ(prot_at(s, 0x12000), kRW);
  EXPECT_EQ(s.find(0x12000)->start, 0x12000u);
  EXPECT_EQ(s.find(0x12000)->end, 0x14000u);
}

TEST(AddressSpace, UnmapPunchesHoles) {
  AddressSpace s;
  s.map(0x10000, 4 * kPage, kRW);
  s.unmap(0x11000, 2 * kPage);
  EXPECT_EQ(prot_at(s, 0x10000), kRW);
  EXPECT_FALSE(s.find(0x11000).has_value());
  EXPECT_FALSE(s.find(0x12fff).has_value());
  EXPECT_EQ(prot_at(s, 0x13000), kRW);
  s.unmap(0, ~uint64_t{0} - kPage);  // everything
  EXPECT_EQ(s.mapping_count(), 0u);
}

TEST(AddressSpace, ProtectChangesOnlyMappedPages) {
  AddressSpace s;
  s.map(0x10000, kPage, kRW);
  s.map(0x12000, kPage, kRW);
  s.protect(0x10000, 3 * kPage, PROT_NONE);
  EXPECT_EQ(prot_at(s, 0x10000), PROT_NONE);
  EXPECT_FALSE(s.find(0x11000).has_value());  // the gap stays a gap
  EXPECT_EQ(prot_at(s, 0x12000), PROT_NONE);
  s.protect(0x12000, 1, kRX);  // a partial page means the whole page
  EXPECT_EQ(prot_at(s, 0x12000), kRX);
}

TEST(AddressSpace, RemapMovesPartsWithTheirProtection) {
  AddressSpace s;
  s.map(0x10000, 2 * kPage, kRW);
  s.protect(0x11000, kPage, kRX);
  s.map(0x40000, kPage, PROT_READ);  // a neighbour the grown mapping must not touch
  s.remap(0x10000, 2 * kPage, 0x30000, 4 * kPage, false);
  EXPECT_FALSE(s.find(0x10000).has_value());
  EXPECT_EQ(prot_at(s, 0x30000), kRW);
  EXPECT_EQ(prot_at(s, 0x31000), kRX);
  EXPECT_EQ(prot_at(s, 0x33fff), kRX);  // grown: the last part's protection
  EXPECT_EQ(prot_at(s, 0x40000), PROT_READ);
  // Shrunk in place, and MREMAP_DONTUNMAP keeping the old range.
  s.remap(0x30000, 4 * kPage, 0x30000, kPage, false);
  EXPECT_FALSE(s.find(0x31000).has_value());
  s.remap(0x30000, kPage, 0x50000, kPage, true);
  EXPECT_EQ(prot_at(s, 0x30000), kRW);
  EXPECT_EQ(prot_at(s, 0x50000), kRW);
}

}  // namespace
}  // namespace phybin::sys
