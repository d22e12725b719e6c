#include "elf/elf_reader.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/error.h"
#include "common/log.h"

namespace phybin::elf {

// The ELF structures are read with memcpy; both hosts phybin builds on
// (x86-64 for tests, AArch64 for real) are little-endian like the guest.
static_assert(std::endian::native == std::endian::little);

namespace {

constexpr uint64_t kGuestPage = 4096;
// x86-64 user space (4-level paging) ends at 2^47; nothing a program maps may
// lie above, whatever the host's address space.
constexpr uint64_t kUserAddressLimit = uint64_t{1} << 47;
// Linux's ELF loader refuses program header tables larger than this.
constexpr uint64_t kMaxPhdrTableBytes = 65536;
constexpr uint64_t kMaxInterpreterLength = 4096;  // PATH_MAX, with its NUL

[[noreturn]] void fail(ErrorCode code, const std::string& path, const std::string& what) {
  throw Error(code, path + ": " + what);
}

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

std::string range_text(uint64_t begin, uint64_t end) { return "[" + hex(begin) + ", " + hex(end) + ")"; }

// An open file with its size; closes itself.
class InputFile {
 public:
  explicit InputFile(const std::string& path) : path_(path) {
    // Looked at before it is opened: opening a FIFO waits for a writer,
    // and opening a device may do something.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) refuse_unless_regular(st);
    // O_NONBLOCK: should the file have become a FIFO since, open returns.
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd_ < 0) fail(ErrorCode::PHYBIN_ERR_FILE_ACCESS, path, std::string("cannot open: ") + std::strerror(errno));
    if (::fstat(fd_, &st) != 0) {
      int saved = errno;
      ::close(fd_);
      fail(ErrorCode::PHYBIN_ERR_FILE_ACCESS, path, std::string("cannot stat: ") + std::strerror(saved));
    }
    if (!S_ISREG(st.st_mode)) ::close(fd_);
    refuse_unless_regular(st);
    size_ = static_cast<uint64_t>(st.st_size);
  }
  void refuse_unless_regular(const struct stat& st) const {
    if (S_ISREG(st.st_mode)) return;
    const char* what = S_ISDIR(st.st_mode)    ? "is a directory"
                       : S_ISFIFO(st.st_mode) ? "is a FIFO (named pipe)"
                       : S_ISSOCK(st.st_mode) ? "is a socket"
                       : S_ISCHR(st.st_mode)  ? "is a character device"
                       : S_ISBLK(st.st_mode)  ? "is a block device"
                                              : "is not a regular file";
    fail(ErrorCode::PHYBIN_ERR_FILE_ACCESS, path_, std::string(what) + ", not a program");
  }
  ~InputFile() { ::close(fd_); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  uint64_t size() const { return size_; }

  // Callers have checked [offset, offset + length) against size(); a short
  // read here means the file shrank or the disk failed.
  void read_at(uint64_t offset, void* buffer, size_t length) const {
    auto* out = static_cast<char*>(buffer);
    while (length > 0) {
      ssize_t got = ::pread(fd_, out, length, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) fail(ErrorCode::PHYBIN_ERR_FILE_ACCESS, path_, std::string("cannot read: ") + std::strerror(errno));
      if (got == 0) fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path_, "file ended early (did it change while being read?)");
      out += got;
      offset += static_cast<uint64_t>(got);
      length -= static_cast<size_t>(got);
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// What a non-ELF file most likely is, to make "not an ELF file" useful.
std::string non_elf_description(const unsigned char* bytes, uint64_t size) {
  if (size >= 2 && bytes[0] == '#' && bytes[1] == '!') return "a script (#!), not an ELF file";
  if (size >= 2 && bytes[0] == 'M' && bytes[1] == 'Z') return "a DOS/Windows executable (MZ), not an ELF file";
  return "not an ELF file";
}

const char* osabi_name(unsigned osabi) {
  switch (osabi) {
    case ELFOSABI_NETBSD: return "NetBSD";
    case ELFOSABI_SOLARIS: return "Solaris";
    case ELFOSABI_FREEBSD: return "FreeBSD";
    case ELFOSABI_OPENBSD: return "OpenBSD";
    default: return nullptr;
  }
}

const char* elf_type_name(unsigned type) {
  switch (type) {
    case ET_NONE: return "an ELF file of type ET_NONE";
    case ET_REL: return "a relocatable object file (.o), not an executable";
    case ET_CORE: return "a core dump, not an executable";
    default: return nullptr;
  }
}

// e_ident, e_machine: is this an x86-64 ELF at all?  `bytes` holds the first
// min(size, 64) bytes of the file.  As Linux's binfmt_elf, only the magic
// and e_machine decide (read little-endian whatever EI_DATA says); EI_DATA,
// EI_VERSION, EI_OSABI and EI_ABIVERSION are not looked at, and of
// EI_CLASS only ELFCLASS32 is refused: x86-64's 32-bit class is the x32
// ABI, which phybin does not translate.
void check_identification(const std::string& path, const unsigned char* bytes, uint64_t size) {
  if (size == 0) fail(ErrorCode::PHYBIN_ERR_NOT_X86_64_ELF, path, "empty file, not an ELF file");
  if (std::memcmp(bytes, ELFMAG, size < SELFMAG ? size : SELFMAG) != 0)
    fail(ErrorCode::PHYBIN_ERR_NOT_X86_64_ELF, path, non_elf_description(bytes, size));
  // e_machine sits at offset 18 in both ELF classes.
  if (size < 20) fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path, "truncated ELF header (" + std::to_string(size) + " bytes)");

  const unsigned elf_class = bytes[EI_CLASS];
  const uint16_t machine = static_cast<uint16_t>(bytes[19] << 8 | bytes[18]);
  const char* bits = elf_class == ELFCLASS32 ? "32-bit" : "64-bit";
  if (machine != EM_X86_64 && bytes[EI_DATA] == ELFDATA2MSB)
    fail(ErrorCode::PHYBIN_ERR_NOT_X86_64_ELF, path,
         std::string("big-endian ELF for ") + machine_name(static_cast<uint16_t>(bytes[18] << 8 | bytes[19])) +
             " (" + bits + "), not x86-64: x86-64 programs are little-endian");
  if (machine != EM_X86_64)
    fail(ErrorCode::PHYBIN_ERR_NOT_X86_64_ELF, path,
         std::string("ELF for ") + machine_name(machine) + " (" + bits + "), not x86-64");
  if (elf_class == ELFCLASS32)
    fail(ErrorCode::PHYBIN_ERR_NOT_X86_64_ELF, path, "32-bit ELF for x86-64 (x32 ABI), not supported");
  if (const char* name = osabi_name(bytes[EI_OSABI]))
    logf(LogLevel::Warn, "phybin: warning: %s: x86-64 ELF marked for %s; run as Linux runs it, with its system calls",
         path.c_str(), name);
  if (size < sizeof(Elf64_Ehdr))
    fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path,
         "truncated ELF header (" + std::to_string(size) + " of " + std::to_string(sizeof(Elf64_Ehdr)) + " bytes)");
}

void check_header(const std::string& path, const Elf64_Ehdr& eh, uint64_t file_size) {
  if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
    const char* name = elf_type_name(eh.e_type);
    fail(ErrorCode::PHYBIN_ERR_NOT_X86_64_ELF, path,
         name ? std::string(name) : "ELF file of unknown type " + std::to_string(eh.e_type) + ", not an executable");
  }
  if (eh.e_phentsize != sizeof(Elf64_Phdr))
    fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path,
         "program header entry size is " + std::to_string(eh.e_phentsize) + ", expected " +
             std::to_string(sizeof(Elf64_Phdr)));
  if (eh.e_phnum == 0) fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path, "no program headers");
  uint64_t table_bytes = uint64_t{eh.e_phnum} * sizeof(Elf64_Phdr);
  if (table_bytes > kMaxPhdrTableBytes)
    fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path, "absurd number of program headers (" + std::to_string(eh.e_phnum) + ")");
  if (eh.e_phoff > file_size || table_bytes > file_size - eh.e_phoff)
    fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path,
         "program headers " + range_text(eh.e_phoff, eh.e_phoff + table_bytes) + " lie beyond the end of the file (" +
             std::to_string(file_size) + " bytes)");
}

