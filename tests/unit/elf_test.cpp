// Tests of src/elf: the ELF reader on synthetic executables written byte by
// byte (and then broken in every way we check for), on real files of the
// host, and the loader and initial stack on the (x86-64) host itself, where
// the loaded programs can even be run natively to prove the layout right.
#include <elf.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "elf/elf_reader.h"
#include "elf/initial_stack.h"
#include "elf/loader.h"

namespace phybin::elf {
namespace {

using Bytes = std::vector<uint8_t>;

// ---------------------------------------------------------------------------
// A synthetic x86-64 executable:
//   file 0x0000 ELF header, program headers      } text PT_LOAD (R+X) at base
//   file 0x0800 PT_INTERP string (when asked)     }
//   file 0x1000 code: mov rdi,[rsp]; mov eax,60; syscall   (exit(argc))
//   file 0x2000 data, 0x1800 bytes of a pattern   } data PT_LOAD (R+W) at
//   file 0x3800 0xEE filler up to 0x4000          } base + 0x12000, memsz 0x3000
// The data segment's .bss starts inside its last file page, whose filler
// must read as zero once loaded.
constexpr uint64_t kFixedBase = 0x10000000;  // free in an ASan process on x86-64
constexpr uint64_t kCodeOffset = 0x1000;
constexpr uint64_t kDataOffset = 0x2000;
constexpr uint64_t kDataVaddr = 0x12000;  // relative to the base
constexpr uint64_t kDataFileSize = 0x1800;
constexpr uint64_t kDataMemSize = 0x3000;
constexpr uint64_t kFileSize = 0x4000;
constexpr uint64_t kInterpOffset = 0x800;
constexpr char kInterpreter[] = "/lib64/ld-linux-x86-64.so.2";
const uint8_t kCode[] = {0x48, 0x8b, 0x3c, 0x24,        // mov rdi, [rsp]
                         0xb8, 0x3c, 0x00, 0x00, 0x00,  // mov eax, 60 (exit)
                         0x0f, 0x05};                   // syscall

// Program header indexes in the synthetic file.
enum : size_t { kPhPhdr, kPhText, kPhData, kPhTls, kPhStack, kPhInterp };

struct Layout {
  uint16_t type = ET_EXEC;
  uint64_t base = kFixedBase;
  bool with_interp = false;
};

uint8_t data_pattern(uint64_t i) { return static_cast<uint8_t>(i * 7 + 1); }

template <typename T>
T get(const Bytes& bytes, uint64_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}
template <typename T>
void put(Bytes& bytes, uint64_t offset, const T& value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

void edit_header(Bytes& bytes, const std::function<void(Elf64_Ehdr&)>& change) {
  auto eh = get<Elf64_Ehdr>(bytes, 0);
  change(eh);
  put(bytes, 0, eh);
}
void edit_phdr(Bytes& bytes, size_t index, const std::function<void(Elf64_Phdr&)>& change) {
  uint64_t at = sizeof(Elf64_Ehdr) + index * sizeof(Elf64_Phdr);
  auto ph = get<Elf64_Phdr>(bytes, at);
  change(ph);
  put(bytes, at, ph);
}

Elf64_Phdr phdr(uint32_t type, uint32_t flags, uint64_t offset, uint64_t vaddr, uint64_t filesz, uint64_t memsz,
                uint64_t align) {
  return Elf64_Phdr{type, flags, offset, vaddr, vaddr, filesz, memsz, align};
}

Bytes make_elf(const Layout& layout = {}) {
  Bytes bytes(kFileSize, 0);
  uint16_t phnum = layout.with_interp ? 6 : 5;
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_ident[EI_OSABI] = ELFOSABI_SYSV;
  eh.e_type = layout.type;
  eh.e_machine = EM_X86_64;
  eh.e_version = EV_CURRENT;
  eh.e_entry = layout.base + kCodeOffset;
  eh.e_phoff = sizeof(Elf64_Ehdr);
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = phnum;
  put(bytes, 0, eh);

  const uint64_t b = layout.base, text_size = kCodeOffset + sizeof kCode;
  const uint64_t table = phnum * sizeof(Elf64_Phdr);
  std::vector<Elf64_Phdr> phdrs = {
      phdr(PT_PHDR, PF_R, sizeof(Elf64_Ehdr), b + sizeof(Elf64_Ehdr), table, table, 8),
      phdr(PT_LOAD, PF_R | PF_X, 0, b, text_size, text_size, 0x1000),
      phdr(PT_LOAD, PF_R | PF_W, kDataOffset, b + kDataVaddr, kDataFileSize, kDataMemSize, 0x1000),
      phdr(PT_TLS, PF_R, kDataOffset, b + kDataVaddr, 0x10, 0x20, 8),
      phdr(PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 16),
  };
  if (layout.with_interp) {
    phdrs.push_back(
        phdr(PT_INTERP, PF_R, kInterpOffset, b + kInterpOffset, sizeof kInterpreter, sizeof kInterpreter, 1));
    std::memcpy(bytes.data() + kInterpOffset, kInterpreter, sizeof kInterpreter);
  }
  for (size_t i = 0; i < phdrs.size(); ++i) put(bytes, sizeof(Elf64_Ehdr) + i * sizeof(Elf64_Phdr), phdrs[i]);
  std::memcpy(bytes.data() + kCodeOffset, kCode, sizeof kCode);
  for (uint64_t i = 0; i < kDataFileSize; ++i) bytes[kDataOffset + i] = data_pattern(i);
  for (uint64_t i = kDataOffset + kDataFileSize; i < kFileSize; ++i) bytes[i] = 0xEE;
  return bytes;
}

// ---------------------------------------------------------------------------
// Files in a private temporary directory, removed after each test.
class ElfTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/phybin-elf-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    for (const std::string& f : files_) ::unlink(f.c_str());
    ::rmdir(dir_.c_str());
  }

  std::string write_file(const Bytes& bytes, const std::string& name = "prog") {
    std::string path = dir_ + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.close();
    files_.push_back(path);
    return path;
  }
  std::string write_text(const std::string& text, const std::string& name) {
    return write_file(Bytes(text.begin(), text.end()), name);
  }

