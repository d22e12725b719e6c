// Self-modifying code detection.  Before a translation reads a guest page,
// prepare_page() looks the page up in the guest's mappings: a page the
// guest may write is made read-only on the host (guest loads still work),
// so the first write to it faults; the fault handler gives the page its
// permissions back and the runtime drops the translations made from it.
// Pages mapped without PROT_WRITE (an executable's text) cost nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace phybin::runtime {

class CodeProtect {
 public:
  explicit CodeProtect(uint64_t page_size) : page_size_(page_size) {}

  // Called for each guest page a translation reads.  False when the page
  // is not mapped readable: the guest's jump there must fault.
  bool prepare_page(uint64_t page);
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
  struct Region {
    uint64_t start, end;
    int prot;
  };
  struct Page {
    int prot;           // the guest's protection
    bool protected_;    // we removed PROT_WRITE
  };
  const Region* find_region(uint64_t address);
  bool prepare_known(uint64_t page, Page& p);
  void read_maps();
  bool restore(uint64_t page, Page& p);

  uint64_t page_size_;
  std::unordered_map<uint64_t, Page> pages_;  // pages translations were made from
  uint64_t last_page_ = 1;     // the page prepared last (consecutive blocks
  Page* last_ = nullptr;       // mostly come from the same one)
  std::vector<Region> maps_;                  // /proc/self/maps, sorted
  bool maps_stale_ = true;
  size_t protected_count_ = 0;
};

template <typename Fn>
void CodeProtect::unprotect_all(Fn&& on_page) {
  for (auto& [page, p] : pages_)
    if (p.protected_ && restore(page, p)) on_page(page);
}

}  // namespace phybin::runtime
