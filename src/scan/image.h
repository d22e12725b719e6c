// An x86-64 ELF file as the scanner reads it: whole, from disk or from a
// wheel's member, with the parts that say what its code needs: executable
// sections, function extents (symbols and the unwind table, which stripped
// files keep), the dynamic section and the relocations that name code or
// CPU-capability data.  Every offset and size is checked against the file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace phybin::scan {

// Bytes of a file, owned by whoever read them (a mapping or a buffer).
struct Bytes {
  std::shared_ptr<const void> owner;
  const uint8_t* data = nullptr;
  size_t size = 0;
};

// An address as scan prints it: "0x4014f6".
std::string hex(uint64_t address);

// Maps `path` read-only.  Throws PHYBIN_ERR_FILE_ACCESS.
Bytes map_file(const std::string& path);

struct CodeSection {
  std::string name;
  uint64_t address = 0;  // as linked
  uint64_t size = 0;
  const uint8_t* bytes = nullptr;
};

struct Extent {
  uint64_t begin = 0, end = 0;
};

struct Image {
  std::string path;
  Bytes bytes;
  uint16_t elf_type = 0;     // ET_EXEC or ET_DYN
  std::string interpreter;   // PT_INTERP
  std::string soname;        // DT_SONAME
  uint64_t entry = 0;
  std::vector<CodeSection> code;
  // Functions from .symtab/.dynsym (sized) and the unwind table's FDEs, by
  // address, merged where they overlap.
  std::vector<Extent> functions;
  struct Symbol {
    uint64_t address = 0, size = 0;
    std::string name;
    bool function = false;  // STT_FUNC or STT_GNU_IFUNC; else an object
    bool exported = false;  // in .dynsym, global and visible
  };
  std::vector<Symbol> symbols;  // defined, by address
  std::vector<uint64_t> ifunc_resolvers;  // STT_GNU_IFUNC values, R_X86_64_IRELATIVE addends
  // Addresses of code that data holds (RELATIVE and 64-bit relocations,
  // init arrays), where: functions whose address is taken outside code.
  struct CodePointer {
    uint64_t at = 0, to = 0;
  };
  std::vector<CodePointer> code_pointers;
  struct Slot {
    uint64_t address;
    std::string symbol;
  };
  std::vector<Slot> import_slots;  // GOT slots, by address, with the symbol they are bound to
  std::vector<std::string> needed;  // DT_NEEDED
  std::vector<std::string> runpath;  // DT_RUNPATH, else DT_RPATH, split at ':'
  bool has_unwind_table = false;
  uint64_t low = 0, high = 0;  // the link addresses PT_LOAD segments span

  bool in_image(uint64_t address) const { return address >= low && address < high; }

  bool in_code(uint64_t address) const;
  // The symbol (function or object) holding `address`, or the nearest
  // function before it; nullptr when none.
  const Symbol* symbol_at(uint64_t address) const;
  const Symbol* symbol_named(const std::string& name) const;
  const Slot* slot_at(uint64_t address) const;
  // "name+0x1c", "" when no symbol is near.
  std::string name_of(uint64_t address) const;
  // The data object holding `address` ("OPENSSL_ia32cap_P+0x4"), "" if none.
  std::string object_name(uint64_t address) const;
};

// Throws phybin::Error: PHYBIN_ERR_NOT_X86_64_ELF when `bytes` are not an
// x86-64 ELF executable or shared object, PHYBIN_ERR_BAD_ELF when its
// headers are cut short or point outside it.
Image read_image(const std::string& path, Bytes bytes);

// Whether `bytes` start like an ELF file of any machine; "" when not, else
// the machine's name ("x86-64", "AArch64"...).
std::string elf_machine(const Bytes& bytes);

}  // namespace phybin::scan
