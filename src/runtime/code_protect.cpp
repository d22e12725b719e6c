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

namespace phybin::runtime {

namespace {

// The whole file; retried on EINTR (guest signals interrupt host calls).
std::string read_file(const char* path) {
  std::string text;
  int fd;
  do fd = ::open(path, O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return text;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace

void CodeProtect::read_maps() {
  maps_.clear();
  const std::string text = read_file("/proc/self/maps");
  const char* p = text.c_str();
  while (*p) {
    char* end;
    Region r{};
    r.start = std::strtoull(p, &end, 16);
    if (*end == '-') r.end = std::strtoull(end + 1, &end, 16);
    while (*end == ' ') ++end;
    if (end[0] == 'r') r.prot |= PROT_READ;
    if (end[0] && end[1] == 'w') r.prot |= PROT_WRITE;
    if (end[0] && end[1] && end[2] == 'x') r.prot |= PROT_EXEC;
    if (r.end > r.start) maps_.push_back(r);
    const char* nl = std::strchr(end, '\n');
    if (!nl) break;
    p = nl + 1;
  }
  std::sort(maps_.begin(), maps_.end(), [](const Region& a, const Region& b) { return a.start < b.start; });
  maps_stale_ = false;
}

const CodeProtect::Region* CodeProtect::find_region(uint64_t address) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (maps_stale_ || attempt == 1) read_maps();
    auto it = std::upper_bound(maps_.begin(), maps_.end(), address,
                               [](uint64_t a, const Region& r) { return a < r.start; });
    if (it != maps_.begin() && address < (it - 1)->end) return &*(it - 1);
    // Not in the snapshot: a mapping made since (mmap without MAP_FIXED
    // and brk do not tell us).  Read the maps once more.
  }
  return nullptr;
}

bool CodeProtect::prepare_page(uint64_t page) {
  if (page == last_page_ && last_) return prepare_known(page, *last_);
  auto known = pages_.find(page);
  if (known == pages_.end()) {
    const Region* r = find_region(page);
    const int prot = r ? r->prot : PROT_NONE;
    if (!(prot & PROT_READ)) return false;  // looked up again next time
    known = pages_.emplace(page, Page{prot, false}).first;
  }
  last_page_ = page;
  last_ = &known->second;
  return prepare_known(page, known->second);
}

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
  maps_stale_ = true;
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
