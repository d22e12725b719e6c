// Mapping a checked x86-64 executable into phybin's own address space.
//
// Guest address == host address: every PT_LOAD segment lands at its link
// address (ET_EXEC) or at link address + one load bias (static-PIE), so that
// translated code can use guest pointers as host pointers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "elf/elf_reader.h"

namespace phybin::elf {

// One mapped PT_LOAD segment, in host pages.
struct MappedSegment {
  uint64_t start = 0;        // host-page aligned, biased
  uint64_t end = 0;          // exclusive, host-page aligned
  uint32_t guest_flags = 0;  // p_flags (PF_R/PF_W/PF_X): what the guest may do
  int host_prot = 0;         // PROT_* actually given to the pages
  uint64_t file_offset = 0;  // of `start` in the file (/proc/self/maps)
  uint64_t file_end = 0;     // end of the pages mapped from the file; anonymous (.bss) above
};

struct LoadedImage {
  std::string path;
  uint64_t load_bias = 0;  // 0 for ET_EXEC
  uint64_t entry = 0;      // e_entry + load_bias
  uint64_t phdr_addr = 0;  // AT_PHDR: where the program headers are in memory
  uint64_t phnum = 0;      // AT_PHNUM
  uint64_t phent = 0;      // AT_PHENT
  uint64_t low = 0;        // lowest mapped address
  uint64_t high = 0;       // end of the highest segment, page aligned
  uint64_t brk_start = 0;  // initial program break (== high)
  uint64_t host_page_size = 0;
  std::vector<MappedSegment> segments;
};

// Throws phybin::Error: PHYBIN_ERR_HOST_MMAP when the addresses are taken or
// mmap fails, PHYBIN_ERR_PAGE_SIZE when the host's pages are larger than 4 KiB
// and the segments are not aligned to them, PHYBIN_ERR_FILE_ACCESS /
// PHYBIN_ERR_BAD_ELF when the file cannot be reopened or changed since
// inspect_elf.  On failure nothing stays mapped.
LoadedImage load_image(const ElfInfo& info);

// Unmaps what load_image mapped (tests, and a failed start).
void unmap_image(const LoadedImage& image);

// Host PROT_* for a segment's p_flags.  The host never runs guest code; it
// keeps PROT_EXEC as the guest's own record of what it may execute (the
// translator fetches only from there, as an x86-64 CPU).  PF_X alone is
// readable too, as on x86-64.
int host_protection(uint32_t p_flags);

}  // namespace phybin::elf