  std::string dir_;
  std::vector<std::string> files_;
};

// Runs inspect_elf, expecting a phybin::Error with `code`; returns its message.
std::string inspect_error(const std::string& path, ErrorCode code) {
  try {
    inspect_elf(path);
  } catch (const Error& e) {
    EXPECT_EQ(error_name(e.code()), std::string(error_name(code))) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << "message must name the file: " << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "one line: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "inspect_elf(" << path << ") did not throw";
  return "";
}

// The fixture's helpers are protected; the tests below reach them through this.
class ElfInspect : public ElfTest {
 protected:
  std::string expect_error(const std::function<void(Bytes&)>& mutate, ErrorCode code) {
    Bytes bytes = make_elf();
    mutate(bytes);
    return inspect_error(write_file(bytes, "mutated"), code);
  }
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

constexpr ErrorCode kNotX86 = ErrorCode::PHYBIN_ERR_NOT_X86_64_ELF;
constexpr ErrorCode kBadElf = ErrorCode::PHYBIN_ERR_BAD_ELF;

// ---------------------------------------------------------------------------
// inspect_elf: accepted files

TEST_F(ElfInspect, AcceptsSyntheticStaticExecutable) {
  std::string path = write_file(make_elf());
  ElfInfo info = inspect_elf(path);
  EXPECT_EQ(info.path, path);
  EXPECT_EQ(info.file_size, kFileSize);
  EXPECT_EQ(info.kind, ElfKind::StaticExec);
  EXPECT_STREQ(kind_name(info.kind), "static");
  EXPECT_FALSE(info.is_pie());
  EXPECT_EQ(info.entry, kFixedBase + kCodeOffset);
  EXPECT_EQ(info.phoff, 64u);
  EXPECT_EQ(info.phentsize, 56u);
  EXPECT_EQ(info.phnum, 5u);
  ASSERT_EQ(info.phdrs.size(), 5u);
  EXPECT_EQ(info.phdrs[kPhData].memsz, kDataMemSize);
  EXPECT_EQ(info.load_indexes, (std::vector<size_t>{kPhText, kPhData}));
  EXPECT_TRUE(info.interpreter.empty());
  ASSERT_TRUE(info.tls.has_value());
  EXPECT_EQ(info.tls->memsz, 0x20u);
  ASSERT_TRUE(info.gnu_stack.has_value());
  EXPECT_FALSE(info.wants_executable_stack());
  ASSERT_TRUE(info.phdr_vaddr.has_value());
  EXPECT_EQ(*info.phdr_vaddr, kFixedBase + 64);
  EXPECT_EQ(info.min_vaddr, kFixedBase);
  EXPECT_EQ(info.max_vaddr, kFixedBase + kDataVaddr + kDataMemSize);
}

TEST_F(ElfInspect, AcceptsSyntheticStaticPie) {
  ElfInfo info = inspect_elf(write_file(make_elf({.type = ET_DYN, .base = 0})));
  EXPECT_EQ(info.kind, ElfKind::StaticPie);
  EXPECT_STREQ(kind_name(info.kind), "static-pie");
  EXPECT_TRUE(info.is_pie());
  EXPECT_EQ(info.entry, kCodeOffset);
  EXPECT_EQ(info.min_vaddr, 0u);
  EXPECT_EQ(inspect_interpreter(write_file(make_elf({.type = ET_DYN, .base = 0})), "prog").kind,
            ElfKind::StaticPie);
}

TEST_F(ElfInspect, ReportsDynamicExecutable) {
  ElfInfo info = inspect_elf(write_file(make_elf({.with_interp = true})));
  EXPECT_EQ(info.kind, ElfKind::Dynamic);
  EXPECT_EQ(info.interpreter, kInterpreter);
}

// Linux loads an ET_EXEC interpreter (at its link addresses) as well as an
// ET_DYN one; phybin refuses one that names an interpreter itself.
TEST_F(ElfInspect, InterpreterMayBeExecutableButNeedsNoInterpreter) {
  EXPECT_EQ(inspect_interpreter(write_file(make_elf(), "exec_interp"), "/bin/prog").elf_type, ET_EXEC);
  const std::string dynamic = write_file(make_elf({.type = ET_DYN, .base = 0, .with_interp = true}), "dyn_interp");
  try {
    inspect_interpreter(dynamic, "/bin/prog");
    ADD_FAILURE() << "inspect_interpreter accepted " << dynamic;
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::PHYBIN_ERR_BAD_ELF);
    EXPECT_TRUE(contains(e.what(), "/bin/prog")) << e.what();
    EXPECT_TRUE(contains(e.what(), dynamic)) << e.what();
  }
}

TEST_F(ElfInspect, ExecutableStackIsReported) {
  Bytes bytes = make_elf();
  edit_phdr(bytes, kPhStack, [](Elf64_Phdr& ph) { ph.p_flags = PF_R | PF_W | PF_X; });
  EXPECT_TRUE(inspect_elf(write_file(bytes)).wants_executable_stack());
}

TEST_F(ElfInspect, GnuOsAbiIsAccepted) {
  Bytes bytes = make_elf();
  bytes[EI_OSABI] = ELFOSABI_GNU;
  EXPECT_NO_THROW(inspect_elf(write_file(bytes)));
}

// ---------------------------------------------------------------------------
// inspect_elf: files that are not x86-64 executables

TEST_F(ElfInspect, BadMagicIsNotElf) {
  std::string message = expect_error([](Bytes& b) { b[1] = 'X'; }, kNotX86);
  EXPECT_TRUE(contains(message, "not an ELF file")) << message;
}

TEST_F(ElfInspect, ScriptIsNotElfAndSaysScript) {
  std::string path = write_text("#!/bin/sh\necho hi\n", "script.sh");
  EXPECT_TRUE(contains(inspect_error(path, kNotX86), "script"));
}

TEST_F(ElfInspect, EmptyFileIsNotElf) { inspect_error(write_file({}, "empty"), kNotX86); }

TEST_F(ElfInspect, AArch64ElfIsRefusedByName) {
  std::string message =
      expect_error([](Bytes& b) { edit_header(b, [](Elf64_Ehdr& e) { e.e_machine = 183; }); }, kNotX86);
  EXPECT_TRUE(contains(message, "AArch64")) << message;
}

TEST_F(ElfInspect, OtherMachinesAreNamed) {
  EXPECT_EQ(machine_name(EM_RISCV), "RISC-V");
  EXPECT_EQ(machine_name(EM_ARM), "ARM");
  EXPECT_EQ(machine_name(EM_386), "i386");
  EXPECT_EQ(machine_name(0x1234), "machine 0x1234");
}

TEST_F(ElfInspect, ThirtyTwoBitClassIsRefused) {
  std::string message = expect_error([](Bytes& b) { b[EI_CLASS] = ELFCLASS32; }, kNotX86);
  EXPECT_TRUE(contains(message, "32-bit")) << message;
}

TEST_F(ElfInspect, I386ElfIsRefusedByName) {
  std::string message = expect_error(
      [](Bytes& b) {
        b[EI_CLASS] = ELFCLASS32;
        edit_header(b, [](Elf64_Ehdr& e) { e.e_machine = EM_386; });
      },
      kNotX86);
  EXPECT_TRUE(contains(message, "i386")) << message;
}

TEST_F(ElfInspect, BigEndianIsRefused) {
  // e_machine 62 written big-endian: an x86-64 machine number in the wrong order.
  std::string message = expect_error(
      [](Bytes& b) {
        b[EI_DATA] = ELFDATA2MSB;
        b[18] = 0;
        b[19] = EM_X86_64;
      },
      kNotX86);
  EXPECT_TRUE(contains(message, "big-endian")) << message;
}

// Linux reads the header little-endian whatever EI_DATA says, and looks at
// neither EI_VERSION, e_version, EI_OSABI nor EI_ABIVERSION.
TEST_F(ElfInspect, IdentificationBytesLinuxIgnoresAreIgnored) {
  for (const auto& change : std::vector<std::function<void(Bytes&)>>{
           [](Bytes& b) { b[EI_DATA] = ELFDATA2MSB; }, [](Bytes& b) { b[EI_DATA] = 0; },
           [](Bytes& b) { b[EI_CLASS] = 0; }, [](Bytes& b) { b[EI_VERSION] = 2; },
           [](Bytes& b) { edit_header(b, [](Elf64_Ehdr& e) { e.e_version = 0; }); },
           [](Bytes& b) { b[EI_OSABI] = ELFOSABI_FREEBSD; }, [](Bytes& b) { b[EI_ABIVERSION] = 7; }}) {
    Bytes bytes = make_elf();
    change(bytes);
    EXPECT_EQ(inspect_elf(write_file(bytes)).entry, kFixedBase + kCodeOffset);
  }
}

TEST_F(ElfInspect, RelocatableObjectIsRefused) {
  std::string message =
      expect_error([](Bytes& b) { edit_header(b, [](Elf64_Ehdr& e) { e.e_type = ET_REL; }); }, kNotX86);
  EXPECT_TRUE(contains(message, "relocatable")) << message;
}

TEST_F(ElfInspect, CoreDumpIsRefused) {
  expect_error([](Bytes& b) { edit_header(b, [](Elf64_Ehdr& e) { e.e_type = ET_CORE; }); }, kNotX86);
}

TEST_F(ElfInspect, MissingFileIsFileAccessWithReason) {
  std::string message = inspect_error(dir_ + "/no-such-program", ErrorCode::PHYBIN_ERR_FILE_ACCESS);
  EXPECT_TRUE(contains(message, std::strerror(ENOENT))) << message;
}

TEST_F(ElfInspect, DirectoryIsFileAccess) { inspect_error(dir_, ErrorCode::PHYBIN_ERR_FILE_ACCESS); }

// ---------------------------------------------------------------------------
// inspect_elf: truncated and corrupted files

TEST_F(ElfInspect, EveryTruncationIsACleanError) {
  Bytes bytes = make_elf({.with_interp = true});
  std::string path = write_file(bytes);
  ASSERT_NO_THROW(inspect_elf(path));
  // Shrink the same file one byte at a time: cheap, and covers cuts inside
  // the header, the program headers, the interpreter string and each segment.
  // Only the filler after the last segment's file bytes may go.
  for (uint64_t length = bytes.size(); length-- > 0;) {
    ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(length)), 0);
    if (length >= kDataOffset + kDataFileSize) {
      EXPECT_NO_THROW(inspect_elf(path)) << "length " << length;
      continue;
    }
    try {
      inspect_elf(path);
      ADD_FAILURE() << "a file cut to " << length << " bytes was accepted";
    } catch (const Error& e) {
      ErrorCode expected = length == 0 ? kNotX86 : kBadElf;
      ASSERT_EQ(e.code(), expected) << "length " << length << ": " << e.what();
    }
  }
}

