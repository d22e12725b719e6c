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
// inode, size, mtime, and ctime, which a file rewritten in place with its
// mtime put back (`touch -r`) cannot keep) and the same code-changing settings: all of that is
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
#include <tuple>
#include <unordered_map>

#include "common/log.h"
#include "linux/syscalls.h"
#include "runtime/guest_thread.h"
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
  return f.dev == m.dev && f.inode == m.inode && f.size == m.size && f.mtime_ns == m.mtime_ns &&
         f.ctime_ns == m.ctime_ns;
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
                     uint64_t{backend_.lse}, uint64_t{backend_.tso}, uint64_t{backend_.lrcpc},
                     protect_.page_size(), uint64_t{frontend_options_.side_exits},
                     uint64_t{frontend_options_.fp_regions}})
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
  persist_key_.guest_ctime_ns = sys::ctime_ns(st);
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
  std::string why;
  if (reinterpret_cast<uintptr_t>(cache_.free_begin()) % 8 != 0) why = "code cache misaligned";
  // The code goes straight to where it runs, in the cache's free words
  // (nothing is committed until the whole file passed).
  std::optional<TranslationImage> image;
  if (why.empty()) image = load_translation_file(path, persist_key_, cache_.free_begin(), cache_.free_words(), why);
  if (!image && why.empty()) return;  // no file
  if (image && image->helper_offsets.size() > arm64::HelperTable::kSlots) why = "too many helpers";
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

// The code is in the cache already, read there at the offsets it was
// saved from (so branches between blocks and to the stubs hold, and the
// links saved with it); the blocks enter the table dormant.
void Process::place_saved_blocks(TranslationImage image) {
  uint32_t* begin = cache_.free_begin();
  const std::vector<SavedBlock>& blocks = image.blocks;
  cache_.commit(begin + image.cache_words());
  auto saved = std::make_unique<SavedCode>();
  saved->first = blocks_.add_dormant(blocks, begin, image.marks);
  index_saved_files(*saved, image);
  saved->image = std::move(image);
  saved_ = std::move(saved);
}

namespace {

// The elements of `sorted` (sorted by file_of) that belong to `file`.
template <typename T, typename FileOf>
std::pair<uint32_t, uint32_t> run_of(const std::vector<T>& sorted, uint32_t file, FileOf file_of) {
  auto first = std::partition_point(sorted.begin(), sorted.end(), [&](const T& x) { return file_of(x) < file; });
  auto last = std::partition_point(first, sorted.end(), [&](const T& x) { return file_of(x) <= file; });
  return {static_cast<uint32_t>(first - sorted.begin()), static_cast<uint32_t>(last - sorted.begin())};
}

}  // namespace

// Where each file's entries, pages and links are: the image keeps each
// sorted by file.
void Process::index_saved_files(SavedCode& saved, const TranslationImage& image) {
  std::vector<SavedCode::File>& files = saved.files;
  files.assign(image.files.size(), {});
  saved.waiting = files.size();
  auto file_of_entry = [&](const SavedEntry& e) { return image.blocks[e.block].file; };
  auto file_of_page = [&](const SavedPage& p) { return image.blocks[p.block].file; };
  auto file_of_link = [&](const SavedLink& l) { return image.blocks[l.source].file; };
  for (uint32_t file = 0; file < files.size(); ++file) {
    std::tie(files[file].entries_begin, files[file].entries_end) = run_of(image.entries, file, file_of_entry);
    std::tie(files[file].pages_begin, files[file].pages_end) = run_of(image.pages, file, file_of_page);
    std::tie(files[file].links_begin, files[file].links_end) = run_of(image.links, file, file_of_link);
  }
}

bool Process::wake_saved_code(uint64_t pc) {
  if (!saved_ || saved_->waiting == 0) return false;
  const std::optional<sys::MappedFile> m = guest_space().mapped_file(pc);
  if (!m || !unchanged_file_code(*m)) return false;
  for (uint32_t f = 0; f < saved_->files.size(); ++f) {
    if (!saved_->files[f].woken && same_file(saved_->image.files[f], *m)) {
      wake_saved_file(f, m->file_start, m->name);
      return true;
    }
  }
  return false;
}

