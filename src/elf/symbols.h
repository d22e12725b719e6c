// The function symbols of an x86-64 ELF file, for naming guest code: the
// perf map, and later the profile and the scanner.  From .symtab when the
// file has one, else .dynsym; addresses as linked (unbiased).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace phybin::elf {

class SymbolTable {
 public:
  // The file's function symbols; empty when it has none or cannot be read
  // (naming is best effort: never an error).
  static SymbolTable read(const std::string& path);

  struct Symbol {
    uint64_t address;
    uint64_t size;  // 0: unknown (up to the next symbol)
    std::string name;
  };
  // The function holding `address` ("name+0x1c"), or the nearest before it
  // when sizes are unknown; empty when none is known.
  std::string name_of(uint64_t address) const;
  const Symbol* find(uint64_t address) const;
  size_t size() const { return symbols_.size(); }

  // The link address of byte `offset` of the file (through its PT_LOAD
  // segments): what its symbols are given in.
  uint64_t link_address(uint64_t offset) const;

 private:
  struct Segment {
    uint64_t offset, filesz, vaddr;
  };
  std::vector<Symbol> symbols_;  // by address
  std::vector<Segment> segments_;
};

}  // namespace phybin::elf
