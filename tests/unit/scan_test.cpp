// Tests of src/scan (phybin scan): the unwind-table walk on .eh_frame bytes
// written by hand, the x86-64 level of decoded instructions, the guard
// analysis on code facts made up unit by unit, the wheel (zip) reader on an
// archive built in memory, and the ELF reader's refusals and a real file.
#include <elf.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "scan/code.h"
#include "scan/guards.h"
#include "scan/image.h"
#include "scan/unwind.h"
#include "scan/wheel.h"
#include "x86/decoder.h"

namespace phybin::scan {
namespace {

using Buffer = std::vector<uint8_t>;

// Little-endian fields: (value, size in bytes).
void put(Buffer& b, std::initializer_list<std::pair<uint32_t, int>> fields) {
  for (const auto& [value, size] : fields)
    for (int i = 0; i < size; ++i) b.push_back(static_cast<uint8_t>(value >> (8 * i)));
}
void put32(Buffer& b, uint32_t v) { put(b, {{v, 4}}); }

// Bytes over a buffer the Bytes share, as a mapping would be.
Bytes bytes_of(Buffer contents) {
  auto owned = std::make_shared<Buffer>(std::move(contents));
  return Bytes{std::shared_ptr<const void>(owned, owned->data()), owned->data(), owned->size()};
}

// The ErrorCode `f` throws (with its message in `message`); fails when none.
ErrorCode thrown(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  ADD_FAILURE() << "no phybin::Error thrown";
  return ErrorCode{};
}

// ---------------------------------------------------------------------------
// .eh_frame written record by record, as GCC lays it out: each record's
// length, then the CIE id (0) or the distance back to its CIE, padded with
// DW_CFA_nop to 4 bytes.
struct EhFrame {
  static constexpr uint64_t kAt = 0x402000;  // its link address
  Buffer bytes;

