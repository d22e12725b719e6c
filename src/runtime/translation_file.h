// The persistent translation cache's file: the translations one run of a
// program made, saved so that the next run of the same program starts
// without translating its start-up code again.  This file knows only the
// format (write, read, check); what may be saved and how it is put back
// into a running code cache is the runtime's (process_persist.cpp).
//
// The code is saved as it sits in the code cache: branches between blocks
// and to the stubs are relative, helper calls go through slot numbers, so
// the words are valid at the same offsets from the first block of any code
// cache.  Exits linked to a block of the same file are saved linked and
// listed apart (to be undone if need be); other exits are saved unlinked.
//
// Blocks come from the program's files (the executable, its interpreter,
// its shared libraries), each of which may load at another address next
// time: a block names its file and keeps every guest address its code uses
// in its address pool (arm64::AddressPool), which moves with the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace phybin::runtime {

// Which saved file a run of a program may use: two runs with equal keys
// translate the same guest bytes to the same code (at addresses that differ
// by where each file loaded).
struct TranslationKey {
  std::vector<uint8_t> phybin_id;  // phybin's GNU build id
  uint64_t guest_dev = 0, guest_ino = 0, guest_size = 0, guest_mtime_ns = 0, guest_ctime_ns = 0;  // the program
  uint64_t settings = 0;  // fingerprint of the settings that change code

  bool operator==(const TranslationKey&) const = default;
  // For the file name: equal keys give equal names.
  uint64_t hash() const;
};

struct SavedMark {  // as BlockTable keeps them
  uint16_t host_words;
  uint16_t guest_bytes;
};

// A file code was translated from, and where its offset 0 was then.
struct SavedFile {
  uint64_t dev = 0, inode = 0, size = 0, mtime_ns = 0, ctime_ns = 0;
  uint64_t file_start = 0;

  bool operator==(const SavedFile&) const = default;
};

// A block keeps its guest range from its file's start, so the record
// holds wherever the file loads.  Its code, marks and pages are not named:
// each block's follow the previous block's in the image's arrays.
struct SavedBlock {
  uint32_t guest_offset = 0;  // guest start - its file's file_start
  uint32_t offset = 0;        // in words from the code cache's first block word
  uint16_t guest_bytes = 0;   // guest end - guest start
  uint16_t words = 0;
  uint16_t file = 0;  // into TranslationImage::files
  uint16_t marks_count = 0;
  uint16_t indirect_words = 0;  // BlockInfo::indirect_words
  uint16_t pool_words = 0, pool_count = 0;  // its arm64::AddressPool
  uint16_t reserved = 0;  // 0: the struct has no padding, it is saved as it is
};
static_assert(sizeof(SavedBlock) == 24);

// What a block may hold at most (a larger one is not saved).
inline constexpr uint64_t kMaxSavedField = UINT16_MAX;

// A guest page a block was made from.  The image keeps them sorted by the
// block's file, then by page: each file's pages are one sorted run, which
// the block table searches when guest code changes (no per-block work
// when a file's blocks wake).
struct SavedPage {
  uint32_t page;   // page start - its file's file_start
  uint32_t block;  // index into TranslationImage::blocks
};

// Where a lookup finds a block: each file's blocks sorted by their guest
// offset (one run per file, files in order), so that a woken file's blocks
// are found by a search in its run instead of each entering an index.
struct SavedEntry {
  uint32_t guest_offset;  // SavedBlock::guest_offset
  uint32_t block;         // index into TranslationImage::blocks
};

// A linked exit between two blocks of the same file.  The code is saved
// linked (it runs linked as soon as its file's blocks wake); `unlinked` is
// where the branch goes when the link must be undone.  Sorted by the
// source block's file.
struct SavedLink {
  uint32_t site;      // words from the code cache's first block word
  uint32_t unlinked;  // likewise
  uint32_t source;    // index into TranslationImage::blocks: the block of site
  uint32_t target;    // likewise
};

struct TranslationImage {
  TranslationKey key;
  // Helper addresses by slot, as offsets from phybin's load address.
  std::vector<uint64_t> helper_offsets;
  std::vector<SavedFile> files;
  std::vector<SavedBlock> blocks;  // in increasing offset order
  std::vector<SavedMark> marks;    // of each block in turn
  std::vector<SavedPage> pages;    // by file, then page
  std::vector<SavedEntry> entries;  // one per block: by file, then guest offset
  std::vector<SavedLink> links;    // by file
  // The code cache's words from its first block word on, as they were:
  // each block's at its offset (words between blocks are zero).
  std::vector<uint32_t> code;

  // Words of code cache the blocks need (end of the last one).
  uint32_t cache_words() const { return blocks.empty() ? 0 : blocks.back().offset + blocks.back().words; }
};

// The file's bytes; nullopt (and `why`) for an image whose indices and
// ranges do not hold together: a phybin bug, caught before it is saved.
std::optional<std::vector<uint8_t>> serialize(const TranslationImage& image, std::string& why);

// Checks the format, version, sizes, checksum and key before returning an
// image; on failure says why in `why`.  It does not check the image's
// indices and ranges again: the key holds the build id, so the file was
// written by this very phybin, which checked them (serialize), and the
// checksum shows the bytes are as written.  (Against tampering the cache
// directory is the user's own, as trusted as the program itself.)  So a
// load costs no pass over the blocks, pages and links of its own.
std::optional<TranslationImage> deserialize(const std::vector<uint8_t>& bytes, const TranslationKey& expected,
                                            std::string& why);

// The file at `path`, its code read straight into `code` (room for
// `code_words` words; the image's own code array stays empty): the checks
// of deserialize.  nullopt for a missing file (`why` empty) or a refused
// one (`why` says why); `code` then holds garbage.
std::optional<TranslationImage> load_translation_file(const std::string& path, const TranslationKey& expected,
                                                      uint32_t* code, size_t code_words, std::string& why);

// Atomic replacement: a reader sees the old file or the new one, never a
// part.  Creates `dir` (one level) if missing.  False with `why` on failure.
bool write_translation_file(const std::string& dir, const std::string& name, const std::vector<uint8_t>& bytes,
                            std::string& why);

// Keeps the directory's translation files (*.ptc) under `max_bytes` in all
// by removing the least recently used ones (a load renews a file's mtime).
// Returns how many were removed.  Temporary files of writers that died
// (untouched for an hour) go too, uncounted.
size_t prune_translation_dir(const std::string& dir, uint64_t max_bytes);

}  // namespace phybin::runtime
