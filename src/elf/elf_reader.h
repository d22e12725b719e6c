// Reading and validating an x86-64 ELF executable, without mapping it.
//
// inspect_elf() is the one gate every guest program passes: whatever the file
// is, it either returns a description the loader can trust (every range
// checked against the file size and the address space) or throws
// phybin::Error with a code and a one-line message naming the file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace phybin::elf {

// How the program expects to be started.
enum class ElfKind {
  StaticExec,  // ET_EXEC, no PT_INTERP: mapped at its link addresses
  StaticPie,   // ET_DYN, no PT_INTERP: mapped anywhere, relocates itself
  Dynamic,     // has PT_INTERP: needs ld-linux-x86-64.so.2
};
const char* kind_name(ElfKind kind);

// One program header, widened and copied out of the file.
struct ProgramHeader {
  uint32_t type = 0;   // PT_*
  uint32_t flags = 0;  // PF_R | PF_W | PF_X
  uint64_t offset = 0;
  uint64_t vaddr = 0;
  uint64_t paddr = 0;
  uint64_t filesz = 0;
  uint64_t memsz = 0;
  uint64_t align = 0;
};

struct ElfInfo {
  std::string path;
  uint64_t file_size = 0;
  uint16_t elf_type = 0;  // ET_EXEC or ET_DYN
  ElfKind kind = ElfKind::StaticExec;
  uint64_t entry = 0;  // e_entry, unbiased
  uint64_t phoff = 0;
  uint16_t phentsize = 0;
  uint16_t phnum = 0;
  std::vector<ProgramHeader> phdrs;        // all of them, in file order
  std::vector<size_t> load_indexes;        // indexes of PT_LOAD in phdrs, in file order (mapping order)
  std::string interpreter;                 // PT_INTERP contents without the NUL; "" if none
  std::optional<ProgramHeader> tls;        // PT_TLS
  std::optional<ProgramHeader> gnu_stack;  // PT_GNU_STACK
  std::optional<uint64_t> phdr_vaddr;      // PT_PHDR's p_vaddr, unbiased
  uint64_t min_vaddr = 0;                  // lowest PT_LOAD p_vaddr
  uint64_t max_vaddr = 0;                  // highest PT_LOAD p_vaddr + p_memsz (exclusive), of any of them

  bool is_pie() const { return elf_type == 3; /* ET_DYN */ }
  // Without PT_GNU_STACK the x86-64 kernel still gives a 64-bit program a
  // non-executable stack; we only report what the file asks for.
  bool wants_executable_stack() const;
};

// Throws phybin::Error:
//   PHYBIN_ERR_FILE_ACCESS   cannot open/read/stat the file, or not a regular file;
//   PHYBIN_ERR_NOT_X86_64_ELF not ELF, or ELF for another machine, class,
//                             byte order, OS ABI, or not an executable;
//   PHYBIN_ERR_BAD_ELF        truncated or corrupted headers.
ElfInfo inspect_elf(const std::string& path);

// The program interpreter (PT_INTERP) that `program` names, found at
// `path`: it must be an x86-64 ET_DYN without an interpreter of its own, as
// Linux requires.  Throws what inspect_elf throws, and PHYBIN_ERR_BAD_ELF
// naming both files when the interpreter is not such a file.
ElfInfo inspect_interpreter(const std::string& path, const std::string& program);

// "AArch64", "i386", ... for e_machine values people meet; "machine 0xNN" otherwise.
std::string machine_name(uint16_t machine);

}  // namespace phybin::elf