TEST_F(ElfInspect, ProgramHeadersBeyondFile) {
  std::string message =
      expect_error([](Bytes& b) { edit_header(b, [](Elf64_Ehdr& e) { e.e_phoff = kFileSize - 100; }); }, kBadElf);
  EXPECT_TRUE(contains(message, "program headers")) << message;
  // An offset that overflows when the table size is added.
  expect_error([](Bytes& b) { edit_header(b, [](Elf64_Ehdr& e) { e.e_phoff = ~uint64_t{0} - 10; }); }, kBadElf);
}

TEST_F(ElfInspect, WrongPhentsize) {
  expect_error([](Bytes& b) { edit_header(b, [](Elf64_Ehdr& e) { e.e_phentsize = 32; }); }, kBadElf);
}

TEST_F(ElfInspect, HugePhnum) {
  expect_error([](Bytes& b) { edit_header(b, [](Elf64_Ehdr& e) { e.e_phnum = 0xffff; }); }, kBadElf);
  expect_error([](Bytes& b) { edit_header(b, [](Elf64_Ehdr& e) { e.e_phnum = 2000; }); }, kBadElf);  // > 64 KiB
  expect_error([](Bytes& b) { edit_header(b, [](Elf64_Ehdr& e) { e.e_phnum = 300; }); }, kBadElf);   // past EOF
}

