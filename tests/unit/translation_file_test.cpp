// The persistent translation cache's file format: what is written is read
// back unchanged; anything damaged, cut short or made for another key is
// refused with a reason instead of being loaded into a code cache; an
// inconsistent image is never written.
#include "runtime/translation_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>

namespace phybin::runtime {
namespace {

// The file's bytes of an image that must be consistent.
std::vector<uint8_t> bytes_of(const TranslationImage& im) {
  std::string why;
  std::optional<std::vector<uint8_t>> bytes = serialize(im, why);
  EXPECT_TRUE(bytes) << why;
  return bytes ? *bytes : std::vector<uint8_t>{};
}

// Three blocks of two files, the first linked to the second (same file),
// with marks, pages and address pools.
TranslationImage sample_image() {
  TranslationImage im;
  im.key.phybin_id = {0xde, 0xad, 0xbe, 0xef, 0x01};
  im.key.guest_dev = 2049;
  im.key.guest_ino = 123456;
  im.key.guest_size = 800000;
  im.key.guest_mtime_ns = 1700000000123456789ull;
  im.key.guest_ctime_ns = 1700000000223456789ull;
  im.key.settings = 42;
  im.helper_offsets = {0x1000, 0x2040, 0x3080};
  im.files.push_back(SavedFile{2049, 123456, 800000, 1700000000123456789ull, 1700000001000000001ull, 0x400000});
  im.files.push_back(SavedFile{2049, 654321, 90000, 1700000000987654321ull, 1700000002000000002ull, 0x7f0000000000});
  // guest offset, cache offset, guest bytes, words, file, marks, indirect
  // entry, pool words and count, reserved
  im.blocks.push_back(SavedBlock{0x1000, 0, 0x10, 5, 0, 2, 0, 2, 1, 0});
  im.blocks.push_back(SavedBlock{0x1010, 9, 0x20, 4, 0, 1, 0, 1, 1, 0});
  im.blocks.push_back(SavedBlock{0x1000, 14, 8, 2, 1, 1, 0, 0, 0, 0});
  im.marks = {{0, 0}, {3, 4}, {0, 0}, {0, 0}};
  im.pages = {{0x1000, 0}, {0x1000, 1}, {0x2000, 1}, {0x1000, 2}};
  im.entries = {{0x1000, 0}, {0x1010, 1}, {0x1000, 2}};
  im.links = {{2, 3, 0, 1}};
  // The cache's words 0..15: the blocks' at their offsets, zeroes between.
  for (uint32_t i = 0; i < 16; ++i) im.code.push_back(i < 5 || (i >= 9 && i < 13) || i >= 14 ? 0xd503201f + i : 0);
  return im;
}

void expect_equal(const TranslationImage& a, const TranslationImage& b) {
  EXPECT_TRUE(a.key == b.key);
  EXPECT_EQ(a.helper_offsets, b.helper_offsets);
  ASSERT_EQ(a.files.size(), b.files.size());
  for (size_t i = 0; i < a.files.size(); ++i) {
    EXPECT_EQ(a.files[i].dev, b.files[i].dev);
    EXPECT_EQ(a.files[i].inode, b.files[i].inode);
    EXPECT_EQ(a.files[i].size, b.files[i].size);
    EXPECT_EQ(a.files[i].mtime_ns, b.files[i].mtime_ns);
    EXPECT_EQ(a.files[i].ctime_ns, b.files[i].ctime_ns);
    EXPECT_EQ(a.files[i].file_start, b.files[i].file_start);
  }
  ASSERT_EQ(a.blocks.size(), b.blocks.size());
  for (size_t i = 0; i < a.blocks.size(); ++i) {
    EXPECT_EQ(a.blocks[i].file, b.blocks[i].file);
    EXPECT_EQ(a.blocks[i].pool_words, b.blocks[i].pool_words);
    EXPECT_EQ(a.blocks[i].pool_count, b.blocks[i].pool_count);
    EXPECT_EQ(a.blocks[i].indirect_words, b.blocks[i].indirect_words);
    EXPECT_EQ(a.blocks[i].guest_offset, b.blocks[i].guest_offset);
    EXPECT_EQ(a.blocks[i].guest_bytes, b.blocks[i].guest_bytes);
    EXPECT_EQ(a.blocks[i].offset, b.blocks[i].offset);
    EXPECT_EQ(a.blocks[i].words, b.blocks[i].words);
    EXPECT_EQ(a.blocks[i].marks_count, b.blocks[i].marks_count);
  }
  ASSERT_EQ(a.entries.size(), b.entries.size());
  for (size_t i = 0; i < a.entries.size(); ++i) {
    EXPECT_EQ(a.entries[i].guest_offset, b.entries[i].guest_offset);
    EXPECT_EQ(a.entries[i].block, b.entries[i].block);
  }
  ASSERT_EQ(a.marks.size(), b.marks.size());
  for (size_t i = 0; i < a.marks.size(); ++i) {
    EXPECT_EQ(a.marks[i].host_words, b.marks[i].host_words);
    EXPECT_EQ(a.marks[i].guest_bytes, b.marks[i].guest_bytes);
  }
  ASSERT_EQ(a.pages.size(), b.pages.size());
  for (size_t i = 0; i < a.pages.size(); ++i) {
    EXPECT_EQ(a.pages[i].page, b.pages[i].page);
    EXPECT_EQ(a.pages[i].block, b.pages[i].block);
  }
  ASSERT_EQ(a.links.size(), b.links.size());
  EXPECT_EQ(a.links[0].site, b.links[0].site);
  EXPECT_EQ(a.links[0].unlinked, b.links[0].unlinked);
  EXPECT_EQ(a.links[0].source, b.links[0].source);
  EXPECT_EQ(a.links[0].target, b.links[0].target);
  EXPECT_EQ(a.code, b.code);
}

TEST(TranslationFile, RoundTripKeepsEverything) {
  const TranslationImage im = sample_image();
  std::string why;
  auto back = deserialize(bytes_of(im), im.key, why);
  ASSERT_TRUE(back) << why;
  expect_equal(im, *back);
  EXPECT_EQ(back->cache_words(), 16u);
}

TEST(TranslationFile, EmptyImageRoundTrips) {
  TranslationImage im;
  std::string why;
  auto back = deserialize(bytes_of(im), im.key, why);
  ASSERT_TRUE(back) << why;
  EXPECT_TRUE(back->blocks.empty());
  EXPECT_EQ(back->cache_words(), 0u);
}

TEST(TranslationFile, KeyHashFollowsEveryField) {
  const TranslationKey base = sample_image().key;
  auto differs = [&](auto change) {
    TranslationKey k = base;
    change(k);
    return k.hash() != base.hash() && !(k == base);
  };
  EXPECT_TRUE(differs([](TranslationKey& k) { k.phybin_id[0] ^= 1; }));
  EXPECT_TRUE(differs([](TranslationKey& k) { k.guest_dev += 1; }));
  EXPECT_TRUE(differs([](TranslationKey& k) { k.guest_ino += 1; }));
  EXPECT_TRUE(differs([](TranslationKey& k) { k.guest_size += 1; }));
  EXPECT_TRUE(differs([](TranslationKey& k) { k.guest_mtime_ns += 1; }));
  EXPECT_TRUE(differs([](TranslationKey& k) { k.guest_ctime_ns += 1; }));
  EXPECT_TRUE(differs([](TranslationKey& k) { k.settings += 1; }));
}

// Every single flipped bit of the file is noticed (magic, version, sizes
// or the checksum over the rest).
TEST(TranslationFile, EveryFlippedBitIsRefused) {
  const std::vector<uint8_t> good = bytes_of(sample_image());
  const TranslationKey key = sample_image().key;
  for (size_t byte = 0; byte < good.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> bad = good;
      bad[byte] ^= static_cast<uint8_t>(1u << bit);
      std::string why;
      EXPECT_FALSE(deserialize(bad, key, why)) << "byte " << byte << " bit " << bit;
      EXPECT_FALSE(why.empty());
    }
  }
}

TEST(TranslationFile, EveryTruncationIsRefused) {
  const std::vector<uint8_t> good = bytes_of(sample_image());
  const TranslationKey key = sample_image().key;
  for (size_t n = 0; n < good.size(); ++n) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<ptrdiff_t>(n));
    std::string why;
    EXPECT_FALSE(deserialize(cut, key, why)) << n << " bytes";
  }
  std::vector<uint8_t> longer = good;
  longer.push_back(0);
  std::string why;
  EXPECT_FALSE(deserialize(longer, key, why));
}