  // A version-1 CIE, code alignment 1, data alignment -8, return address in
  // r16, whose augmentation data is the FDE encoding pcrel|sdata4 (0x1b),
  // which 'R' names.  Returns its offset.
  size_t cie(const std::string& augmentation) {
    Buffer body = {0, 0, 0, 0, 1};
    body.insert(body.end(), augmentation.begin(), augmentation.end());
    body.insert(body.end(), {0, 1, 0x78, 16, 1, 0x1b});
    return record(body);
  }
  void fde(size_t cie, uint64_t begin, uint32_t size) {
    const size_t id_at = bytes.size() + 4;
    // pcrel: from where the field itself is linked; no augmentation data.
    Buffer body;
    put(body, {{static_cast<uint32_t>(id_at - cie), 4}, {static_cast<uint32_t>(begin - (kAt + id_at + 4)), 4}});
    put(body, {{size, 4}, {0, 1}});
    record(body);
  }
  size_t record(Buffer body) {
    const size_t at = bytes.size();
    while (body.size() % 4) body.push_back(0);
    put32(bytes, static_cast<uint32_t>(body.size()));
    bytes.insert(bytes.end(), body.begin(), body.end());
    return at;
  }
};

using Extents = std::vector<std::pair<uint64_t, uint64_t>>;

Extents extents(const Buffer& eh_frame, size_t size, uint64_t address = EhFrame::kAt) {
  Extents out;
  for (const Extent& e : unwind_extents(eh_frame.data(), size, address)) out.emplace_back(e.begin, e.end);
  return out;
}

// A CIE (20 bytes), FDEs of 20 bytes for [0x401000, +0x40) and
// [0x401080, +0x25), the terminator: 64 bytes.
Buffer two_fdes() {
  EhFrame eh;
  const size_t cie = eh.cie("zR");
  eh.fde(cie, 0x401000, 0x40);
  eh.fde(cie, 0x401080, 0x25);
  put32(eh.bytes, 0);
  return eh.bytes;
}

TEST(ScanUnwind, TwoFdesGiveTheirExtents) {
  const Buffer eh = two_fdes();
  ASSERT_EQ(eh.size(), 64u);
  EXPECT_EQ(extents(eh, eh.size()), (Extents{{0x401000, 0x401040}, {0x401080, 0x4010a5}}));
  // The same bytes linked elsewhere: pcrel begins move with them.
  EXPECT_EQ(extents(eh, eh.size(), EhFrame::kAt + 0x100), (Extents{{0x401100, 0x401140}, {0x401180, 0x4011a5}}));
}

TEST(ScanUnwind, TruncatedTableKeepsWhatCameBefore) {
  const Buffer eh = two_fdes();
  // Cut inside the second FDE's range field (its bytes 52..55).
  EXPECT_EQ(extents(eh, 54), (Extents{{0x401000, 0x401040}}));
  // Cut in the terminator: both FDEs are whole.
  EXPECT_EQ(extents(eh, 62).size(), 2u);
  EXPECT_TRUE(extents(eh, 10).empty());
}

TEST(ScanUnwind, UnknownAugmentationDropsOnlyItsFdes) {
  EhFrame eh;
  const size_t good = eh.cie("zR");
  // 'X' cannot be skipped: where 'R' follows it is unknown.
  const size_t odd = eh.cie("zXR");
  eh.fde(odd, 0x401000, 0x40);
  eh.fde(good, 0x401080, 0x20);
  put32(eh.bytes, 0);
  EXPECT_EQ(extents(eh.bytes, eh.bytes.size()), (Extents{{0x401080, 0x4010a0}}));
}

// ---------------------------------------------------------------------------
int level_of(const Buffer& code) {
  const x86::Decoder decoder;
  x86::DecodedInsn insn;
  EXPECT_TRUE(decoder.decode(code.data(), code.size(), 0x1000, insn));
  EXPECT_EQ(insn.info.length, code.size());
  return isa_level(insn.info.meta.isa_set, insn.info.meta.isa_ext);
}

TEST(ScanLevel, DecodedInstructions) {
  EXPECT_EQ(level_of({0x01, 0xd8}), 1);                    // add eax, ebx
  EXPECT_EQ(level_of({0xf3, 0x0f, 0xb8, 0xc3}), 2);        // popcnt eax, ebx
  EXPECT_EQ(level_of({0x66, 0x0f, 0x38, 0x00, 0xc1}), 2);  // pshufb xmm0, xmm1 (SSSE3)
  EXPECT_EQ(level_of({0x66, 0x0f, 0xfe, 0xc1}), 1);        // paddd xmm0, xmm1 (SSE2, baseline)
  EXPECT_EQ(level_of({0xc5, 0xf5, 0xfe, 0xd0}), 3);        // vpaddd ymm2, ymm1, ymm0
  EXPECT_EQ(level_of({0xc4, 0xe2, 0x60, 0xf2, 0xc1}), 3);  // andn eax, ebx, ecx (BMI1)
  EXPECT_EQ(level_of({0x62, 0xf1, 0x75, 0x48, 0xfe, 0xc2}), 4);  // vpaddd zmm0, zmm1, zmm2
}

// ---------------------------------------------------------------------------
// Guards: an image of one code section at 0x1000 holding units of 0x100
// bytes, the first of them the entry point; data lives at 0x5000.
constexpr uint64_t kCode = 0x1000;
using Strings = std::vector<std::string>;

uint64_t at(size_t unit) { return kCode + unit * 0x100; }

struct Program {
  Image image;
  CodeFacts facts;