TEST_F(ElfInspect, NoProgramHeaders) {
  expect_error([](Bytes& b) { edit_header(b, [](Elf64_Ehdr& e) { e.e_phnum = 0; }); }, kBadElf);
}

TEST_F(ElfInspect, NoLoadSegment) {
  std::string message = expect_error(
      [](Bytes& b) {
        edit_phdr(b, kPhText, [](Elf64_Phdr& ph) { ph.p_type = PT_NOTE; });
        edit_phdr(b, kPhData, [](Elf64_Phdr& ph) { ph.p_type = PT_NOTE; });
      },
      kBadElf);
  EXPECT_TRUE(contains(message, "no PT_LOAD")) << message;
}

TEST_F(ElfInspect, FileszLargerThanMemsz) {
  std::string message =
      expect_error([](Bytes& b) { edit_phdr(b, kPhData, [](Elf64_Phdr& ph) { ph.p_memsz = 0x100; }); }, kBadElf);
  EXPECT_TRUE(contains(message, "p_filesz")) << message;
}

TEST_F(ElfInspect, SegmentBeyondFile) {
  expect_error([](Bytes& b) { edit_phdr(b, kPhData, [](Elf64_Phdr& ph) { ph.p_filesz = ph.p_memsz = 0x10000; }); },
               kBadElf);
  expect_error([](Bytes& b) { edit_phdr(b, kPhData, [](Elf64_Phdr& ph) { ph.p_offset = ~uint64_t{0} - 0xfff; }); },
               kBadElf);
}

// Linux checks no PT_TLS: the C library reads the TLS image from memory.
TEST_F(ElfInspect, TlsBeyondFileIsAccepted) {
  Bytes bytes = make_elf();
  edit_phdr(bytes, kPhTls, [](Elf64_Phdr& ph) { ph.p_offset = kFileSize * 16; });
  EXPECT_EQ(inspect_elf(write_file(bytes)).tls->offset, kFileSize * 16);
}

// Unsorted, overlapping, sharing a page: Linux maps PT_LOADs in file order
// within the span of them all.
TEST_F(ElfInspect, SegmentsInAnyOrderAreAccepted) {
  Bytes bytes = make_elf();
  auto text = get<Elf64_Phdr>(bytes, 64 + kPhText * 56), data = get<Elf64_Phdr>(bytes, 64 + kPhData * 56);
  put(bytes, 64 + kPhText * 56, data);
  put(bytes, 64 + kPhData * 56, text);
  const ElfInfo info = inspect_elf(write_file(bytes));
  EXPECT_EQ(info.min_vaddr, kFixedBase);
  EXPECT_EQ(info.max_vaddr, kFixedBase + kDataVaddr + kDataMemSize);
  EXPECT_EQ(info.load_indexes, (std::vector<size_t>{kPhText, kPhData}));
  Bytes sharing = make_elf();
  edit_phdr(sharing, kPhData, [](Elf64_Phdr& ph) {
    ph.p_vaddr = kFixedBase + 0x1800;
    ph.p_offset = 0x2800;
    ph.p_filesz = 0x1000;
  });
  EXPECT_NO_THROW(inspect_elf(write_file(sharing, "sharing")));
}

TEST_F(ElfInspect, OffsetAndAddressDisagreeModuloPage) {
  std::string message =
      expect_error([](Bytes& b) { edit_phdr(b, kPhData, [](Elf64_Phdr& ph) { ph.p_offset += 8; }); }, kBadElf);
  EXPECT_TRUE(contains(message, "modulo")) << message;
}

TEST_F(ElfInspect, AbsurdAddressesAndSizes) {
  expect_error([](Bytes& b) { edit_phdr(b, kPhData, [](Elf64_Phdr& ph) { ph.p_vaddr = 0xffff800000002000; }); },
               kBadElf);
  expect_error([](Bytes& b) { edit_phdr(b, kPhData, [](Elf64_Phdr& ph) { ph.p_memsz = uint64_t{1} << 62; }); },
               kBadElf);
  expect_error([](Bytes& b) { edit_phdr(b, kPhData, [](Elf64_Phdr& ph) { ph.p_memsz = ~uint64_t{0}; }); }, kBadElf);
}

TEST_F(ElfInspect, EntryOutsideSegments) {
  std::string message =
      expect_error([](Bytes& b) { edit_header(b, [](Elf64_Ehdr& e) { e.e_entry = 0x1234; }); }, kBadElf);
  EXPECT_TRUE(contains(message, "entry")) << message;
}

TEST_F(ElfInspect, InterpreterWithoutNul) {
  Bytes bytes = make_elf({.with_interp = true});
  edit_phdr(bytes, kPhInterp, [](Elf64_Phdr& ph) { ph.p_filesz -= 1; });
  inspect_error(write_file(bytes), kBadElf);
}

TEST_F(ElfInspect, InterpreterBeyondFile) {
  Bytes bytes = make_elf({.with_interp = true});
  edit_phdr(bytes, kPhInterp, [](Elf64_Phdr& ph) { ph.p_offset = kFileSize - 4; });
  inspect_error(write_file(bytes), kBadElf);
}

// Every single-byte corruption of the headers gives a result or a clean
// Error, never a crash (ASan and UBSan watch this one).
TEST_F(ElfInspect, ByteFlipsInHeadersNeverCrash) {
  Bytes good = make_elf({.with_interp = true});
  std::string path = write_file(good);
  const uint64_t header_bytes = sizeof(Elf64_Ehdr) + 6 * sizeof(Elf64_Phdr);
  for (uint64_t at = 0; at < header_bytes; ++at) {
    for (uint8_t value : {uint8_t{0x00}, uint8_t{0xff}, uint8_t{0x80}, static_cast<uint8_t>(good[at] ^ 1)}) {
      Bytes bad = good;
      bad[at] = value;
      int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC);
      ASSERT_GE(fd, 0);
      ASSERT_EQ(::write(fd, bad.data(), bad.size()), static_cast<ssize_t>(bad.size()));
      ::close(fd);
      try {
        inspect_elf(path);
      } catch (const Error& e) {
        EXPECT_TRUE(e.code() == kBadElf || e.code() == kNotX86) << e.what();
      }
    }
  }
}