ProgramHeader widen(const Elf64_Phdr& ph) {
  return ProgramHeader{ph.p_type, ph.p_flags, ph.p_offset, ph.p_vaddr, ph.p_paddr, ph.p_filesz, ph.p_memsz, ph.p_align};
}

// The file bytes a header describes must exist: [offset, offset + filesz).
void check_file_range(const std::string& path, const std::string& what, const ProgramHeader& ph, uint64_t file_size) {
  if (ph.filesz > ph.memsz && ph.type != PT_INTERP)
    fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path,
         what + ": p_filesz " + hex(ph.filesz) + " is larger than p_memsz " + hex(ph.memsz));
  if (ph.offset > file_size || ph.filesz > file_size - ph.offset)
    fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path,
         what + ": file range " + range_text(ph.offset, ph.offset + ph.filesz) + " lies beyond the end of the file (" +
             std::to_string(file_size) + " bytes)");
}

void check_load_segment(const std::string& path, size_t index, const ProgramHeader& ph, uint64_t file_size) {
  std::string what = "PT_LOAD segment " + std::to_string(index);
  check_file_range(path, what, ph, file_size);
  if (ph.vaddr >= kUserAddressLimit || ph.memsz > kUserAddressLimit - ph.vaddr)
    fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path,
         what + ": address range starting at " + hex(ph.vaddr) + " with size " + hex(ph.memsz) +
             " does not fit the x86-64 user address space");
  // mmap can only place file page N at a virtual page whose offset within
  // the page is the same.
  if (ph.filesz > 0 && (ph.vaddr - ph.offset) % kGuestPage != 0)
    fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path,
         what + ": p_vaddr " + hex(ph.vaddr) + " and p_offset " + hex(ph.offset) + " differ modulo the 4 KiB page");
}

