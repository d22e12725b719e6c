#include "elf/loader.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>

#include "common/error.h"
#include "common/log.h"
#include "elf/guest_memory.h"

namespace phybin::elf {

namespace {

// Static-PIE load bias alignment follows the largest PT_LOAD p_align (as
// Linux does, so that huge-page-aligned segments stay aligned) but an absurd
// p_align must not make us reserve absurd amounts of memory.
constexpr uint64_t kMaxBiasAlignment = uint64_t{1} << 30;

[[noreturn]] void fail(ErrorCode code, const std::string& path, const std::string& what) {
  throw Error(code, path + ": " + what);
}

// The guest file, reopened for mmap.  inspect_elf checked a file of this
// size; if it changed since, its checks no longer hold.
class MappableFile {
 public:
  explicit MappableFile(const ElfInfo& info) {
    fd_ = ::open(info.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0)
      fail(ErrorCode::PHYBIN_ERR_FILE_ACCESS, info.path, std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || static_cast<uint64_t>(st.st_size) != info.file_size) {
      ::close(fd_);
      fail(ErrorCode::PHYBIN_ERR_BAD_ELF, info.path, "file changed after it was checked");
    }
  }
  ~MappableFile() { ::close(fd_); }
  MappableFile(const MappableFile&) = delete;
  MappableFile& operator=(const MappableFile&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
};

// Address space held for the image while it is being mapped; given back on
// any failure so that a failed load leaves nothing behind.
class Reservation {
 public:
  Reservation(uint64_t start, uint64_t end) : start_(start), end_(end) {}
  ~Reservation() {
    if (end_ > start_) ::munmap(reinterpret_cast<void*>(start_), end_ - start_);
  }
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  void keep() { start_ = end_ = 0; }

