#include "runtime/translation_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__aarch64__)
#include <arm_acle.h>
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <type_traits>

namespace phybin::runtime {

namespace {

constexpr char kMagic[8] = {'P', 'H', 'Y', 'B', 'I', 'N', 'T', 'C'};
// Bump when the format or the meaning of saved code changes in a way the
// build id would not show (it always changes with phybin's code anyway).
constexpr uint32_t kVersion = 3;  // 3: relocatable, blocks of several files, saved linked
constexpr uint32_t kEndianMark = 0x01020304;

uint64_t mix(uint64_t h, uint64_t word) {
  h ^= word;
  h *= 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

// A checksum against torn or damaged files, not against tampering (the
// cache directory is the user's own, as trusted as the program itself):
// CRC-32C of the even and of the odd 64-bit words, two chains that run side
// by side.  It is computed on every load and save, so on AArch64 it is the
// CRC32CX instruction (one a word; FEAT_CRC32, mandatory from ARMv8.1);
// elsewhere a table gives the same values.
constexpr std::array<uint32_t, 256> kCrc32cTable = [] {
  std::array<uint32_t, 256> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1) ? 0x82f63b78u : 0);
    t[i] = c;
  }
  return t;
}();

uint32_t crc32c_word(uint32_t crc, uint64_t w) {
  for (int byte = 0; byte < 8; ++byte, w >>= 8) crc = kCrc32cTable[(crc ^ w) & 0xff] ^ (crc >> 8);
  return crc;
}

void crc32c_pairs_table(const uint8_t* p, size_t pairs, uint32_t& even, uint32_t& odd) {
  for (size_t i = 0; i < pairs; ++i, p += 16) {
    uint64_t w[2];
    std::memcpy(w, p, 16);
    even = crc32c_word(even, w[0]);
    odd = crc32c_word(odd, w[1]);
  }
}

#if defined(__aarch64__)
__attribute__((target("+crc"))) void crc32c_pairs_hw(const uint8_t* p, size_t pairs, uint32_t& even,
                                                     uint32_t& odd) {
  uint32_t a = even, b = odd;
  for (size_t i = 0; i < pairs; ++i, p += 16) {
    uint64_t w[2];
    std::memcpy(w, p, 16);
    a = __crc32cd(a, w[0]);
    b = __crc32cd(b, w[1]);
  }
  even = a;
  odd = b;
}

bool host_has_crc32() {
  static const bool has = (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
  return has;
}
#endif

uint64_t checksum(const uint8_t* p, size_t n) {
  uint32_t even = ~0u, odd = ~0u;
  const size_t pairs = n / 16;
#if defined(__aarch64__)
  if (host_has_crc32()) crc32c_pairs_hw(p, pairs, even, odd);
  else crc32c_pairs_table(p, pairs, even, odd);
#else
  crc32c_pairs_table(p, pairs, even, odd);
#endif
  uint64_t tail[2] = {0, 0};
  std::memcpy(tail, p + pairs * 16, n - pairs * 16);
  return mix(mix(mix(mix(0, n), uint64_t{even} << 32 | odd), tail[0]), tail[1]);
}

class Writer {
 public:
  template <typename T>
  void put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    out_.insert(out_.end(), p, p + sizeof v);
  }
  // Elements without padding only: their bytes are all defined.
  template <typename T>
  void put_array(const std::vector<T>& v) {
    static_assert(std::has_unique_object_representations_v<T>);
    const auto* p = reinterpret_cast<const uint8_t*>(v.data());
    out_.insert(out_.end(), p, p + v.size() * sizeof(T));
  }
  std::vector<uint8_t>& bytes() { return out_; }

 private:
  std::vector<uint8_t> out_;
};

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  template <typename T>
  bool get(T& v) {
    if (n_ - pos_ < sizeof v) return false;
    std::memcpy(&v, p_ + pos_, sizeof v);
    pos_ += sizeof v;
    return true;
  }
  // Checks the size before allocating: a damaged count cannot ask for
  // more memory than the file holds.
  template <typename T>
  bool get_array(std::vector<T>& v, uint64_t count) {
    if (count > (n_ - pos_) / sizeof(T)) return false;
    v.resize(count);
    if (count) std::memcpy(v.data(), p_ + pos_, count * sizeof(T));
    pos_ += count * sizeof(T);
    return true;
  }
  bool at_end() const { return pos_ == n_; }

 private:
  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
};

