// The persistent translation cache: a run saves the blocks it translated
// from files (the program, its interpreter, its shared libraries), the next
// run of the same program puts them back into its code cache before the
// guest starts, and each file's blocks wake when the guest first runs code
// of that file, moved to where the file is in this run.  Start-up code
// (the dynamic loader, glibc's initialisation, thousands of instructions
// run once) then costs a file read instead of a translation.
//
// A translation file is valid only for the same phybin binary (GNU build
// id: helper slots and code generation), the same program file (device,
// inode, size, mtime) and the same code-changing settings: all of that is
// the key, stored in the file and compared in full.  Each block names its
// file the same way.  Only code from file mappings the guest never made
// writable is saved, and woken only where the guest's mapping of the same
// file is such a mapping too.
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <span>
#include <unordered_map>

#include "common/log.h"
#include "linux/syscalls.h"
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

sys::AddressSpace& guest_space() { return sys::process().address_space; }

// Guest code whose bytes are the file's: saved translations of it hold
// for any mapping of the same file that is such code too.
bool unchanged_file_code(const sys::MappedFile& m) {
  return m.pristine && (m.prot & (PROT_READ | PROT_EXEC)) == (PROT_READ | PROT_EXEC) && !(m.prot & PROT_WRITE);
}

bool same_file(const SavedFile& f, const sys::MappedFile& m) {
  return f.dev == m.dev && f.inode == m.inode && f.size == m.size && f.mtime_ns == m.mtime_ns;
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
  persist_key_.guest_mtime_ns = sys::mtime_ns(st);
  persist_key_.settings = settings_fingerprint();
  char name[32];
  std::snprintf(name, sizeof name, "%016" PRIx64 ".ptc", persist_key_.hash());
  persist_name_ = name;
  persist_dir_ = opt.dir;
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
  else if (reinterpret_cast<uintptr_t>(cache_.free_begin()) % 8 != 0) why = "code cache misaligned";
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
  blocks_loaded_ = image->blocks.size();
  place_saved_blocks(std::move(*image));
  utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // recently used: pruned last
  logf(LogLevel::Info, "phybin: loaded %llu blocks of %zu files from %s", static_cast<unsigned long long>(blocks_loaded_),
       saved_->files.size(), path.c_str());
}

// All the code goes into the cache at once, at the offsets it was saved
// from (so branches between blocks and to the stubs hold, and the links
// saved with it); the blocks enter the table dormant.
void Process::place_saved_blocks(TranslationImage image) {
  uint32_t* begin = cache_.free_begin();
  for (size_t i = 0, run; i < image.blocks.size(); i = run) {  // runs of adjacent blocks: one copy each
    const SavedBlock& first = image.blocks[i];
    uint32_t words = first.words;
    for (run = i + 1; run < image.blocks.size(); ++run) {
      const SavedBlock& b = image.blocks[run];
      if (b.offset != first.offset + words || b.code_begin != first.code_begin + words) break;
      words += b.words;
    }
    std::memcpy(begin + first.offset, image.code.data() + first.code_begin, size_t{words} * 4);
  }
  cache_.commit(begin + image.cache_words());
  auto saved = std::make_unique<SavedCode>();
  saved->first = static_cast<BlockTable::Index>(blocks_.size());
  blocks_.reserve(image.blocks.size());
  const uint32_t marks = blocks_.append_marks(image.marks.data(), image.marks.size());
  for (const SavedBlock& b : image.blocks) {
    const BlockTable::Index index = blocks_.add_dormant(begin + b.offset, b.words, marks + b.marks_begin, b.marks_count);
    blocks_.set_indirect_entry(index, b.indirect_words);
    blocks_.set_address_pool(index, arm64::AddressPool{b.pool_words, b.pool_count});
  }
  saved->files.assign(image.files.size(), SavedCode::FileState::Waiting);
  saved->waiting = image.files.size();
  saved->blocks_of_file.resize(image.files.size());
  saved->links_of_file.resize(image.files.size());
  for (uint32_t i = 0; i < image.blocks.size(); ++i) saved->blocks_of_file[image.blocks[i].file].push_back(i);
  for (uint32_t l = 0; l < image.links.size(); ++l)
    saved->links_of_file[image.blocks[image.links[l].source].file].push_back(l);
  saved->image = std::move(image);
  saved_ = std::move(saved);
}

bool Process::wake_saved_code(uint64_t pc) {
  if (!saved_ || saved_->waiting == 0) return false;
  const std::optional<sys::MappedFile> m = guest_space().mapped_file(pc);
  if (!m || !unchanged_file_code(*m)) return false;
  for (uint32_t f = 0; f < saved_->files.size(); ++f) {
    if (saved_->files[f] == SavedCode::FileState::Waiting && same_file(saved_->image.files[f], *m)) {
      wake_saved_file(f, m->file_start, m->name);
      return true;
    }
  }
  return false;
}