namespace {

// Whether guest pages are still `file`'s unchanged code with its offset 0
// at `file_start`, one mapping looked up for many pages.
class FilePages {
 public:
  FilePages(const SavedFile& file, uint64_t file_start) : file_(file), file_start_(file_start) {}
  bool usable(uint64_t page) {
    if (page >= known_start_ && page < known_end_) return true;
    const std::optional<sys::MappedFile> m = guest_space().mapped_file(page);
    if (!m || !unchanged_file_code(*m) || !same_file(file_, *m) || m->file_start != file_start_) return false;
    known_start_ = m->start;
    known_end_ = m->end;
    return true;
  }

 private:
  const SavedFile& file_;
  uint64_t file_start_;
  uint64_t known_start_ = 0, known_end_ = 0;
};

}  // namespace

// A block wakes where all its pages are still the same file's unchanged
// code, at the same distance from the file's start; every guest address
// in its pool moves by as much as the file did.  (Its pages need no write
// protection: such code is never writable.)
void Process::wake_saved_file(uint32_t file, uint64_t file_start, const std::string& name) {
  SavedCode& saved = *saved_;
  SavedCode::File& f = saved.files[file];
  const TranslationImage& im = saved.image;
  const uint64_t delta = file_start - im.files[file].file_start;
  const std::span<const SavedPage> pages(im.pages.data() + f.pages_begin, f.pages_end - f.pages_begin);
  FilePages check(im.files[file], file_start);
  std::vector<uint8_t> unusable(im.blocks.size(), 0);  // by image block: a page is not the file's code here
  uint64_t last_page = 1;
  bool last_ok = false;
  for (const SavedPage& p : pages) {  // by page: each looked at once
    if (p.page != last_page) last_ok = check.usable(file_start + p.page);
    last_page = p.page;
    if (!last_ok) unusable[p.block] = 1;
  }
  uint32_t* begin = cache_.blocks_begin();
  GuestThread* thread = GuestThread::current();
  size_t woken = 0;
  const std::span<const SavedEntry> entries(im.entries.data() + f.entries_begin, f.entries_end - f.entries_begin);
  for (const SavedEntry& e : entries) {
    const uint32_t i = e.block;
    if (unusable[i]) continue;
    const SavedBlock& b = im.blocks[i];
    if (delta != 0) {
      auto* pool = reinterpret_cast<uint64_t*>(begin + b.offset + b.pool_words);
      for (uint32_t w = 0; w < b.pool_count; ++w) pool[w] += delta;
    }
    const uint64_t start = file_start + b.guest_offset;
    blocks_.wake(saved.first + i, start, start + b.guest_bytes);
    if (thread) thread->enter_in_lookup(blocks_.at(saved.first + i));
    ++woken;
  }
  blocks_.add_saved_file(file_start, saved.first, pages, entries);
  f.woken = true;
  f.file_start = file_start;
  --saved.waiting;
  // The code came linked: links into blocks that stay dormant are undone.
  blocks_.add_saved_links({im.links.data() + f.links_begin, f.links_end - f.links_begin}, saved.first, begin,
                          woken == entries.size());
  logf(LogLevel::Info, "phybin: %zu of %zu saved blocks woken for %s (moved by %+lld bytes)", woken,
       entries.size(), name.c_str(), static_cast<long long>(delta));
}

namespace {

// The image a run saves, built block by block: the blocks made from
// unchanged file code (translated in this run or woken from the saved
// file), and the dormant blocks of files this run never used (kept for
// the next), with their code as in the cache; then pages and links.
class ImageBuilder {
 public:
  ImageBuilder(TranslationImage& im, const BlockTable& blocks, const SavedCode* saved, const uint32_t* cache_begin)
      : im_(im), blocks_(blocks), saved_(saved), begin_(cache_begin), saved_as_(blocks.size(), BlockTable::kNone) {}

  void add_block(BlockTable::Index b) {
    if (const SavedBlock* old = saved_block(b)) {
      add_saved(b, *old);
      return;
    }
    const BlockInfo& info = blocks_.at(b);
    std::span<const uint64_t> pages(blocks_.pages_of(b), info.pages_count);
    if (!info.valid || pages.empty()) return;
    const int32_t file = file_of_pages(pages);
    if (file < 0) return;
    const uint64_t file_start = im_.files[static_cast<uint32_t>(file)].file_start;
    const uint64_t offset = info.guest_start - file_start, bytes = info.guest_end - info.guest_start;
    if (offset > UINT32_MAX || bytes > kMaxSavedField) return;
    SavedBlock sb;
    sb.guest_offset = static_cast<uint32_t>(offset);
    sb.guest_bytes = static_cast<uint16_t>(bytes);
    if (!append(b, sb, static_cast<uint32_t>(file))) return;
    for (uint64_t page : pages)
      new_pages_.push_back(SavedPage{static_cast<uint32_t>(page - file_start), saved_as_[b]});
  }

