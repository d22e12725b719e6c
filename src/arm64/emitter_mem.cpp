// Loads and stores: general and SIMD&FP registers, pairs, single lanes,
// exclusive and acquire/release accesses, LSE atomics.
#include "arm64/emitter.h"
#include "arm64/emitter_fields.h"

namespace phybin::arm64 {

using namespace fields;

namespace {

// size (bits 30-31), V (bit 26) and opc (bits 22-23) of a load/store.
constexpr uint32_t ls_bits(unsigned size, bool v, unsigned opc) {
  return (size << 30) | (v ? 1u << 26 : 0) | (opc << 22);
}
constexpr unsigned kOpcStore = 0, kOpcLoad = 1, kOpcLoadSigned64 = 2, kOpcLoadSigned32 = 3;

unsigned log2_of(MemSize ms) { return static_cast<unsigned>(ms); }

// SIMD&FP: B/H/S/D use size = log2 bytes; Q uses size 0 with opc bit 1 set.
uint32_t fp_ls_bits(FSize fs, bool load) {
  const unsigned opc = load ? 1 : 0;
  if (fs == FSize::Q) return ls_bits(0, true, opc | 2);
  return ls_bits(static_cast<unsigned>(fs), true, opc);
}

uint32_t extend_option(Extend e) {
  require(e == Extend::UXTW || e == Extend::UXTX || e == Extend::SXTW || e == Extend::SXTX,
          "address index extend must be UXTW, UXTX (LSL), SXTW or SXTX");
  return static_cast<uint32_t>(e) << 13;
}

}  // namespace

void Assembler::load_store(uint32_t size_v_opc, unsigned log2_size, uint8_t rt, const Mem& m,
                           bool force_unscaled) {
  const uint32_t regs = rn(m.base) | reg_at(rt, 0);
  switch (m.mode) {
    case Mem::Mode::Offset: {
      const int64_t scale = int64_t{1} << log2_size;
      if (!force_unscaled && m.offset >= 0 && m.offset % scale == 0 && m.offset / scale < 4096) {
        emit(0x39000000 | size_v_opc | (static_cast<uint32_t>(m.offset / scale) << 10) | regs);
        return;
      }
      require(fits_signed(m.offset, 9), "load/store offset encodes neither scaled nor unscaled");
      emit(0x38000000 | size_v_opc | simm(m.offset, 9, 12, "offset") | regs);
      return;
    }
    case Mem::Mode::PreIndex:
    case Mem::Mode::PostIndex: {
      require(!force_unscaled, "ldur/stur take a plain offset");
      const uint32_t mode = m.mode == Mem::Mode::PreIndex ? 0xC00 : 0x400;
      emit(0x38000000 | mode | size_v_opc | simm(m.offset, 9, 12, "index offset -256..255") | regs);
      return;
    }
    case Mem::Mode::RegOffset:
      require(!force_unscaled, "ldur/stur take a plain offset");
      emit(0x38200800 | size_v_opc | rm(m.index) | extend_option(m.extend) |
           (m.scaled ? 1u << 12 : 0) | regs);
      return;
  }
}

// ---- General registers -------------------------------------------------------

void Assembler::load(MemSize ms, Reg rt, const Mem& m) {
  load_store(ls_bits(log2_of(ms), false, kOpcLoad), log2_of(ms), rt.code, m, false);
}
void Assembler::store(MemSize ms, Reg rt, const Mem& m) {
  load_store(ls_bits(log2_of(ms), false, kOpcStore), log2_of(ms), rt.code, m, false);
}
void Assembler::load_unscaled(MemSize ms, Reg rt, const Mem& m) {
  load_store(ls_bits(log2_of(ms), false, kOpcLoad), log2_of(ms), rt.code, m, true);
}
void Assembler::store_unscaled(MemSize ms, Reg rt, const Mem& m) {
  load_store(ls_bits(log2_of(ms), false, kOpcStore), log2_of(ms), rt.code, m, true);
}
void Assembler::load_signed(Size s, MemSize ms, Reg rt, const Mem& m) {
  require(ms != MemSize::X && (ms != MemSize::W || is64(s)), "sign-extending load width");
  const unsigned opc = is64(s) ? kOpcLoadSigned64 : kOpcLoadSigned32;
  load_store(ls_bits(log2_of(ms), false, opc), log2_of(ms), rt.code, m, false);
}

namespace {
MemSize mem_size(Size s) { return is64(s) ? MemSize::X : MemSize::W; }
}  // namespace

void Assembler::ldr(Size s, Reg rt, const Mem& m) { load(mem_size(s), rt, m); }
void Assembler::str(Size s, Reg rt, const Mem& m) { store(mem_size(s), rt, m); }
void Assembler::ldur(Size s, Reg rt, const Mem& m) { load_unscaled(mem_size(s), rt, m); }
void Assembler::stur(Size s, Reg rt, const Mem& m) { store_unscaled(mem_size(s), rt, m); }
void Assembler::ldrb(Reg wt, const Mem& m) { load(MemSize::B, wt, m); }
void Assembler::ldrh(Reg wt, const Mem& m) { load(MemSize::H, wt, m); }
void Assembler::strb(Reg wt, const Mem& m) { store(MemSize::B, wt, m); }
void Assembler::strh(Reg wt, const Mem& m) { store(MemSize::H, wt, m); }
void Assembler::ldrsb(Size s, Reg rt, const Mem& m) { load_signed(s, MemSize::B, rt, m); }
void Assembler::ldrsh(Size s, Reg rt, const Mem& m) { load_signed(s, MemSize::H, rt, m); }
void Assembler::ldrsw(Reg xt, const Mem& m) { load_signed(Size::X, MemSize::W, xt, m); }

// ---- Pairs -------------------------------------------------------------------

namespace {
// opc (bits 30-31) and V of a pair, the mode bits, L, and the scaled imm7.
uint32_t pair(uint32_t opc_v, unsigned log2_size, bool load, uint8_t rt1, uint8_t rt2,
              const Mem& m) {
  uint32_t mode = 0;
  switch (m.mode) {
    case Mem::Mode::Offset: mode = 0x01000000; break;
    case Mem::Mode::PreIndex: mode = 0x01800000; break;
    case Mem::Mode::PostIndex: mode = 0x00800000; break;
    case Mem::Mode::RegOffset: bad_operand("ldp/stp take no index register");
  }
  const int64_t scale = int64_t{1} << log2_size;
  require(m.offset % scale == 0, "ldp/stp offset not a multiple of the register size");
  return 0x28000000 | opc_v | mode | (load ? 1u << 22 : 0) |
         simm(m.offset / scale, 7, 15, "ldp/stp offset out of range") | reg_at(rt2, 10) |
         rn(m.base) | reg_at(rt1, 0);
}

uint32_t fp_pair_opc(FSize fs) {
  switch (fs) {
    case FSize::S: return 0x04000000;
    case FSize::D: return 0x44000000;
    case FSize::Q: return 0x84000000;
    default: bad_operand("ldp/stp of SIMD&FP registers: S, D or Q");
  }
}
}  // namespace

void Assembler::ldp(Size s, Reg rt1, Reg rt2, const Mem& m) {
  emit(pair(is64(s) ? 0x80000000 : 0, is64(s) ? 3 : 2, true, rt1.code, rt2.code, m));
}
void Assembler::stp(Size s, Reg rt1, Reg rt2, const Mem& m) {
  emit(pair(is64(s) ? 0x80000000 : 0, is64(s) ? 3 : 2, false, rt1.code, rt2.code, m));
}
void Assembler::ldp(FSize fs, VReg vt1, VReg vt2, const Mem& m) {
  emit(pair(fp_pair_opc(fs), static_cast<unsigned>(fs), true, vt1.code, vt2.code, m));
}
void Assembler::stp(FSize fs, VReg vt1, VReg vt2, const Mem& m) {
  emit(pair(fp_pair_opc(fs), static_cast<unsigned>(fs), false, vt1.code, vt2.code, m));
}

// ---- SIMD&FP registers -------------------------------------------------------

void Assembler::ldr(FSize fs, VReg vt, const Mem& m) {
  load_store(fp_ls_bits(fs, true), static_cast<unsigned>(fs), vt.code, m, false);
}
void Assembler::str(FSize fs, VReg vt, const Mem& m) {
  load_store(fp_ls_bits(fs, false), static_cast<unsigned>(fs), vt.code, m, false);
}
void Assembler::ldur(FSize fs, VReg vt, const Mem& m) {
  load_store(fp_ls_bits(fs, true), static_cast<unsigned>(fs), vt.code, m, true);
}
void Assembler::stur(FSize fs, VReg vt, const Mem& m) {
  load_store(fp_ls_bits(fs, false), static_cast<unsigned>(fs), vt.code, m, true);
}

namespace {
// Q:S:size of LD1/ST1 (single structure) hold the lane index; opcode the size.
uint32_t single_lane(FSize lane, unsigned index) {
  switch (lane) {
    case FSize::B:
      require(index < 16, "lane index");
      return ((index >> 3) << 30) | (((index >> 2) & 1) << 12) | ((index & 3) << 10);
    case FSize::H:
      require(index < 8, "lane index");
      return (2u << 13) | ((index >> 2) << 30) | (((index >> 1) & 1) << 12) | ((index & 1) << 11);
    case FSize::S:
      require(index < 4, "lane index");
      return (4u << 13) | ((index >> 1) << 30) | ((index & 1) << 12);
    case FSize::D: require(index < 2, "lane index"); return (4u << 13) | (index << 30) | (1u << 10);
    default: bad_operand("ld1/st1 lane must be B, H, S or D");
  }
}
}  // namespace

void Assembler::ld1(FSize lane, VReg vt, unsigned index, Reg xn) {
  emit(0x0D400000 | single_lane(lane, index) | rn(xn) | rd(vt));
}
void Assembler::st1(FSize lane, VReg vt, unsigned index, Reg xn) {
  emit(0x0D000000 | single_lane(lane, index) | rn(xn) | rd(vt));
}

// ---- Exclusive and ordered ---------------------------------------------------

namespace {
// size | o2 (23) L (22) o1 (21) | Rs | o0 (15) | Rt2 | Rn | Rt
uint32_t exclusive(uint32_t op, uint32_t size, Reg s, Reg t, Reg t2, Reg n) {
  return op | (size << 30) | rm(s) | ra(t2) | rn(n) | rd(t);
}
constexpr uint32_t kStxr = 0x08000000, kLdxr = 0x08400000, kAcqRel = 0x8000;
constexpr uint32_t kStlr = 0x08808000, kLdar = 0x08C08000;
}  // namespace

void Assembler::ldxr(MemSize ms, Reg t, Reg n) {
  emit(exclusive(kLdxr, log2_of(ms), xzr, t, xzr, n));
}
void Assembler::ldaxr(MemSize ms, Reg t, Reg n) {
  emit(exclusive(kLdxr | kAcqRel, log2_of(ms), xzr, t, xzr, n));
}
void Assembler::stxr(MemSize ms, Reg s, Reg t, Reg n) {
  emit(exclusive(kStxr, log2_of(ms), s, t, xzr, n));
}
void Assembler::stlxr(MemSize ms, Reg s, Reg t, Reg n) {
  emit(exclusive(kStxr | kAcqRel, log2_of(ms), s, t, xzr, n));
}
// Pairs: bit 31 set, bit 30 = X, o1 (bit 21) = 1.
void Assembler::ldxp(Size sz, Reg t1, Reg t2, Reg n) {
  emit(exclusive(kLdxr | 0x00200000, is64(sz) ? 3 : 2, xzr, t1, t2, n));
}
void Assembler::ldaxp(Size sz, Reg t1, Reg t2, Reg n) {
  emit(exclusive(kLdxr | 0x00200000 | kAcqRel, is64(sz) ? 3 : 2, xzr, t1, t2, n));
}
void Assembler::stxp(Size sz, Reg s, Reg t1, Reg t2, Reg n) {
  emit(exclusive(kStxr | 0x00200000, is64(sz) ? 3 : 2, s, t1, t2, n));
}
void Assembler::stlxp(Size sz, Reg s, Reg t1, Reg t2, Reg n) {
  emit(exclusive(kStxr | 0x00200000 | kAcqRel, is64(sz) ? 3 : 2, s, t1, t2, n));
}
void Assembler::ldar(MemSize ms, Reg t, Reg n) {
  emit(exclusive(kLdar, log2_of(ms), xzr, t, xzr, n));
}
void Assembler::stlr(MemSize ms, Reg t, Reg n) {
  emit(exclusive(kStlr, log2_of(ms), xzr, t, xzr, n));
}
void Assembler::ldapr(MemSize ms, Reg t, Reg n) {
  emit(0x38BFC000 | (log2_of(ms) << 30) | rn(n) | rd(t));
}

// ---- LSE atomics -------------------------------------------------------------

namespace {
// CAS: L (acquire) bit 22, o0 (release) bit 15.
constexpr uint32_t kCas = 0x08A07C00, kCasAcquire = 1u << 22, kCasRelease = 1u << 15;
uint32_t cas_word(uint32_t op, MemSize ms, Reg s, Reg t, Reg n) {
  return op | (log2_of(ms) << 30) | rm(s) | rn(n) | rd(t);
}
// LDADD and friends with A and R set (acquire-release): o3 bit 15, opc 12-14.
uint32_t atomic_al(uint32_t o3_opc, MemSize ms, Reg s, Reg t, Reg n) {
  return 0x38E00000 | (log2_of(ms) << 30) | rm(s) | (o3_opc << 12) | rn(n) | rd(t);
}
}  // namespace

void Assembler::cas(MemSize ms, Reg s, Reg t, Reg n) { emit(cas_word(kCas, ms, s, t, n)); }
void Assembler::casa(MemSize ms, Reg s, Reg t, Reg n) {
  emit(cas_word(kCas | kCasAcquire, ms, s, t, n));
}
void Assembler::casl(MemSize ms, Reg s, Reg t, Reg n) {
  emit(cas_word(kCas | kCasRelease, ms, s, t, n));
}
void Assembler::casal(MemSize ms, Reg s, Reg t, Reg n) {
  emit(cas_word(kCas | kCasAcquire | kCasRelease, ms, s, t, n));
}
void Assembler::ldaddal(MemSize ms, Reg s, Reg t, Reg n) { emit(atomic_al(0x0, ms, s, t, n)); }
void Assembler::ldclral(MemSize ms, Reg s, Reg t, Reg n) { emit(atomic_al(0x1, ms, s, t, n)); }
void Assembler::ldeoral(MemSize ms, Reg s, Reg t, Reg n) { emit(atomic_al(0x2, ms, s, t, n)); }
void Assembler::ldsetal(MemSize ms, Reg s, Reg t, Reg n) { emit(atomic_al(0x3, ms, s, t, n)); }
void Assembler::swpal(MemSize ms, Reg s, Reg t, Reg n) { emit(atomic_al(0x8, ms, s, t, n)); }

}  // namespace phybin::arm64
