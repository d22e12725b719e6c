// The persistent translation cache: a run saves the blocks it translated
// from the program file's own code, the next run of the same program puts
// them back into its code cache before the guest starts.  Start-up code
// (glibc's initialisation, thousands of instructions run once) then costs
// a file read instead of a translation.
//
// Saved blocks are valid only for the same phybin binary (GNU build id:
// helper slots and code generation), the same program file (device,
// inode, size, mtime), the same load address and the same code-changing
// settings: all of that is the key, stored in the file and compared in
// full.  Only code from file pages the guest cannot write is saved; a range
// the guest remaps or re-protects stops being saved from then on.
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>

#include <algorithm>
#include <cinttypes>
#include <cstring>

#include "common/log.h"
#include "runtime/process.h"

namespace phybin::runtime {

namespace {

// phybin's own image: where it is loaded (helper slots are saved as offsets
// from there), its code, its build id.
struct SelfImage {
  uint64_t base = 0;
  std::vector<std::pair<uint64_t, uint64_t>> text;
  std::vector<uint8_t> build_id;

  bool in_text(uint64_t address) const {
    for (const auto& [begin, end] : text)
      if (address >= begin && address < end) return true;
    return false;
  }
};

void read_build_id(uint64_t base, const ElfW(Phdr) & note, std::vector<uint8_t>& id) {
  const auto* p = reinterpret_cast<const uint8_t*>(base + note.p_vaddr);
  const uint8_t* end = p + note.p_memsz;
  auto align4 = [](uint64_t n) { return (n + 3) & ~uint64_t{3}; };
  while (end - p >= static_cast<ptrdiff_t>(sizeof(ElfW(Nhdr)))) {
    ElfW(Nhdr) h;
    std::memcpy(&h, p, sizeof h);
    const uint8_t* name = p + sizeof h;
    const uint8_t* desc = name + align4(h.n_namesz);
    if (desc + h.n_descsz > end) return;
    if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
      id.assign(desc, desc + h.n_descsz);
      return;
    }
    p = desc + align4(h.n_descsz);
  }
}

int describe_first_object(dl_phdr_info* info, size_t, void* data) {
  auto* self = static_cast<SelfImage*>(data);
  self->base = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
      self->text.emplace_back(self->base + ph.p_vaddr, self->base + ph.p_vaddr + ph.p_memsz);
    if (ph.p_type == PT_NOTE && self->build_id.empty()) read_build_id(self->base, ph, self->build_id);
  }
  return 1;  // the executable comes first; the rest are libraries
}

const SelfImage& self_image() {
  static const SelfImage self = [] {
    SelfImage s;
    dl_iterate_phdr(describe_first_object, &s);
    return s;
  }();
  return self;
}

// What the translation files of all programs may take together.
constexpr uint64_t kMaxTranslationDirBytes = uint64_t{512} << 20;

uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ull; }

constexpr uint64_t kFewNewBlocks = 16;

bool range_holds(uint64_t begin, uint64_t end, uint64_t page, uint64_t page_size) {
  return page >= begin && page + page_size <= end;
}

}  // namespace

// Everything besides the guest bytes that changes the code a block gets.
// A new frontend or backend option must be added here.
uint64_t Process::settings_fingerprint() const {
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t v : {uint64_t{options_.strict_flags}, uint64_t{options_.max_block_insns},
                     uint64_t{backend_.exact_fp_nan}, uint64_t{backend_.lookup_mask},
                     uint64_t{frontend_options_.host_crc32}, uint64_t{frontend_options_.host_pmull},
                     uint64_t{frontend_options_.host_aes}, uint64_t{options_.exact_mxcsr},
                     uint64_t{backend_.lse}, uint64_t{backend_.tso}, uint64_t{backend_.lrcpc}})
    h = mix(h, v);
  return h;
}

void Process::setup_persistence() {
  const PersistOptions& opt = options_.persist;
  const SelfImage& self = self_image();
  struct stat st {};
  if (opt.dir.empty() || self.build_id.empty() || stat(opt.guest_path.c_str(), &st) != 0) return;
  persist_key_.phybin_id = self.build_id;
  persist_key_.guest_dev = st.st_dev;
  persist_key_.guest_ino = st.st_ino;
  persist_key_.guest_size = static_cast<uint64_t>(st.st_size);
  persist_key_.guest_mtime_ns = static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000u +
                                static_cast<uint64_t>(st.st_mtim.tv_nsec);
  persist_key_.load_bias = opt.load_bias;
  persist_key_.settings = settings_fingerprint();
  for (const auto& [begin, end] : opt.ranges)
    if (persist_range_count_ < kMaxPersistRanges) persist_ranges_[persist_range_count_++] = {begin, end, true};
  char name[32];
  std::snprintf(name, sizeof name, "%016" PRIx64 ".ptc", persist_key_.hash());
  persist_name_ = name;
  persist_dir_ = opt.dir;
}