  // The pages of the saved blocks kept, then all sorted by file and page.
  void add_pages() {
    if (saved_) {
      for (const SavedPage& p : saved_->image.pages)
        if (uint32_t now = saved_as_[saved_->first + p.block]; now != BlockTable::kNone)
          new_pages_.push_back(SavedPage{p.page, now});
    }
    std::sort(new_pages_.begin(), new_pages_.end(), [&](const SavedPage& x, const SavedPage& y) {
      const uint16_t fx = im_.blocks[x.block].file, fy = im_.blocks[y.block].file;
      return fx != fy ? fx < fy : x.page < y.page;
    });
    im_.pages = std::move(new_pages_);
  }

  void add_entries() {
    im_.entries.resize(im_.blocks.size());
    for (uint32_t i = 0; i < im_.blocks.size(); ++i) im_.entries[i] = SavedEntry{im_.blocks[i].guest_offset, i};
    std::sort(im_.entries.begin(), im_.entries.end(), [&](const SavedEntry& x, const SavedEntry& y) {
      const uint16_t fx = im_.blocks[x.block].file, fy = im_.blocks[y.block].file;
      return fx != fy ? fx < fy : x.guest_offset != y.guest_offset ? x.guest_offset < y.guest_offset : x.block < y.block;
    });
  }

  // Links stay in the code when both ends are saved, of the same file;
  // the others are undone in the copy (as exit_to left them).  Dormant
  // blocks never ran: their links are the saved ones.
  void add_links() {
    for (const BlockTable::Link& l : blocks_.links()) {
      const BlockTable::Index from = blocks_.find_host(l.site);
      if (from != BlockTable::kNone) keep_link(from, l.site, l.unlinked, l.target);
    }
    if (saved_) {
      for (const SavedLink& l : saved_->image.links) {
        const BlockTable::Index from = saved_->first + l.source;
        if (!blocks_.at(from).valid) keep_link(from, begin_ + l.site, begin_ + l.unlinked, saved_->first + l.target);
      }
    }
    std::stable_sort(im_.links.begin(), im_.links.end(), [&](const SavedLink& x, const SavedLink& y) {
      return im_.blocks[x.source].file < im_.blocks[y.source].file;
    });
  }

 private:
  // The saved record of a block loaded from the file, when it is kept:
  // dormant (its file never woke), or woken and still valid.
  const SavedBlock* saved_block(BlockTable::Index b) const {
    if (!saved_ || b < saved_->first || b - saved_->first >= saved_->image.blocks.size()) return nullptr;
    return &saved_->image.blocks[b - saved_->first];
  }

  // Its record holds as it is (file-relative); only its file's entry is
  // the one of this image: where it woke, or as it was loaded.
  void add_saved(BlockTable::Index b, const SavedBlock& old) {
    const SavedCode::File& f = saved_->files[old.file];
    if (f.woken && !blocks_.at(b).valid) return;
    SavedFile file = saved_->image.files[old.file];
    if (f.woken) file.file_start = f.file_start;
    SavedBlock sb;
    sb.guest_offset = old.guest_offset;
    sb.guest_bytes = old.guest_bytes;
    append(b, sb, file_index(file));
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
    const SavedFile file{m->dev, m->inode, m->size, m->mtime_ns, m->ctime_ns, m->file_start};
    return it->second = static_cast<int32_t>(file_index(file));
  }

  uint32_t file_index(const SavedFile& file) {
    auto it = std::find(im_.files.begin(), im_.files.end(), file);
    if (it != im_.files.end()) return static_cast<uint32_t>(it - im_.files.begin());
    im_.files.push_back(file);
    return static_cast<uint32_t>(im_.files.size() - 1);
  }