 private:
  uint64_t start_, end_;
};

const ProgramHeader& load_at(const ElfInfo& info, size_t n) { return info.phdrs[info.load_indexes[n]]; }

// On a host with pages larger than 4 KiB, a segment can only be mapped when
// its file offset and address agree modulo the host page and no two
// segments share a host page.
void check_host_page_fit(const ElfInfo& info, uint64_t page) {
  if (page == kGuestPageSize) return;
  if (page < kGuestPageSize || !std::has_single_bit(page))
    throw Error(ErrorCode::PHYBIN_ERR_PAGE_SIZE, "host page size " + std::to_string(page) + " is not supported");
  std::vector<const ProgramHeader*> by_address;
  for (size_t index : info.load_indexes) by_address.push_back(&info.phdrs[index]);
  std::sort(by_address.begin(), by_address.end(),
            [](const ProgramHeader* a, const ProgramHeader* b) { return a->vaddr < b->vaddr; });
  for (size_t n = 0; n < by_address.size(); ++n) {
    const ProgramHeader& ph = *by_address[n];
    bool congruent = ph.filesz == 0 || (ph.vaddr - ph.offset) % page == 0;
    const ProgramHeader* before = n == 0 ? nullptr : by_address[n - 1];
    bool separate = !before || align_down(ph.vaddr, page) >= align_up(before->vaddr + before->memsz, page);
    if (!congruent || !separate)
      throw Error(
          ErrorCode::PHYBIN_ERR_PAGE_SIZE,
          info.path + ": the host page size is " + std::to_string(page) + " bytes and segment " +
              address_range(ph.vaddr, ph.vaddr + ph.memsz) +
              " is aligned for 4 KiB pages only; phybin supports such programs on 4 KiB-page hosts only for now");
  }
}

// ET_EXEC: the link addresses themselves, or nothing.
uint64_t reserve_fixed(const ElfInfo& info, uint64_t start, uint64_t end) {
  void* want = reinterpret_cast<void*>(start);
  void* got =
      ::mmap(want, end - start, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (got == MAP_FAILED) {
    int saved = errno;
    std::string why = saved == EEXIST  ? "the range is already in use in the phybin process"
                      : saved == EPERM ? std::string(std::strerror(saved)) + " (below vm.mmap_min_addr?)"
                                       : std::string(std::strerror(saved));
    fail(ErrorCode::PHYBIN_ERR_HOST_MMAP, info.path,
         "cannot map the program at " + address_range(start, end) + ": " + why);
  }
  if (got != want) {  // a kernel older than 4.17 takes MAP_FIXED_NOREPLACE as a hint
    ::munmap(got, end - start);
    fail(ErrorCode::PHYBIN_ERR_HOST_MMAP, info.path,
         "cannot map the program at " + address_range(start, end) +
             ": the range is already in use in the phybin process");
  }
  return 0;
}

uint64_t bias_alignment(const ElfInfo& info, uint64_t page) {
  uint64_t alignment = page;
  for (size_t index : info.load_indexes) {
    uint64_t a = info.phdrs[index].align;
    if (std::has_single_bit(a) && a > alignment && a <= kMaxBiasAlignment) alignment = a;
  }
  return alignment;
}

// Static-PIE: the kernel picks the place, we trim it to an aligned bias.
// Returns the bias; [start + bias, end + bias) is reserved on return.
uint64_t reserve_anywhere(const ElfInfo& info, uint64_t start, uint64_t end, uint64_t page) {
  uint64_t alignment = bias_alignment(info, page);
  uint64_t total = end - start + alignment - page;
  uint64_t base = map_anywhere_for_guest(total, PROT_NONE, MAP_NORESERVE, "program image of " + info.path);
  // Unsigned wrap-around is fine: only bias mod 2^64 matters.
  uint64_t bias = align_up(base - start, alignment);
  uint64_t image_start = start + bias, image_end = end + bias;
  if (image_start > base) ::munmap(reinterpret_cast<void*>(base), image_start - base);
  if (base + total > image_end) ::munmap(reinterpret_cast<void*>(image_end), base + total - image_end);
  return bias;
}

void map_or_fail(const ElfInfo& info, uint64_t start, uint64_t length, int prot, int flags, int fd, uint64_t offset) {
  void* want = reinterpret_cast<void*>(start);
  void* got = ::mmap(want, length, prot, MAP_PRIVATE | MAP_FIXED | flags, fd, static_cast<off_t>(offset));
  if (got == MAP_FAILED)
    fail(ErrorCode::PHYBIN_ERR_HOST_MMAP, info.path,
         "cannot map " + address_range(start, start + length) + ": " + std::strerror(errno));
}

// Maps one PT_LOAD: its file pages, then anonymous zero pages for the rest of
// p_memsz (.bss).  In a writable segment the bytes of the last file page
// past p_filesz belong to .bss and read as zero; in a read-only one they
// stay the file's, as Linux leaves them (its clear_user fails there and it
// goes on): static programs have been linked with data, IRELATIVE
// relocations among it, in that tail.
MappedSegment map_segment(const ElfInfo& info, const ProgramHeader& ph, uint64_t bias, int fd, uint64_t page) {
  MappedSegment seg;
  seg.guest_flags = ph.flags;
  seg.host_prot = host_protection(ph.flags);
  seg.start = align_down(ph.vaddr + bias, page);
  seg.end = align_up(ph.vaddr + bias + ph.memsz, page);
  seg.file_offset = ph.offset - (ph.vaddr + bias - seg.start);

  uint64_t anon_start = seg.start;
  if (ph.filesz > 0) {
    uint64_t file_end = ph.vaddr + bias + ph.filesz;
    uint64_t file_map_end = align_up(file_end, page);
    bool zero_tail = ph.memsz > ph.filesz && file_end != file_map_end && (ph.flags & PF_W);
    int prot = seg.host_prot | (zero_tail ? PROT_WRITE : 0);
    map_or_fail(info, seg.start, file_map_end - seg.start, prot, 0, fd, align_down(ph.offset, page));
    if (zero_tail) {
      std::memset(reinterpret_cast<void*>(file_end), 0, file_map_end - file_end);
      if (prot != seg.host_prot)
        ::mprotect(reinterpret_cast<void*>(seg.start), file_map_end - seg.start, seg.host_prot);
    }
    anon_start = file_map_end;
  }
  seg.file_end = anon_start;
  if (seg.end > anon_start) map_or_fail(info, anon_start, seg.end - anon_start, seg.host_prot, MAP_ANONYMOUS, -1, 0);
  return seg;
}

// `old` without [start, end), which a later segment was mapped over: none,
// one or two pieces.
std::vector<MappedSegment> cut_out(const MappedSegment& old, uint64_t start, uint64_t end) {
  if (end <= old.start || start >= old.end) return {old};
  std::vector<MappedSegment> pieces;
  if (old.start < start) {
    MappedSegment low = old;
    low.end = start;
    low.file_end = std::min(old.file_end, start);
    pieces.push_back(low);
  }
  if (old.end > end) {
    MappedSegment high = old;
    high.start = end;
    high.file_offset = old.file_offset + (end - old.start);
    high.file_end = std::max(old.file_end, end);
    pieces.push_back(high);
  }
  return pieces;
}

// Adds a segment mapped over whatever was there, keeping `segments` the
// image's mappings as they now are, in address order.
void add_mapped(std::vector<MappedSegment>& segments, const MappedSegment& seg) {
  std::vector<MappedSegment> kept;
  for (const MappedSegment& old : segments)
    for (const MappedSegment& piece : cut_out(old, seg.start, seg.end)) kept.push_back(piece);
  kept.push_back(seg);
  std::sort(kept.begin(), kept.end(), [](const MappedSegment& a, const MappedSegment& b) { return a.start < b.start; });
  segments = std::move(kept);
}

// Like Linux, the gaps between segments stay free for the program's own use.
void release_gaps(const std::vector<MappedSegment>& segments) {
  for (size_t n = 1; n < segments.size(); ++n) {
    uint64_t gap_start = segments[n - 1].end, gap_end = segments[n].start;
    if (gap_end > gap_start) ::munmap(reinterpret_cast<void*>(gap_start), gap_end - gap_start);
  }
}

// AT_PHDR: where the program headers are once mapped.
uint64_t phdr_address(const ElfInfo& info, uint64_t bias) {
  if (info.phdr_vaddr) return *info.phdr_vaddr + bias;
  uint64_t table_end = info.phoff + uint64_t{info.phnum} * info.phentsize;
  for (size_t index : info.load_indexes) {
    const ProgramHeader& ph = info.phdrs[index];
    if (ph.offset <= info.phoff && table_end <= ph.offset + ph.filesz)
      return ph.vaddr + (info.phoff - ph.offset) + bias;
  }
  logf(LogLevel::Warn, "phybin: %s: program headers are not in any PT_LOAD segment; AT_PHDR is 0", info.path.c_str());
  return 0;
}

}  // namespace

int host_protection(uint32_t p_flags) {
  int prot = PROT_NONE;
  if (p_flags & (PF_R | PF_X)) prot |= PROT_READ;
  if (p_flags & PF_X) prot |= PROT_EXEC;
  if (p_flags & PF_W) prot |= PROT_WRITE;
  return prot;
}

LoadedImage load_image(const ElfInfo& info) {
  const uint64_t page = host_page_size();
  check_host_page_fit(info, page);
  MappableFile file(info);

  uint64_t start = align_down(info.min_vaddr, page);
  uint64_t end = align_up(info.max_vaddr, page);
  uint64_t bias = info.is_pie() ? reserve_anywhere(info, start, end, page) : reserve_fixed(info, start, end);
  Reservation reservation(start + bias, end + bias);

  LoadedImage image;
  for (size_t n = 0; n < info.load_indexes.size(); ++n) {
    const ProgramHeader& ph = load_at(info, n);
    if (ph.memsz == 0) continue;
    add_mapped(image.segments, map_segment(info, ph, bias, file.fd(), page));
  }
  release_gaps(image.segments);
  reservation.keep();

  image.path = info.path;
  image.load_bias = bias;
  image.entry = info.entry + bias;
  image.phdr_addr = phdr_address(info, bias);
  image.phnum = info.phnum;
  image.phent = info.phentsize;
  image.low = image.segments.front().start;
  image.high = image.segments.back().end;
  image.brk_start = image.high;
  image.host_page_size = page;
  logf(LogLevel::Info, "phybin: loaded %s (%s) at %s, bias %s, entry %s", info.path.c_str(), kind_name(info.kind),
       address_range(image.low, image.high).c_str(), hex_address(bias).c_str(), hex_address(image.entry).c_str());
  return image;
}

void unmap_image(const LoadedImage& image) {
  for (const MappedSegment& seg : image.segments) ::munmap(reinterpret_cast<void*>(seg.start), seg.end - seg.start);
}

}  // namespace phybin::elf