  explicit Program(size_t units) {
    image.code.push_back(CodeSection{".text", kCode, 0x1000, nullptr});
    image.low = kCode;
    image.high = 0x6000;
    image.entry = kCode;
    image.has_unwind_table = true;
    for (size_t u = 0; u < units; ++u) facts.units.push_back(Unit{at(u), at(u) + 0x100});
  }
  void refer(size_t from, uint64_t to, Reference::Kind kind) {
    facts.references.push_back(Reference{to, static_cast<uint32_t>(from), kind});
  }
  // Symbols are added by address, as Image keeps them.
  void symbol(uint64_t address, uint64_t size, const std::string& name, bool function, bool exported) {
    image.symbols.push_back(Image::Symbol{address, size, name, function, exported});
  }
  Guards guards() const { return find_guards(image, facts); }
};

// A (the entry) runs cpuid and jumps to B; B and C call each other.
Program cpuid_and_cycle() {
  Program p(3);
  p.facts.units[0].runs_cpuid = true;
  p.refer(0, at(1), Reference::Jump);
  p.refer(1, at(2) + 0x10, Reference::Call);
  p.refer(2, at(1), Reference::Call);
  return p;
}

TEST(ScanGuards, CycleReachedOnlyFromCpuidIsGuarded) {
  const Guards g = cpuid_and_cycle().guards();
  EXPECT_EQ(g.kept, (std::vector<bool>{true, true, true}));
  // A checks the CPU itself (guarded though it is the entry); the cycle's
  // calls to each other do not make either reachable from unguarded code.
  EXPECT_EQ(g.guard, (Strings{"runs cpuid", "reached only from code that checks the CPU (0x1000)",
                              "reached only from code that checks the CPU"}));
}

TEST(ScanGuards, ExportedFunctionInCycleIsNotGuarded) {
  Program p = cpuid_and_cycle();
  p.symbol(at(2), 0x100, "c_export", true, true);
  // B is called by C, which anyone may call.
  EXPECT_EQ(p.guards().guard, (Strings{"runs cpuid", "", ""}));
}

TEST(ScanGuards, IfuncResolverChoosesItsTargets) {
  // R (exported, as a shared object's IFUNC symbol is) takes T's address;
  // U, exported too, calls T: an unguarded caller does not undo the choice.
  Program p(3);
  p.image.entry = 0;
  p.symbol(at(0), 0x100, "memcpy", true, true);
  p.symbol(at(2), 0x100, "other", true, true);
  p.image.ifunc_resolvers = {at(0)};
  p.refer(0, at(1), Reference::Address);
  p.refer(2, at(1), Reference::Call);
  EXPECT_EQ(p.guards().guard, (Strings{"", "chosen by the IFUNC resolver memcpy", ""}));
}

TEST(ScanGuards, ReadingCapabilityObjectChecks) {
  // The entry reads OPENSSL_ia32cap_P[1]; an exported function a counter.
  Program p(2);
  p.symbol(at(1), 0x100, "plain", true, true);
  p.symbol(0x5000, 16, "OPENSSL_ia32cap_P", false, false);
  p.symbol(0x5100, 8, "counter", false, false);
  p.refer(0, 0x5004, Reference::Read);
  p.refer(1, 0x5100, Reference::Read);
  EXPECT_EQ(p.guards().guard, (Strings{"checks the CPU (reads OPENSSL_ia32cap_P+0x4)", ""}));
}

TEST(ScanGuards, CodeBetweenFunctionsIsKeptOnlyWhenReached) {
  // K, a function, calls X and takes Y's address; nothing refers to Z.
  Program p(4);
  for (size_t u = 1; u < 4; ++u) p.facts.units[u].between_functions = true;
  p.refer(0, at(1), Reference::Call);
  p.refer(0, at(2), Reference::Address);
  // With an unwind table, an address taken between functions is a table's.
  Guards g = p.guards();
  EXPECT_EQ(g.kept, (std::vector<bool>{true, true, false, false}));
  EXPECT_EQ(g.guard, (Strings{"", "", "", ""}));
  // Without one, the taken address may be code's.
  p.image.has_unwind_table = false;
  g = p.guards();
  EXPECT_EQ(g.kept, (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(g.guard, (Strings{"", "", "", ""}));
}

TEST(ScanGuards, FunctionNothingRefersToIsUnused) {
  // A function no code, data or export refers to cannot run.
  const Guards g = Program(2).guards();
  EXPECT_EQ(g.kept, (std::vector<bool>{true, true}));
  EXPECT_EQ(g.guard, (Strings{"", "nothing refers to it (unused code)"}));
}

TEST(ScanGuards, OptionalExtensions) {
  EXPECT_NE(optional_extension("RTM"), nullptr);
  EXPECT_NE(optional_extension("CET"), nullptr);
  EXPECT_EQ(optional_extension("AVX2"), nullptr);
  EXPECT_EQ(optional_extension(""), nullptr);
}

// ---------------------------------------------------------------------------
// A zip file written by hand: local headers with the data, the central
// directory, the end record.  Only the fields wheel.cpp reads are set.
struct ZipMember {
  std::string name;
  Buffer contents;
  bool deflate = false;
};

Buffer raw_deflate(const Buffer& in) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  Buffer out(deflateBound(&z, in.size()));
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

Buffer make_zip(const std::vector<ZipMember>& members) {
  Buffer zip, directory;
  for (const ZipMember& m : members) {
    const Buffer data = m.deflate ? raw_deflate(m.contents) : m.contents;
    const auto header = static_cast<uint32_t>(zip.size()), packed = static_cast<uint32_t>(data.size());
    const auto method = m.deflate ? 8u : 0u, size = static_cast<uint32_t>(m.contents.size());
    const auto name = static_cast<uint32_t>(m.name.size());
    // Signature, version needed, flags, method, time and date, CRC (not
    // checked), the sizes, the name's and the extra field's lengths.
    put(zip, {{0x04034b50, 4}, {20, 2}, {0, 2}, {method, 2}, {0, 4}, {0, 4}, {packed, 4}, {size, 4}, {name, 2},
              {0, 2}});
    zip.insert(zip.end(), m.name.begin(), m.name.end());
    zip.insert(zip.end(), data.begin(), data.end());
    // The same after the version made by; then the comment's length, the
    // disk, the attributes (2 and 4 bytes) and where the local header is.
    put(directory, {{0x02014b50, 4}, {20, 2}, {20, 2}, {0, 2}, {method, 2}, {0, 4}, {0, 4}, {packed, 4}, {size, 4},
                    {name, 2}, {0, 2}, {0, 2}, {0, 2}, {0, 2}, {0, 4}, {header, 4}});
    directory.insert(directory.end(), m.name.begin(), m.name.end());
  }
  const auto offset = static_cast<uint32_t>(zip.size()), count = static_cast<uint32_t>(members.size());
  zip.insert(zip.end(), directory.begin(), directory.end());
  // Signature, disks, entries (on this disk, in all), the directory's size
  // and offset, the comment's length.
  put(zip, {{0x06054b50, 4}, {0, 4}, {count, 2}, {count, 2}, {static_cast<uint32_t>(directory.size()), 4}, {offset, 4},
            {0, 2}});
  return zip;
}

Buffer elf_like(size_t size, uint8_t seed) {
  Buffer b(size);
  for (size_t i = 0; i < size; ++i) b[i] = static_cast<uint8_t>(i * 13 + seed);
  std::memcpy(b.data(), "\177ELF", 4);
  return b;
}

TEST(ScanWheel, ElfMembersStoredAndDeflated) {
  const Buffer stored = elf_like(80, 1), deflated = elf_like(3000, 2);
  const Buffer text(200, 'x');
  Bytes zip = bytes_of(make_zip({{"pkg/lib.so", stored, false},
                                 {"pkg/README.txt", text, true},
                                 {"pkg/_ext.so", deflated, true},
                                 {"pkg/data.bin", text, false},
                                 {"pkg/tiny.so", elf_like(40, 3), false}}));  // shorter than an ELF header
  EXPECT_TRUE(is_zip(zip));
  std::vector<WheelMember> members = elf_members("w.whl", zip);
  // The members outlive the zip's bytes: they hold them (or their own).
  zip = Bytes{};
  ASSERT_EQ(members.size(), 2u);
  EXPECT_EQ(members[0].name, "pkg/lib.so");
  EXPECT_EQ(Buffer(members[0].bytes.data, members[0].bytes.data + members[0].bytes.size), stored);
  EXPECT_EQ(members[1].name, "pkg/_ext.so");
  EXPECT_EQ(Buffer(members[1].bytes.data, members[1].bytes.data + members[1].bytes.size), deflated);
  EXPECT_FALSE(is_zip(bytes_of(stored)));
}

TEST(ScanWheel, DirectoryOutsideTheFileIsDamage) {
  Buffer zip = make_zip({{"pkg/lib.so", elf_like(80, 1), false}});
  const uint32_t outside = 0x10000;
  std::memcpy(zip.data() + zip.size() - 6, &outside, 4);  // the end record's directory offset
  std::string message;
  EXPECT_EQ(thrown([&] { elf_members("w.whl", bytes_of(zip)); }, &message), ErrorCode::PHYBIN_ERR_BAD_ELF);
  EXPECT_NE(message.find("outside the file"), std::string::npos) << message;
  EXPECT_EQ(thrown([&] { elf_members("w.whl", bytes_of(Buffer(10, 0))); }), ErrorCode::PHYBIN_ERR_BAD_ELF);
}

// ---------------------------------------------------------------------------
Buffer elf_header(uint16_t machine, uint16_t type) {
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_type = type;
  eh.e_machine = machine;
  eh.e_phentsize = sizeof(Elf64_Phdr);
  Buffer b(sizeof eh);
  std::memcpy(b.data(), &eh, sizeof eh);
  return b;
}

TEST(ScanImage, MachineOfHeader) {
  EXPECT_EQ(elf_machine(bytes_of(elf_header(EM_X86_64, ET_DYN))), "x86-64");
  EXPECT_EQ(elf_machine(bytes_of(elf_header(EM_AARCH64, ET_EXEC))), "AArch64");
  EXPECT_EQ(elf_machine(bytes_of(Buffer{'n', 'o', 't', ' ', 'E', 'L', 'F'})), "");
  Buffer elf32 = elf_header(EM_386, ET_EXEC);
  elf32[EI_CLASS] = ELFCLASS32;
  EXPECT_EQ(elf_machine(bytes_of(elf32)), "32-bit");
}

TEST(ScanImage, RefusesWhatIsNotX86_64) {
  std::string message;
  EXPECT_EQ(thrown([] { read_image("f", bytes_of(Buffer(100, 'n'))); }), ErrorCode::PHYBIN_ERR_NOT_X86_64_ELF);
  EXPECT_EQ(thrown([&] { read_image("f", bytes_of(elf_header(EM_AARCH64, ET_DYN))); }, &message),
            ErrorCode::PHYBIN_ERR_NOT_X86_64_ELF);
  EXPECT_NE(message.find("AArch64"), std::string::npos) << message;
  // An object file is x86-64 but not something phybin runs.
  EXPECT_EQ(thrown([] { read_image("f", bytes_of(elf_header(EM_X86_64, ET_REL))); }),
            ErrorCode::PHYBIN_ERR_NOT_X86_64_ELF);
}

TEST(ScanImage, HeadersPastTheEndAreBadElf) {
  Buffer b = elf_header(EM_X86_64, ET_DYN);
  Elf64_Ehdr eh;
  std::memcpy(&eh, b.data(), sizeof eh);
  eh.e_phoff = 0x1000;
  eh.e_phnum = 1;
  std::memcpy(b.data(), &eh, sizeof eh);
  EXPECT_EQ(thrown([&] { read_image("f", bytes_of(b)); }), ErrorCode::PHYBIN_ERR_BAD_ELF);
  // A header cut short is a damaged file, not another machine's.
  EXPECT_EQ(thrown([&] { read_image("f", bytes_of(Buffer(b.begin(), b.begin() + 40))); }),
            ErrorCode::PHYBIN_ERR_BAD_ELF);
}

// The unwind table's header found through PT_GNU_EH_FRAME must lie in the
// file: a file without sections is read through it.
TEST(ScanImage, UnwindHeaderPastTheEndIsBadElf) {
  Buffer b = elf_header(EM_X86_64, ET_DYN);
  Elf64_Ehdr eh;
  std::memcpy(&eh, b.data(), sizeof eh);
  eh.e_phoff = b.size();
  eh.e_phnum = 1;
  std::memcpy(b.data(), &eh, sizeof eh);
  Elf64_Phdr ph{};
  ph.p_type = PT_GNU_EH_FRAME;
  ph.p_offset = 0x100000;
  ph.p_filesz = 0x40;
  const auto* raw = reinterpret_cast<const uint8_t*>(&ph);
  b.insert(b.end(), raw, raw + sizeof ph);
  EXPECT_EQ(thrown([&] { read_image("f", bytes_of(b)); }), ErrorCode::PHYBIN_ERR_BAD_ELF);
}

#if defined(__x86_64__)
// This test program is an x86-64 ELF file with symbols, an unwind table
// and an interpreter.
TEST(ScanImage, ReadsThisProgram) {
  const Image image = read_image("self", map_file("/proc/self/exe"));
  EXPECT_TRUE(image.elf_type == ET_DYN || image.elf_type == ET_EXEC);
  EXPECT_FALSE(image.interpreter.empty());
  EXPECT_TRUE(image.in_code(image.entry));
  EXPECT_TRUE(image.has_unwind_table);
  EXPECT_NE(std::find(image.needed.begin(), image.needed.end(), "libc.so.6"), image.needed.end());
  const Image::Symbol* level = image.symbol_named("_ZN6phybin4scan9isa_levelEjj");
  const Image::Symbol* zip = image.symbol_named("_ZN6phybin4scan6is_zipERKNS0_5BytesE");
  ASSERT_TRUE(level && zip);
  EXPECT_TRUE(level->function);
  EXPECT_EQ(image.name_of(level->address + 1), "_ZN6phybin4scan9isa_levelEjj+0x1");
  // Link addresses: both functions are where the same load bias puts them.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(&isa_level) - level->address,
            reinterpret_cast<uintptr_t>(&is_zip) - zip->address);
  // Some function extent (merged from FDEs and symbols) holds it.
  bool held = false;
  for (const Extent& e : image.functions) held |= e.begin <= level->address && level->address < e.end;
  EXPECT_TRUE(held);
}
#endif

}  // namespace
}  // namespace phybin::scan