// A sound file made for another program, phybin build or setting is
// refused: only this build's files are trusted to be consistent.
TEST(TranslationFile, AnotherKeyIsRefused) {
  const TranslationImage im = sample_image();
  const std::vector<uint8_t> bytes = bytes_of(im);
  for (int field = 0; field < 3; ++field) {
    TranslationKey other = im.key;
    if (field == 0) other.phybin_id.back() ^= 1;
    if (field == 1) other.guest_ino += 1;
    if (field == 2) other.settings += 1;
    std::string why;
    EXPECT_FALSE(deserialize(bytes, other, why)) << field;
    EXPECT_NE(why.find("another"), std::string::npos) << why;
  }
}

// Images that would put code or links in the wrong place (a phybin bug)
// are never written: loads trust this build's files (deserialize).
TEST(TranslationFile, InconsistentImagesAreNotWritten) {
  auto refused = [](auto change) {
    TranslationImage im = sample_image();
    change(im);
    std::string why;
    bool rejected = !serialize(im, why);
    return rejected && why.find("inconsistent") != std::string::npos;
  };
  EXPECT_TRUE(refused([](TranslationImage& im) { im.blocks[1].offset = 3; }));         // overlaps block 0
  EXPECT_TRUE(refused([](TranslationImage& im) { im.code.pop_back(); }));              // code past the end
  EXPECT_TRUE(refused([](TranslationImage& im) { im.code.push_back(0); }));            // code left over
  EXPECT_TRUE(refused([](TranslationImage& im) { im.blocks[0].marks_count = 5; }));    // marks past the end
  EXPECT_TRUE(refused([](TranslationImage& im) { im.marks.push_back({0, 0}); }));      // marks left over
  EXPECT_TRUE(refused([](TranslationImage& im) { im.pages[0].block = 3; }));           // page of no block
  EXPECT_TRUE(refused([](TranslationImage& im) { im.pages[1].page = 0; }));            // pages out of order
  EXPECT_TRUE(refused([](TranslationImage& im) { std::swap(im.pages[0], im.pages[3]); }));  // files out of order
  EXPECT_TRUE(refused([](TranslationImage& im) { im.blocks[1].file = 2; }));           // no such file
  EXPECT_TRUE(refused([](TranslationImage& im) { im.blocks[1].file = 1; }));           // link across files
  EXPECT_TRUE(refused([](TranslationImage& im) { im.links[0].unlinked = 9; }));        // unlinked elsewhere
  EXPECT_TRUE(refused([](TranslationImage& im) { im.blocks[2].reserved = 1; }));
  EXPECT_TRUE(refused([](TranslationImage& im) { im.blocks[1].pool_count = 2; }));     // pool past the block
  EXPECT_TRUE(refused([](TranslationImage& im) { im.blocks[0].pool_words = 1; }));     // pool misaligned
  EXPECT_TRUE(refused([](TranslationImage& im) { im.blocks[0].words = 0; }));          // empty block
  EXPECT_TRUE(refused([](TranslationImage& im) { im.blocks[0].guest_bytes = 0; }));
  EXPECT_TRUE(refused([](TranslationImage& im) { im.links[0].target = 3; }));          // no such block
  EXPECT_TRUE(refused([](TranslationImage& im) { im.links[0].source = 1; }));          // site not in it
  EXPECT_TRUE(refused([](TranslationImage& im) { im.links[0].site = 7; }));            // between blocks
  EXPECT_TRUE(refused([](TranslationImage& im) { im.links[0].site = 16; }));           // after the last
  EXPECT_TRUE(refused([](TranslationImage& im) { im.entries.pop_back(); }));           // a block without
  EXPECT_TRUE(refused([](TranslationImage& im) { im.entries[1].block = 0; }));         // a block twice
  EXPECT_TRUE(refused([](TranslationImage& im) { std::swap(im.entries[0], im.entries[1]); }));  // out of order
  EXPECT_TRUE(refused([](TranslationImage& im) { std::swap(im.entries[1], im.entries[2]); }));  // files
  EXPECT_TRUE(refused([](TranslationImage& im) { im.entries[2].guest_offset = 0x1008; }));       // not its
  EXPECT_TRUE(refused([](TranslationImage& im) {                                       // links out of order
    im.blocks.push_back(SavedBlock{0x1008, 16, 8, 2, 1, 0, 0, 0, 0, 0});
    im.code.insert(im.code.end(), {0, 0});
    im.entries.push_back(SavedEntry{0x1008, 3});
    im.links.insert(im.links.begin(), SavedLink{16, 17, 3, 2});
  }));
}

