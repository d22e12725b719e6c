#include "runtime/guest_symbols.h"

#include <cinttypes>
#include <cstdio>

#include "linux/syscalls.h"

namespace phybin::runtime {

std::string GuestSymbols::name_of(uint64_t guest, bool with_offset) {
  const std::optional<sys::MappedFile> m = sys::process().address_space.mapped_file(guest);
  if (!m) return with_offset ? "x86:anonymous" : "anonymous";
  auto it = tables_.find(m->name);
  if (it == tables_.end()) it = tables_.emplace(m->name, elf::SymbolTable::read(m->name)).first;
  const elf::SymbolTable& table = it->second;
  const std::string base = m->name.substr(m->name.rfind('/') + 1);
  const uint64_t link = table.link_address(guest - m->file_start);
  std::string symbol;
  if (with_offset) {
    symbol = table.name_of(link);
  } else if (const elf::SymbolTable::Symbol* s = table.find(link)) {
    symbol = s->name;
  }
  if (symbol.empty()) {
    char offset[32];
    std::snprintf(offset, sizeof offset, "0x%" PRIx64, guest - m->file_start);
    symbol = offset;
  }
  return (with_offset ? "x86:" : "") + symbol + " [" + base + "]";
}

}  // namespace phybin::runtime