// Each block wakes where its pages are still the same file's unchanged
// code, at the same distance from the file's start; every guest address
// in its pool moves by as much as the file did.
void Process::wake_saved_file(uint32_t file, uint64_t file_start, const std::string& name) {
  SavedCode& saved = *saved_;
  const TranslationImage& im = saved.image;
  const uint64_t delta = file_start - im.files[file].file_start;
  std::unordered_map<uint64_t, bool> page_ok;
  uint64_t last_page = 1;
  bool last_ok = false;
  auto usable = [&](uint64_t page) {
    if (page == last_page) return last_ok;  // consecutive blocks share pages
    auto [it, fresh] = page_ok.try_emplace(page, false);
    if (fresh) {
      const std::optional<sys::MappedFile> m = guest_space().mapped_file(page);
      it->second = m && unchanged_file_code(*m) && same_file(im.files[file], *m) && m->file_start == file_start &&
                   protect_.prepare_page(page);
    }
    last_page = page;
    return last_ok = it->second;
  };
  uint32_t* begin = cache_.blocks_begin();
  size_t woken = 0;
  blocks_.reserve(saved.blocks_of_file[file].size());
  for (uint32_t i : saved.blocks_of_file[file]) {
    const SavedBlock& b = im.blocks[i];
    const uint64_t* pages = im.pages.data() + b.pages_begin;
    if (!std::all_of(pages, pages + b.pages_count, [&](uint64_t p) { return usable(p + delta); })) continue;
    if (delta != 0) {
      auto* pool = reinterpret_cast<uint64_t*>(begin + b.offset + b.pool_words);
      for (uint32_t k = 0; k < b.pool_count; ++k) pool[k] += delta;
    }
    const BlockTable::Index index = saved.first + i;
    blocks_.wake(index, b.guest_start + delta, b.guest_end + delta);
    for (uint32_t p = 0; p < b.pages_count; ++p) blocks_.depends_on_page(index, pages[p] + delta);
    enter_in_lookups(index);
    ++woken;
  }
  saved.files[file] = SavedCode::FileState::Woken;
  --saved.waiting;
  // The code came linked: links into blocks that stay dormant are undone.
  for (uint32_t l : saved.links_of_file[file]) {
    const SavedLink& link = im.links[l];
    const BlockTable::Index from = saved.first + link.source, to = saved.first + link.target;
    if (!blocks_.at(from).valid) continue;
    if (blocks_.at(to).valid) {
      blocks_.add_link(begin + link.site, begin + link.unlinked, to);
    } else {
      arm64::Assembler::patch_branch(begin + link.site, begin + link.unlinked);
      CodeCache::sync_icache(begin + link.site, begin + link.site + 1);
    }
  }
  logf(LogLevel::Info, "phybin: %zu of %zu saved blocks woken for %s (moved by %+lld bytes)", woken,
       saved.blocks_of_file[file].size(), name.c_str(), static_cast<long long>(delta));
}

namespace {

// The image a run saves, built block by block: the blocks made from
// unchanged file code, and the dormant blocks of files this run never used
// (kept for the next), with their code as in the cache; then the links.
class ImageBuilder {
 public:
  ImageBuilder(TranslationImage& im, const BlockTable& blocks, const SavedCode* saved, const uint32_t* cache_begin)
      : im_(im), blocks_(blocks), saved_(saved), begin_(cache_begin), saved_as_(blocks.size(), BlockTable::kNone) {
    if (saved_) dormant_file_.assign(saved_->image.files.size(), -1);
  }

  void add_block(BlockTable::Index b) {
    const BlockInfo& info = blocks_.at(b);
    SavedBlock sb;
    std::span<const uint64_t> pages(blocks_.pages_of(b), info.pages_count);
    int32_t file = -1;
    if (info.valid && !pages.empty()) {
      file = file_of_pages(pages);
      sb.guest_start = info.guest_start;
      sb.guest_end = info.guest_end;
    } else if (const SavedBlock* old = dormant(b)) {
      file = file_of_dormant(old->file);
      sb.guest_start = old->guest_start;
      sb.guest_end = old->guest_end;
      pages = {saved_->image.pages.data() + old->pages_begin, old->pages_count};
    }
    if (file >= 0) append(b, sb, static_cast<uint32_t>(file), pages);
  }

  // Links stay in the code when both ends are saved, of the same file;
  // the others are undone in the copy (as exit_to left them).  Dormant
  // blocks never ran: their links are the saved ones.
  void add_links() {
    for (const BlockTable::Link& l : blocks_.links()) {
      const BlockTable::Index from = blocks_.find_host(l.site);
      if (from != BlockTable::kNone) keep_link(from, l.site, l.unlinked, l.target);
    }
    if (!saved_) return;
    for (const SavedLink& l : saved_->image.links) {
      const BlockTable::Index from = saved_->first + l.source;
      if (!blocks_.at(from).valid) keep_link(from, begin_ + l.site, begin_ + l.unlinked, saved_->first + l.target);
    }
  }

