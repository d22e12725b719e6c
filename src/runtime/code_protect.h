// Self-modifying code detection.  Before a translation reads a guest page,
// prepare_page() looks the page up in the guest's mappings (the Linux
// layer's AddressSpace, not /proc/self/maps, which under qemu-user or after
// our own mprotect does not show what the guest asked for): a page the
// guest may write is made read-only on the host (guest loads still work),
// so the first write to it faults; the fault handler gives the page its
// permissions back and the runtime drops the translations made from it.
// Pages mapped without PROT_WRITE (an executable's text) cost nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "x86/frontend.h"

namespace phybin::runtime {

// Also what the frontend asks where guest code may be fetched: only from
// memory the guest mapped executable, as on x86-64.
class CodeProtect final : public x86::CodeMemory {
 public:
  explicit CodeProtect(uint64_t page_size) : page_size_(page_size) {}

  // Called for each guest page a translation reads.  False when the page
  // is not mapped executable: the guest's jump there must fault.
  bool prepare_page(uint64_t page);
  uint64_t executable_end(uint64_t pc) override;
  // Whether any mapping (even PROT_NONE) holds `address`: a fetch there
  // is a protection fault, elsewhere a missing page.
  bool is_mapped(uint64_t address);
  // In the SIGSEGV handler: `address` was written and lies in a page this
  // class protected.  Restores the page's permissions and returns true
  // (the caller drops the page's translations); false for any other fault.
  // Allocates nothing: safe in a signal handler.
  bool unprotect_on_write(uint64_t address);
  // The guest mapped, unmapped or changed the protection of
  // [start, start + length): what was known about those pages is stale.
  void forget(uint64_t start, uint64_t length);
  // Restores every protected page; calls on_page(page) for each.
  template <typename Fn>
  void unprotect_all(Fn&& on_page);
  bool any_protected() const { return protected_count_ != 0; }
  uint64_t page_size() const { return page_size_; }

 private:
  struct Page {
    int prot;           // the guest's protection
    bool protected_;    // we removed PROT_WRITE
  };
  bool prepare_known(uint64_t page, Page& p);
  bool restore(uint64_t page, Page& p);

  uint64_t page_size_;
  std::unordered_map<uint64_t, Page> pages_;  // pages translations were made from
  uint64_t last_page_ = 1;     // the page prepared last (consecutive blocks
  Page* last_ = nullptr;       // mostly come from the same one)
  size_t protected_count_ = 0;
};

template <typename Fn>
void CodeProtect::unprotect_all(Fn&& on_page) {
  for (auto& [page, p] : pages_)
    if (p.protected_ && restore(page, p)) on_page(page);
}

}  // namespace phybin::runtime
