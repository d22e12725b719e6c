#include "scan/image.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include "common/error.h"
#include "scan/unwind.h"

namespace phybin::scan {

namespace {

[[noreturn]] void bad_elf(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::PHYBIN_ERR_BAD_ELF, path + ": " + what);
}

// Reads a T at `offset`, false when it does not lie wholly in the file.
template <typename T>
bool read_at(const Bytes& b, uint64_t offset, T& out) {
  if (offset > b.size || b.size - offset < sizeof(T)) return false;
  std::memcpy(&out, b.data + offset, sizeof(T));
  return true;
}

bool within(const Bytes& b, uint64_t offset, uint64_t size) { return offset <= b.size && size <= b.size - offset; }

// A NUL-terminated string at `offset`, "" outside the file.
std::string string_at(const Bytes& b, uint64_t offset) {
  if (offset >= b.size) return {};
  const auto* start = reinterpret_cast<const char*>(b.data + offset);
  return std::string(start, strnlen(start, b.size - offset));
}

// Reading one file: its headers, then the parts the image holds.
class Reader {
 public:
  Reader(Image& image) : img_(image), b_(image.bytes) {}

  void read() {
    read_header();
    read_segments();
    read_sections();
    if (img_.code.empty()) code_from_segments();
    read_dynamic();
    if (!relocations_from_sections_) relocations_from_dynamic();
    read_unwind();
    finish();
  }

 private:
  void read_header() {
    if (!read_at(b_, 0, eh_)) bad_elf(img_.path, "the ELF header is cut short");
    img_.elf_type = eh_.e_type;
    img_.entry = eh_.e_entry;
    if (eh_.e_type != ET_EXEC && eh_.e_type != ET_DYN)
      throw Error(ErrorCode::PHYBIN_ERR_NOT_X86_64_ELF, img_.path + ": an x86-64 ELF file but neither an executable "
                                                                     "nor a shared object (type " +
                                                                         std::to_string(eh_.e_type) + ")");
  }

  void read_segments() {
    if (eh_.e_phnum && eh_.e_phentsize != sizeof(Elf64_Phdr)) bad_elf(img_.path, "odd program header size");
    for (size_t i = 0; i < eh_.e_phnum; ++i) {
      Elf64_Phdr ph{};
      if (!read_at(b_, eh_.e_phoff + i * sizeof ph, ph)) bad_elf(img_.path, "the program headers are cut short");
      if (ph.p_type == PT_LOAD) {
        if (!within(b_, ph.p_offset, ph.p_filesz)) bad_elf(img_.path, "a PT_LOAD segment lies outside the file");
        loads_.push_back(ph);
        img_.low = loads_.size() == 1 ? ph.p_vaddr : std::min(img_.low, ph.p_vaddr);
        img_.high = std::max(img_.high, ph.p_vaddr + ph.p_memsz);
      } else if (ph.p_type == PT_INTERP) {
        img_.interpreter = string_at(b_, ph.p_offset);
      } else if (ph.p_type == PT_DYNAMIC) {
        dynamic_ = ph;
      } else if (ph.p_type == PT_GNU_EH_FRAME) {
        eh_frame_hdr_ = ph;
      }
    }
  }

  // The file offset of link address `vaddr`, or -1 when no segment holds
  // it in the file.
  uint64_t offset_of(uint64_t vaddr) const {
    for (const Elf64_Phdr& ph : loads_)
      if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) return ph.p_offset + (vaddr - ph.p_vaddr);
    return ~uint64_t{0};
  }