 private:
  // The saved form of a block that still waits (its file never woke).
  const SavedBlock* dormant(BlockTable::Index b) const {
    if (!saved_ || b < saved_->first || b - saved_->first >= saved_->image.blocks.size()) return nullptr;
    const SavedBlock& old = saved_->image.blocks[b - saved_->first];
    return saved_->files[old.file] == SavedCode::FileState::Waiting ? &old : nullptr;
  }

  // The saved file all of a block's pages come from, or -1.
  int32_t file_of_pages(std::span<const uint64_t> pages) {
    const int32_t file = file_of_page(pages[0]);
    for (uint64_t page : pages.subspan(1))
      if (file_of_page(page) != file) return -1;
    return file;
  }

  int32_t file_of_page(uint64_t page) {
    auto [it, fresh] = page_file_.try_emplace(page, -1);
    if (!fresh) return it->second;
    const std::optional<sys::MappedFile> m = guest_space().mapped_file(page);
    if (!m || !unchanged_file_code(*m)) return -1;
    size_t f = 0;
    while (f < im_.files.size() && !(same_file(im_.files[f], *m) && im_.files[f].file_start == m->file_start)) ++f;
    if (f == im_.files.size()) im_.files.push_back(SavedFile{m->dev, m->inode, m->size, m->mtime_ns, m->file_start});
    return it->second = static_cast<int32_t>(f);
  }

  // Files of dormant blocks: as they were loaded (their pages need no look).
  int32_t file_of_dormant(uint32_t saved_file) {
    if (dormant_file_[saved_file] < 0) {
      dormant_file_[saved_file] = static_cast<int32_t>(im_.files.size());
      im_.files.push_back(saved_->image.files[saved_file]);
    }
    return dormant_file_[saved_file];
  }

  void append(BlockTable::Index b, SavedBlock sb, uint32_t file, std::span<const uint64_t> pages) {
    const BlockInfo& info = blocks_.at(b);
    sb.file = file;
    sb.offset = static_cast<uint32_t>(info.host - begin_);
    sb.words = info.host_words;
    sb.indirect_words = info.indirect_words;
    sb.pool_words = info.pool.offset_words;
    sb.pool_count = info.pool.count;
    sb.code_begin = static_cast<uint32_t>(im_.code.size());
    im_.code.insert(im_.code.end(), info.host, info.host + info.host_words);
    sb.marks_begin = static_cast<uint32_t>(im_.marks.size());
    sb.marks_count = info.marks_count;
    im_.marks.insert(im_.marks.end(), blocks_.marks_of(b), blocks_.marks_of(b) + info.marks_count);
    sb.pages_begin = static_cast<uint32_t>(im_.pages.size());
    sb.pages_count = static_cast<uint32_t>(pages.size());
    im_.pages.insert(im_.pages.end(), pages.begin(), pages.end());
    saved_as_[b] = static_cast<uint32_t>(im_.blocks.size());
    im_.blocks.push_back(sb);
  }

  void keep_link(BlockTable::Index from, const uint32_t* site, const uint32_t* unlinked, BlockTable::Index to) {
    if (saved_as_[from] == BlockTable::kNone) return;
    const SavedBlock& sb = im_.blocks[saved_as_[from]];
    if (saved_as_[to] != BlockTable::kNone && im_.blocks[saved_as_[to]].file == sb.file) {
      im_.links.push_back({static_cast<uint32_t>(site - begin_), static_cast<uint32_t>(unlinked - begin_),
                           saved_as_[from], saved_as_[to]});
      return;
    }
    uint32_t* copy = im_.code.data() + sb.code_begin + (site - blocks_.at(from).host);
    arm64::Assembler::patch_branch(copy, copy + (unlinked - site));
  }

  TranslationImage& im_;
  const BlockTable& blocks_;
  const SavedCode* saved_;
  const uint32_t* begin_;
  std::vector<uint32_t> saved_as_;  // table index -> image block, or kNone
  std::unordered_map<uint64_t, int32_t> page_file_;
  std::vector<int32_t> dormant_file_;
};

}  // namespace

TranslationImage Process::saved_image() const {
  TranslationImage im;
  im.key = persist_key_;
  const SelfImage& self = self_image();
  for (size_t slot = 0; slot < helpers_.size(); ++slot) im.helper_offsets.push_back(helpers_.at(slot) - self.base);
  ImageBuilder builder(im, blocks_, saved_.get(), cache_.blocks_begin());
  for (BlockTable::Index b = 0; b < blocks_.size(); ++b) builder.add_block(b);
  builder.add_links();
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