std::string read_interpreter(const std::string& path, const InputFile& file, const ProgramHeader& ph) {
  check_file_range(path, "PT_INTERP", ph, file.size());
  if (ph.filesz < 2 || ph.filesz > kMaxInterpreterLength)
    fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path, "PT_INTERP has an absurd size (" + std::to_string(ph.filesz) + " bytes)");
  std::string text(ph.filesz, '\0');
  file.read_at(ph.offset, text.data(), text.size());
  if (text.back() != '\0') fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path, "PT_INTERP is not NUL-terminated");
  text.resize(std::strlen(text.c_str()));
  if (text.empty()) fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path, "PT_INTERP names no interpreter");
  return text;
}

// Walks the program headers once, checking each kind that matters.
void interpret_phdrs(const std::string& path, const InputFile& file, ElfInfo& info) {
  for (size_t i = 0; i < info.phdrs.size(); ++i) {
    const ProgramHeader& ph = info.phdrs[i];
    switch (ph.type) {
      case PT_LOAD:
        check_load_segment(path, i, ph, file.size());
        info.load_indexes.push_back(i);
        break;
      case PT_INTERP:
        // Like Linux, the first PT_INTERP wins.
        if (info.interpreter.empty()) info.interpreter = read_interpreter(path, file, ph);
        break;
      case PT_TLS: info.tls = ph; break;  // the C library reads it, from memory; Linux checks nothing

      case PT_GNU_STACK: info.gnu_stack = ph; break;
      case PT_PHDR: info.phdr_vaddr = ph.vaddr; break;
      default: break;
    }
  }
}