// ---------------------------------------------------------------------------
// inspect_elf: real files of the host

TEST(ElfRealFiles, BinLsIsDynamicWithTheSystemInterpreter) {
  if (::access("/bin/ls", R_OK) != 0) GTEST_SKIP() << "no /bin/ls";
  ElfInfo info = inspect_elf("/bin/ls");
  EXPECT_EQ(info.kind, ElfKind::Dynamic);
  EXPECT_EQ(info.interpreter, "/lib64/ld-linux-x86-64.so.2");
  EXPECT_GE(info.load_indexes.size(), 2u);
}

TEST(ElfRealFiles, EtcPasswdIsNotElf) {
  try {
    inspect_elf("/etc/passwd");
    ADD_FAILURE() << "/etc/passwd accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), kNotX86);
    EXPECT_TRUE(contains(e.what(), "/etc/passwd: not an ELF file")) << e.what();
  }
}

bool is_static_pie(const std::string& path) {
  try {
    return inspect_elf(path).kind == ElfKind::StaticPie;
  } catch (const Error&) {
    return false;
  }
}

TEST(ElfRealFiles, LdconfigIsStaticPie) {
  // Debian's ldconfig is linked -static-pie.
  if (!is_static_pie("/sbin/ldconfig")) GTEST_SKIP() << "/sbin/ldconfig is not a static-pie here";
  ElfInfo info = inspect_elf("/sbin/ldconfig");
  EXPECT_TRUE(info.tls.has_value());
  EXPECT_TRUE(info.interpreter.empty());
}

// What real linkers produce must pass our checks: inspect every ELF file in
// /usr/bin and /usr/sbin and accept nothing but NOT_X86_64_ELF for them
// (shared libraries and foreign binaries are fine to refuse, corrupt is not).
TEST(ElfRealFiles, HostExecutablesAreNeverCalledCorrupt) {
  int checked = 0;
  for (const char* dir : {"/usr/bin", "/usr/sbin"}) {
    std::string listing;
    FILE* ls = ::popen((std::string("find ") + dir + " -maxdepth 1 -type f 2>/dev/null").c_str(), "r");
    ASSERT_NE(ls, nullptr);
    char line[4096];
    while (std::fgets(line, sizeof line, ls)) {
      std::string path(line);
      path.pop_back();
      std::ifstream in(path, std::ios::binary);
      char magic[4] = {};
      if (!in.read(magic, 4) || std::memcmp(magic, ELFMAG, 4) != 0) continue;
      ++checked;
      try {
        inspect_elf(path);
      } catch (const Error& e) {
        EXPECT_EQ(e.code(), kNotX86) << e.what();
      }
    }
    ::pclose(ls);
  }
  EXPECT_GT(checked, 10);
}

// ---------------------------------------------------------------------------
// The loader

struct MapsLine {
  uint64_t start = 0, end = 0;
  std::string perms;
};

// The /proc/self/maps line containing `address`, if any.
std::optional<MapsLine> find_mapping(uint64_t address) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    MapsLine m;
    char dash;
    std::istringstream fields(line);
    fields >> std::hex >> m.start >> dash >> m.end >> m.perms;
    if (address >= m.start && address < m.end) return m;
  }
  return std::nullopt;
}

bool is_mapped(uint64_t address) { return find_mapping(address).has_value(); }

class ElfLoad : public ElfTest {
 protected:
  void TearDown() override {
    for (const LoadedImage& image : images_) unmap_image(image);
    for (const StackInfo& stack : stacks_) release_stack(stack);
    ElfTest::TearDown();
  }
  LoadedImage load(const Layout& layout = {}) {
    LoadedImage image = load_image(inspect_elf(write_file(make_elf(layout))));
    images_.push_back(image);
    return image;
  }
  StackInfo stack(const LoadedImage& image, const std::vector<std::string>& argv, const std::vector<std::string>& envp,
                  const StackOptions& options = {}) {
    StackInfo info;
    uint64_t rsp = build_initial_stack(image, argv, envp, options, &info);
    EXPECT_EQ(rsp, info.rsp);
    stacks_.push_back(info);
    return info;
  }

  std::vector<LoadedImage> images_;
  std::vector<StackInfo> stacks_;
};

// Checks the bytes of a loaded synthetic image at `base` (guest == host).
void expect_synthetic_contents(uint64_t base) {
  const auto* text = reinterpret_cast<const uint8_t*>(base);
  EXPECT_EQ(std::memcmp(text, ELFMAG, SELFMAG), 0);
  EXPECT_EQ(std::memcmp(text + kCodeOffset, kCode, sizeof kCode), 0);
  const auto* data = reinterpret_cast<const uint8_t*>(base + kDataVaddr);
  for (uint64_t i = 0; i < kDataFileSize; ++i) ASSERT_EQ(data[i], data_pattern(i)) << "data byte " << i;
  for (uint64_t i = kDataFileSize; i < kDataMemSize; ++i) ASSERT_EQ(data[i], 0) << ".bss byte " << i;
}