// The load a run makes: the code straight into the cache's words, the
// rest as deserialize gives it; the same refusals.
TEST(TranslationFile, LoadReadsTheCodeInPlace) {
  char tmpl[] = "/tmp/phybin-tload-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const TranslationImage im = sample_image();
  std::vector<uint8_t> bytes = bytes_of(im);
  std::string why;
  ASSERT_TRUE(write_translation_file(dir, "x.ptc", bytes, why)) << why;
  std::vector<uint32_t> cache(32, 0xffffffff);
  auto loaded = load_translation_file(dir + "/x.ptc", im.key, cache.data(), cache.size(), why);
  ASSERT_TRUE(loaded) << why;
  EXPECT_TRUE(std::equal(im.code.begin(), im.code.end(), cache.begin()));
  EXPECT_EQ(cache[16], 0xffffffffu);
  EXPECT_TRUE(loaded->code.empty());
  TranslationImage without_code = im;
  without_code.code.clear();
  expect_equal(without_code, *loaded);
  // Too little room, another key, a flipped bit in the code or before it.
  why.clear();
  EXPECT_FALSE(load_translation_file(dir + "/x.ptc", im.key, cache.data(), 15, why));
  EXPECT_NE(why.find("larger"), std::string::npos) << why;
  TranslationKey other = im.key;
  other.settings += 1;
  EXPECT_FALSE(load_translation_file(dir + "/x.ptc", other, cache.data(), cache.size(), why));
  for (size_t at : {bytes.size() - 3, bytes.size() / 2, size_t{100}}) {
    std::vector<uint8_t> bad = bytes;
    bad[at] ^= 0x10;
    ASSERT_TRUE(write_translation_file(dir, "x.ptc", bad, why)) << why;
    why.clear();
    EXPECT_FALSE(load_translation_file(dir + "/x.ptc", im.key, cache.data(), cache.size(), why)) << at;
    EXPECT_FALSE(why.empty());
  }
  bytes.pop_back();
  ASSERT_TRUE(write_translation_file(dir, "x.ptc", bytes, why)) << why;
  EXPECT_FALSE(load_translation_file(dir + "/x.ptc", im.key, cache.data(), cache.size(), why));
  why.clear();
  EXPECT_FALSE(load_translation_file(dir + "/missing.ptc", im.key, cache.data(), cache.size(), why));
  EXPECT_TRUE(why.empty());
  std::filesystem::remove_all(tmpl);
}

