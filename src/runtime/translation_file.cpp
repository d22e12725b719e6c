#include "runtime/translation_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__aarch64__)
#include <arm_acle.h>
#endif

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <type_traits>

#include "runtime/host_features.h"

namespace phybin::runtime {

namespace {

constexpr char kMagic[8] = {'P', 'H', 'Y', 'B', 'I', 'N', 'T', 'C'};
// Bump when the format or the meaning of saved code changes in a way the
// build id would not show (it always changes with phybin's code anyway).
constexpr uint32_t kVersion = 7;  // 7: files and the program keyed by their ctime too
constexpr uint32_t kEndianMark = 0x01020304;

uint64_t mix(uint64_t h, uint64_t word) {
  h ^= word;
  h *= 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

// A checksum against torn or damaged files, not against tampering (the
// cache directory is the user's own, as trusted as the program itself):
// CRC-32C in four chains side by side, chain k over the 64-bit words k,
// k + 4, k + 8...  It is computed on every load and save, so on AArch64 it
// is the CRC32CX instruction (one a word; FEAT_CRC32, mandatory from
// ARMv8.1), whose latency the four chains hide; elsewhere a table gives the
// same values.
constexpr size_t kChains = 4;
constexpr size_t kGroupBytes = kChains * 8;

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

void crc32c_groups_table(const uint8_t* p, size_t groups, uint32_t (&crc)[kChains]) {
  for (size_t i = 0; i < groups; ++i, p += kGroupBytes) {
    uint64_t w[kChains];
    std::memcpy(w, p, sizeof w);
    for (size_t k = 0; k < kChains; ++k) crc[k] = crc32c_word(crc[k], w[k]);
  }
}

#if defined(__aarch64__)
// Two groups an iteration: fewer loop instructions per byte.
__attribute__((target("+crc"))) void crc32c_groups_hw(const uint8_t* p, size_t groups, uint32_t (&crc)[kChains]) {
  uint32_t a = crc[0], b = crc[1], c = crc[2], d = crc[3];
  for (; groups >= 2; groups -= 2, p += 2 * kGroupBytes) {
    // Word by word, not into an array: that would go through the stack.
    auto word = [p](int k) {
      uint64_t w;
      std::memcpy(&w, p + 8 * k, 8);
      return w;
    };
    a = __crc32cd(__crc32cd(a, word(0)), word(4));
    b = __crc32cd(__crc32cd(b, word(1)), word(5));
    c = __crc32cd(__crc32cd(c, word(2)), word(6));
    d = __crc32cd(__crc32cd(d, word(3)), word(7));
  }
  crc[0] = a, crc[1] = b, crc[2] = c, crc[3] = d;
  if (groups) crc32c_groups_table(p, groups, crc);
}

bool host_has_crc32() {
  static const bool has = host_has(HostFeature::Crc32);
  return has;
}
#endif

uint64_t checksum(const uint8_t* p, size_t n) {
  uint32_t crc[kChains] = {~0u, ~0u, ~0u, ~0u};
  const size_t groups = n / kGroupBytes;
#if defined(__aarch64__)
  if (host_has_crc32()) crc32c_groups_hw(p, groups, crc);
  else crc32c_groups_table(p, groups, crc);
#else
  crc32c_groups_table(p, groups, crc);
#endif
  uint64_t tail[kChains] = {};
  std::memcpy(tail, p + groups * kGroupBytes, n - groups * kGroupBytes);
  uint64_t h = mix(mix(0, n), uint64_t{crc[0]} << 32 | crc[1]);
  h = mix(h, uint64_t{crc[2]} << 32 | crc[3]);
  for (uint64_t w : tail) h = mix(h, w);
  return h;
}

constexpr size_t kArrayAlign = 8;

class Writer {
 public:
  template <typename T>
  void put(T v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const uint8_t*>(&v);
    out_.insert(out_.end(), p, p + sizeof v);
  }
  // Elements without padding only: their bytes are all defined.  Each
  // array ends padded to 8 bytes, so that the reader finds every array
  // aligned in the file's buffer.
  template <typename T>
  void put_array(const std::vector<T>& v, bool pad = true) {
    static_assert(std::has_unique_object_representations_v<T> && alignof(T) <= kArrayAlign);
    const auto* p = reinterpret_cast<const uint8_t*>(v.data());
    out_.insert(out_.end(), p, p + v.size() * sizeof(T));
    if (pad) out_.resize((out_.size() + kArrayAlign - 1) & ~(kArrayAlign - 1), 0);
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
  // more memory than the file holds.  The array starts aligned in an
  // aligned buffer (Writer::put_array): copied without first zeroing.
  template <typename T>
  bool get_array(std::vector<T>& v, uint64_t count) {
    const uint64_t bytes = (count * sizeof(T) + kArrayAlign - 1) & ~(kArrayAlign - 1);
    if (count > (n_ - pos_) / sizeof(T) || bytes > n_ - pos_) return false;
    const uint8_t* p = p_ + pos_;
    if (reinterpret_cast<uintptr_t>(p) % alignof(T) == 0) {
      const auto* first = reinterpret_cast<const T*>(p);
      v.assign(first, first + count);
    } else {
      v.resize(count);
      if (count) std::memcpy(v.data(), p, count * sizeof(T));
    }
    pos_ += bytes;
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

// The counts too: arrays are padded, so a damaged count can still parse.
// The code, last in the payload, has its own sum: a load reads it straight
// into the code cache, apart from the rest.
uint64_t checksum_of(const Counts& c, const uint8_t* meta, size_t meta_bytes, const uint8_t* code,
                     size_t code_bytes) {
  uint64_t h = mix(checksum(meta, meta_bytes), checksum(code, code_bytes));
  for (uint64_t v : {c.id, c.helpers, c.files, c.blocks, c.marks, c.pages, c.links, c.code}) h = mix(h, v);
  return h;
}

// The code array's bytes: last in the payload, not padded.
uint64_t code_bytes_of(const Counts& c) { return c.code * 4; }

void put_key(Writer& w, const TranslationKey& k) {
  w.put_array(k.phybin_id);
  for (uint64_t v : {k.guest_dev, k.guest_ino, k.guest_size, k.guest_mtime_ns, k.guest_ctime_ns, k.settings}) w.put(v);
}

bool get_key(Reader& r, TranslationKey& k, uint64_t id_size) {
  return r.get_array(k.phybin_id, id_size) && r.get(k.guest_dev) && r.get(k.guest_ino) && r.get(k.guest_size) &&
         r.get(k.guest_mtime_ns) && r.get(k.guest_ctime_ns) && r.get(k.settings);
}


bool range_ok(uint64_t begin, uint64_t count, size_t size) { return begin <= size && count <= size - begin; }

// The per-block checks; `marks` is where the block's own begin (after the
// previous block's).
const char* check_block(const SavedBlock& b, uint64_t previous_end, const TranslationImage& im, uint64_t marks) {
  if (b.words == 0 || b.guest_bytes == 0) return "empty block";
  if (b.offset < previous_end) return "blocks overlap or are out of order";
  if (b.indirect_words >= b.words || b.reserved != 0) return "indirect entry outside its block";
  if (b.file >= im.files.size()) return "block of no saved file";
  if (b.pool_count != 0 && ((b.offset + b.pool_words) % 2 != 0 || !range_ok(b.pool_words, uint64_t{b.pool_count} * 2, b.words)))
    return "address pool outside its block or misaligned";
  if (!range_ok(b.offset, b.words, im.code.size())) return "block code out of range";
  if (!range_ok(marks, b.marks_count, im.marks.size())) return "block marks out of range";
  return nullptr;
}

bool holds(const SavedBlock& b, uint32_t site) { return site >= b.offset && site - b.offset < b.words; }

// Marks only map a host pc back to a guest one (a wrong one could name a
// wrong instruction, never reach outside memory), so the checksum is
// their check; what addresses memory is checked here.
const char* check_blocks(const TranslationImage& im) {
  uint64_t end = 0, marks = 0;
  for (const SavedBlock& b : im.blocks) {
    if (const char* why = check_block(b, end, im, marks)) return why;
    end = uint64_t{b.offset} + b.words;
    marks += b.marks_count;
  }
  if (end > UINT32_MAX) return "code too large";
  if (end != im.code.size() || marks != im.marks.size()) return "code or marks left over";
  return nullptr;
}

const char* check_pages_and_links(const TranslationImage& im) {
  uint64_t last_file = 0, last_page = 0;
  for (const SavedPage& p : im.pages) {
    if (p.block >= im.blocks.size()) return "page of no saved block";
    const uint64_t file = im.blocks[p.block].file;
    if (file < last_file || (file == last_file && p.page < last_page)) return "pages out of order";
    last_file = file;
    last_page = p.page;
  }
  last_file = 0;
  for (const SavedLink& l : im.links) {
    if (l.source >= im.blocks.size() || l.target >= im.blocks.size()) return "link of no saved block";
    const SavedBlock& from = im.blocks[l.source];
    if (!holds(from, l.site) || !holds(from, l.unlinked) || from.file != im.blocks[l.target].file)
      return "link outside its block or across files";
    if (from.file < last_file) return "links out of order";
    last_file = from.file;
  }
  return nullptr;
}

// Each block once, by file and then guest offset, with its own offset.
const char* check_entries(const TranslationImage& im) {
  if (im.entries.size() != im.blocks.size()) return "not one entry per block";
  std::vector<bool> seen(im.blocks.size());
  uint64_t last = 0;
  for (const SavedEntry& e : im.entries) {
    if (e.block >= im.blocks.size() || seen[e.block]) return "entry of no block or a block twice";
    seen[e.block] = true;
    const SavedBlock& b = im.blocks[e.block];
    const uint64_t key = uint64_t{b.file} << 32 | e.guest_offset;
    if (e.guest_offset != b.guest_offset || key < last) return "entries out of order";
    last = key;
  }
  return nullptr;
}

const char* check_image(const TranslationImage& im) {
  if (const char* why = check_blocks(im)) return why;
  if (const char* why = check_pages_and_links(im)) return why;
  return check_entries(im);
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
  for (uint64_t v : {guest_dev, guest_ino, guest_size, guest_mtime_ns, guest_ctime_ns, settings}) h = mix(h, v);
  return h;
}

std::optional<std::vector<uint8_t>> serialize(const TranslationImage& im, std::string& why) {
  if (const char* problem = check_image(im)) {
    why = std::string("inconsistent image: ") + problem;
    return std::nullopt;
  }
  Writer payload;
  put_key(payload, im.key);
  payload.put_array(im.helper_offsets);
  payload.put_array(im.files);
  payload.put_array(im.blocks);
  payload.put_array(im.marks);
  payload.put_array(im.pages);
  payload.put_array(im.entries);
  payload.put_array(im.links);
  const size_t meta_bytes = payload.bytes().size();
  payload.put_array(im.code, /*pad=*/false);

  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.version = kVersion;
  h.endian = kEndianMark;
  h.counts = Counts{im.key.phybin_id.size(), im.helper_offsets.size(), im.files.size(), im.blocks.size(),
                    im.marks.size(),         im.pages.size(),          im.links.size(), im.code.size()};
  // (entries: one per block, their count is the blocks'.)
  h.payload_bytes = payload.bytes().size();
  const uint8_t* p = payload.bytes().data();
  h.payload_checksum = checksum_of(h.counts, p, meta_bytes, p + meta_bytes, h.payload_bytes - meta_bytes);
  Writer file;
  file.put(h);
  std::vector<uint8_t> out = std::move(file.bytes());
  out.insert(out.end(), payload.bytes().begin(), payload.bytes().end());
  return out;
}

namespace {

// The header's own checks, and where the payload's code begins: the size
// of everything before it (`meta_bytes`).  False with `why`.
bool check_header(const Header& h, uint64_t file_bytes, uint64_t& meta_bytes, std::string& why) {
  if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) {
    why = "not a phybin translation file";
    return false;
  }
  if (h.version != kVersion || h.endian != kEndianMark) {
    why = "made by another version of phybin";
    return false;
  }
  if (h.payload_bytes != file_bytes - sizeof h || h.counts.code > h.payload_bytes / 4) {
    why = "truncated or damaged";
    return false;
  }
  meta_bytes = h.payload_bytes - code_bytes_of(h.counts);
  return true;
}

// Everything but the code, from the payload's first `meta` bytes, which
// the checksum has vouched for; then the key.
std::optional<TranslationImage> parse_meta(const uint8_t* meta, size_t n, const Counts& c,
                                           const TranslationKey& expected, std::string& why) {
  TranslationImage im;
  Reader r(meta, n);
  bool ok = get_key(r, im.key, c.id) && r.get_array(im.helper_offsets, c.helpers) && r.get_array(im.files, c.files);
  ok = ok && r.get_array(im.blocks, c.blocks) && r.get_array(im.marks, c.marks) && r.get_array(im.pages, c.pages) &&
       r.get_array(im.entries, c.blocks) && r.get_array(im.links, c.links) && r.at_end();
  if (!ok) {
    why = "inconsistent sizes";
    return std::nullopt;
  }
  if (im.key != expected) {
    why = "made for another program, phybin or setting";
    return std::nullopt;
  }
  return im;
}

bool read_all(int fd, void* to, size_t n, off_t at) {
  auto* p = static_cast<uint8_t*>(to);
  for (size_t done = 0; done < n;) {
    const ssize_t got = pread(fd, p + done, n - done, at + static_cast<off_t>(done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += static_cast<size_t>(got);
  }
  return true;
}

}  // namespace

std::optional<TranslationImage> deserialize(const std::vector<uint8_t>& bytes, const TranslationKey& expected,
                                            std::string& why) {
  Header h{};
  Reader header(bytes.data(), bytes.size());
  uint64_t meta_bytes = 0;
  if (!header.get(h)) {
    why = "not a phybin translation file";
    return std::nullopt;
  }
  if (!check_header(h, bytes.size(), meta_bytes, why)) return std::nullopt;
  const uint8_t* meta = bytes.data() + sizeof h;
  const uint8_t* code = meta + meta_bytes;
  if (checksum_of(h.counts, meta, meta_bytes, code, h.payload_bytes - meta_bytes) != h.payload_checksum) {
    why = "truncated or damaged";
    return std::nullopt;
  }
  std::optional<TranslationImage> im = parse_meta(meta, meta_bytes, h.counts, expected, why);
  if (im) {
    im->code.resize(h.counts.code);
    if (h.counts.code) std::memcpy(im->code.data(), code, h.counts.code * 4);
  }
  return im;
}

std::optional<TranslationImage> load_translation_file(const std::string& path, const TranslationKey& expected,
                                                      uint32_t* code, size_t code_words, std::string& why) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;  // no file: nothing to say
  struct stat st {};
  Header h{};
  uint64_t meta_bytes = 0;
  std::vector<uint8_t> meta;
  std::optional<TranslationImage> im;
  if (fstat(fd, &st) != 0 || static_cast<uint64_t>(st.st_size) < sizeof h || !read_all(fd, &h, sizeof h, 0)) {
    why = "unreadable or truncated";
  } else if (check_header(h, static_cast<uint64_t>(st.st_size), meta_bytes, why)) {
    const uint64_t code_bytes = h.counts.code * 4;
    meta.resize(meta_bytes);
    if (h.counts.code > code_words) {
      why = "larger than the code cache";
    } else if (!read_all(fd, meta.data(), meta_bytes, sizeof h) ||
               !read_all(fd, code, code_bytes, static_cast<off_t>(sizeof h + meta_bytes))) {
      why = "truncated or damaged";
    } else if (checksum_of(h.counts, meta.data(), meta_bytes, reinterpret_cast<const uint8_t*>(code), code_bytes) !=
               h.payload_checksum) {
      why = "truncated or damaged";
    } else {
      im = parse_meta(meta.data(), meta_bytes, h.counts, expected, why);
    }
  }
  close(fd);
  return im;
}

bool write_translation_file(const std::string& dir, const std::string& name, const std::vector<uint8_t>& bytes,
                            std::string& why) {
  if (!make_directories(dir)) {
    why = "cannot create " + dir + ": " + std::strerror(errno);
    return false;
  }
  // Unique per writer, made so by O_EXCL over a random name: runs of the
  // same program may save at once, and a process ID is not unique among
  // containers and machines that share the directory.
  const std::string final_path = dir + "/" + name;
  std::string tmp_path = final_path + ".tmp.XXXXXX";
  int fd = mkostemp(tmp_path.data(), O_CLOEXEC);
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

namespace {

// A writer's temporary file untouched for an hour is one whose writer died
// before renaming it: its name is its writer's alone, so no one else would
// ever write or remove it.
void remove_if_abandoned(const std::string& path) {
  constexpr time_t kAbandonedSeconds = 3600;
  struct stat st {};
  if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && time(nullptr) - st.st_mtim.tv_sec > kAbandonedSeconds)
    unlink(path.c_str());
}

}  // namespace

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
      if (name.find(".ptc.tmp.") != std::string::npos) remove_if_abandoned(dir + "/" + name);
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
