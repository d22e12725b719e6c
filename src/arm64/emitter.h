// AArch64 machine-code emitter.  An Assembler writes 32-bit instruction
// words into a caller-provided buffer (the code cache) and resolves labels.
//
// Conventions, uniform over the whole API:
//  - the first argument of a general-register instruction is its operand
//    size, Size::W or Size::X:   a.add(Size::X, x0, x1, x2)  is add x0, x1, x2;
//  - SIMD&FP scalar instructions take an FSize (B/H/S/D/Q) and vector ones a
//    VArr arrangement:  a.fadd(FSize::D, v0, v1, v2), a.add(VArr::S4, v0, v1, v2);
//  - a size tag comes right before the register it describes when two
//    register files meet:  a.fcvtzs(Size::W, x0, FSize::D, v1)  is fcvtzs w0, d1;
//  - operands follow the assembler's order (destination first);
//  - register 31 is the zero register except where a comment says "SP";
//  - a bad operand (register > 31, immediate out of range, arrangement the
//    instruction lacks) throws phybin::Error(PHYBIN_ERR_INTERNAL): it is a
//    translator bug, never a guest's fault.
//  - when the buffer is full, the Assembler stops writing and overflowed()
//    turns true; the code cache then flushes and translates again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "arm64/emitter_types.h"

namespace phybin::arm64 {

class Assembler {
 public:
  Assembler(uint32_t* begin, size_t capacity_words);
  ~Assembler();
  Assembler(const Assembler&) = delete;
  Assembler& operator=(const Assembler&) = delete;

  // ---- Buffer -------------------------------------------------------------
  // Starts again at the beginning (of a new buffer); forgets all labels.
  void reset();
  void reset(uint32_t* begin, size_t capacity_words);
  uint32_t* begin() const { return begin_; }
  uint32_t* cursor() const { return begin_ + pos_; }
  size_t size_words() const { return pos_; }
  size_t capacity_words() const { return capacity_; }
  size_t remaining_words() const { return capacity_ - pos_; }
  bool overflowed() const { return overflowed_; }
  // References to labels not bound yet.
  size_t unresolved_fixups() const { return unresolved_; }
  // Appends one raw instruction word.
  void emit(uint32_t word);

  // ---- Labels -------------------------------------------------------------
  // Binds `label` to the cursor and patches every earlier reference to it.
  void bind(Label& label);
  // Address of a bound label's instruction.
  uint32_t* address_of(const Label& label) const;

  // ---- Static helpers (block linking, range checks, immediates) -----------
  // B/BL reach +-128 MiB; B.cond, CBZ, LDR literal +-1 MiB; TBZ +-32 KiB;
  // ADR +-1 MiB; ADRP +-4 GiB (pages).
  static bool is_b_in_range(const void* from, const void* to);
  static bool is_b_cond_in_range(const void* from, const void* to);
  static bool is_adrp_in_range(const void* from, const void* to);
  // The B / BL / B.cond word placed at `from` that jumps to `to`, if in range.
  static std::optional<uint32_t> encode_b(const void* from, const void* to);
  static std::optional<uint32_t> encode_bl(const void* from, const void* to);
  static std::optional<uint32_t> encode_b_cond(const void* from, const void* to, Cond cond);
  // Rewrites the word at `site` into a B (or BL) to `target`; false, and
  // nothing written, when out of range.  The caller flushes the icache.
  static bool patch_b(uint32_t* site, const void* target);
  static bool patch_bl(uint32_t* site, const void* target);
  // Block exits branch with a B or, for the taken side of a conditional
  // exit, with the B.cond/CBZ/CBNZ itself.  patch_branch points the branch
  // at `site` to `target`, keeping its kind, condition and register; false,
  // nothing written, when out of range.  branch_target: where it goes now.
  static bool is_conditional_branch(uint32_t word);
  static bool patch_branch(uint32_t* site, const void* target);
  static const uint32_t* branch_target(const uint32_t* site);

  // N:immr:imms (13 bits, N in bit 12) of a logical immediate, if `value`
  // is one (for 32-bit, value must fit in 32 bits).
  static std::optional<uint32_t> encode_logical_imm(uint64_t value, bool is64);
  static bool is_logical_imm(uint64_t value, Size size) {
    return encode_logical_imm(value, size == Size::X).has_value();
  }
  // The value a 13-bit N:immr:imms field stands for (nullopt if reserved).
  static std::optional<uint64_t> decode_logical_imm(uint32_t n_immr_imms, bool is64);
  // 12-bit unsigned immediate, optionally shifted left by 12.
  static bool is_add_imm(uint64_t value);
  // Whether [base, #offset] encodes for an access of 2^log2_size bytes, as
  // scaled unsigned 12-bit (LDR) or signed 9-bit (LDUR).
  static bool is_mem_offset_encodable(unsigned log2_size, int64_t offset);
  // Number of instructions mov_imm() emits for `value`.
  static unsigned mov_imm_length(Size size, uint64_t value);