void Process::forget_pristine_code(uint64_t begin, uint64_t end) {
  const uint64_t size = protect_.page_size();
  for (size_t r = 0; r < persist_range_count_; ++r) {
    PersistRange& range = persist_ranges_[r];
    const uint64_t from = std::max(begin & ~(size - 1), range.begin), to = std::min(end, range.end);
    for (uint64_t page = from; page < to && range.pristine; page += size) {
      if (dirty_page_count_ == kMaxDirtyPages) range.pristine = false;
      else dirty_pages_[dirty_page_count_++] = page;
    }
  }
}

bool Process::pristine_page(uint64_t page) const {
  bool inside = false;
  for (size_t r = 0; r < persist_range_count_ && !inside; ++r)
    inside = persist_ranges_[r].pristine &&
             range_holds(persist_ranges_[r].begin, persist_ranges_[r].end, page, protect_.page_size());
  for (size_t i = 0; i < dirty_page_count_ && inside; ++i) inside = dirty_pages_[i] != page;
  return inside;
}

bool Process::persistable(BlockTable::Index block) const {
  const BlockInfo& info = blocks_.at(block);
  if (!info.valid || info.pages_count == 0) return false;
  const uint64_t* pages = blocks_.pages_of(block);
  for (uint32_t i = 0; i < info.pages_count; ++i)
    if (!pristine_page(pages[i])) return false;
  return true;
}

void Process::load_translations() {
  setup_persistence();
  if (persist_dir_.empty() || blocks_.size() != 0 || helpers_.size() != 0) return;
  const std::string path = persist_dir_ + "/" + persist_name_;
  std::vector<uint8_t> bytes;
  if (!read_translation_file(path, bytes)) return;
  std::string why;
  std::optional<TranslationImage> image = deserialize(bytes, why);
  if (image && image->key != persist_key_) why = "made for another program, phybin or setting";
  else if (image && image->cache_words() > cache_.free_words()) why = "larger than the code cache";
  else if (image && image->helper_offsets.size() > arm64::HelperTable::kSlots) why = "too many helpers";
  if (!image || !why.empty()) {
    logf(LogLevel::Warn, "phybin: ignoring saved translations %s: %s", path.c_str(), why.c_str());
    return;
  }
  const SelfImage& self = self_image();
  for (size_t slot = 0; slot < image->helper_offsets.size(); ++slot) {
    const uint64_t fn = self.base + image->helper_offsets[slot];
    if (!self.in_text(fn) || helpers_.slot_of(fn) != slot) {
      logf(LogLevel::Warn, "phybin: ignoring saved translations %s: bad helper table", path.c_str());
      return;  // slots taken so far stay unused: harmless
    }
  }
  for (uint64_t page : image->pages) {
    if (!protect_.prepare_page(page)) {
      logf(LogLevel::Warn, "phybin: ignoring saved translations %s: guest code not mapped", path.c_str());
      return;
    }
  }
  place_saved_blocks(*image);
  utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // recently used: pruned last
  logf(LogLevel::Info, "phybin: loaded %zu blocks from %s", image->blocks.size(), path.c_str());
}

void Process::place_saved_blocks(const TranslationImage& image) {
  uint32_t* begin = cache_.free_begin();
  for (const SavedBlock& b : image.blocks)
    std::memcpy(begin + b.offset, image.code.data() + b.code_begin, size_t{b.words} * 4);
  cache_.commit(begin + image.cache_words());
  const auto first = static_cast<BlockTable::Index>(blocks_.size());
  std::vector<BlockTable::PackedMark> marks;
  for (const SavedBlock& b : image.blocks) {
    marks.clear();
    for (uint32_t i = 0; i < b.marks_count; ++i)
      marks.push_back({image.marks[b.marks_begin + i].host_words, image.marks[b.marks_begin + i].guest_bytes});
    BlockTable::Index index =
        blocks_.add(b.guest_start, b.guest_end, begin + b.offset, b.words, marks.data(), marks.size());
    blocks_.set_indirect_entry(index, b.indirect_words);
    for (uint32_t i = 0; i < b.pages_count; ++i) blocks_.depends_on_page(index, image.pages[b.pages_begin + i]);
    enter_in_lookups(index);
  }
  for (const SavedLink& l : image.links) link(begin + l.site, first + l.target);
  blocks_loaded_ = image.blocks.size();
}