TEST_F(ElfLoad, StaticExecutableLandsAtItsLinkAddress) {
  LoadedImage image = load();
  EXPECT_EQ(image.load_bias, 0u);
  EXPECT_EQ(image.entry, kFixedBase + kCodeOffset);
  EXPECT_EQ(image.phdr_addr, kFixedBase + 64);
  EXPECT_EQ(image.phnum, 5u);
  EXPECT_EQ(image.phent, 56u);
  EXPECT_EQ(image.low, kFixedBase);
  EXPECT_EQ(image.high, kFixedBase + kDataVaddr + kDataMemSize);
  EXPECT_EQ(image.brk_start, image.high);
  ASSERT_EQ(image.segments.size(), 2u);
  expect_synthetic_contents(kFixedBase);

  // The program headers are readable where AT_PHDR will say.
  Elf64_Phdr first;
  std::memcpy(&first, reinterpret_cast<const void*>(image.phdr_addr), sizeof first);
  EXPECT_EQ(first.p_type, static_cast<uint32_t>(PT_PHDR));
}

TEST_F(ElfLoad, ProtectionsFollowFlags) {
  LoadedImage image = load();
  auto text = find_mapping(kFixedBase + kCodeOffset), data = find_mapping(kFixedBase + kDataVaddr),
       bss = find_mapping(kFixedBase + kDataVaddr + kDataMemSize - 1);
  ASSERT_TRUE(text && data && bss);
  EXPECT_EQ(text->perms, "r-xp");
  EXPECT_EQ(data->perms, "rw-p");
  EXPECT_EQ(bss->perms, "rw-p");
  EXPECT_EQ(image.segments[0].guest_flags, static_cast<uint32_t>(PF_R | PF_X));
  EXPECT_EQ(image.segments[0].host_prot, PROT_READ | PROT_EXEC);
  EXPECT_EQ(host_protection(PF_X), PROT_READ | PROT_EXEC);
  EXPECT_EQ(host_protection(PF_W), PROT_WRITE);
  EXPECT_EQ(host_protection(0), PROT_NONE);
  // The gap between the segments is left free, as Linux leaves it.
  EXPECT_FALSE(is_mapped(kFixedBase + 0x8000));
  EXPECT_FALSE(is_mapped(image.high));
}

TEST_F(ElfLoad, TakenAddressIsHostMmapErrorNamingTheRange) {
  load();
  ElfInfo again = inspect_elf(write_file(make_elf(), "second"));
  try {
    images_.push_back(load_image(again));
    ADD_FAILURE() << "loaded twice at the same address";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::PHYBIN_ERR_HOST_MMAP);
    EXPECT_TRUE(contains(e.what(), "0x10000000")) << e.what();
  }
}

TEST_F(ElfLoad, PartlyTakenRangeFailsAndLeavesNothingMapped) {
  // Occupy one page in the gap between the segments: the whole span is
  // reserved first, so the load fails before mapping anything.
  void* blocker = ::mmap(reinterpret_cast<void*>(kFixedBase + 0x8000), 4096, PROT_READ,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  ASSERT_EQ(blocker, reinterpret_cast<void*>(kFixedBase + 0x8000));
  ElfInfo info = inspect_elf(write_file(make_elf()));
  EXPECT_THROW(load_image(info), Error);
  EXPECT_FALSE(is_mapped(kFixedBase));
  EXPECT_FALSE(is_mapped(kFixedBase + kDataVaddr));
  ::munmap(blocker, 4096);
}

TEST_F(ElfLoad, StaticPieGetsAPageAlignedBias) {
  LoadedImage image = load({.type = ET_DYN, .base = 0});
  EXPECT_NE(image.load_bias, 0u);
  EXPECT_EQ(image.load_bias % 4096, 0u);
  EXPECT_LT(image.high, uint64_t{1} << 47);
  EXPECT_EQ(image.entry, image.load_bias + kCodeOffset);
  EXPECT_EQ(image.phdr_addr, image.load_bias + 64);
  EXPECT_EQ(image.low, image.load_bias);
  EXPECT_EQ(image.brk_start, image.load_bias + kDataVaddr + kDataMemSize);
  expect_synthetic_contents(image.load_bias);
}

// The text segment mapped over the start of the data one, which comes first
// in the file: the text's pages are the text's, the rest the data's, and
// the segment list says so.
TEST_F(ElfLoad, LaterSegmentIsMappedOverAnEarlierOne) {
  Bytes bytes = make_elf();
  auto text = get<Elf64_Phdr>(bytes, 64 + kPhText * 56), data = get<Elf64_Phdr>(bytes, 64 + kPhData * 56);
  data.p_vaddr = kFixedBase + 0x1000;
  data.p_offset = 0x1000;
  data.p_filesz = 0x2000;
  data.p_memsz = 0x3000;
  put(bytes, 64 + kPhText * 56, data);
  put(bytes, 64 + kPhData * 56, text);
  LoadedImage image = load_image(inspect_elf(write_file(bytes)));
  images_.push_back(image);
  ASSERT_EQ(image.segments.size(), 2u);
  EXPECT_EQ(image.segments[0].start, kFixedBase);
  EXPECT_EQ(image.segments[0].end, kFixedBase + 0x2000);
  EXPECT_EQ(image.segments[1].start, kFixedBase + 0x2000);
  EXPECT_EQ(image.segments[1].file_offset, 0x2000u);
  EXPECT_EQ(image.segments[1].file_end, kFixedBase + 0x3000);
  EXPECT_EQ(find_mapping(kFixedBase + 0x1000)->perms, "r-xp");
  EXPECT_EQ(find_mapping(kFixedBase + 0x2000)->perms, "rw-p");
  EXPECT_EQ(*reinterpret_cast<const uint8_t*>(kFixedBase + 0x2000), data_pattern(0));
}

// Past p_filesz in its last file page, a read-only segment keeps the file's
// bytes (Linux does not zero them there); a writable one reads zeros.
TEST_F(ElfLoad, ReadOnlySegmentKeepsItsLastPageTail) {
  for (const uint32_t flags : {uint32_t{PF_R}, uint32_t{PF_R | PF_W}}) {
    Bytes bytes = make_elf();
    edit_phdr(bytes, kPhData, [&](Elf64_Phdr& ph) { ph.p_flags = flags; });
    LoadedImage image = load_image(inspect_elf(write_file(bytes, flags & PF_W ? "rw" : "ro")));
    const auto* data = reinterpret_cast<const uint8_t*>(kFixedBase + kDataVaddr);
    EXPECT_EQ(data[kDataFileSize], flags & PF_W ? 0 : 0xEE);
    EXPECT_EQ(data[0x1fff], flags & PF_W ? 0 : 0xEE);
    EXPECT_EQ(data[0x2000], 0) << "a whole page past the file's is anonymous";
    unmap_image(image);
  }
}

TEST_F(ElfLoad, PhdrFoundThroughLoadSegmentWithoutPtPhdr) {
  Bytes bytes = make_elf();
  edit_phdr(bytes, kPhPhdr, [](Elf64_Phdr& ph) { ph.p_type = PT_NULL; });
  LoadedImage image = load_image(inspect_elf(write_file(bytes)));
  images_.push_back(image);
  EXPECT_EQ(image.phdr_addr, kFixedBase + 64);
}

TEST_F(ElfLoad, FileChangedAfterInspectIsRefused) {
  std::string path = write_file(make_elf());
  ElfInfo info = inspect_elf(path);
  ASSERT_EQ(::truncate(path.c_str(), 0x2000), 0);
  try {
    images_.push_back(load_image(info));
    ADD_FAILURE() << "loaded a file that shrank";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), kBadElf);
  }
  EXPECT_FALSE(is_mapped(kFixedBase));
}

