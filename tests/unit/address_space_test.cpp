// The Linux layer's model of the guest address space: mappings replace
// what they overlap, protections split mappings, mremap keeps each part's
// protection.  Expected values worked out by hand.
#include <sys/mman.h>
#include <sys/sysmacros.h>

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

// /proc/self/maps' lines, worked out by hand from Linux's format: a file's
// offset follows a split, the name starts at column 74.
TEST(AddressSpace, MapsTextAsLinuxWritesIt) {
  AddressSpace space;
  space.set_page_size(4096);
  MappingSource file;
  file.name = "/usr/lib/x86_64-linux-gnu/libc.so.6";
  file.offset = 0x28000;
  file.dev = makedev(8, 1);
  file.inode = 1234;
  space.map(0x7f0000000000, 0x3000, PROT_READ | PROT_EXEC, file);
  space.protect(0x7f0000001000, 0x1000, PROT_READ);
  MappingSource stack;
  stack.name = "[stack]";
  space.map(0x7ffff000, 0x1000, PROT_READ | PROT_WRITE, stack);
  space.map(0x10000, 0x1000, PROT_NONE);
  EXPECT_EQ(space.maps_text(),
            "00010000-00011000 ---p 00000000 00:00 0\n"
            "7ffff000-80000000 rw-p 00000000 00:00 0                                  [stack]\n"
            "7f0000000000-7f0000001000 r-xp 00028000 08:01 1234                       "
            "/usr/lib/x86_64-linux-gnu/libc.so.6\n"
            "7f0000001000-7f0000002000 r--p 00029000 08:01 1234                       "
            "/usr/lib/x86_64-linux-gnu/libc.so.6\n"
            "7f0000002000-7f0000003000 r-xp 0002a000 08:01 1234                       "
            "/usr/lib/x86_64-linux-gnu/libc.so.6\n");
}

// What saved translations are matched against: which file is mapped where
// (its offset 0 at start - offset, through splits and mremap), and whether
// the guest's bytes there are still the file's: a private mapping never
// writable.  Writable once stays changed, even when read-only again.
TEST(AddressSpace, MappedFileNamesTheFileAndWhetherItIsUnchanged) {
  AddressSpace space;
  MappingSource lib;
  lib.name = "/usr/lib/x86_64-linux-gnu/libm.so.6";
  lib.offset = 0x1000;
  lib.dev = makedev(8, 1);
  lib.inode = 777;
  lib.size = 0x30000;
  lib.mtime_ns = 123456789;
  space.map(0x7f0000001000, 3 * kPage, kRX, lib);
  auto m = space.mapped_file(0x7f0000002abc);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->file_start, 0x7f0000000000u);
  EXPECT_EQ(m->inode, 777u);
  EXPECT_EQ(m->size, 0x30000u);
  EXPECT_EQ(m->mtime_ns, 123456789u);
  EXPECT_EQ(m->name, lib.name);
  EXPECT_TRUE(m->pristine);
  EXPECT_EQ(m->prot, kRX);

  // Text relocation: writable, written, read-only again: changed for good;
  // the pages beside it are not.
  space.protect(0x7f0000002000, kPage, kRW);
  space.protect(0x7f0000002000, kPage, kRX);
  EXPECT_FALSE(space.mapped_file(0x7f0000002000)->pristine);
  EXPECT_TRUE(space.mapped_file(0x7f0000001000)->pristine);
  EXPECT_TRUE(space.mapped_file(0x7f0000003000)->pristine);
  EXPECT_EQ(space.mapped_file(0x7f0000003000)->file_start, 0x7f0000000000u);  // after the split

  // mremap moves each part with what it is; the file starts elsewhere.
  space.remap(0x7f0000001000, 3 * kPage, 0x7e0000001000, 3 * kPage, false);
  EXPECT_TRUE(space.mapped_file(0x7e0000001000)->pristine);
  EXPECT_FALSE(space.mapped_file(0x7e0000002000)->pristine);
  EXPECT_TRUE(space.mapped_file(0x7e0000003000)->pristine);
  EXPECT_EQ(space.mapped_file(0x7e0000003000)->file_start, 0x7e0000000000u);
  EXPECT_FALSE(space.mapped_file(0x7f0000001000).has_value());

  // Mapped anew: the file's bytes again.
  space.map(0x7e0000002000, kPage, kRX, MappingSource{lib.name, 0x2000, lib.dev, lib.inode, lib.size, lib.mtime_ns});
  EXPECT_TRUE(space.mapped_file(0x7e0000002000)->pristine);

  // Writable from the start, shared, anonymous.
  space.map(0x10000, kPage, kRW, lib);
  EXPECT_FALSE(space.mapped_file(0x10000)->pristine);
  MappingSource shared = lib;
  shared.shared = true;
  space.map(0x20000, kPage, kRX, shared);
  EXPECT_FALSE(space.mapped_file(0x20000)->pristine);
  space.map(0x30000, kPage, kRX);
  EXPECT_FALSE(space.mapped_file(0x30000).has_value());
  EXPECT_FALSE(space.mapped_file(0x40000).has_value());
}

}  // namespace
}  // namespace phybin::sys