void check_loads_and_entry(const std::string& path, ElfInfo& info) {
  if (info.load_indexes.empty()) fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path, "no PT_LOAD segment");
  // In any order, overlapping or not: Linux maps them in file order, a
  // later one over an earlier one, within the span of them all.
  info.min_vaddr = UINT64_MAX;
  for (size_t index : info.load_indexes) {
    const ProgramHeader& ph = info.phdrs[index];
    info.min_vaddr = std::min(info.min_vaddr, ph.vaddr);
    info.max_vaddr = std::max(info.max_vaddr, ph.vaddr + ph.memsz);
  }
  // An ET_EXEC is mapped where it says; Linux keeps the lowest 64 KiB
  // unmapped (vm.mmap_min_addr), and so does a program that runs there.
  constexpr uint64_t kLowestMappable = 0x10000;
  if (!info.is_pie() && info.min_vaddr < kLowestMappable)
    fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path,
         "PT_LOAD segment at " + hex(info.min_vaddr) +
             ": below 64 KiB, which Linux never maps (vm.mmap_min_addr); the program cannot be loaded there");
  for (size_t index : info.load_indexes) {
    const ProgramHeader& ph = info.phdrs[index];
    if (info.entry >= ph.vaddr && info.entry - ph.vaddr < ph.memsz) return;
  }
  fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path, "entry point " + hex(info.entry) + " lies outside every PT_LOAD segment");
}

}  // namespace

const char* kind_name(ElfKind kind) {
  switch (kind) {
    case ElfKind::StaticExec: return "static";
    case ElfKind::StaticPie: return "static-pie";
    case ElfKind::Dynamic: return "dynamic";
  }
  return "?";
}

bool ElfInfo::wants_executable_stack() const { return gnu_stack && (gnu_stack->flags & PF_X); }

std::string machine_name(uint16_t machine) {
  switch (machine) {
    case EM_X86_64: return "x86-64";
    case EM_386: return "i386";
    case EM_AARCH64: return "AArch64";
    case EM_ARM: return "ARM";
    case EM_RISCV: return "RISC-V";
    case EM_PPC: return "PowerPC";
    case EM_PPC64: return "PowerPC64";
    case EM_S390: return "s390";
    case EM_MIPS: return "MIPS";
    case EM_SPARC: return "SPARC";
    case EM_SPARCV9: return "SPARC V9";
    case EM_IA_64: return "IA-64";
    case EM_68K: return "m68k";
    case EM_SH: return "SuperH";
    case EM_PARISC: return "PA-RISC";
    case EM_ALPHA: return "Alpha";
    case EM_LOONGARCH: return "LoongArch";
    case EM_BPF: return "BPF";
    case EM_AMDGPU: return "AMD GPU";
    case EM_NONE: return "no machine (EM_NONE)";
    default: return "machine " + hex(machine);
  }
}

ElfInfo inspect_elf(const std::string& path) {
  InputFile file(path);
  ElfInfo info;
  info.path = path;
  info.file_size = file.size();

  unsigned char head[sizeof(Elf64_Ehdr)] = {};
  uint64_t head_size = file.size() < sizeof head ? file.size() : sizeof head;
  file.read_at(0, head, head_size);
  check_identification(path, head, head_size);

  Elf64_Ehdr eh;
  std::memcpy(&eh, head, sizeof eh);
  check_header(path, eh, file.size());
  info.elf_type = eh.e_type;
  info.entry = eh.e_entry;
  info.phoff = eh.e_phoff;
  info.phentsize = eh.e_phentsize;
  info.phnum = eh.e_phnum;

  std::vector<Elf64_Phdr> raw(eh.e_phnum);
  file.read_at(eh.e_phoff, raw.data(), raw.size() * sizeof(Elf64_Phdr));
  for (const Elf64_Phdr& ph : raw) info.phdrs.push_back(widen(ph));

  interpret_phdrs(path, file, info);
  check_loads_and_entry(path, info);

  if (!info.interpreter.empty())
    info.kind = ElfKind::Dynamic;
  else
    info.kind = eh.e_type == ET_DYN ? ElfKind::StaticPie : ElfKind::StaticExec;
  return info;
}

ElfInfo inspect_interpreter(const std::string& path, const std::string& program) {
  ElfInfo info = inspect_elf(path);
  // An ET_EXEC interpreter is mapped at its link addresses, as Linux maps
  // it (where it collides with the program, the loader says so).
  if (info.kind == ElfKind::Dynamic)
    fail(ErrorCode::PHYBIN_ERR_BAD_ELF, path,
         "is the program interpreter of " + program + " but names an interpreter itself (" + info.interpreter + ")");
  return info;
}

}  // namespace phybin::elf