// ---------------------------------------------------------------------------
// The initial stack

uint64_t word(uint64_t address) {
  uint64_t value;
  std::memcpy(&value, reinterpret_cast<const void*>(address), sizeof value);
  return value;
}
std::string string_at(uint64_t address) { return reinterpret_cast<const char*>(address); }

struct WalkedStack {
  uint64_t argc = 0;
  std::vector<std::string> argv, envp;
  std::vector<std::pair<uint64_t, uint64_t>> auxv;  // up to and including AT_NULL
  uint64_t auxv_address = 0;
};

// Walks the stack the way a C library's _start does.
WalkedStack walk(uint64_t rsp) {
  WalkedStack w;
  uint64_t at = rsp;
  w.argc = word(at);
  at += 8;
  for (; word(at) != 0; at += 8) w.argv.push_back(string_at(word(at)));
  at += 8;
  for (; word(at) != 0; at += 8) w.envp.push_back(string_at(word(at)));
  at += 8;
  w.auxv_address = at;
  for (;; at += 16) {
    w.auxv.emplace_back(word(at), word(at + 8));
    if (word(at) == AT_NULL) break;
  }
  return w;
}

TEST_F(ElfLoad, StackLayoutMatchesLinux) {
  LoadedImage image = load();
  StackOptions options;
  options.hwcap = 0x178bfbff;
  options.execfn = "/usr/local/bin/prog";
  std::vector<std::string> argv = {"prog", "-v", "hello world"}, envp = {"A=1", "PATH=/bin", "EMPTY="};
  StackInfo info = stack(image, argv, envp, options);

  EXPECT_EQ(info.rsp % 16, 0u) << "psABI: RSP is 16-byte aligned at argc";
  WalkedStack w = walk(info.rsp);
  EXPECT_EQ(w.argc, 3u);
  EXPECT_EQ(w.argv, argv);
  EXPECT_EQ(w.envp, envp);
  EXPECT_EQ(w.auxv_address, info.auxv);
  EXPECT_EQ(info.argv, info.rsp + 8);
  EXPECT_EQ(info.envp, info.rsp + 8 + 4 * 8);
  EXPECT_EQ(info.auxv_bytes, w.auxv.size() * 16);

  // Linux's order, without AT_SYSINFO_EHDR.
  std::vector<uint64_t> keys;
  for (const auto& [key, value] : w.auxv) keys.push_back(key);
  EXPECT_EQ(keys,
            (std::vector<uint64_t>{AT_MINSIGSTKSZ, AT_HWCAP,  AT_PAGESZ, AT_CLKTCK, AT_PHDR,     AT_PHENT, AT_PHNUM,
                                   AT_BASE,        AT_FLAGS,  AT_ENTRY,  AT_UID,    AT_EUID,     AT_GID,   AT_EGID,
                                   AT_SECURE,      AT_RANDOM, AT_HWCAP2, AT_EXECFN, AT_PLATFORM, AT_NULL}));
  std::map<uint64_t, uint64_t> aux(w.auxv.begin(), w.auxv.end());
  EXPECT_EQ(aux[AT_PHDR], image.phdr_addr);
  EXPECT_EQ(aux[AT_PHENT], 56u);
  EXPECT_EQ(aux[AT_PHNUM], 5u);
  EXPECT_EQ(aux[AT_PAGESZ], 4096u);
  EXPECT_EQ(aux[AT_BASE], 0u);
  EXPECT_EQ(aux[AT_FLAGS], 0u);
  EXPECT_EQ(aux[AT_ENTRY], kFixedBase + kCodeOffset);
  EXPECT_EQ(aux[AT_UID], ::getuid());
  EXPECT_EQ(aux[AT_EUID], ::geteuid());
  EXPECT_EQ(aux[AT_GID], ::getgid());
  EXPECT_EQ(aux[AT_EGID], ::getegid());
  EXPECT_EQ(aux[AT_SECURE], 0u);
  EXPECT_EQ(aux[AT_HWCAP], 0x178bfbffu);
  EXPECT_EQ(aux[AT_HWCAP2], 0u);
  EXPECT_EQ(aux[AT_CLKTCK], 100u);
  EXPECT_EQ(aux[AT_MINSIGSTKSZ], 2048u);
  EXPECT_EQ(string_at(aux[AT_PLATFORM]), "x86_64");
  EXPECT_EQ(string_at(aux[AT_EXECFN]), "/usr/local/bin/prog");
  EXPECT_EQ(aux[AT_RANDOM], info.random);
  EXPECT_EQ(aux[AT_PLATFORM], info.platform);
  EXPECT_EQ(aux[AT_EXECFN], info.execfn);

  // Everything lies inside the stack, strings above the vectors, the
  // AT_EXECFN string right under the final zero word.
  EXPECT_GT(aux[AT_RANDOM], info.auxv + info.auxv_bytes - 1);
  EXPECT_LE(aux[AT_RANDOM] + 16, info.stack_top);
  EXPECT_EQ(info.execfn + options.execfn.size() + 1 + 8, info.stack_top);
  EXPECT_EQ(word(info.stack_top - 8), 0u);
  EXPECT_GE(info.rsp, info.stack_low);
  EXPECT_EQ(info.stack_top - info.stack_low, options.stack_size);
}