  void read_sections() {
    if (eh_.e_shnum == 0 || eh_.e_shoff == 0) return;
    if (eh_.e_shentsize != sizeof(Elf64_Shdr)) bad_elf(img_.path, "odd section header size");
    std::vector<Elf64_Shdr> sections(eh_.e_shnum);
    for (size_t i = 0; i < sections.size(); ++i)
      if (!read_at(b_, eh_.e_shoff + i * sizeof(Elf64_Shdr), sections[i]))
        bad_elf(img_.path, "the section headers are cut short");
    const uint64_t names = eh_.e_shstrndx < sections.size() ? sections[eh_.e_shstrndx].sh_offset : b_.size;
    for (const Elf64_Shdr& s : sections) {
      const std::string name = string_at(b_, names + s.sh_name);
      const bool in_file = s.sh_type != SHT_NOBITS && within(b_, s.sh_offset, s.sh_size);
      if (!in_file) continue;
      if (s.sh_type == SHT_PROGBITS && (s.sh_flags & SHF_EXECINSTR) && s.sh_size)
        img_.code.push_back(CodeSection{name, s.sh_addr, s.sh_size, b_.data + s.sh_offset});
      else if (s.sh_type == SHT_SYMTAB || s.sh_type == SHT_DYNSYM)
        read_symbols(s, sections);
      else if (s.sh_type == SHT_RELA && s.sh_link < sections.size())
        read_relocations(s, sections);
      else if (s.sh_type == SHT_INIT_ARRAY || s.sh_type == SHT_FINI_ARRAY || s.sh_type == SHT_PREINIT_ARRAY)
        read_pointer_array(s.sh_offset, s.sh_size, s.sh_addr);
      if (name == ".eh_frame") eh_frame_ = s;
      if (s.sh_type == SHT_RELA) relocations_from_sections_ = true;
      // A program that is not relocated (ET_EXEC) keeps its function
      // pointers as plain values in its data.
      if (eh_.e_type == ET_EXEC && s.sh_type == SHT_PROGBITS && !(s.sh_flags & SHF_EXECINSTR) &&
          (s.sh_flags & SHF_ALLOC))
        read_pointer_array(s.sh_offset, s.sh_size, s.sh_addr);
    }
  }