// The saved form of the blocks made from the program's pristine code:
// their code as in the cache but with linked exits put back to their
// unlinked form (the link may lead to a block that is not saved), and
// the links between saved blocks listed apart.
TranslationImage Process::saved_image() const {
  TranslationImage im;
  im.key = persist_key_;
  const SelfImage& self = self_image();
  for (size_t slot = 0; slot < helpers_.size(); ++slot) im.helper_offsets.push_back(helpers_.at(slot) - self.base);
  const uint32_t* begin = cache_.blocks_begin();
  std::vector<uint32_t> saved_as(blocks_.size(), BlockTable::kNone);
  for (BlockTable::Index b = 0; b < blocks_.size(); ++b) {
    if (!persistable(b)) continue;
    const BlockInfo& info = blocks_.at(b);
    SavedBlock sb;
    sb.guest_start = info.guest_start;
    sb.guest_end = info.guest_end;
    sb.offset = static_cast<uint32_t>(info.host - begin);
    sb.words = info.host_words;
    sb.indirect_words = info.indirect_words;
    sb.code_begin = static_cast<uint32_t>(im.code.size());
    im.code.insert(im.code.end(), info.host, info.host + info.host_words);
    sb.marks_begin = static_cast<uint32_t>(im.marks.size());
    sb.marks_count = info.marks_count;
    for (uint32_t i = 0; i < info.marks_count; ++i) {
      const BlockTable::PackedMark& m = blocks_.marks_of(b)[i];
      im.marks.push_back({m.host_words, m.guest_bytes});
    }
    sb.pages_begin = static_cast<uint32_t>(im.pages.size());
    sb.pages_count = info.pages_count;
    im.pages.insert(im.pages.end(), blocks_.pages_of(b), blocks_.pages_of(b) + info.pages_count);
    saved_as[b] = static_cast<uint32_t>(im.blocks.size());
    im.blocks.push_back(sb);
  }
  for (const BlockTable::Link& l : blocks_.links()) {
    const BlockTable::Index from = blocks_.find_host(l.site);
    if (from == BlockTable::kNone || saved_as[from] == BlockTable::kNone) continue;
    const SavedBlock& sb = im.blocks[saved_as[from]];
    uint32_t* copy = im.code.data() + sb.code_begin + (l.site - blocks_.at(from).host);
    arm64::Assembler::patch_branch(copy, copy + (l.unlinked - l.site));  // as exit_to left it
    if (saved_as[l.target] != BlockTable::kNone)
      im.links.push_back({static_cast<uint32_t>(l.site - begin), saved_as[l.target]});
  }
  return im;
}

void Process::save_translations() {
  const TablesGuard guard(tables_);
  // Nothing new since the load: the file holds all of it already.  (Code
  // checked for unmasked SSE exceptions is saved too: with them masked its
  // checks never fire, so it is right in any run, only slower.)
  if (persist_dir_.empty() || blocks_translated_ == 0) return;
  // A loaded file that lacks only a few blocks (start-up paths that vary
  // with the stack's alignment) is kept: writing it anew costs more (about
  // 0.8 M instructions) than translating those blocks again next time.
  if (blocks_loaded_ > 0 && blocks_translated_ < std::max<uint64_t>(kFewNewBlocks, blocks_loaded_ / 32)) {
    logf(LogLevel::Info, "phybin: translations not saved again: only %llu new blocks",
         static_cast<unsigned long long>(blocks_translated_));
    return;
  }
  // Code made for DAZ or FTZ alone flushes in software: wrong in a run
  // that starts with the usual MXCSR.
  if (fp_mode_ != initial_fp_mode()) {
    log_line(LogLevel::Info, "phybin: translations not saved: made for a non-default MXCSR flush mode");
    return;
  }
  const SelfImage& self = self_image();
  for (size_t slot = 0; slot < helpers_.size(); ++slot) {
    if (!self.in_text(helpers_.at(slot))) {
      logf(LogLevel::Warn, "phybin: translations not saved: helper %#" PRIx64 " outside phybin", helpers_.at(slot));
      return;
    }
  }
  TranslationImage image = saved_image();
  if (image.blocks.empty()) return;
  std::string why;
  if (write_translation_file(persist_dir_, persist_name_, serialize(image), why)) {
    logf(LogLevel::Info, "phybin: saved %zu blocks to %s/%s", image.blocks.size(), persist_dir_.c_str(),
         persist_name_.c_str());
    if (size_t n = prune_translation_dir(persist_dir_, kMaxTranslationDirBytes))
      logf(LogLevel::Info, "phybin: removed %zu least recently used translation files", n);
  } else
    logf(LogLevel::Warn, "phybin: translations not saved: %s", why.c_str());
}

}  // namespace phybin::runtime
