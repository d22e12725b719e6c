// Assembler core: the output buffer, labels and their fixups, branches,
// PC-relative addresses and system instructions.
#include "arm64/emitter.h"

#include <atomic>
#include <string>

#include "arm64/emitter_fields.h"
#include "common/error.h"

namespace phybin::arm64 {

namespace fields {
void bad_operand(const char* what) {
  throw Error(ErrorCode::PHYBIN_ERR_INTERNAL, std::string("arm64 emitter: ") + what);
}
}  // namespace fields

using namespace fields;

namespace {

// Byte distance between two code addresses (computed on integers: the two
// pointers need not be in one array).
int64_t byte_delta(const void* from, const void* to) {
  return static_cast<int64_t>(reinterpret_cast<uintptr_t>(to) -
                              reinterpret_cast<uintptr_t>(from));
}

// Word distance if `to` is 4-byte aligned relative to `from` and fits a
// signed field of `bits` bits.
std::optional<int64_t> word_delta(const void* from, const void* to, unsigned bits) {
  const int64_t bytes = byte_delta(from, to);
  if (bytes % 4 != 0 || !fits_signed(bytes / 4, bits)) return std::nullopt;
  return bytes / 4;
}

constexpr uint32_t kB = 0x14000000;
constexpr uint32_t kBL = 0x94000000;
constexpr uint32_t kBCond = 0x54000000;
constexpr uint32_t kAdr = 0x10000000;
constexpr uint32_t kAdrp = 0x90000000;

// ADR/ADRP split their 21-bit immediate into immlo (bits 29-30) and immhi.
uint32_t adr_fields(int64_t imm21) {
  const uint64_t v = static_cast<uint64_t>(imm21);
  return static_cast<uint32_t>(((v & 3) << 29) | (((v >> 2) & 0x7FFFF) << 5));
}

}  // namespace

// ---- Buffer ----------------------------------------------------------------

// The runtime makes an Assembler per block: the label references go into
// the thread's pool, not a vector allocated anew each time.
std::vector<Assembler::Fixup>& Assembler::fixup_pool() {
  static thread_local std::vector<Fixup> pool;
  return pool;
}

Assembler::Assembler(uint32_t* begin, size_t capacity_words) {
  fixups_.swap(fixup_pool());
  reset(begin, capacity_words);
}

Assembler::~Assembler() { fixups_.swap(fixup_pool()); }

void Assembler::reset() {
  // Labels remember the epoch they were used in, so a label kept across a
  // reset (or passed to another Assembler) is caught instead of patching
  // through stale fixup indices.
  static std::atomic<uint32_t> next_epoch{1};
  do {
    epoch_ = next_epoch.fetch_add(1, std::memory_order_relaxed);
  } while (epoch_ == 0);  // 0 marks an unused label
  pos_ = 0;
  overflowed_ = false;
  unresolved_ = 0;
  fixups_.clear();
}

void Assembler::reset(uint32_t* begin, size_t capacity_words) {
  // Label positions are int32_t word offsets.
  require(capacity_words < (size_t{1} << 30), "code buffer too large");
  begin_ = begin;
  capacity_ = capacity_words;
  reset();
}

void Assembler::emit(uint32_t word) {
  if (pos_ >= capacity_) {
    overflowed_ = true;
    return;
  }
  begin_[pos_++] = word;
}

// ---- Labels ----------------------------------------------------------------

uint32_t Assembler::patch_field(uint32_t word, FixupKind kind, int64_t delta_words) {
  switch (kind) {
    case FixupKind::Imm26:
      return (word & ~0x03FFFFFFu) | simm(delta_words, 26, 0, "branch target out of range");
    case FixupKind::Imm19:
      return (word & ~(0x7FFFFu << 5)) | simm(delta_words, 19, 5, "label out of +-1 MiB range");
    case FixupKind::Imm14:
      return (word & ~(0x3FFFu << 5)) | simm(delta_words, 14, 5, "label out of +-32 KiB range");
  }
  bad_operand("fixup kind");
}

void Assembler::claim(Label& label) const {
  if (label.epoch_ == 0) label.epoch_ = epoch_;
  require(label.epoch_ == epoch_, "label belongs to another assembler or was kept across reset()");
}

uint32_t* Assembler::address_of(const Label& label) const {
  require(label.bound() && label.epoch_ == epoch_, "address_of an unbound or stale label");
  return begin_ + label.pos_;
}

void Assembler::emit_label_ref(uint32_t word, Label& label, FixupKind kind) {
  claim(label);
  if (label.bound()) {
    emit(patch_field(word, kind, static_cast<int64_t>(label.pos_) - static_cast<int64_t>(pos_)));
    return;
  }
  if (pos_ < capacity_) {  // a reference that will not be written needs no fixup
    fixups_.push_back(Fixup{static_cast<uint32_t>(pos_), label.first_fixup_, kind});
    label.first_fixup_ = static_cast<int32_t>(fixups_.size() - 1);
    ++unresolved_;
  }
  emit(word);
}

void Assembler::bind(Label& label) {
  claim(label);
  require(!label.bound(), "label bound twice");
  label.pos_ = static_cast<int32_t>(pos_);
  for (int32_t i = label.first_fixup_; i >= 0; i = fixups_[i].next) {
    const Fixup& f = fixups_[i];
    // After an overflow the code is thrown away; don't report range errors.
    if (!overflowed_) {
      begin_[f.pos] = patch_field(begin_[f.pos], f.kind, static_cast<int64_t>(pos_) - f.pos);
    }
    --unresolved_;
  }
  label.first_fixup_ = -1;
}

// ---- Static branch helpers -------------------------------------------------

bool Assembler::is_b_in_range(const void* from, const void* to) {
  return word_delta(from, to, 26).has_value();
}

bool Assembler::is_b_cond_in_range(const void* from, const void* to) {
  return word_delta(from, to, 19).has_value();
}

bool Assembler::is_adrp_in_range(const void* from, const void* to) {
  const int64_t pages = static_cast<int64_t>((reinterpret_cast<uintptr_t>(to) >> 12) -
                                             (reinterpret_cast<uintptr_t>(from) >> 12));
  return fits_signed(pages, 21);
}

std::optional<uint32_t> Assembler::encode_b(const void* from, const void* to) {
  const auto delta = word_delta(from, to, 26);
  if (!delta) return std::nullopt;
  return kB | simm(*delta, 26, 0, "b");
}

std::optional<uint32_t> Assembler::encode_bl(const void* from, const void* to) {
  const auto delta = word_delta(from, to, 26);
  if (!delta) return std::nullopt;
  return kBL | simm(*delta, 26, 0, "bl");
}

std::optional<uint32_t> Assembler::encode_b_cond(const void* from, const void* to, Cond c) {
  const auto delta = word_delta(from, to, 19);
  if (!delta) return std::nullopt;
  return kBCond | simm(*delta, 19, 5, "b.cond") | cond(c, 0);
}

bool Assembler::patch_b(uint32_t* site, const void* target) {
  const auto word = encode_b(site, target);
  if (!word) return false;
  *site = *word;
  return true;
}

bool Assembler::is_conditional_branch(uint32_t word) {
  return (word & 0xff000010) == kBCond || (word & 0x7e000000) == 0x34000000;  // B.cond; CBZ/CBNZ
}

bool Assembler::patch_branch(uint32_t* site, const void* target) {
  if (!is_conditional_branch(*site)) return patch_b(site, target);
  const auto delta = word_delta(site, target, 19);
  if (!delta) return false;
  constexpr uint32_t kImm19 = 0x7ffffu << 5;
  *site = (*site & ~kImm19) | (static_cast<uint32_t>(*delta) & 0x7ffffu) << 5;
  return true;
}

const uint32_t* Assembler::branch_target(const uint32_t* site) {
  const uint32_t word = *site;
  // Sign-extend the offset field: imm19 at bit 5, or imm26 at bit 0.
  const int64_t words = is_conditional_branch(word) ? static_cast<int64_t>(static_cast<int32_t>(word << 8) >> 13)
                                                    : static_cast<int64_t>(static_cast<int32_t>(word << 6) >> 6);
  return site + words;
}

bool Assembler::patch_bl(uint32_t* site, const void* target) {
  const auto word = encode_bl(site, target);
  if (!word) return false;
  *site = *word;
  return true;
}

// ---- Branches --------------------------------------------------------------

void Assembler::b(Label& target) { emit_label_ref(kB, target, FixupKind::Imm26); }
void Assembler::bl(Label& target) { emit_label_ref(kBL, target, FixupKind::Imm26); }

void Assembler::b(Cond c, Label& target) {
  emit_label_ref(kBCond | cond(c, 0), target, FixupKind::Imm19);
}

void Assembler::b(const void* target) {
  if (pos_ >= capacity_) return emit(0);  // overflow: the address is meaningless
  const auto word = encode_b(cursor(), target);
  require(word.has_value(), "b target out of +-128 MiB range");
  emit(*word);
}

void Assembler::bl(const void* target) {
  if (pos_ >= capacity_) return emit(0);
  const auto word = encode_bl(cursor(), target);
  require(word.has_value(), "bl target out of +-128 MiB range");
  emit(*word);
}

void Assembler::b(Cond c, const void* target) {
  if (pos_ >= capacity_) return emit(0);
  const auto word = encode_b_cond(cursor(), target, c);
  require(word.has_value(), "b.cond target out of +-1 MiB range");
  emit(*word);
}

void Assembler::cbz(Size s, Reg rt, Label& target) {
  emit_label_ref(0x34000000 | sf(s) | rd(rt), target, FixupKind::Imm19);
}

void Assembler::cbnz(Size s, Reg rt, Label& target) {
  emit_label_ref(0x35000000 | sf(s) | rd(rt), target, FixupKind::Imm19);
}

namespace {
uint32_t test_bit_fields(Reg rt, unsigned bit) {
  require(bit < 64, "tbz/tbnz bit number");
  return ((bit >> 5) << 31) | ((bit & 31) << 19) | rd(rt);
}
}  // namespace

void Assembler::tbz(Reg rt, unsigned bit, Label& target) {
  emit_label_ref(0x36000000 | test_bit_fields(rt, bit), target, FixupKind::Imm14);
}

void Assembler::tbnz(Reg rt, unsigned bit, Label& target) {
  emit_label_ref(0x37000000 | test_bit_fields(rt, bit), target, FixupKind::Imm14);
}

void Assembler::br(Reg xn) { emit(0xD61F0000 | rn(xn)); }
void Assembler::blr(Reg xn) { emit(0xD63F0000 | rn(xn)); }
void Assembler::ret(Reg xn) { emit(0xD65F0000 | rn(xn)); }

// A label is word-aligned, so ADR's immlo is 0 and the word offset is immhi:
// the same 19-bit field at bit 5 as B.cond.
void Assembler::adr(Reg xd, Label& target) {
  emit_label_ref(kAdr | rd(xd), target, FixupKind::Imm19);
}

void Assembler::adr(Reg xd, const void* target) {
  if (pos_ >= capacity_) return emit(0);
  const int64_t bytes = byte_delta(cursor(), target);
  require(fits_signed(bytes, 21), "adr target out of +-1 MiB range");
  emit(kAdr | adr_fields(bytes) | rd(xd));
}

void Assembler::adrp(Reg xd, const void* target) {
  if (pos_ >= capacity_) return emit(0);
  require(is_adrp_in_range(cursor(), target), "adrp target out of +-4 GiB range");
  const int64_t pages = static_cast<int64_t>((reinterpret_cast<uintptr_t>(target) >> 12) -
                                             (reinterpret_cast<uintptr_t>(cursor()) >> 12));
  emit(kAdrp | adr_fields(pages) | rd(xd));
}

void Assembler::ldr(Size s, Reg rt, Label& literal) {
  emit_label_ref((is64(s) ? 0x58000000 : 0x18000000) | rd(rt), literal, FixupKind::Imm19);
}

void Assembler::ldr(FSize fs, VReg vt, Label& literal) {
  uint32_t op = 0;
  switch (fs) {
    case FSize::S: op = 0x1C000000; break;
    case FSize::D: op = 0x5C000000; break;
    case FSize::Q: op = 0x9C000000; break;
    default: bad_operand("ldr literal: S, D or Q register");
  }
  emit_label_ref(op | rd(vt), literal, FixupKind::Imm19);
}

// ---- System ----------------------------------------------------------------

namespace {
// op0 is 2 or 3: its high bit is fixed in the opcode, its low bit is o0.
uint32_t sysreg_fields(SysReg reg) { return (static_cast<uint32_t>(reg) & 0x7FFF) << 5; }
}  // namespace

void Assembler::mrs(Reg xt, SysReg reg) { emit(0xD5300000 | sysreg_fields(reg) | rd(xt)); }
void Assembler::msr(SysReg reg, Reg xt) { emit(0xD5100000 | sysreg_fields(reg) | rd(xt)); }
void Assembler::dmb(Barrier b) { emit(0xD50330BF | (static_cast<uint32_t>(b) << 8)); }
void Assembler::dsb(Barrier b) { emit(0xD503309F | (static_cast<uint32_t>(b) << 8)); }
void Assembler::isb() { emit(0xD5033FDF); }
void Assembler::nop() { emit(0xD503201F); }
void Assembler::brk(uint16_t imm) { emit(0xD4200000 | (static_cast<uint32_t>(imm) << 5)); }
void Assembler::svc(uint16_t imm) { emit(0xD4000001 | (static_cast<uint32_t>(imm) << 5)); }
void Assembler::udf(uint16_t imm) { emit(imm); }

}  // namespace phybin::arm64