  // False when the block does not fit a record (it is not saved).
  bool append(BlockTable::Index b, SavedBlock sb, uint32_t file) {
    const BlockInfo& info = blocks_.at(b);
    if (file > kMaxSavedField || info.host_words > kMaxSavedField || info.marks_count > kMaxSavedField) return false;
    sb.file = static_cast<uint16_t>(file);
    sb.offset = static_cast<uint32_t>(info.host - begin_);
    sb.words = static_cast<uint16_t>(info.host_words);
    sb.indirect_words = static_cast<uint16_t>(info.indirect_words);
    sb.pool_words = static_cast<uint16_t>(info.pool.offset_words);
    sb.pool_count = static_cast<uint16_t>(info.pool.count);
    sb.marks_count = static_cast<uint16_t>(info.marks_count);
    im_.code.resize(sb.offset);  // zeroes in the words of blocks not saved
    im_.code.insert(im_.code.end(), info.host, info.host + info.host_words);
    im_.marks.insert(im_.marks.end(), blocks_.marks_of(b), blocks_.marks_of(b) + info.marks_count);
    saved_as_[b] = static_cast<uint32_t>(im_.blocks.size());
    im_.blocks.push_back(sb);
    return true;
  }

  void keep_link(BlockTable::Index from, const uint32_t* site, const uint32_t* unlinked, BlockTable::Index to) {
    if (saved_as_[from] == BlockTable::kNone) return;
    const SavedBlock& sb = im_.blocks[saved_as_[from]];
    if (saved_as_[to] != BlockTable::kNone && im_.blocks[saved_as_[to]].file == sb.file) {
      im_.links.push_back({static_cast<uint32_t>(site - begin_), static_cast<uint32_t>(unlinked - begin_),
                           saved_as_[from], saved_as_[to]});
      return;
    }
    uint32_t* copy = code_of(saved_as_[from]) + (site - blocks_.at(from).host);
    arm64::Assembler::patch_branch(copy, copy + (unlinked - site));
  }

  uint32_t* code_of(uint32_t image_block) { return im_.code.data() + im_.blocks[image_block].offset; }

  TranslationImage& im_;
  const BlockTable& blocks_;
  const SavedCode* saved_;
  const uint32_t* begin_;
  std::vector<uint32_t> saved_as_;  // table index -> image block, or kNone
  std::unordered_map<uint64_t, int32_t> page_file_;
  std::vector<SavedPage> new_pages_;
};

}  // namespace

TranslationImage Process::saved_image() const {
  TranslationImage im;
  im.key = persist_key_;
  const SelfImage& self = self_image();
  for (size_t slot = 0; slot < helpers_.size(); ++slot) im.helper_offsets.push_back(helpers_.at(slot) - self.base);
  ImageBuilder builder(im, blocks_, saved_.get(), cache_.blocks_begin());
  for (BlockTable::Index b = 0; b < blocks_.size(); ++b) builder.add_block(b);
  builder.add_pages();
  builder.add_entries();
  builder.add_links();
  return im;
}

void Process::save_translations() {
  const TablesGuard guard(tables_);
  // Nothing new since the load: the file holds all of it already.  (Code
  // checked for unmasked SSE exceptions is saved too: with them masked its
  // checks never fire, so it is right in any run, only slower.)
  // A forked child counts its parent's blocks as a warm run counts those
  // it loaded: the parent saves them.
  const uint64_t new_blocks = blocks_translated_ - blocks_at_fork_;
  const uint64_t had_blocks = blocks_loaded_ + blocks_at_fork_;
  if (persist_dir_.empty() || new_blocks == 0) return;
  // A loaded file that lacks only a few blocks (start-up paths that vary
  // with the stack's alignment) is kept: writing it anew costs more (about
  // 0.8 M instructions) than translating those blocks again next time.
  if (had_blocks > 0 && new_blocks < std::max<uint64_t>(kFewNewBlocks, had_blocks / 32)) {
    logf(LogLevel::Info, "phybin: translations not saved again: only %llu new blocks",
         static_cast<unsigned long long>(new_blocks));
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
  std::optional<std::vector<uint8_t>> bytes = serialize(image, why);
  if (bytes && write_translation_file(persist_dir_, persist_name_, *bytes, why)) {
    logf(LogLevel::Info, "phybin: saved %zu blocks to %s/%s", image.blocks.size(), persist_dir_.c_str(),
         persist_name_.c_str());
    if (size_t n = prune_translation_dir(persist_dir_, kMaxTranslationDirBytes))
      logf(LogLevel::Info, "phybin: removed %zu least recently used translation files", n);
  } else
    logf(LogLevel::Warn, "phybin: translations not saved: %s", why.c_str());
}

}  // namespace phybin::runtime