  void read_symbols(const Elf64_Shdr& s, const std::vector<Elf64_Shdr>& sections) {
    if (s.sh_entsize != sizeof(Elf64_Sym) || s.sh_link >= sections.size()) return;
    const Elf64_Shdr& strings = sections[s.sh_link];
    for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= s.sh_size; off += sizeof(Elf64_Sym)) {
      Elf64_Sym sym{};
      if (!read_at(b_, s.sh_offset + off, sym)) break;
      const unsigned type = ELF64_ST_TYPE(sym.st_info);
      if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0) continue;
      if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT) continue;
      const std::string name = sym.st_name < strings.sh_size ? string_at(b_, strings.sh_offset + sym.st_name) : "";
      if (name.empty()) continue;
      const bool exported = s.sh_type == SHT_DYNSYM && ELF64_ST_BIND(sym.st_info) != STB_LOCAL &&
                            ELF64_ST_VISIBILITY(sym.st_other) == STV_DEFAULT;
      img_.symbols.push_back(Image::Symbol{sym.st_value, sym.st_size, name, type != STT_OBJECT, exported});
      if (type == STT_GNU_IFUNC) img_.ifunc_resolvers.push_back(sym.st_value);
    }
  }

  // A relocation section, with its symbols in section sh_link.
  void read_relocations(const Elf64_Shdr& rela, const std::vector<Elf64_Shdr>& sections) {
    const Elf64_Shdr& symtab = sections[rela.sh_link];
    const Elf64_Shdr strings = symtab.sh_link < sections.size() ? sections[symtab.sh_link] : Elf64_Shdr{};
    relocations(rela.sh_offset, rela.sh_size, symtab.sh_offset, symtab.sh_size, strings.sh_offset, strings.sh_size);
  }

  void relocations(uint64_t offset, uint64_t size, uint64_t symtab, uint64_t symtab_size, uint64_t strtab,
                   uint64_t strtab_size) {
    for (uint64_t off = 0; off + sizeof(Elf64_Rela) <= size; off += sizeof(Elf64_Rela)) {
      Elf64_Rela r{};
      if (!read_at(b_, offset + off, r)) break;
      const uint32_t type = ELF64_R_TYPE(r.r_info);
      const uint32_t index = ELF64_R_SYM(r.r_info);
      const auto addend = static_cast<uint64_t>(r.r_addend);
      if (type == R_X86_64_IRELATIVE) {
        img_.ifunc_resolvers.push_back(addend);
        continue;
      }
      if (type == R_X86_64_RELATIVE) {
        img_.code_pointers.push_back({r.r_offset, addend});
        continue;
      }
      if (type != R_X86_64_64 && type != R_X86_64_GLOB_DAT && type != R_X86_64_JUMP_SLOT) continue;
      Elf64_Sym sym{};
      if (index == 0 || uint64_t{index} * sizeof sym >= symtab_size || !read_at(b_, symtab + index * sizeof sym, sym))
        continue;
      if (sym.st_shndx != SHN_UNDEF && ELF64_ST_TYPE(sym.st_info) != STT_OBJECT)
        img_.code_pointers.push_back({r.r_offset, sym.st_value + (type == R_X86_64_64 ? addend : 0)});
      if (sym.st_name < strtab_size) img_.import_slots.push_back(Image::Slot{r.r_offset, string_at(b_, strtab + sym.st_name)});
    }
  }

  void read_pointer_array(uint64_t offset, uint64_t size, uint64_t address) {
    for (uint64_t off = 0; off + 8 <= size; off += 8) {
      uint64_t value = 0;
      read_at(b_, offset + off, value);
      if (value) img_.code_pointers.push_back({address + off, value});
    }
  }

  // Without section headers: the executable segments are the code.
  void code_from_segments() {
    for (const Elf64_Phdr& ph : loads_)
      if ((ph.p_flags & PF_X) && ph.p_filesz)
        img_.code.push_back(CodeSection{"PT_LOAD", ph.p_vaddr, ph.p_filesz, b_.data + ph.p_offset});
  }

  void read_dynamic() {
    if (!dynamic_.p_filesz) return;
    if (!within(b_, dynamic_.p_offset, dynamic_.p_filesz)) bad_elf(img_.path, "PT_DYNAMIC lies outside the file");
    std::map<int64_t, uint64_t> single;
    std::vector<uint64_t> needed;
    for (uint64_t off = 0; off + sizeof(Elf64_Dyn) <= dynamic_.p_filesz; off += sizeof(Elf64_Dyn)) {
      Elf64_Dyn d{};
      read_at(b_, dynamic_.p_offset + off, d);
      if (d.d_tag == DT_NULL) break;
      if (d.d_tag == DT_NEEDED) needed.push_back(d.d_un.d_val);
      else single[d.d_tag] = d.d_un.d_val;
    }
    dyn_ = single;
    const uint64_t strtab = offset_of(single[DT_STRTAB]);
    if (strtab == ~uint64_t{0}) return;
    for (const uint64_t n : needed) img_.needed.push_back(string_at(b_, strtab + n));
    if (single.count(DT_SONAME)) img_.soname = string_at(b_, strtab + single[DT_SONAME]);
    const int64_t path_tag = single.count(DT_RUNPATH) ? DT_RUNPATH : single.count(DT_RPATH) ? DT_RPATH : 0;
    if (path_tag) {
      const std::string path = string_at(b_, strtab + single[path_tag]);
      for (size_t start = 0; start <= path.size();) {
        const size_t colon = std::min(path.find(':', start), path.size());
        if (colon > start) img_.runpath.push_back(path.substr(start, colon - start));
        start = colon + 1;
      }
    }
  }

  void relocations_from_dynamic() {
    auto tag = [&](int64_t t) { return dyn_.count(t) ? dyn_.at(t) : 0; };
    const uint64_t symtab = offset_of(tag(DT_SYMTAB)), strtab = offset_of(tag(DT_STRTAB));
    if (symtab == ~uint64_t{0} || strtab == ~uint64_t{0}) return;
    // Without section headers the symbol count is unknown: the file's end bounds it.
    for (const auto& [table, size] : {std::pair{DT_RELA, DT_RELASZ}, std::pair{DT_JMPREL, DT_PLTRELSZ}}) {
      const uint64_t at = offset_of(tag(table));
      if (tag(table) && at != ~uint64_t{0}) relocations(at, tag(size), symtab, b_.size - symtab, strtab, b_.size - strtab);
    }
  }

  void read_unwind() {
    uint64_t offset = 0, size = 0, address = 0;
    if (eh_frame_.sh_size) {
      offset = eh_frame_.sh_offset, size = eh_frame_.sh_size, address = eh_frame_.sh_addr;
    } else if (eh_frame_hdr_.p_filesz) {
      if (!within(b_, eh_frame_hdr_.p_offset, eh_frame_hdr_.p_filesz))
        bad_elf(img_.path, "PT_GNU_EH_FRAME lies outside the file");
      address = eh_frame_address_from_header(b_.data + eh_frame_hdr_.p_offset, eh_frame_hdr_.p_filesz,
                                             eh_frame_hdr_.p_vaddr);
      offset = offset_of(address);
      if (offset == ~uint64_t{0}) return;
      size = b_.size - offset;  // records end at a zero terminator
    } else {
      return;
    }
    std::vector<Extent> fdes = unwind_extents(b_.data + offset, size, address);
    img_.has_unwind_table = !fdes.empty();
    img_.functions.insert(img_.functions.end(), fdes.begin(), fdes.end());
  }

  void finish() {
    std::sort(img_.code.begin(), img_.code.end(),
              [](const CodeSection& a, const CodeSection& b) { return a.address < b.address; });
    std::sort(img_.symbols.begin(), img_.symbols.end(), [](const Image::Symbol& a, const Image::Symbol& b) {
      return a.address < b.address || (a.address == b.address && a.function > b.function);
    });
    for (const Image::Symbol& s : img_.symbols)
      if (s.function && s.size) img_.functions.push_back(Extent{s.address, s.address + s.size});
    std::sort(img_.functions.begin(), img_.functions.end(),
              [](const Extent& a, const Extent& b) { return a.begin < b.begin; });
    std::vector<Extent> merged;
    for (const Extent& e : img_.functions) {
      if (e.end <= e.begin || !img_.in_code(e.begin)) continue;
      if (!merged.empty() && e.begin < merged.back().end) merged.back().end = std::max(merged.back().end, e.end);
      else merged.push_back(e);
    }
    img_.functions = std::move(merged);
    std::sort(img_.import_slots.begin(), img_.import_slots.end(),
              [](const Image::Slot& a, const Image::Slot& b) { return a.address < b.address; });
    std::erase_if(img_.code_pointers, [&](const Image::CodePointer& p) { return !img_.in_code(p.to); });
    std::sort(img_.code_pointers.begin(), img_.code_pointers.end(),
              [](const Image::CodePointer& a, const Image::CodePointer& b) { return a.at < b.at; });
    std::sort(img_.ifunc_resolvers.begin(), img_.ifunc_resolvers.end());
    img_.ifunc_resolvers.erase(std::unique(img_.ifunc_resolvers.begin(), img_.ifunc_resolvers.end()),
                               img_.ifunc_resolvers.end());
  }

  Image& img_;
  const Bytes& b_;
  Elf64_Ehdr eh_{};
  std::vector<Elf64_Phdr> loads_;
  Elf64_Phdr dynamic_{}, eh_frame_hdr_{};
  Elf64_Shdr eh_frame_{};
  std::map<int64_t, uint64_t> dyn_;
  bool relocations_from_sections_ = false;
};

}  // namespace

