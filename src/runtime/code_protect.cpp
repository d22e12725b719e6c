#include "runtime/code_protect.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/log.h"
#include "linux/syscalls.h"

namespace phybin::runtime {

namespace {

constexpr int kCode = PROT_READ | PROT_EXEC;

sys::AddressSpace& guest_space() { return sys::process().address_space; }

}  // namespace

bool CodeProtect::prepare_page(uint64_t page) {
  if (page == last_page_ && last_) return prepare_known(page, *last_);
  auto known = pages_.find(page);
  if (known == pages_.end()) {
    const auto r = guest_space().find(page);
    const int prot = r ? r->prot : PROT_NONE;
    if ((prot & kCode) != kCode) return false;  // looked up again next time
    known = pages_.emplace(page, Page{prot, false}).first;
  }
  last_page_ = page;
  last_ = &known->second;
  return prepare_known(page, known->second);
}

uint64_t CodeProtect::executable_end(uint64_t pc) {
  auto r = guest_space().find(pc);
  if (!r || (r->prot & kCode) != kCode) return pc;
  // Adjacent executable mappings form one stretch of code (a few suffice:
  // the frontend asks again when it gets to the end).
  uint64_t end = r->end;
  for (int i = 0; i < 4 && (r = guest_space().find(end)) && (r->prot & kCode) == kCode; ++i) end = r->end;
  return end;
}

bool CodeProtect::is_mapped(uint64_t address) { return guest_space().find(address).has_value(); }

bool CodeProtect::prepare_known(uint64_t page, Page& p) {
  // Writable, and not protected: new, or written since its last translation.
  if ((p.prot & PROT_WRITE) && !p.protected_ &&
      ::mprotect(reinterpret_cast<void*>(page), page_size_, p.prot & ~PROT_WRITE) == 0) {
    p.protected_ = true;
    ++protected_count_;
    logf(LogLevel::Debug, "phybin: guest code page %#llx is writable: write-protected to catch changes",
         static_cast<unsigned long long>(page));
  }
  return true;
}

bool CodeProtect::restore(uint64_t page, Page& p) {
  if (::mprotect(reinterpret_cast<void*>(page), page_size_, p.prot) != 0) return false;
  p.protected_ = false;
  --protected_count_;
  return true;
}

bool CodeProtect::unprotect_on_write(uint64_t address) {
  auto it = pages_.find(address & ~(page_size_ - 1));
  if (it == pages_.end() || !it->second.protected_) return false;
  // The entry stays: translating from the page again protects it again.
  return restore(it->first, it->second);
}

void CodeProtect::forget(uint64_t start, uint64_t length) {
  last_ = nullptr;
  last_page_ = 1;
  const uint64_t end = start + length;
  for (auto it = pages_.begin(); it != pages_.end();) {
    if (it->first + page_size_ > start && it->first < end) {
      if (it->second.protected_) --protected_count_;
      it = pages_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace phybin::runtime