TEST_F(ElfLoad, StackIsAlignedForEveryCountOfArgumentsAndVariables) {
  LoadedImage image = load();
  for (size_t argc = 0; argc < 4; ++argc) {
    for (size_t envc = 0; envc < 4; ++envc) {
      std::vector<std::string> argv, envp;
      for (size_t i = 0; i < argc; ++i) argv.push_back(std::string(i + argc, 'a'));
      for (size_t i = 0; i < envc; ++i) envp.push_back("V" + std::to_string(i) + "=" + std::string(envc, 'x'));
      StackInfo info = stack(image, argv, envp);
      EXPECT_EQ(info.rsp % 16, 0u) << argc << " args, " << envc << " vars";
      WalkedStack w = walk(info.rsp);
      EXPECT_EQ(w.argv, argv);
      EXPECT_EQ(w.envp, envp);
    }
  }
}

TEST_F(ElfLoad, StackHasAGuardPageAndIsWritable) {
  LoadedImage image = load();
  StackInfo info = stack(image, {"prog"}, {});
  auto guard = find_mapping(info.mapping_start), body = find_mapping(info.stack_low);
  ASSERT_TRUE(guard && body);
  EXPECT_EQ(guard->perms, "---p");
  EXPECT_EQ(body->perms, "rw-p");
  EXPECT_EQ(info.stack_low, info.mapping_start + 4096);
  EXPECT_EQ(info.stack_top - info.stack_low, uint64_t{8} << 20);
  *reinterpret_cast<volatile uint8_t*>(info.stack_low) = 1;  // lowest usable byte
}

TEST_F(ElfLoad, ExecfnDefaultsToImagePathAndRandomBytesDiffer) {
  LoadedImage image = load();
  StackInfo a = stack(image, {"prog"}, {}), b = stack(image, {"prog"}, {});
  EXPECT_EQ(string_at(a.execfn), image.path);
  EXPECT_NE(std::memcmp(reinterpret_cast<void*>(a.random), reinterpret_cast<void*>(b.random), 16), 0);
}

TEST_F(ElfLoad, ArgumentsTooLongForTheStack) {
  LoadedImage image = load();
  StackOptions options;
  options.stack_size = 64 << 10;
  try {
    StackInfo info;
    build_initial_stack(image, {"prog", std::string(20000, 'x')}, {}, options, &info);
    stacks_.push_back(info);
    ADD_FAILURE() << "a 20000-byte argument fit a quarter of 64 KiB";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::PHYBIN_ERR_USAGE);
  }
}

// ---------------------------------------------------------------------------
// Running what was loaded, natively: the host is x86-64, so a child process
// can jump to the guest entry point with the guest stack.  This proves the
// mapping, the entry, RSP and (with a real static-pie glibc program) argv,
// envp and auxv the way the real consumer reads them.

#if defined(__x86_64__)

[[noreturn]] void jump_to_guest(uint64_t entry, uint64_t rsp) {
  // Process entry state: RSP at argc, RDX = 0 (no rtld_fini).
  asm volatile("mov %0, %%rsp\n\txor %%edx, %%edx\n\tjmp *%1" : : "D"(rsp), "a"(entry) : "memory");
  __builtin_unreachable();
}

// In a child: load `path`, make its code executable, build the stack and
// start it, stdout into `out_fd`.  Returns the child's wait status.
int run_natively(const std::string& path, const std::vector<std::string>& argv, const std::vector<std::string>& envp,
                 int out_fd) {
  pid_t child = ::fork();
  if (child < 0) return -1;
  if (child == 0) {
    try {
      if (out_fd >= 0) ::dup2(out_fd, 1);
      LoadedImage image = load_image(inspect_elf(path));
      for (const MappedSegment& seg : image.segments)
        if (seg.guest_flags & PF_X)
          ::mprotect(reinterpret_cast<void*>(seg.start), seg.end - seg.start, PROT_READ | PROT_EXEC);
      uint64_t rsp = build_initial_stack(image, argv, envp, {});
      jump_to_guest(image.entry, rsp);
    } catch (...) {
      ::_exit(125);
    }
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return status;
}

TEST_F(ElfLoad, SyntheticProgramRunsAndSeesArgc) {
  std::string path = write_file(make_elf());
  int status = run_natively(path, {"prog", "a", "b"}, {"X=1"}, -1);
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 3) << "exit(argc)";
}

TEST_F(ElfLoad, SyntheticStaticPieRunsAndSeesArgc) {
  std::string path = write_file(make_elf({.type = ET_DYN, .base = 0}));
  int status = run_natively(path, {"prog", "a", "b", "c", "d"}, {}, -1);
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 5);
}

// glibc's static-pie start relocates itself (_dl_relocate_static_pie) and
// reads AT_PHDR, AT_RANDOM, AT_PAGESZ, AT_MINSIGSTKSZ...: if it runs and
// prints, the loader and the stack are what glibc expects.
TEST_F(ElfLoad, RealStaticPieGlibcProgramRuns) {
  if (!is_static_pie("/sbin/ldconfig")) GTEST_SKIP() << "/sbin/ldconfig is not a static-pie here";
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  int status = run_natively("/sbin/ldconfig", {"ldconfig", "--version"}, {"LC_ALL=C"}, pipe_fds[1]);
  ::close(pipe_fds[1]);
  std::string output;
  char buffer[512];
  for (ssize_t got; (got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    output.append(buffer, static_cast<size_t>(got));
  ::close(pipe_fds[0]);
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(contains(output, "ldconfig")) << output;
}

#endif  // __x86_64__

}  // namespace
}  // namespace phybin::elf