std::string hex(uint64_t address) {
  char b[24];
  std::snprintf(b, sizeof b, "%#llx", static_cast<unsigned long long>(address));
  return b;
}

Bytes map_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorCode::PHYBIN_ERR_FILE_ACCESS, path + ": " + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    throw Error(ErrorCode::PHYBIN_ERR_FILE_ACCESS, path + ": not a regular file");
  }
  Bytes b;
  b.size = static_cast<size_t>(st.st_size);
  if (b.size == 0) {
    close(fd);
    return b;
  }
  void* map = mmap(nullptr, b.size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int saved = errno;
  close(fd);
  if (map == MAP_FAILED) throw Error(ErrorCode::PHYBIN_ERR_FILE_ACCESS, path + ": " + std::strerror(saved));
  const size_t size = b.size;
  b.owner = std::shared_ptr<const void>(map, [size](const void* p) { munmap(const_cast<void*>(p), size); });
  b.data = static_cast<const uint8_t*>(map);
  return b;
}

std::string elf_machine(const Bytes& bytes) {
  Elf64_Ehdr eh{};
  if (bytes.size < EI_NIDENT || std::memcmp(bytes.data, ELFMAG, SELFMAG) != 0) return {};
  if (bytes.data[EI_CLASS] != ELFCLASS64) return bytes.data[EI_CLASS] == ELFCLASS32 ? "32-bit" : "unknown class";
  if (!read_at(bytes, 0, eh)) return "cut short";
  switch (eh.e_machine) {
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "AArch64";
    case EM_RISCV: return "RISC-V";
    case EM_PPC64: return "PowerPC64";
    case EM_S390: return "s390x";
    default: return "machine " + std::to_string(eh.e_machine);
  }
}

