// Operand types of the AArch64 emitter (emitter.h): registers, operand
// sizes, conditions, shifts, extends, memory operands and labels.
#pragma once

#include <cstdint>

namespace phybin::arm64 {

// A general register number 0..31.  Registers carry no size: every
// instruction takes its operand size (Size::W or Size::X) as an argument, so
// w5 and x5 are the same value.  Code 31 is the zero register or SP depending
// on the instruction, exactly as in the architecture; emitter.h says which
// operands are SP-capable.
struct Reg {
  uint8_t code;
  friend constexpr bool operator==(Reg, Reg) = default;
};

// A SIMD&FP register number 0..31 (v, q, d, s, h or b by instruction).
struct VReg {
  uint8_t code;
  friend constexpr bool operator==(VReg, VReg) = default;
};

constexpr Reg X(unsigned n) { return Reg{static_cast<uint8_t>(n)}; }
constexpr Reg W(unsigned n) { return Reg{static_cast<uint8_t>(n)}; }
constexpr VReg V(unsigned n) { return VReg{static_cast<uint8_t>(n)}; }

inline constexpr Reg x0{0}, x1{1}, x2{2}, x3{3}, x4{4}, x5{5}, x6{6}, x7{7}, x8{8}, x9{9},
    x10{10}, x11{11}, x12{12}, x13{13}, x14{14}, x15{15}, x16{16}, x17{17}, x18{18}, x19{19},
    x20{20}, x21{21}, x22{22}, x23{23}, x24{24}, x25{25}, x26{26}, x27{27}, x28{28}, x29{29},
    x30{30};
inline constexpr Reg w0{0}, w1{1}, w2{2}, w3{3}, w4{4}, w5{5}, w6{6}, w7{7}, w8{8}, w9{9},
    w10{10}, w11{11}, w12{12}, w13{13}, w14{14}, w15{15}, w16{16}, w17{17}, w18{18}, w19{19},
    w20{20}, w21{21}, w22{22}, w23{23}, w24{24}, w25{25}, w26{26}, w27{27}, w28{28}, w29{29},
    w30{30};
inline constexpr Reg xzr{31}, wzr{31}, sp{31}, lr{30};

inline constexpr VReg v0{0}, v1{1}, v2{2}, v3{3}, v4{4}, v5{5}, v6{6}, v7{7}, v8{8}, v9{9},
    v10{10}, v11{11}, v12{12}, v13{13}, v14{14}, v15{15}, v16{16}, v17{17}, v18{18}, v19{19},
    v20{20}, v21{21}, v22{22}, v23{23}, v24{24}, v25{25}, v26{26}, v27{27}, v28{28}, v29{29},
    v30{30}, v31{31};

// Operand size of a general-register instruction.
enum class Size : uint8_t { W = 0, X = 1 };

// Width of an integer memory access (byte, half, word, doubleword).
enum class MemSize : uint8_t { B = 0, H = 1, W = 2, X = 3 };

// Width of a SIMD&FP scalar register (b, h, s, d, q), also used as the lane
// size of element operands such as v1.s[2].
enum class FSize : uint8_t { B = 0, H = 1, S = 2, D = 3, Q = 4 };

// Vector arrangement: lane letter then lane count, B16 is ".16b".  The
// 64-bit forms (B8, H4, S2, D1) use the low half of the register.
enum class VArr : uint8_t { B8, B16, H4, H8, S2, S4, D1, D2 };

// Lane size (log2 bytes) and whether the arrangement fills 128 bits.
constexpr unsigned varr_lane_log2(VArr a) { return static_cast<unsigned>(a) >> 1; }
constexpr bool varr_is_q(VArr a) { return (static_cast<unsigned>(a) & 1) != 0; }
constexpr VArr make_varr(unsigned lane_log2, bool q) {
  return static_cast<VArr>(lane_log2 * 2 + (q ? 1 : 0));
}

enum class Cond : uint8_t { EQ, NE, HS, LO, MI, PL, VS, VC, HI, LS, GE, LT, GT, LE, AL, NV };
// The opposite condition (EQ <-> NE, ...); not meaningful for AL/NV.
constexpr Cond invert(Cond c) { return static_cast<Cond>(static_cast<uint8_t>(c) ^ 1); }

enum class Shift : uint8_t { LSL = 0, LSR = 1, ASR = 2, ROR = 3 };

// UXTX in an address is printed "lsl" by disassemblers.
enum class Extend : uint8_t { UXTB, UXTH, UXTW, UXTX, SXTB, SXTH, SXTW, SXTX };

// Barrier domains/types of DMB and DSB (the CRm field).
enum class Barrier : uint8_t {
  OSHLD = 1, OSHST = 2, OSH = 3, NSHLD = 5, NSHST = 6, NSH = 7,
  ISHLD = 9, ISHST = 10, ISH = 11, LD = 13, ST = 14, SY = 15,
};

// System registers for MRS/MSR, as op0:op1:CRn:CRm:op2 (16 bits, op0 in the
// top two).
enum class SysReg : uint16_t {
  NZCV = (3 << 14) | (3 << 11) | (4 << 7) | (2 << 3) | 0,
  FPCR = (3 << 14) | (3 << 11) | (4 << 7) | (4 << 3) | 0,
  FPSR = (3 << 14) | (3 << 11) | (4 << 7) | (4 << 3) | 1,
  TPIDR_EL0 = (3 << 14) | (3 << 11) | (13 << 7) | (0 << 3) | 2,
  CNTVCT_EL0 = (3 << 14) | (3 << 11) | (14 << 7) | (0 << 3) | 2,
  CNTFRQ_EL0 = (3 << 14) | (3 << 11) | (14 << 7) | (0 << 3) | 0,
  DCZID_EL0 = (3 << 14) | (3 << 11) | (0 << 7) | (0 << 3) | 7,
  MIDR_EL1 = (3 << 14) | (0 << 11) | (0 << 7) | (0 << 3) | 0,
};

// A memory operand.  Build it with mem(), mem_pre(), mem_post() or the
// register-offset mem(base, index, ...); base may be SP.
struct Mem {
  enum class Mode : uint8_t { Offset, PreIndex, PostIndex, RegOffset };
  Reg base;
  Mode mode = Mode::Offset;
  int64_t offset = 0;
  Reg index{31};
  Extend extend = Extend::UXTX;
  bool scaled = false;  // register offset shifted left by log2(access size)
};

// [base, #offset]
constexpr Mem mem(Reg base, int64_t offset = 0) { return Mem{base, Mem::Mode::Offset, offset}; }
// [base, #offset]!  (base is updated before the access)
constexpr Mem mem_pre(Reg base, int64_t offset) {
  return Mem{base, Mem::Mode::PreIndex, offset};
}
// [base], #offset  (base is updated after the access)
constexpr Mem mem_post(Reg base, int64_t offset) {
  return Mem{base, Mem::Mode::PostIndex, offset};
}
// [base, index{, extend {#log2 size}}].  extend is UXTX (lsl) or SXTX for a
// 64-bit index, UXTW or SXTW for a 32-bit one; `scaled` multiplies the index
// by the access size.
constexpr Mem mem(Reg base, Reg index, Extend extend = Extend::UXTX, bool scaled = false) {
  return Mem{base, Mem::Mode::RegOffset, 0, index, extend, scaled};
}

// A position in the code being assembled.  Branches may refer to a label
// before it is bound; the Assembler patches them when bind() is called.
// A label belongs to one Assembler between two reset()s; using it with
// another one, or after a reset, throws.  Labels are not copyable; every
// reference must be bound before the code runs (unresolved_fixups()).
class Label {
 public:
  Label() = default;
  Label(const Label&) = delete;
  Label& operator=(const Label&) = delete;

  bool bound() const { return pos_ >= 0; }
  // Word offset from the start of the buffer; valid once bound.
  uint32_t position_words() const { return static_cast<uint32_t>(pos_); }

 private:
  friend class Assembler;
  int32_t pos_ = -1;          // bound position (words), or -1
  int32_t first_fixup_ = -1;  // head of this label's pending-reference list
  uint32_t epoch_ = 0;        // the Assembler use it belongs to (0: none yet)
};

}  // namespace phybin::arm64
