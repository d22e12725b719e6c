// Integer data processing: add/sub, logical, moves, shifts and bitfields,
// multiply/divide, bit operations, conditional select and compare.
#include "arm64/emitter.h"
#include "arm64/emitter_fields.h"

namespace phybin::arm64 {

using namespace fields;

namespace {

// Opcode bits 29-30 of the add/sub classes.
constexpr uint32_t kAdd = 0, kAdds = 1u << 29, kSub = 1u << 30, kSubs = 3u << 29;

uint32_t addsub_shifted(uint32_t op, Size s, Reg d, Reg n, Reg m, Shift sh, unsigned amount) {
  require(sh != Shift::ROR, "add/sub cannot rotate");
  return 0x0B000000 | op | sf(s) | (static_cast<uint32_t>(sh) << 22) | rm(m) |
         uimm(amount, is64(s) ? 6 : 5, 10, "shift amount") | rn(n) | rd(d);
}

uint32_t addsub_extended(uint32_t op, Size s, Reg d, Reg n, Reg m, Extend e, unsigned amount) {
  require(amount <= 4, "extend shift above 4");
  return 0x0B200000 | op | sf(s) | rm(m) | (static_cast<uint32_t>(e) << 13) | (amount << 10) |
         rn(n) | rd(d);
}

uint32_t addsub_imm(uint32_t op, Size s, Reg d, Reg n, uint32_t imm12, bool lsl12) {
  return 0x11000000 | op | sf(s) | (lsl12 ? 1u << 22 : 0) |
         uimm(imm12, 12, 10, "add/sub immediate above 4095") | rn(n) | rd(d);
}

// Opcode bits of the logical (shifted register) class: opc 29-30, N 21.
constexpr uint32_t kAnd = 0, kBic = 1u << 21, kOrr = 1u << 29, kOrn = kOrr | kBic, kEor = 2u << 29,
                   kEon = kEor | kBic, kAnds = 3u << 29, kBics = kAnds | kBic;

uint32_t logical_shifted(uint32_t op, Size s, Reg d, Reg n, Reg m, Shift sh, unsigned amount) {
  return 0x0A000000 | op | sf(s) | (static_cast<uint32_t>(sh) << 22) | rm(m) |
         uimm(amount, is64(s) ? 6 : 5, 10, "shift amount") | rn(n) | rd(d);
}

uint32_t logical_imm(uint32_t op, Size s, Reg d, Reg n, uint64_t imm) {
  const auto field = Assembler::encode_logical_imm(imm, is64(s));
  require(field.has_value(), "value is not a logical immediate");
  return 0x12000000 | op | sf(s) | (*field << 10) | rn(n) | rd(d);
}

uint32_t bitfield(uint32_t op, Size s, Reg d, Reg n, unsigned immr, unsigned imms) {
  const unsigned bits = is64(s) ? 6 : 5;
  return op | sf(s) | (is64(s) ? 1u << 22 : 0) | uimm(immr, bits, 16, "bitfield immr") |
         uimm(imms, bits, 10, "bitfield imms") | rn(n) | rd(d);
}
constexpr uint32_t kSbfm = 0x13000000, kBfm = 0x33000000, kUbfm = 0x53000000;

// immr/imms of a field of `width` bits at `lsb`, extracted (lsb -> bit 0) or
// inserted (bit 0 -> lsb).
void check_field(Size s, unsigned lsb, unsigned width) {
  require(width >= 1 && lsb + width <= reg_bits(s), "bitfield lsb/width");
}

uint32_t dp2(uint32_t opcode, Size s, Reg d, Reg n, Reg m) {
  return 0x1AC00000 | sf(s) | rm(m) | (opcode << 10) | rn(n) | rd(d);
}

uint32_t dp1(uint32_t opcode, Size s, Reg d, Reg n) {
  return 0x5AC00000 | sf(s) | (opcode << 10) | rn(n) | rd(d);
}

uint32_t dp3(uint32_t op, Reg d, Reg n, Reg m, Reg a) { return op | rm(m) | ra(a) | rn(n) | rd(d); }

uint32_t cond_select(uint32_t op, Size s, Reg d, Reg n, Reg m, Cond c) {
  return op | sf(s) | rm(m) | cond(c, 12) | rn(n) | rd(d);
}

Cond inverted_for_alias(Cond c) {
  require(c != Cond::AL && c != Cond::NV, "cset/cinc family cannot use AL or NV");
  return invert(c);
}

uint32_t cond_compare(uint32_t op, Size s, Reg n, uint32_t rm_or_imm, unsigned nzcv, Cond c) {
  return op | sf(s) | uimm(rm_or_imm, 5, 16, "ccmp immediate/register") | cond(c, 12) | rn(n) |
         uimm(nzcv, 4, 0, "nzcv above 15");
}
constexpr uint32_t kCcmn = 0x3A400000, kCcmp = 0x7A400000, kCcmpImm = 0x800;

}  // namespace

// ---- Add / subtract ----------------------------------------------------------

void Assembler::add(Size s, Reg d, Reg n, Reg m, Shift sh, unsigned amt) {
  emit(addsub_shifted(kAdd, s, d, n, m, sh, amt));
}
void Assembler::adds(Size s, Reg d, Reg n, Reg m, Shift sh, unsigned amt) {
  emit(addsub_shifted(kAdds, s, d, n, m, sh, amt));
}
void Assembler::sub(Size s, Reg d, Reg n, Reg m, Shift sh, unsigned amt) {
  emit(addsub_shifted(kSub, s, d, n, m, sh, amt));
}
void Assembler::subs(Size s, Reg d, Reg n, Reg m, Shift sh, unsigned amt) {
  emit(addsub_shifted(kSubs, s, d, n, m, sh, amt));
}
void Assembler::add(Size s, Reg d, Reg n, Reg m, Extend e, unsigned amt) {
  emit(addsub_extended(kAdd, s, d, n, m, e, amt));
}
void Assembler::adds(Size s, Reg d, Reg n, Reg m, Extend e, unsigned amt) {
  emit(addsub_extended(kAdds, s, d, n, m, e, amt));
}
void Assembler::sub(Size s, Reg d, Reg n, Reg m, Extend e, unsigned amt) {
  emit(addsub_extended(kSub, s, d, n, m, e, amt));
}
void Assembler::subs(Size s, Reg d, Reg n, Reg m, Extend e, unsigned amt) {
  emit(addsub_extended(kSubs, s, d, n, m, e, amt));
}
void Assembler::add(Size s, Reg d, Reg n, uint32_t imm12, bool lsl12) {
  emit(addsub_imm(kAdd, s, d, n, imm12, lsl12));
}
void Assembler::adds(Size s, Reg d, Reg n, uint32_t imm12, bool lsl12) {
  emit(addsub_imm(kAdds, s, d, n, imm12, lsl12));
}
void Assembler::sub(Size s, Reg d, Reg n, uint32_t imm12, bool lsl12) {
  emit(addsub_imm(kSub, s, d, n, imm12, lsl12));
}
void Assembler::subs(Size s, Reg d, Reg n, uint32_t imm12, bool lsl12) {
  emit(addsub_imm(kSubs, s, d, n, imm12, lsl12));
}
void Assembler::cmp(Size s, Reg n, Reg m, Shift sh, unsigned amt) { subs(s, xzr, n, m, sh, amt); }
void Assembler::cmp(Size s, Reg n, Reg m, Extend e, unsigned amt) { subs(s, xzr, n, m, e, amt); }
void Assembler::cmp(Size s, Reg n, uint32_t imm12, bool lsl12) { subs(s, xzr, n, imm12, lsl12); }
void Assembler::cmn(Size s, Reg n, Reg m, Shift sh, unsigned amt) { adds(s, xzr, n, m, sh, amt); }
void Assembler::cmn(Size s, Reg n, uint32_t imm12, bool lsl12) { adds(s, xzr, n, imm12, lsl12); }
void Assembler::neg(Size s, Reg d, Reg m, Shift sh, unsigned amt) { sub(s, d, xzr, m, sh, amt); }
void Assembler::negs(Size s, Reg d, Reg m, Shift sh, unsigned amt) { subs(s, d, xzr, m, sh, amt); }
void Assembler::adc(Size s, Reg d, Reg n, Reg m) {
  emit(0x1A000000 | sf(s) | rm(m) | rn(n) | rd(d));
}
void Assembler::adcs(Size s, Reg d, Reg n, Reg m) {
  emit(0x3A000000 | sf(s) | rm(m) | rn(n) | rd(d));
}
void Assembler::sbc(Size s, Reg d, Reg n, Reg m) {
  emit(0x5A000000 | sf(s) | rm(m) | rn(n) | rd(d));
}
void Assembler::sbcs(Size s, Reg d, Reg n, Reg m) {
  emit(0x7A000000 | sf(s) | rm(m) | rn(n) | rd(d));
}

// ---- Logical -----------------------------------------------------------------

void Assembler::and_(Size s, Reg d, Reg n, Reg m, Shift sh, unsigned amt) {
  emit(logical_shifted(kAnd, s, d, n, m, sh, amt));
}
void Assembler::ands(Size s, Reg d, Reg n, Reg m, Shift sh, unsigned amt) {
  emit(logical_shifted(kAnds, s, d, n, m, sh, amt));
}
void Assembler::orr(Size s, Reg d, Reg n, Reg m, Shift sh, unsigned amt) {
  emit(logical_shifted(kOrr, s, d, n, m, sh, amt));
}
void Assembler::eor(Size s, Reg d, Reg n, Reg m, Shift sh, unsigned amt) {
  emit(logical_shifted(kEor, s, d, n, m, sh, amt));
}
void Assembler::bic(Size s, Reg d, Reg n, Reg m, Shift sh, unsigned amt) {
  emit(logical_shifted(kBic, s, d, n, m, sh, amt));
}
void Assembler::bics(Size s, Reg d, Reg n, Reg m, Shift sh, unsigned amt) {
  emit(logical_shifted(kBics, s, d, n, m, sh, amt));
}
void Assembler::orn(Size s, Reg d, Reg n, Reg m, Shift sh, unsigned amt) {
  emit(logical_shifted(kOrn, s, d, n, m, sh, amt));
}
void Assembler::eon(Size s, Reg d, Reg n, Reg m, Shift sh, unsigned amt) {
  emit(logical_shifted(kEon, s, d, n, m, sh, amt));
}
void Assembler::tst(Size s, Reg n, Reg m, Shift sh, unsigned amt) { ands(s, xzr, n, m, sh, amt); }
void Assembler::mvn(Size s, Reg d, Reg m, Shift sh, unsigned amt) { orn(s, d, xzr, m, sh, amt); }
void Assembler::and_(Size s, Reg d, Reg n, uint64_t imm) { emit(logical_imm(kAnd, s, d, n, imm)); }
void Assembler::ands(Size s, Reg d, Reg n, uint64_t imm) { emit(logical_imm(kAnds, s, d, n, imm)); }
void Assembler::orr(Size s, Reg d, Reg n, uint64_t imm) { emit(logical_imm(kOrr, s, d, n, imm)); }
void Assembler::eor(Size s, Reg d, Reg n, uint64_t imm) { emit(logical_imm(kEor, s, d, n, imm)); }
void Assembler::tst(Size s, Reg n, uint64_t imm) { ands(s, xzr, n, imm); }
void Assembler::mov(Size s, Reg d, Reg m) { orr(s, d, xzr, m); }
void Assembler::mov_sp(Reg d, Reg n) { add(Size::X, d, n, 0u); }

// ---- Move wide ---------------------------------------------------------------

namespace {
uint32_t move_wide(uint32_t op, Size s, Reg d, uint16_t imm, unsigned shift) {
  require(shift % 16 == 0 && shift < reg_bits(s), "move-wide shift");
  return op | sf(s) | ((shift / 16) << 21) | (static_cast<uint32_t>(imm) << 5) | rd(d);
}
}  // namespace

void Assembler::movn(Size s, Reg d, uint16_t imm, unsigned sh) {
  emit(move_wide(0x12800000, s, d, imm, sh));
}
void Assembler::movz(Size s, Reg d, uint16_t imm, unsigned sh) {
  emit(move_wide(0x52800000, s, d, imm, sh));
}
void Assembler::movk(Size s, Reg d, uint16_t imm, unsigned sh) {
  emit(move_wide(0x72800000, s, d, imm, sh));
}

// ---- Shifts and bitfields ----------------------------------------------------

void Assembler::lslv(Size s, Reg d, Reg n, Reg m) { emit(dp2(0x8, s, d, n, m)); }
void Assembler::lsrv(Size s, Reg d, Reg n, Reg m) { emit(dp2(0x9, s, d, n, m)); }
void Assembler::asrv(Size s, Reg d, Reg n, Reg m) { emit(dp2(0xA, s, d, n, m)); }
void Assembler::rorv(Size s, Reg d, Reg n, Reg m) { emit(dp2(0xB, s, d, n, m)); }

void Assembler::lsl(Size s, Reg d, Reg n, unsigned amount) {
  const unsigned bits = reg_bits(s);
  require(amount < bits, "shift amount");
  ubfm(s, d, n, (bits - amount) % bits, bits - 1 - amount);
}
void Assembler::lsr(Size s, Reg d, Reg n, unsigned amount) {
  ubfm(s, d, n, amount, reg_bits(s) - 1);
}
void Assembler::asr(Size s, Reg d, Reg n, unsigned amount) {
  sbfm(s, d, n, amount, reg_bits(s) - 1);
}
void Assembler::ror(Size s, Reg d, Reg n, unsigned amount) { extr(s, d, n, n, amount); }

void Assembler::ubfm(Size s, Reg d, Reg n, unsigned r, unsigned i) {
  emit(bitfield(kUbfm, s, d, n, r, i));
}
void Assembler::sbfm(Size s, Reg d, Reg n, unsigned r, unsigned i) {
  emit(bitfield(kSbfm, s, d, n, r, i));
}
void Assembler::bfm(Size s, Reg d, Reg n, unsigned r, unsigned i) {
  emit(bitfield(kBfm, s, d, n, r, i));
}

void Assembler::ubfx(Size s, Reg d, Reg n, unsigned lsb, unsigned width) {
  check_field(s, lsb, width);
  ubfm(s, d, n, lsb, lsb + width - 1);
}
void Assembler::sbfx(Size s, Reg d, Reg n, unsigned lsb, unsigned width) {
  check_field(s, lsb, width);
  sbfm(s, d, n, lsb, lsb + width - 1);
}
void Assembler::bfxil(Size s, Reg d, Reg n, unsigned lsb, unsigned width) {
  check_field(s, lsb, width);
  bfm(s, d, n, lsb, lsb + width - 1);
}
void Assembler::bfi(Size s, Reg d, Reg n, unsigned lsb, unsigned width) {
  check_field(s, lsb, width);
  bfm(s, d, n, (reg_bits(s) - lsb) % reg_bits(s), width - 1);
}
void Assembler::ubfiz(Size s, Reg d, Reg n, unsigned lsb, unsigned width) {
  check_field(s, lsb, width);
  ubfm(s, d, n, (reg_bits(s) - lsb) % reg_bits(s), width - 1);
}
void Assembler::sbfiz(Size s, Reg d, Reg n, unsigned lsb, unsigned width) {
  check_field(s, lsb, width);
  sbfm(s, d, n, (reg_bits(s) - lsb) % reg_bits(s), width - 1);
}
void Assembler::uxtb(Reg d, Reg n) { ubfm(Size::W, d, n, 0, 7); }
void Assembler::uxth(Reg d, Reg n) { ubfm(Size::W, d, n, 0, 15); }
void Assembler::sxtb(Size s, Reg d, Reg n) { sbfm(s, d, n, 0, 7); }
void Assembler::sxth(Size s, Reg d, Reg n) { sbfm(s, d, n, 0, 15); }
void Assembler::sxtw(Reg d, Reg n) { sbfm(Size::X, d, n, 0, 31); }

void Assembler::extr(Size s, Reg d, Reg n, Reg m, unsigned lsb) {
  emit(0x13800000 | sf(s) | (is64(s) ? 1u << 22 : 0) | rm(m) |
       uimm(lsb, is64(s) ? 6 : 5, 10, "extr lsb") | rn(n) | rd(d));
}

// ---- Multiply, divide --------------------------------------------------------

void Assembler::madd(Size s, Reg d, Reg n, Reg m, Reg a) {
  emit(dp3(0x1B000000 | sf(s), d, n, m, a));
}
void Assembler::msub(Size s, Reg d, Reg n, Reg m, Reg a) {
  emit(dp3(0x1B008000 | sf(s), d, n, m, a));
}
void Assembler::mul(Size s, Reg d, Reg n, Reg m) { madd(s, d, n, m, xzr); }
void Assembler::mneg(Size s, Reg d, Reg n, Reg m) { msub(s, d, n, m, xzr); }
void Assembler::smaddl(Reg d, Reg n, Reg m, Reg a) { emit(dp3(0x9B200000, d, n, m, a)); }
void Assembler::smsubl(Reg d, Reg n, Reg m, Reg a) { emit(dp3(0x9B208000, d, n, m, a)); }
void Assembler::umaddl(Reg d, Reg n, Reg m, Reg a) { emit(dp3(0x9BA00000, d, n, m, a)); }
void Assembler::umsubl(Reg d, Reg n, Reg m, Reg a) { emit(dp3(0x9BA08000, d, n, m, a)); }
void Assembler::smull(Reg d, Reg n, Reg m) { smaddl(d, n, m, xzr); }
void Assembler::umull(Reg d, Reg n, Reg m) { umaddl(d, n, m, xzr); }
void Assembler::smulh(Reg d, Reg n, Reg m) { emit(dp3(0x9B400000, d, n, m, xzr)); }
void Assembler::umulh(Reg d, Reg n, Reg m) { emit(dp3(0x9BC00000, d, n, m, xzr)); }
void Assembler::udiv(Size s, Reg d, Reg n, Reg m) { emit(dp2(0x2, s, d, n, m)); }
void Assembler::sdiv(Size s, Reg d, Reg n, Reg m) { emit(dp2(0x3, s, d, n, m)); }

// ---- Bit manipulation --------------------------------------------------------

void Assembler::rbit(Size s, Reg d, Reg n) { emit(dp1(0x0, s, d, n)); }
void Assembler::rev16(Size s, Reg d, Reg n) { emit(dp1(0x1, s, d, n)); }
// REV of a W register and REV32 of an X register share opcode 2.
void Assembler::rev(Size s, Reg d, Reg n) { emit(dp1(is64(s) ? 0x3 : 0x2, s, d, n)); }
void Assembler::rev32(Reg d, Reg n) { emit(dp1(0x2, Size::X, d, n)); }
void Assembler::clz(Size s, Reg d, Reg n) { emit(dp1(0x4, s, d, n)); }
void Assembler::crc32c(unsigned size_log2, Reg d, Reg n, Reg m) {
  emit(dp2(0x14 | size_log2, size_log2 == 3 ? Size::X : Size::W, d, n, m));
}
void Assembler::cls(Size s, Reg d, Reg n) { emit(dp1(0x5, s, d, n)); }

// ---- Conditional select and compare ------------------------------------------

void Assembler::csel(Size s, Reg d, Reg n, Reg m, Cond c) {
  emit(cond_select(0x1A800000, s, d, n, m, c));
}
void Assembler::csinc(Size s, Reg d, Reg n, Reg m, Cond c) {
  emit(cond_select(0x1A800400, s, d, n, m, c));
}
void Assembler::csinv(Size s, Reg d, Reg n, Reg m, Cond c) {
  emit(cond_select(0x5A800000, s, d, n, m, c));
}
void Assembler::csneg(Size s, Reg d, Reg n, Reg m, Cond c) {
  emit(cond_select(0x5A800400, s, d, n, m, c));
}
void Assembler::cset(Size s, Reg d, Cond c) { csinc(s, d, xzr, xzr, inverted_for_alias(c)); }
void Assembler::csetm(Size s, Reg d, Cond c) { csinv(s, d, xzr, xzr, inverted_for_alias(c)); }
void Assembler::cinc(Size s, Reg d, Reg n, Cond c) { csinc(s, d, n, n, inverted_for_alias(c)); }
void Assembler::cinv(Size s, Reg d, Reg n, Cond c) { csinv(s, d, n, n, inverted_for_alias(c)); }
void Assembler::cneg(Size s, Reg d, Reg n, Cond c) { csneg(s, d, n, n, inverted_for_alias(c)); }

void Assembler::ccmp(Size s, Reg n, Reg m, unsigned nzcv, Cond c) {
  emit(cond_compare(kCcmp, s, n, rm(m) >> 16, nzcv, c));
}
void Assembler::ccmn(Size s, Reg n, Reg m, unsigned nzcv, Cond c) {
  emit(cond_compare(kCcmn, s, n, rm(m) >> 16, nzcv, c));
}
void Assembler::ccmp(Size s, Reg n, unsigned imm5, unsigned nzcv, Cond c) {
  emit(cond_compare(kCcmp | kCcmpImm, s, n, imm5, nzcv, c));
}
void Assembler::ccmn(Size s, Reg n, unsigned imm5, unsigned nzcv, Cond c) {
  emit(cond_compare(kCcmn | kCcmpImm, s, n, imm5, nzcv, c));
}

}  // namespace phybin::arm64