struct Counts {
  uint64_t id, helpers, files, blocks, marks, pages, links, code;
};

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t endian;
  Counts counts;
  uint64_t payload_bytes;
  uint64_t payload_checksum;
};
static_assert(std::has_unique_object_representations_v<Header>);

void put_key(Writer& w, const TranslationKey& k) {
  w.put_array(k.phybin_id);
  for (uint64_t v : {k.guest_dev, k.guest_ino, k.guest_size, k.guest_mtime_ns, k.settings}) w.put(v);
}

bool get_key(Reader& r, TranslationKey& k, uint64_t id_size) {
  return r.get_array(k.phybin_id, id_size) && r.get(k.guest_dev) && r.get(k.guest_ino) && r.get(k.guest_size) &&
         r.get(k.guest_mtime_ns) && r.get(k.settings);
}


bool range_ok(uint64_t begin, uint64_t count, size_t size) { return begin <= size && count <= size - begin; }

const char* check_block(const SavedBlock& b, uint64_t previous_end, const TranslationImage& im) {
  if (b.words == 0 || b.guest_start >= b.guest_end) return "empty block";
  if (b.offset < previous_end) return "blocks overlap or are out of order";
  if (b.indirect_words >= b.words || b.reserved != 0) return "indirect entry outside its block";
  if (b.file >= im.files.size()) return "block of no saved file";
  if (b.pool_count != 0 && ((b.offset + b.pool_words) % 2 != 0 || !range_ok(b.pool_words, uint64_t{b.pool_count} * 2, b.words)))
    return "address pool outside its block or misaligned";
  if (!range_ok(b.code_begin, b.words, im.code.size())) return "block code out of range";
  if (!range_ok(b.marks_begin, b.marks_count, im.marks.size())) return "block marks out of range";
  if (!range_ok(b.pages_begin, b.pages_count, im.pages.size())) return "block pages out of range";
  for (uint32_t i = 0; i < b.marks_count; ++i) {
    const SavedMark& m = im.marks[b.marks_begin + i];
    if (m.host_words >= b.words || m.guest_bytes >= b.guest_end - b.guest_start) return "mark outside its block";
  }
  return nullptr;
}

bool holds(const SavedBlock& b, uint32_t site) { return site >= b.offset && site - b.offset < b.words; }

const char* check_image(const TranslationImage& im) {
  uint64_t end = 0;
  for (const SavedBlock& b : im.blocks) {
    if (const char* why = check_block(b, end, im)) return why;
    end = uint64_t{b.offset} + b.words;
  }
  if (end > UINT32_MAX) return "code too large";
  for (const SavedLink& l : im.links) {
    if (l.source >= im.blocks.size() || l.target >= im.blocks.size()) return "link of no saved block";
    const SavedBlock& from = im.blocks[l.source];
    if (!holds(from, l.site) || !holds(from, l.unlinked) || from.file != im.blocks[l.target].file)
      return "link outside its block or across files";
  }
  return nullptr;
}

// mkdir -p: ~/.cache itself may not exist yet.
bool make_directories(const std::string& dir) {
  for (size_t slash = dir.find('/', 1);; slash = dir.find('/', slash + 1)) {
    const std::string prefix = dir.substr(0, slash);
    if (!prefix.empty() && mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST) return false;
    if (slash == std::string::npos) return true;
  }
}

}  // namespace

uint64_t TranslationKey::hash() const {
  uint64_t h = 0x6a09e667f3bcc908ull;
  for (uint8_t b : phybin_id) h = mix(h, b);
  for (uint64_t v : {guest_dev, guest_ino, guest_size, guest_mtime_ns, settings}) h = mix(h, v);
  return h;
}