  // ---- Add / subtract -----------------------------------------------------
  // Shifted register (no SP; shift LSL/LSR/ASR).
  void add(Size s, Reg rd, Reg rn, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void adds(Size s, Reg rd, Reg rn, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void sub(Size s, Reg rd, Reg rn, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void subs(Size s, Reg rd, Reg rn, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  // Extended register: rd (not for adds/subs) and rn may be SP; amount 0..4.
  void add(Size s, Reg rd, Reg rn, Reg rm, Extend ext, unsigned amount = 0);
  void adds(Size s, Reg rd, Reg rn, Reg rm, Extend ext, unsigned amount = 0);
  void sub(Size s, Reg rd, Reg rn, Reg rm, Extend ext, unsigned amount = 0);
  void subs(Size s, Reg rd, Reg rn, Reg rm, Extend ext, unsigned amount = 0);
  // Immediate 0..4095, optionally LSL 12: rd (not for adds/subs), rn may be SP.
  void add(Size s, Reg rd, Reg rn, uint32_t imm12, bool lsl12 = false);
  void adds(Size s, Reg rd, Reg rn, uint32_t imm12, bool lsl12 = false);
  void sub(Size s, Reg rd, Reg rn, uint32_t imm12, bool lsl12 = false);
  void subs(Size s, Reg rd, Reg rn, uint32_t imm12, bool lsl12 = false);
  void cmp(Size s, Reg rn, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void cmp(Size s, Reg rn, Reg rm, Extend ext, unsigned amount = 0);  // rn may be SP
  void cmp(Size s, Reg rn, uint32_t imm12, bool lsl12 = false);       // rn may be SP
  void cmn(Size s, Reg rn, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void cmn(Size s, Reg rn, uint32_t imm12, bool lsl12 = false);
  void neg(Size s, Reg rd, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void negs(Size s, Reg rd, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void adc(Size s, Reg rd, Reg rn, Reg rm);
  void adcs(Size s, Reg rd, Reg rn, Reg rm);
  void sbc(Size s, Reg rd, Reg rn, Reg rm);
  void sbcs(Size s, Reg rd, Reg rn, Reg rm);
  // Any 64-bit immediate, the shortest way: ADD/SUB #imm, two of them
  // (24 bits, not for the flag-setting forms), or mov_imm into `scratch` and
  // an extended-register ADD.  rd and rn may be SP (rd not for adds/subs/cmp).
  // Without a scratch the fallback uses rd (only if rd != rn and rd is not
  // SP).  For Size::W only the low 32 bits of imm count (0xFFFFFFFF is -1).
  // A negative constant turns ADD into SUB and back; the flag-setting forms
  // then set exactly the NZCV of the requested operation (C included), and
  // 0 and the most negative value, where that would not hold, never flip.
  void add_imm(Size s, Reg rd, Reg rn, int64_t imm, std::optional<Reg> scratch = {});
  void sub_imm(Size s, Reg rd, Reg rn, int64_t imm, std::optional<Reg> scratch = {});
  void adds_imm(Size s, Reg rd, Reg rn, int64_t imm, Reg scratch);
  void subs_imm(Size s, Reg rd, Reg rn, int64_t imm, Reg scratch);
  void cmp_imm(Size s, Reg rn, int64_t imm, Reg scratch);

  // ---- Logical ------------------------------------------------------------
  // Shifted register (any shift including ROR).  `and` is a C++ keyword.
  void and_(Size s, Reg rd, Reg rn, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void ands(Size s, Reg rd, Reg rn, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void orr(Size s, Reg rd, Reg rn, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void eor(Size s, Reg rd, Reg rn, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void bic(Size s, Reg rd, Reg rn, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void bics(Size s, Reg rd, Reg rn, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void orn(Size s, Reg rd, Reg rn, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void eon(Size s, Reg rd, Reg rn, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void tst(Size s, Reg rn, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  void mvn(Size s, Reg rd, Reg rm, Shift sh = Shift::LSL, unsigned amount = 0);
  // Logical immediate (must satisfy is_logical_imm); rd of and_/orr/eor may be SP.
  void and_(Size s, Reg rd, Reg rn, uint64_t imm);
  void ands(Size s, Reg rd, Reg rn, uint64_t imm);
  void orr(Size s, Reg rd, Reg rn, uint64_t imm);
  void eor(Size s, Reg rd, Reg rn, uint64_t imm);
  void tst(Size s, Reg rn, uint64_t imm);
  // Register move (ORR with the zero register); neither may be SP.
  void mov(Size s, Reg rd, Reg rm);
  // Move to or from SP (ADD rd, rn, #0): both operands are SP-capable.
  void mov_sp(Reg rd, Reg rn);

  // ---- Move wide ----------------------------------------------------------
  // shift is 0, 16 (and 32, 48 for Size::X).
  void movz(Size s, Reg rd, uint16_t imm, unsigned shift = 0);
  void movn(Size s, Reg rd, uint16_t imm, unsigned shift = 0);
  void movk(Size s, Reg rd, uint16_t imm, unsigned shift = 0);
  // Loads any constant with the fewest instructions (MOVZ/MOVN + MOVK, or ORR
  // with a logical immediate, + MOVK).  For Size::W only the low 32 bits count.
  void mov_imm(Size s, Reg rd, uint64_t value);

  // ---- Shifts and bitfields -----------------------------------------------
  void lslv(Size s, Reg rd, Reg rn, Reg rm);
  void lsrv(Size s, Reg rd, Reg rn, Reg rm);
  void asrv(Size s, Reg rd, Reg rn, Reg rm);
  void rorv(Size s, Reg rd, Reg rn, Reg rm);
  void lsl(Size s, Reg rd, Reg rn, Reg rm) { lslv(s, rd, rn, rm); }
  void lsr(Size s, Reg rd, Reg rn, Reg rm) { lsrv(s, rd, rn, rm); }
  void asr(Size s, Reg rd, Reg rn, Reg rm) { asrv(s, rd, rn, rm); }
  void ror(Size s, Reg rd, Reg rn, Reg rm) { rorv(s, rd, rn, rm); }
  void lsl(Size s, Reg rd, Reg rn, unsigned amount);
  void lsr(Size s, Reg rd, Reg rn, unsigned amount);
  void asr(Size s, Reg rd, Reg rn, unsigned amount);
  void ror(Size s, Reg rd, Reg rn, unsigned amount);
  void ubfm(Size s, Reg rd, Reg rn, unsigned immr, unsigned imms);
  void sbfm(Size s, Reg rd, Reg rn, unsigned immr, unsigned imms);
  void bfm(Size s, Reg rd, Reg rn, unsigned immr, unsigned imms);
  // Field of `width` bits at bit `lsb`.
  void ubfx(Size s, Reg rd, Reg rn, unsigned lsb, unsigned width);
  void sbfx(Size s, Reg rd, Reg rn, unsigned lsb, unsigned width);
  void bfxil(Size s, Reg rd, Reg rn, unsigned lsb, unsigned width);
  void bfi(Size s, Reg rd, Reg rn, unsigned lsb, unsigned width);
  void ubfiz(Size s, Reg rd, Reg rn, unsigned lsb, unsigned width);
  void sbfiz(Size s, Reg rd, Reg rn, unsigned lsb, unsigned width);
  // Zero-extensions write a W register (the upper half is cleared anyway).
  void uxtb(Reg rd, Reg rn);
  void uxth(Reg rd, Reg rn);
  void sxtb(Size s, Reg rd, Reg rn);
  void sxth(Size s, Reg rd, Reg rn);
  void sxtw(Reg rd, Reg rn);  // X destination
  void extr(Size s, Reg rd, Reg rn, Reg rm, unsigned lsb);

  // ---- Multiply, divide ---------------------------------------------------
  void madd(Size s, Reg rd, Reg rn, Reg rm, Reg ra);
  void msub(Size s, Reg rd, Reg rn, Reg rm, Reg ra);
  void mul(Size s, Reg rd, Reg rn, Reg rm);
  void mneg(Size s, Reg rd, Reg rn, Reg rm);
  // 32 x 32 -> 64 bit: X destination and accumulator, W sources.
  void smaddl(Reg xd, Reg wn, Reg wm, Reg xa);
  void umaddl(Reg xd, Reg wn, Reg wm, Reg xa);
  void smsubl(Reg xd, Reg wn, Reg wm, Reg xa);
  void umsubl(Reg xd, Reg wn, Reg wm, Reg xa);
  void smull(Reg xd, Reg wn, Reg wm);
  void umull(Reg xd, Reg wn, Reg wm);
  // High 64 bits of the 128-bit product (X only).
  void smulh(Reg xd, Reg xn, Reg xm);
  void umulh(Reg xd, Reg xn, Reg xm);
  void sdiv(Size s, Reg rd, Reg rn, Reg rm);
  void udiv(Size s, Reg rd, Reg rn, Reg rm);

  // ---- Bit manipulation ---------------------------------------------------
  void clz(Size s, Reg rd, Reg rn);
  void cls(Size s, Reg rd, Reg rn);
  void rbit(Size s, Reg rd, Reg rn);
  void rev(Size s, Reg rd, Reg rn);
  void rev16(Size s, Reg rd, Reg rn);
  void rev32(Reg xd, Reg xn);  // X only
  // CRC32C of the low 1 << size_log2 bytes of rm into wn -> wd (crc32cx for 3).
  void crc32c(unsigned size_log2, Reg rd, Reg rn, Reg rm);

  // ---- Conditional select and compare -------------------------------------
  void csel(Size s, Reg rd, Reg rn, Reg rm, Cond c);
  void csinc(Size s, Reg rd, Reg rn, Reg rm, Cond c);
  void csinv(Size s, Reg rd, Reg rn, Reg rm, Cond c);
  void csneg(Size s, Reg rd, Reg rn, Reg rm, Cond c);
  void cset(Size s, Reg rd, Cond c);   // rd = c ? 1 : 0
  void csetm(Size s, Reg rd, Cond c);  // rd = c ? -1 : 0
  void cinc(Size s, Reg rd, Reg rn, Cond c);
  void cinv(Size s, Reg rd, Reg rn, Cond c);
  void cneg(Size s, Reg rd, Reg rn, Cond c);
  // NZCV = c ? flags(rn - rm) : nzcv  (nzcv is 4 bits, N in bit 3).
  void ccmp(Size s, Reg rn, Reg rm, unsigned nzcv, Cond c);
  void ccmn(Size s, Reg rn, Reg rm, unsigned nzcv, Cond c);
  void ccmp(Size s, Reg rn, unsigned imm5, unsigned nzcv, Cond c);
  void ccmn(Size s, Reg rn, unsigned imm5, unsigned nzcv, Cond c);

  // ---- System -------------------------------------------------------------
  void mrs(Reg xt, SysReg reg);
  void msr(SysReg reg, Reg xt);
  void dmb(Barrier b);
  void dsb(Barrier b);
  void isb();
  void nop();
  void brk(uint16_t imm);
  void svc(uint16_t imm);
  void udf(uint16_t imm);

  // ---- Loads and stores, general registers --------------------------------
  // Offset addressing picks the scaled unsigned 12-bit form, else the
  // unscaled signed 9-bit one (LDUR); an offset neither encodes throws (check
  // with is_mem_offset_encodable).  Pre/post-index take -256..255.  Register
  // offset: see mem(base, index, extend, scaled).
  void ldr(Size s, Reg rt, const Mem& m);
  void str(Size s, Reg rt, const Mem& m);
  void ldrb(Reg wt, const Mem& m);
  void ldrh(Reg wt, const Mem& m);
  void strb(Reg wt, const Mem& m);
  void strh(Reg wt, const Mem& m);
  void ldrsb(Size s, Reg rt, const Mem& m);
  void ldrsh(Size s, Reg rt, const Mem& m);
  void ldrsw(Reg xt, const Mem& m);
  // Always the unscaled form (offset -256..255).
  void ldur(Size s, Reg rt, const Mem& m);
  void stur(Size s, Reg rt, const Mem& m);
  // Width-generic forms for code that handles every access size alike:
  // load() zero-extends into the register, load_signed() sign-extends to `s`.
  void load(MemSize ms, Reg rt, const Mem& m);
  void load_signed(Size s, MemSize ms, Reg rt, const Mem& m);
  void store(MemSize ms, Reg rt, const Mem& m);
  void load_unscaled(MemSize ms, Reg rt, const Mem& m);
  void store_unscaled(MemSize ms, Reg rt, const Mem& m);
  // Pairs: mem(), mem_pre() or mem_post() with an offset that is a multiple
  // of the register size in -64..63 of them.
  void ldp(Size s, Reg rt1, Reg rt2, const Mem& m);
  void stp(Size s, Reg rt1, Reg rt2, const Mem& m);
  // PC-relative literal load from a label (+-1 MiB).
  void ldr(Size s, Reg rt, Label& literal);

  // ---- Loads and stores, SIMD&FP registers --------------------------------
  void ldr(FSize fs, VReg vt, const Mem& m);
  void str(FSize fs, VReg vt, const Mem& m);
  void ldur(FSize fs, VReg vt, const Mem& m);
  void stur(FSize fs, VReg vt, const Mem& m);
  void ldp(FSize fs, VReg vt1, VReg vt2, const Mem& m);  // S, D or Q
  void stp(FSize fs, VReg vt1, VReg vt2, const Mem& m);
  void ldr(FSize fs, VReg vt, Label& literal);  // S, D or Q
  // One lane: ld1 {vt.<lane>}[index], [xn] (no offset).
  void ld1(FSize lane, VReg vt, unsigned index, Reg xn);
  void st1(FSize lane, VReg vt, unsigned index, Reg xn);

  // ---- Exclusive, acquire/release, atomics --------------------------------
  // Base registers are SP-capable; status/compare registers are W.
  void ldxr(MemSize ms, Reg rt, Reg xn);
  void ldaxr(MemSize ms, Reg rt, Reg xn);
  void stxr(MemSize ms, Reg ws, Reg rt, Reg xn);
  void stlxr(MemSize ms, Reg ws, Reg rt, Reg xn);
  void ldxp(Size s, Reg rt1, Reg rt2, Reg xn);
  void ldaxp(Size s, Reg rt1, Reg rt2, Reg xn);
  void stxp(Size s, Reg ws, Reg rt1, Reg rt2, Reg xn);
  void stlxp(Size s, Reg ws, Reg rt1, Reg rt2, Reg xn);
  void ldar(MemSize ms, Reg rt, Reg xn);
  void stlr(MemSize ms, Reg rt, Reg xn);
  void ldapr(MemSize ms, Reg rt, Reg xn);  // FEAT_LRCPC
  // FEAT_LSE.  cas: if [xn] == rs then [xn] = rt; rs = old value.
  void cas(MemSize ms, Reg rs, Reg rt, Reg xn);
  void casa(MemSize ms, Reg rs, Reg rt, Reg xn);
  void casl(MemSize ms, Reg rs, Reg rt, Reg xn);
  void casal(MemSize ms, Reg rs, Reg rt, Reg xn);
  // rt = old [xn]; [xn] = old op rs.  Acquire-release ("al") forms.
  void ldaddal(MemSize ms, Reg rs, Reg rt, Reg xn);
  void ldclral(MemSize ms, Reg rs, Reg rt, Reg xn);
  void ldeoral(MemSize ms, Reg rs, Reg rt, Reg xn);
  void ldsetal(MemSize ms, Reg rs, Reg rt, Reg xn);
  void swpal(MemSize ms, Reg rs, Reg rt, Reg xn);

  // ---- Branches -----------------------------------------------------------
  // The const void* forms branch to an absolute address (the code is
  // assumed to run where it is written); out of range throws.
  void b(Label& target);
  void b(const void* target);
  void bl(Label& target);
  void bl(const void* target);
  void b(Cond c, Label& target);
  void b(Cond c, const void* target);
  void cbz(Size s, Reg rt, Label& target);
  void cbnz(Size s, Reg rt, Label& target);
  void tbz(Reg rt, unsigned bit, Label& target);  // bit 0..63
  void tbnz(Reg rt, unsigned bit, Label& target);
  void br(Reg xn);
  void blr(Reg xn);
  void ret(Reg xn = x30);
  void adr(Reg xd, Label& target);
  void adr(Reg xd, const void* target);
  // xd = 4 KiB page of `target`; add the low 12 bits yourself.
  void adrp(Reg xd, const void* target);

  // ---- SIMD&FP moves ------------------------------------------------------
  void fmov(FSize fs, VReg vd, VReg vn);  // H, S, D register move
  void fmov(FSize fs, VReg vd, Reg rn);   // s <- w, d <- x (h <- w)
  void fmov(FSize fs, Reg rd, VReg vn);   // w <- s, x <- d (w <- h)
  void fmov_to_high(VReg vd, Reg xn);     // fmov vd.d[1], xn
  void fmov_from_high(Reg xd, VReg vn);   // fmov xd, vn.d[1]
  void ins(FSize lane, VReg vd, unsigned index, Reg rn);
  void ins(FSize lane, VReg vd, unsigned index, VReg vn, unsigned src_index);
  void umov(FSize lane, Reg rd, VReg vn, unsigned index);  // D lane: X, else W
  void smov(Size s, FSize lane, Reg rd, VReg vn, unsigned index);  // B, H (, S for X)
  void dup(VArr arr, VReg vd, VReg vn, unsigned index);
  void dup(VArr arr, VReg vd, Reg rn);
  void dup(FSize lane, VReg vd, VReg vn, unsigned index);  // scalar: mov s0, v1.s[2]
  void mov(VArr arr, VReg vd, VReg vn);                    // B8 or B16 (ORR alias)
  // B8/B16: any byte; D1/D2: each byte 0x00 or 0xFF (movi d0 / movi v0.2d).
  void movi(VArr arr, VReg vd, uint64_t imm);

  // ---- SIMD integer, three registers of one arrangement ------------------
  void add(VArr arr, VReg vd, VReg vn, VReg vm);
  void sub(VArr arr, VReg vd, VReg vn, VReg vm);
  void mul(VArr arr, VReg vd, VReg vn, VReg vm);  // B, H, S lanes
  void addp(VArr arr, VReg vd, VReg vn, VReg vm);
  void cmeq(VArr arr, VReg vd, VReg vn, VReg vm);
  void cmgt(VArr arr, VReg vd, VReg vn, VReg vm);
  void cmge(VArr arr, VReg vd, VReg vn, VReg vm);
  void cmhi(VArr arr, VReg vd, VReg vn, VReg vm);
  void cmhs(VArr arr, VReg vd, VReg vn, VReg vm);
  void cmtst(VArr arr, VReg vd, VReg vn, VReg vm);
  void sqadd(VArr arr, VReg vd, VReg vn, VReg vm);
  void uqadd(VArr arr, VReg vd, VReg vn, VReg vm);
  void sqsub(VArr arr, VReg vd, VReg vn, VReg vm);
  void uqsub(VArr arr, VReg vd, VReg vn, VReg vm);
  void sshl(VArr arr, VReg vd, VReg vn, VReg vm);
  void ushl(VArr arr, VReg vd, VReg vn, VReg vm);
  void smin(VArr arr, VReg vd, VReg vn, VReg vm);
  void smax(VArr arr, VReg vd, VReg vn, VReg vm);
  void umin(VArr arr, VReg vd, VReg vn, VReg vm);
  void umax(VArr arr, VReg vd, VReg vn, VReg vm);
  void sminp(VArr arr, VReg vd, VReg vn, VReg vm);
  void smaxp(VArr arr, VReg vd, VReg vn, VReg vm);
  void uminp(VArr arr, VReg vd, VReg vn, VReg vm);
  void umaxp(VArr arr, VReg vd, VReg vn, VReg vm);
  void urhadd(VArr arr, VReg vd, VReg vn, VReg vm);
  // Bitwise: arr is B8 or B16.
  void and_(VArr arr, VReg vd, VReg vn, VReg vm);
  void orr(VArr arr, VReg vd, VReg vn, VReg vm);
  void eor(VArr arr, VReg vd, VReg vn, VReg vm);
  void bic(VArr arr, VReg vd, VReg vn, VReg vm);
  void orn(VArr arr, VReg vd, VReg vn, VReg vm);
  void bsl(VArr arr, VReg vd, VReg vn, VReg vm);
  void bit(VArr arr, VReg vd, VReg vn, VReg vm);
  void bif(VArr arr, VReg vd, VReg vn, VReg vm);

  // ---- SIMD integer, one source -------------------------------------------
  void cmeq0(VArr arr, VReg vd, VReg vn);  // cmeq vd, vn, #0
  void cmge0(VArr arr, VReg vd, VReg vn);
  void cmgt0(VArr arr, VReg vd, VReg vn);
  void cmle0(VArr arr, VReg vd, VReg vn);
  void cmlt0(VArr arr, VReg vd, VReg vn);
  void mvn(VArr arr, VReg vd, VReg vn);  // NOT; B8 or B16
  void neg(VArr arr, VReg vd, VReg vn);
  void abs(VArr arr, VReg vd, VReg vn);
  void cnt(VArr arr, VReg vd, VReg vn);  // B8 or B16
  void rev16(VArr arr, VReg vd, VReg vn);
  void rev32(VArr arr, VReg vd, VReg vn);
  void rev64(VArr arr, VReg vd, VReg vn);
  // Across lanes, scalar result in lane 0 of vd.
  void addv(VArr arr, VReg vd, VReg vn);
  void uaddlv(VArr arr, VReg vd, VReg vn);
  void saddlv(VArr arr, VReg vd, VReg vn);
  void uminv(VArr arr, VReg vd, VReg vn);
  void umaxv(VArr arr, VReg vd, VReg vn);
  void sminv(VArr arr, VReg vd, VReg vn);
  void smaxv(VArr arr, VReg vd, VReg vn);
  // Narrowing and widening take the NARROW arrangement; a 128-bit one (B16,
  // H8, S4) selects the upper-half form (xtn2, sxtl2, smull2 ...).
  void xtn(VArr narrow, VReg vd, VReg vn);
  void sqxtn(VArr narrow, VReg vd, VReg vn);
  void uqxtn(VArr narrow, VReg vd, VReg vn);
  void sqxtun(VArr narrow, VReg vd, VReg vn);
  void shrn(VArr narrow, VReg vd, VReg vn, unsigned shift);
  void rshrn(VArr narrow, VReg vd, VReg vn, unsigned shift);  // rounding: adds 1 << (shift - 1) first
  void ushll(VArr narrow, VReg vd, VReg vn, unsigned shift);
  void sshll(VArr narrow, VReg vd, VReg vn, unsigned shift);
  void uxtl(VArr narrow, VReg vd, VReg vn) { ushll(narrow, vd, vn, 0); }
  void sxtl(VArr narrow, VReg vd, VReg vn) { sshll(narrow, vd, vn, 0); }
  void smull(VArr narrow, VReg vd, VReg vn, VReg vm);
  void umull(VArr narrow, VReg vd, VReg vn, VReg vm);
  // Shift by immediate: shl 0..lane bits-1, right shifts 1..lane bits.
  void shl(VArr arr, VReg vd, VReg vn, unsigned shift);
  void ushr(VArr arr, VReg vd, VReg vn, unsigned shift);
  void sshr(VArr arr, VReg vd, VReg vn, unsigned shift);
  void usra(VArr arr, VReg vd, VReg vn, unsigned shift);
  void ssra(VArr arr, VReg vd, VReg vn, unsigned shift);

  // ---- SIMD permutes ------------------------------------------------------
  void zip1(VArr arr, VReg vd, VReg vn, VReg vm);
  void zip2(VArr arr, VReg vd, VReg vn, VReg vm);
  void uzp1(VArr arr, VReg vd, VReg vn, VReg vm);
  void uzp2(VArr arr, VReg vd, VReg vn, VReg vm);
  void trn1(VArr arr, VReg vd, VReg vn, VReg vm);
  void trn2(VArr arr, VReg vd, VReg vn, VReg vm);
  void ext(VArr arr, VReg vd, VReg vn, VReg vm, unsigned byte_index);  // B8 or B16
  // Table lookup in `count` (1..4) consecutive registers from `table`.
  void tbl(VArr arr, VReg vd, VReg table, unsigned count, VReg vm);  // B8 or B16
  void tbx(VArr arr, VReg vd, VReg table, unsigned count, VReg vm);

  // ---- Floating point, scalar (FSize S or D) -----------------------------
  void fadd(FSize fs, VReg vd, VReg vn, VReg vm);
  void fsub(FSize fs, VReg vd, VReg vn, VReg vm);
  void fmul(FSize fs, VReg vd, VReg vn, VReg vm);
  void fdiv(FSize fs, VReg vd, VReg vn, VReg vm);
  void fmin(FSize fs, VReg vd, VReg vn, VReg vm);
  void fmax(FSize fs, VReg vd, VReg vn, VReg vm);
  void fminnm(FSize fs, VReg vd, VReg vn, VReg vm);
  void fmaxnm(FSize fs, VReg vd, VReg vn, VReg vm);
  void fsqrt(FSize fs, VReg vd, VReg vn);
  void fabs(FSize fs, VReg vd, VReg vn);
  void fneg(FSize fs, VReg vd, VReg vn);
  void frintn(FSize fs, VReg vd, VReg vn);  // to nearest, ties even
  void frintm(FSize fs, VReg vd, VReg vn);  // toward -inf
  void frintp(FSize fs, VReg vd, VReg vn);  // toward +inf
  void frintz(FSize fs, VReg vd, VReg vn);  // toward zero
  void frinta(FSize fs, VReg vd, VReg vn);  // to nearest, ties away
  void frintx(FSize fs, VReg vd, VReg vn);  // current mode, signals inexact
  void frinti(FSize fs, VReg vd, VReg vn);  // current mode
  void frecpe(FSize fs, VReg vd, VReg vn);
  void frsqrte(FSize fs, VReg vd, VReg vn);
  void frecps(FSize fs, VReg vd, VReg vn, VReg vm);
  void frsqrts(FSize fs, VReg vd, VReg vn, VReg vm);
  void fcmp(FSize fs, VReg vn, VReg vm);
  void fcmpe(FSize fs, VReg vn, VReg vm);
  void fcmp0(FSize fs, VReg vn);   // fcmp vn, #0.0
  void fcmpe0(FSize fs, VReg vn);
  void fccmp(FSize fs, VReg vn, VReg vm, unsigned nzcv, Cond c);
  void fccmpe(FSize fs, VReg vn, VReg vm, unsigned nzcv, Cond c);
  void fcsel(FSize fs, VReg vd, VReg vn, VReg vm, Cond c);
  // Compare into an all-ones/all-zeros mask (scalar SIMD).
  void fcmeq(FSize fs, VReg vd, VReg vn, VReg vm);
  void fcmge(FSize fs, VReg vd, VReg vn, VReg vm);
  void fcmgt(FSize fs, VReg vd, VReg vn, VReg vm);
  void fcvt(FSize to, VReg vd, FSize from, VReg vn);  // among H, S, D
  // To a general register: nearest-even, toward -inf, +inf, zero, ties-away.
  void fcvtns(Size s, Reg rd, FSize fs, VReg vn);
  void fcvtms(Size s, Reg rd, FSize fs, VReg vn);
  void fcvtps(Size s, Reg rd, FSize fs, VReg vn);
  void fcvtzs(Size s, Reg rd, FSize fs, VReg vn);
  void fcvtas(Size s, Reg rd, FSize fs, VReg vn);
  void fcvtzu(Size s, Reg rd, FSize fs, VReg vn);
  void scvtf(FSize fs, VReg vd, Size s, Reg rn);
  void ucvtf(FSize fs, VReg vd, Size s, Reg rn);

  // ---- Floating point, vector (VArr S2, S4 or D2) -------------------------
  void fadd(VArr arr, VReg vd, VReg vn, VReg vm);
  void fsub(VArr arr, VReg vd, VReg vn, VReg vm);
  void fmul(VArr arr, VReg vd, VReg vn, VReg vm);
  void fdiv(VArr arr, VReg vd, VReg vn, VReg vm);
  void fmin(VArr arr, VReg vd, VReg vn, VReg vm);
  void fmax(VArr arr, VReg vd, VReg vn, VReg vm);
  void fminnm(VArr arr, VReg vd, VReg vn, VReg vm);
  void fmaxnm(VArr arr, VReg vd, VReg vn, VReg vm);
  void faddp(VArr arr, VReg vd, VReg vn, VReg vm);
  void fcmeq(VArr arr, VReg vd, VReg vn, VReg vm);
  void fcmge(VArr arr, VReg vd, VReg vn, VReg vm);
  void fcmgt(VArr arr, VReg vd, VReg vn, VReg vm);
  void frecps(VArr arr, VReg vd, VReg vn, VReg vm);
  void frsqrts(VArr arr, VReg vd, VReg vn, VReg vm);
  void fsqrt(VArr arr, VReg vd, VReg vn);
  void fabs(VArr arr, VReg vd, VReg vn);
  void fneg(VArr arr, VReg vd, VReg vn);
  void frintn(VArr arr, VReg vd, VReg vn);
  void frintm(VArr arr, VReg vd, VReg vn);
  void frintp(VArr arr, VReg vd, VReg vn);
  void frintz(VArr arr, VReg vd, VReg vn);
  void frinta(VArr arr, VReg vd, VReg vn);
  void frintx(VArr arr, VReg vd, VReg vn);
  void frinti(VArr arr, VReg vd, VReg vn);
  void frecpe(VArr arr, VReg vd, VReg vn);
  void frsqrte(VArr arr, VReg vd, VReg vn);
  void fcmeq0(VArr arr, VReg vd, VReg vn);
  void fcmge0(VArr arr, VReg vd, VReg vn);
  void fcmgt0(VArr arr, VReg vd, VReg vn);
  void fcmle0(VArr arr, VReg vd, VReg vn);
  void fcmlt0(VArr arr, VReg vd, VReg vn);
  void fcvtzs(VArr arr, VReg vd, VReg vn);
  void fcvtzu(VArr arr, VReg vd, VReg vn);
  void fcvtns(VArr arr, VReg vd, VReg vn);
  void scvtf(VArr arr, VReg vd, VReg vn);
  void ucvtf(VArr arr, VReg vd, VReg vn);
  // Narrow/widen between double and single: `narrow` is S2 (fcvtn vd.2s,
  // vn.2d / fcvtl vd.2d, vn.2s) or S4 (the "2" forms on the upper half).
  void fcvtn(VArr narrow, VReg vd, VReg vn);
  void fcvtl(VArr narrow, VReg vd, VReg vn);

  // ---- SIMD additions for the SSE lowering (emitter_simd_extra.cpp) -------
  void uabd(VArr arr, VReg vd, VReg vn, VReg vm);  // B, H, S lanes
  // Unsigned add of adjacent pairs, widening: `src` is the source arrangement.
  void uaddlp(VArr src, VReg vd, VReg vn);
  void fmaxv(VReg sd, VReg vn);              // fmaxv sd, vn.4s (NaN if any lane is)
  void fmaxp(FSize fs, VReg vd, VReg vn);    // scalar pairwise: fmaxp sd, vn.2s / dd, vn.2d
  // 32-bit lanes (S2/S4): imm8 << shift (shift 0, 8, 16, 24), and its inverse.
  void movi_s(VArr arr, VReg vd, uint8_t imm8, unsigned shift);
  void mvni_s(VArr arr, VReg vd, uint8_t imm8, unsigned shift);
  // FMOV of an 8-bit encoded FP immediate (0x70 is 1.0): vector and scalar.
  void fmov_imm(VArr arr, VReg vd, uint8_t imm8);
  void fmov_imm(FSize fs, VReg vd, uint8_t imm8);

  // ---- Crypto -------------------------------------------------------------
  void aese(VReg vd, VReg vn);
  void aesd(VReg vd, VReg vn);
  void aesmc(VReg vd, VReg vn);
  void aesimc(VReg vd, VReg vn);
  // Polynomial multiply; narrow is B8/B16 (-> 8h) or D1/D2 (-> 1q).
  void pmull(VArr narrow, VReg vd, VReg vn, VReg vm);
  void sha1c(VReg qd, VReg sn, VReg vm);
  void sha1p(VReg qd, VReg sn, VReg vm);
  void sha1m(VReg qd, VReg sn, VReg vm);
  void sha1h(VReg sd, VReg sn);
  void sha1su0(VReg vd, VReg vn, VReg vm);
  void sha1su1(VReg vd, VReg vn);
  void sha256h(VReg qd, VReg qn, VReg vm);
  void sha256h2(VReg qd, VReg qn, VReg vm);
  void sha256su0(VReg vd, VReg vn);
  void sha256su1(VReg vd, VReg vn, VReg vm);

 private:
  // Width of the PC-relative field of a label reference (in words).
  enum class FixupKind : uint8_t { Imm26, Imm19, Imm14 };
  struct Fixup {
    uint32_t pos;  // word holding the reference
    int32_t next;  // next pending reference to the same label, or -1
    FixupKind kind;
  };

  // Emits `word` whose PC-relative field will point at `label`.
  void emit_label_ref(uint32_t word, Label& label, FixupKind kind);
  // Ties a label to this Assembler's current use; throws if it is stale.
  void claim(Label& label) const;
  static uint32_t patch_field(uint32_t word, FixupKind kind, int64_t delta_words);
  void addsub_any_imm(uint32_t op, bool set_flags, Size s, Reg rd, Reg rn, int64_t imm,
                      std::optional<Reg> scratch);
  void load_store(uint32_t size_v_opc, unsigned log2_size, uint8_t rt, const Mem& m,
                  bool force_unscaled);

  uint32_t* begin_;
  size_t capacity_;
  size_t pos_ = 0;
  bool overflowed_ = false;
  size_t unresolved_ = 0;
  uint32_t epoch_ = 0;  // unique per reset(), see Label
  std::vector<Fixup> fixups_;  // pool of label references; reused after reset()
  static std::vector<Fixup>& fixup_pool();
};

}  // namespace phybin::arm64