TEST(TranslationFile, WriteCreatesDirectoriesAndReplacesAtomically) {
  char tmpl[] = "/tmp/phybin-tfile-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = std::string(tmpl) + "/nested/phybin";
  std::string why;
  const std::vector<uint8_t> first = bytes_of(sample_image());
  ASSERT_TRUE(write_translation_file(dir, "x.ptc", first, why)) << why;
  TranslationImage other = sample_image();
  other.code[0] = 0x14000001;
  const std::vector<uint8_t> second = bytes_of(other);
  ASSERT_TRUE(write_translation_file(dir, "x.ptc", second, why)) << why;
  std::ifstream file(dir + "/x.ptc", std::ios::binary);
  ASSERT_TRUE(file);
  const std::vector<uint8_t> read((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_EQ(read, second);
  // No temporary file is left behind.
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u);
  std::filesystem::remove_all(tmpl);
}

TEST(TranslationFile, UnwritableDirectoryGivesAReason) {
  std::string why;
  EXPECT_FALSE(write_translation_file("/proc/phybin-no-such-dir", "x.ptc", bytes_of(sample_image()), why));
  EXPECT_NE(why.find("/proc/phybin-no-such-dir"), std::string::npos);
}

TEST(TranslationFile, PruneRemovesTheLeastRecentlyUsedFirst) {
  char tmpl[] = "/tmp/phybin-prune-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::vector<uint8_t> kilobyte(1024, 0x5a);
  std::string why;
  for (const char* name : {"old.ptc", "middle.ptc", "new.ptc"}) {
    ASSERT_TRUE(write_translation_file(dir, name, kilobyte, why)) << why;
  }
  ASSERT_TRUE(write_translation_file(dir, "other.txt", kilobyte, why));  // not ours: never removed
  // Modification times far apart, oldest first.
  const std::pair<const char*, time_t> ages[] = {{"old.ptc", 100}, {"middle.ptc", 200}, {"new.ptc", 300}};
  for (const auto& [name, sec] : ages) {
    timespec times[2] = {{sec, 0}, {sec, 0}};
    ASSERT_EQ(utimensat(AT_FDCWD, (dir + "/" + name).c_str(), times, 0), 0);
  }
  EXPECT_EQ(prune_translation_dir(dir, 3 * 1024), 0u);
  EXPECT_EQ(prune_translation_dir(dir, 2 * 1024), 1u);
  EXPECT_FALSE(std::filesystem::exists(dir + "/old.ptc"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/middle.ptc"));
  EXPECT_EQ(prune_translation_dir(dir, 1024), 1u);
  EXPECT_FALSE(std::filesystem::exists(dir + "/middle.ptc"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/new.ptc"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/other.txt"));
  EXPECT_EQ(prune_translation_dir(dir + "/missing", 0), 0u);
  std::filesystem::remove_all(dir);
}

// A writer leaves its file and no temporary one; a temporary file of a
// writer that died goes once it is an hour old, and only then.
TEST(TranslationFile, TemporaryFilesOfDeadWritersArePruned) {
  char tmpl[] = "/tmp/phybin-tmpfiles-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  std::string why;
  ASSERT_TRUE(write_translation_file(dir, "a.ptc", std::vector<uint8_t>(64, 1), why)) << why;
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()), 1);
  for (const char* name : {"a.ptc.tmp.Old123", "a.ptc.tmp.New456"}) std::ofstream(dir + "/" + name) << "partial";
  const time_t two_hours_ago = time(nullptr) - 7200;
  timespec times[2] = {{two_hours_ago, 0}, {two_hours_ago, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, (dir + "/a.ptc.tmp.Old123").c_str(), times, 0), 0);
  EXPECT_EQ(prune_translation_dir(dir, 1 << 20), 0u);
  EXPECT_FALSE(std::filesystem::exists(dir + "/a.ptc.tmp.Old123"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/a.ptc.tmp.New456"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/a.ptc"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace phybin::runtime
