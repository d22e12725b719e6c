#include "elf/symbols.h"

#include <elf.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace phybin::elf {

namespace {

// The whole file; empty when it cannot be read or is implausibly large.
std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::streamoff>(in.tellg());
  if (size <= 0 || size > (std::streamoff{1} << 32)) return {};
  std::string data(static_cast<size_t>(size), '\0');
  in.seekg(0);
  in.read(data.data(), size);
  return in ? data : std::string();
}

template <typename T>
bool read_at(const std::string& data, uint64_t offset, T& out) {
  if (offset > data.size() || data.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, data.data() + offset, sizeof(T));
  return true;
}

}  // namespace

SymbolTable SymbolTable::read(const std::string& path) {
  SymbolTable table;
  const std::string data = contents(path);
  Elf64_Ehdr eh{};
  if (!read_at(data, 0, eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      eh.e_shentsize != sizeof(Elf64_Shdr))
    return table;
  for (size_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph{};
    if (!read_at(data, eh.e_phoff + i * sizeof(Elf64_Phdr), ph)) break;
    if (ph.p_type == PT_LOAD) table.segments_.push_back(Segment{ph.p_offset, ph.p_filesz, ph.p_vaddr});
  }
  std::vector<Elf64_Shdr> sections(eh.e_shnum);
  for (size_t i = 0; i < sections.size(); ++i)
    if (!read_at(data, eh.e_shoff + i * sizeof(Elf64_Shdr), sections[i])) return table;
  // .symtab holds the local functions too; .dynsym the exported ones only.
  for (const uint32_t wanted : {uint32_t{SHT_SYMTAB}, uint32_t{SHT_DYNSYM}}) {
    for (const Elf64_Shdr& s : sections) {
      if (s.sh_type != wanted || s.sh_link >= sections.size() || s.sh_entsize != sizeof(Elf64_Sym)) continue;
      const Elf64_Shdr& strings = sections[s.sh_link];
      for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= s.sh_size; off += sizeof(Elf64_Sym)) {
        Elf64_Sym sym{};
        if (!read_at(data, s.sh_offset + off, sym)) break;
        const unsigned type = ELF64_ST_TYPE(sym.st_info);
        if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_value == 0 || sym.st_name >= strings.sh_size) continue;
        const uint64_t at = strings.sh_offset + sym.st_name;
        if (at >= data.size()) continue;
        table.symbols_.push_back(Symbol{sym.st_value, sym.st_size, std::string(data.c_str() + at)});
      }
    }
    if (!table.symbols_.empty()) break;
  }
  std::sort(table.symbols_.begin(), table.symbols_.end(),
            [](const Symbol& a, const Symbol& b) { return a.address < b.address || (a.address == b.address && a.size > b.size); });
  return table;
}

const SymbolTable::Symbol* SymbolTable::find(uint64_t address) const {
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), address,
                             [](uint64_t a, const Symbol& s) { return a < s.address; });
  if (it == symbols_.begin()) return nullptr;
  const Symbol& s = *std::prev(it);
  if (s.size != 0 && address >= s.address + s.size) {
    // Past its end: a sized function holds it only if one before reaches it.
    return nullptr;
  }
  return &s;
}

uint64_t SymbolTable::link_address(uint64_t offset) const {
  for (const Segment& s : segments_)
    if (offset >= s.offset && offset - s.offset < s.filesz) return s.vaddr + (offset - s.offset);
  return offset;
}

std::string SymbolTable::name_of(uint64_t address) const {
  const Symbol* s = find(address);
  if (!s) return {};
  if (address == s->address) return s->name;
  char offset[24];
  std::snprintf(offset, sizeof offset, "+0x%llx", static_cast<unsigned long long>(address - s->address));
  return s->name + offset;
}

}  // namespace phybin::elf
