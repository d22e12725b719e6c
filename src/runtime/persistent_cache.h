// Translations kept on disk between runs of the same program, so that a
// program's start-up (glibc initialisation, mostly) is translated once and
// not on every run.  One file per (phybin build, guest executable, settings
// that change code); written atomically at exit, read at start-up.
//
// What is stored is position independent: blocks reach each other, the
// stubs and their own data with PC-relative branches; calls into phybin go
// through the guest state's helper table, whose entries are stored as
// offsets from a phybin function and rebuilt for the new process.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace phybin::runtime {

struct SavedBlock {
  uint64_t guest = 0;        // guest address of the block
  uint32_t offset = 0;       // words from the start of the blocks area
  uint32_t words = 0;
  uint32_t first_map = 0;    // the block's host->guest instruction map entries
  uint32_t map_count = 0;
};

struct SavedMapEntry {     // host word offset in the block -> guest address
  uint32_t host_offset;
  uint32_t pad;
  uint64_t guest;
};

struct SavedTranslations {
  std::vector<int64_t> helpers;   // helper table: function - anchor
  std::vector<SavedBlock> blocks;
  std::vector<SavedMapEntry> maps;
  std::vector<uint32_t> code;     // the blocks area, from its start
};

// Where the cache lives: PHYBIN_CODE_CACHE (a directory, or "off"), else
// $XDG_CACHE_HOME/phybin, else $HOME/.cache/phybin.  Empty when disabled.
std::string code_cache_directory();

// A key naming the translations of `guest_path` by this phybin with these
// settings; empty when the file cannot be identified (not a regular file).
std::string translation_key(const std::string& guest_path, uint64_t load_bias, uint64_t settings_hash);

std::optional<SavedTranslations> load_translations(const std::string& directory, const std::string& key);
bool save_translations(const std::string& directory, const std::string& key, const SavedTranslations& t);

}  // namespace phybin::runtime
