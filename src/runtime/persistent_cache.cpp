#include "runtime/persistent_cache.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "common/log.h"

namespace phybin::runtime {
namespace {

constexpr char kMagic[8] = {'P', 'H', 'Y', 'B', 'T', 'C', '0', '1'};

struct FileHeader {
  char magic[8];
  uint64_t helpers, blocks, maps, code;
};

uint64_t fnv1a(uint64_t h, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

// The GNU build id of phybin itself: translations depend on every line of
// the translator, and the build id changes whenever the binary does.
uint64_t phybin_build_id() {
  static const uint64_t id = [] {
    uint64_t h = 0xcbf29ce484222325ull;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) -> int {
          if (info->dlpi_name && info->dlpi_name[0]) return 0;  // only the main program
          auto* hash = static_cast<uint64_t*>(data);
          for (int i = 0; i < info->dlpi_phnum; ++i) {
            const ElfW(Phdr)& ph = info->dlpi_phdr[i];
            if (ph.p_type != PT_NOTE) continue;
            const auto* p = reinterpret_cast<const uint8_t*>(info->dlpi_addr + ph.p_vaddr);
            const uint8_t* end = p + ph.p_memsz;
            while (p + sizeof(ElfW(Nhdr)) <= end) {
              const auto* n = reinterpret_cast<const ElfW(Nhdr)*>(p);
              const uint8_t* desc = p + sizeof(ElfW(Nhdr)) + ((n->n_namesz + 3) & ~3u);
              if (n->n_type == NT_GNU_BUILD_ID) *hash = fnv1a(*hash, desc, n->n_descsz);
              p = desc + ((n->n_descsz + 3) & ~3u);
            }
          }
          return 1;
        },
        &h);
    return h;
  }();
  return id;
}

bool make_directories(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/') continue;
    std::string part = dir.substr(0, i);
    if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

bool write_all(int fd, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

template <typename T>
bool read_array(const uint8_t*& p, const uint8_t* end, uint64_t count, std::vector<T>& out) {
  if (count > static_cast<uint64_t>(end - p) / sizeof(T)) return false;
  out.resize(count);
  std::memcpy(out.data(), p, count * sizeof(T));
  p += count * sizeof(T);
  return true;
}

}  // namespace

std::string code_cache_directory() {
  if (const char* v = std::getenv("PHYBIN_CODE_CACHE")) {
    if (std::strcmp(v, "off") == 0 || std::strcmp(v, "0") == 0) return {};
    return v;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/phybin";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/phybin";
  return {};
}

std::string translation_key(const std::string& guest_path, uint64_t load_bias, uint64_t settings_hash) {
  struct stat st;
  if (stat(guest_path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  uint64_t fields[] = {phybin_build_id(),
                       static_cast<uint64_t>(st.st_dev),
                       static_cast<uint64_t>(st.st_ino),
                       static_cast<uint64_t>(st.st_size),
                       static_cast<uint64_t>(st.st_mtim.tv_sec),
                       static_cast<uint64_t>(st.st_mtim.tv_nsec),
                       load_bias,
                       settings_hash};
  uint64_t h = fnv1a(0xcbf29ce484222325ull, fields, sizeof fields);
  char name[32];
  std::snprintf(name, sizeof name, "%016llx", static_cast<unsigned long long>(h));
  return name;
}

std::optional<SavedTranslations> load_translations(const std::string& directory, const std::string& key) {
  std::string path = directory + "/" + key;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st;
  std::vector<uint8_t> bytes;
  if (fstat(fd, &st) == 0 && st.st_size > 0) {
    bytes.resize(static_cast<size_t>(st.st_size));
    if (read(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) bytes.clear();
  }
  close(fd);
  FileHeader h;
  if (bytes.size() < sizeof h) return std::nullopt;
  std::memcpy(&h, bytes.data(), sizeof h);
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) return std::nullopt;
  SavedTranslations t;
  const uint8_t* p = bytes.data() + sizeof h;
  const uint8_t* end = bytes.data() + bytes.size();
  if (!read_array(p, end, h.helpers, t.helpers) || !read_array(p, end, h.blocks, t.blocks) ||
      !read_array(p, end, h.maps, t.maps) || !read_array(p, end, h.code, t.code) || p != end) {
    logf(LogLevel::Warn, "phybin: warning: ignoring the damaged translation cache file %s", path.c_str());
    return std::nullopt;
  }
  return t;
}

bool save_translations(const std::string& directory, const std::string& key, const SavedTranslations& t) {
  if (!make_directories(directory)) return false;
  std::string path = directory + "/" + key;
  std::string tmp = path + ".tmp." + std::to_string(getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  FileHeader h;
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.helpers = t.helpers.size();
  h.blocks = t.blocks.size();
  h.maps = t.maps.size();
  h.code = t.code.size();
  bool ok = write_all(fd, &h, sizeof h) && write_all(fd, t.helpers.data(), t.helpers.size() * sizeof(int64_t)) &&
            write_all(fd, t.blocks.data(), t.blocks.size() * sizeof(SavedBlock)) &&
            write_all(fd, t.maps.data(), t.maps.size() * sizeof(SavedMapEntry)) &&
            write_all(fd, t.code.data(), t.code.size() * sizeof(uint32_t));
  ok = close(fd) == 0 && ok;
  // rename() is atomic: a concurrent run sees the old file or the new one.
  if (ok && rename(tmp.c_str(), path.c_str()) == 0) return true;
  unlink(tmp.c_str());
  return false;
}

}  // namespace phybin::runtime