std::vector<uint8_t> serialize(const TranslationImage& im) {
  Writer payload;
  put_key(payload, im.key);
  payload.put_array(im.helper_offsets);
  payload.put_array(im.files);
  payload.put_array(im.blocks);
  payload.put_array(im.marks);
  payload.put_array(im.pages);
  payload.put_array(im.links);
  payload.put_array(im.code);

  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kVersion;
  h.endian = kEndianMark;
  h.counts = Counts{im.key.phybin_id.size(), im.helper_offsets.size(), im.files.size(), im.blocks.size(),
                    im.marks.size(),         im.pages.size(),          im.links.size(), im.code.size()};
  h.payload_bytes = payload.bytes().size();
  h.payload_checksum = checksum(payload.bytes().data(), payload.bytes().size());
  Writer file;
  file.put(h);
  std::vector<uint8_t> out = std::move(file.bytes());
  out.insert(out.end(), payload.bytes().begin(), payload.bytes().end());
  return out;
}

std::optional<TranslationImage> deserialize(const std::vector<uint8_t>& bytes, std::string& why) {
  Header h{};
  Reader header(bytes.data(), bytes.size());
  if (!header.get(h) || std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) {
    why = "not a phybin translation file";
    return std::nullopt;
  }
  if (h.version != kVersion || h.endian != kEndianMark) {
    why = "made by another version of phybin";
    return std::nullopt;
  }
  const uint8_t* payload = bytes.data() + sizeof h;
  if (h.payload_bytes != bytes.size() - sizeof h || checksum(payload, h.payload_bytes) != h.payload_checksum) {
    why = "truncated or damaged";
    return std::nullopt;
  }
  TranslationImage im;
  Reader r(payload, h.payload_bytes);
  bool ok = get_key(r, im.key, h.counts.id) && r.get_array(im.helper_offsets, h.counts.helpers) &&
            r.get_array(im.files, h.counts.files);
  ok = ok && r.get_array(im.blocks, h.counts.blocks) && r.get_array(im.marks, h.counts.marks) && r.get_array(im.pages, h.counts.pages) &&
       r.get_array(im.links, h.counts.links) && r.get_array(im.code, h.counts.code) && r.at_end();
  if (!ok) {
    why = "inconsistent sizes";
    return std::nullopt;
  }
  if (const char* problem = check_image(im)) {
    why = problem;
    return std::nullopt;
  }
  return im;
}

bool write_translation_file(const std::string& dir, const std::string& name, const std::vector<uint8_t>& bytes,
                            std::string& why) {
  if (!make_directories(dir)) {
    why = "cannot create " + dir + ": " + std::strerror(errno);
    return false;
  }
  // Unique per process: runs of the same program may save at once.
  const std::string final_path = dir + "/" + name;
  const std::string tmp_path = final_path + ".tmp." + std::to_string(getpid());
  int fd = open(tmp_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    why = "cannot create " + tmp_path + ": " + std::strerror(errno);
    return false;
  }
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool written = done == bytes.size();
  const int saved_errno = errno;
  close(fd);
  if (!written || rename(tmp_path.c_str(), final_path.c_str()) != 0) {
    why = "cannot write " + final_path + ": " + std::strerror(written ? errno : saved_errno);
    unlink(tmp_path.c_str());
    return false;
  }
  return true;
}

bool read_translation_file(const std::string& path, std::vector<uint8_t>& bytes) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st {};
  bool ok = fstat(fd, &st) == 0 && st.st_size > 0;
  if (ok) {
    bytes.resize(static_cast<size_t>(st.st_size));
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = read(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ok = done == bytes.size();
  }
  close(fd);
  return ok;
}

size_t prune_translation_dir(const std::string& dir, uint64_t max_bytes) {
  struct Entry {
    std::string path;
    uint64_t bytes;
    int64_t mtime_ns;
  };
  std::vector<Entry> files;
  uint64_t total = 0;
  if (DIR* d = opendir(dir.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() < 5 || name.compare(name.size() - 4, 4, ".ptc") != 0) continue;
      struct stat st {};
      const std::string path = dir + "/" + name;
      if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      files.push_back({path, static_cast<uint64_t>(st.st_size),
                       int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec});
      total += static_cast<uint64_t>(st.st_size);
    }
    closedir(d);
  }
  std::sort(files.begin(), files.end(), [](const Entry& a, const Entry& b) { return a.mtime_ns < b.mtime_ns; });
  size_t removed = 0;
  for (const Entry& f : files) {
    if (total <= max_bytes) break;
    if (unlink(f.path.c_str()) == 0) ++removed;
    total -= f.bytes;
  }
  return removed;
}

}  // namespace phybin::runtime