Image read_image(const std::string& path, Bytes bytes) {
  const std::string machine = elf_machine(bytes);
  if (machine == "cut short") throw Error(ErrorCode::PHYBIN_ERR_BAD_ELF, path + ": the ELF header is cut short");
  if (machine != "x86-64")
    throw Error(ErrorCode::PHYBIN_ERR_NOT_X86_64_ELF,
                path + (machine.empty() ? ": not an ELF file" : ": an ELF file for " + machine + ", not x86-64"));
  Image image;
  image.path = path;
  image.bytes = std::move(bytes);
  Reader(image).read();
  return image;
}

bool Image::in_code(uint64_t address) const {
  for (const CodeSection& c : code)
    if (address >= c.address && address - c.address < c.size) return true;
  return false;
}

const Image::Symbol* Image::symbol_at(uint64_t address) const {
  auto it = std::upper_bound(symbols.begin(), symbols.end(), address,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  // The last symbol starting at or before `address` that holds it; else the
  // nearest function before it.  A few symbols back suffice: symbols that
  // hold others (a function holding a local label's symbol) are rare.
  const Symbol* nearest = nullptr;
  int steps = 0;
  for (auto i = it; i != symbols.begin() && steps < 32; ++steps) {
    --i;
    if (i->size && address - i->address < i->size) return &*i;
    if (!nearest && i->function) nearest = &*i;
  }
  return nearest;
}

const Image::Symbol* Image::symbol_named(const std::string& name) const {
  for (const Symbol& s : symbols)
    if (s.name == name) return &s;
  return nullptr;
}

const Image::Slot* Image::slot_at(uint64_t address) const {
  auto it = std::lower_bound(import_slots.begin(), import_slots.end(), address,
                             [](const Slot& s, uint64_t a) { return s.address < a; });
  return it != import_slots.end() && it->address == address ? &*it : nullptr;
}

std::string Image::object_name(uint64_t address) const {
  const Symbol* s = symbol_at(address);
  return s && !s->function && address - s->address < std::max<uint64_t>(s->size, 1) ? name_of(address) : "";
}

std::string Image::name_of(uint64_t address) const {
  const Symbol* s = symbol_at(address);
  if (!s) return {};
  if (s->address == address) return s->name;
  char offset[24];
  std::snprintf(offset, sizeof offset, "+0x%llx", static_cast<unsigned long long>(address - s->address));
  return s->name + offset;
}

}  // namespace phybin::scan
