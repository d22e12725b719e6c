// The guest's address space as the guest made it: which ranges it mapped
// and with which protection.  Fed by the loader (segments, stack) and by
// every mmap-family call; read by the translator (code may be fetched
// only where the guest mapped PROT_EXEC) and, later, by /proc/self/maps.
// The host's own mappings (phybin, the code cache) are not in it, and the
// host's view of guest pages may differ from it: under qemu-user, or where
// phybin write-protects code pages, /proc/self/maps does not tell.
// Guest threads call mmap & co. while others translate: each method holds
// the lock (common/shared_lock.h; one per process), from the second thread
// on (share()).
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/shared_lock.h"

namespace phybin::sys {

// What a mapping shows in /proc/self/maps besides its range and
// protection: the file (or "[heap]", "[stack]") and where in it.
struct MappingSource {
  std::string name;  // empty: anonymous
  uint64_t offset = 0;
  uint64_t dev = 0, inode = 0;
  uint64_t size = 0, mtime_ns = 0, ctime_ns = 0;  // the file's, when mapped (not shown)
  bool shared = false;

  // The file's identity from its stat: device, inode, size, mtime, ctime.
  void identify(const struct stat& st);
};

// A file's modification time in nanoseconds, as MappingSource keeps it.
inline uint64_t mtime_ns(const struct stat& st) {
  return static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000u + static_cast<uint64_t>(st.st_mtim.tv_nsec);
}
// Its inode change time: set by the kernel on every write, and on the
// utimensat that puts an old mtime back (`touch -r`), and settable by no
// one, so a file rewritten in place never keeps it.
inline uint64_t ctime_ns(const struct stat& st) {
  return static_cast<uint64_t>(st.st_ctim.tv_sec) * 1000000000u + static_cast<uint64_t>(st.st_ctim.tv_nsec);
}

inline void MappingSource::identify(const struct stat& st) {
  dev = st.st_dev;
  inode = st.st_ino;
  size = static_cast<uint64_t>(st.st_size);
  mtime_ns = sys::mtime_ns(st);
  ctime_ns = sys::ctime_ns(st);
}

// Code from a file, as saved translations need to know it: which file
// (device, inode, size, mtime and ctime together), where that file's offset 0 lies
// in the guest's address space for this mapping, and whether the guest's
// bytes are still the file's: a private mapping the guest never made
// writable (a page it wrote, even if read-only again, is not).
struct MappedFile {
  uint64_t dev = 0, inode = 0, size = 0, mtime_ns = 0, ctime_ns = 0;
  uint64_t file_start = 0;  // mapping start - its file offset
  int prot = 0;
  bool pristine = false;
  std::string name;
  uint64_t start = 0, end = 0;  // the part of the mapping alike in all of the above
};

class AddressSpace {
 public:
  struct Range {
    uint64_t start, end;  // [start, end), page aligned
    int prot;             // PROT_READ | PROT_WRITE | PROT_EXEC as the guest asked
  };
  using Source = MappingSource;

  AddressSpace() = default;
  // Moved (a process's state reset), the lock stays each object's own.
  AddressSpace(AddressSpace&& other) noexcept : page_(other.page_), ranges_(std::move(other.ranges_)) {}
  AddressSpace& operator=(AddressSpace&& other) noexcept {
    page_ = other.page_;
    ranges_ = std::move(other.ranges_);
    return *this;
  }

  // [start, start + length) now holds a mapping with `prot`, replacing
  // whatever was there.  Lengths are rounded up to whole pages.
  void map(uint64_t start, uint64_t length, int prot, const Source& source = {});
  void unmap(uint64_t start, uint64_t length);
  // Changes the protection of the mapped parts of the range.
  void protect(uint64_t start, uint64_t length, int prot);
  // mremap: the pages of [old_start, +old_length) move to new_start with
  // new_length (the grown part gets the protection of the first page).
  void remap(uint64_t old_start, uint64_t old_length, uint64_t new_start, uint64_t new_length, bool keep_old);

  // The mapping holding `address`, if any.
  std::optional<Range> find(uint64_t address) const;
  // The file mapped at `address`; nothing for anonymous memory.
  std::optional<MappedFile> mapped_file(uint64_t address) const;
  void set_page_size(uint64_t page) { page_ = page; }
  uint64_t page_size() const { return page_; }
  size_t mapping_count() const {
    const Guard guard(lock_);
    return ranges_.size();
  }
  // Guest threads start: from now on the methods lock.
  void share() { lock_.share(); }
  // Around a fork: held, so that the child's copy is whole and unlocked.
  void lock_for_fork() { lock_.lock(); }
  void unlock_after_fork() { lock_.unlock(); }
  // /proc/self/maps as Linux writes it, for the guest's mappings.
  std::string maps_text() const;

 private:
  struct Entry {
    uint64_t end;
    int prot;
    uint32_t source;  // index into sources_; 0: anonymous
    uint64_t offset;  // into the file, at the entry's start
    bool pristine;    // a private file mapping never writable (MappedFile)
  };
  // Protection `prot` for the entries of [begin, end) (split there
  // already); `changed`: their bytes may differ from the file's.
  void set_protection(uint64_t begin, uint64_t end, int prot, bool changed);
  uint32_t intern(const Source& source);
  // Splits the entry holding `address` so that one starts exactly there.
  void split_at(uint64_t address);
  uint64_t page_up(uint64_t v) const { return (v + page_ - 1) & ~(page_ - 1); }
  uint64_t page_down(uint64_t v) const { return v & ~(page_ - 1); }

  uint64_t page_ = 4096;
  std::map<uint64_t, Entry> ranges_;  // by start; never overlapping
  std::vector<Source> sources_ = {Source{}};  // what the entries name, without offsets
  struct Tag;
  using Lock = SharedLock<Tag>;
  using Guard = LockGuard<Lock>;
  mutable Lock lock_;  // re-entrant: map() unmaps, remap() maps
};

}  // namespace phybin::sys
