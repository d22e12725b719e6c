// MMX and the MMX forms of SSE/SSE2 (pshufw, pmovmskb, pextrw, cvtpi2ps...)
// and of SSSE3 (pshufb, palignr, phadd...).
//
// The eight 64-bit MM registers are the significands of the x87 physical
// registers R0-R7 (GuestState::st).  Every instruction with an MM register
// operand puts the FPU in MMX mode (TOP = 0, all eight tags in use), and
// writing MMn sets Rn's sign and exponent to all ones, as the CPU does, so
// fnsave/fxsave and the x87 see what they see on hardware.  emms empties
// the tags again (and sets TOP = 0 too).
//
// Values are worked on with the 128-bit vector operations: an MM value sits
// in the low half of a vector whose high half is zero, which gives the MMX
// result in the low half for every element-wise operation; unpacks and
// packs take their inputs from one 128-bit vector instead (see below).
// The frontend sends an instruction here when it has an MM register
// operand, or when only this table knows its mnemonic (cvtpi2ps xmm, m64).
#include <cstddef>

#include "x86/operands.h"
#include "x86/sse.h"

namespace phybin::x86 {

using ir::Opcode;
using ir::Type;
using ir::Value;
using ir::VecOp;

namespace {

constexpr uint32_t kOffFsw = offsetof(GuestState, fsw);
constexpr uint32_t kOffFtw = offsetof(GuestState, ftw);
constexpr uint32_t kOffTop = offsetof(GuestState, x87_top);
constexpr uint16_t kFswTop = 0x3800;

uint32_t mm_offset(unsigned n) { return static_cast<uint32_t>(offsetof(GuestState, st) + 16 * n); }

bool is_mm(const ZydisDecodedOperand& op) {
  return op.type == ZYDIS_OPERAND_TYPE_REGISTER && ZydisRegisterGetClass(op.reg.value) == ZYDIS_REGCLASS_MMX;
}

unsigned mm_index(const ZydisDecodedOperand& op) { return static_cast<unsigned>(op.reg.value - ZYDIS_REGISTER_MM0); }

bool any_mm(const Ctx& c) {
  for (unsigned i = 0; i < c.d.info.operand_count_visible; ++i)
    if (is_mm(c.op(static_cast<int>(i)))) return true;
  return false;
}

// TOP = 0 and the tag word `ftw` (0: all in use, 0xffff: all empty).
void reset_fpu_stack(Ctx& c, uint16_t ftw) {
  c.b.store_state(kOffFtw, c.b.constant(Type::I16, ftw));
  c.b.store_state(kOffTop, c.b.constant(Type::I32, 0));
  Value fsw = c.b.load_state(Type::I16, kOffFsw);
  c.b.store_state(kOffFsw, c.b.binary(Opcode::And, Type::I16, fsw, c.b.constant(Type::I16, ~kFswTop & 0xffff)));
}

// TOP = 0 and every register in use.  Emitted by each MMX instruction: the
// state passes are left to drop the repeated stores within a block.
void enter_mmx_mode(Ctx& c) {
  if (any_mm(c)) reset_fpu_stack(c, 0);
}

Value read_mm_reg(Ctx& c, unsigned n) {
  return c.b.vec(VecOp::FromGpr, Type::V128, 3, c.b.load_state(Type::I64, mm_offset(n)));
}

// Operand `index` as a vector with the value in its low 64 bits: an MM
// register, an XMM register (whole) or a memory operand of its size.
Value read_mm(Ctx& c, int index) {
  const ZydisDecodedOperand& op = c.op(index);
  if (is_mm(op)) return read_mm_reg(c, mm_index(op));
  return sse::read_vec(c, index);
}

void write_mm_reg(Ctx& c, unsigned n, Value low64) {
  c.b.store_state(mm_offset(n), low64);
  c.b.store_state(mm_offset(n) + 8, c.b.constant(Type::I16, 0xffff));
}

// Writes the low 64 bits of `v` to operand `index` (MM register or m64).
void write_mm(Ctx& c, int index, Value v) {
  const ZydisDecodedOperand& op = c.op(index);
  if (is_mm(op)) {
    write_mm_reg(c, mm_index(op), c.b.vec(VecOp::Extract, Type::I64, 3, v));
    return;
  }
  c.b.vstore(effective_address(c, index), v, 8);
}

// The result of `make(dst, src)` goes to operand 0, an MM register.
template <typename Make>
bool mm_binary(Ctx& c, Make make) {
  if (!is_mm(c.op(0))) return false;
  Value a = read_mm(c, 0);
  Value b = read_mm(c, 1);
  enter_mmx_mode(c);
  write_mm(c, 0, make(a, b));
  return true;
}

template <VecOp kOp, unsigned kLane>
bool bin(Ctx& c) {
  return mm_binary(c, [&](Value a, Value b) { return c.b.vec(kOp, Type::V128, kLane, a, b); });
}

// pandn: ~dst & src.
bool andnot(Ctx& c) {
  return mm_binary(c, [&](Value a, Value b) { return c.b.vec(VecOp::AndNot, Type::V128, 0, b, a); });
}

// punpckh*: the 128-bit interleave of the low halves holds the MMX high
// interleave in its upper 8 bytes.
template <unsigned kLane>
bool unpack_high(Ctx& c) {
  return mm_binary(c, [&](Value a, Value b) {
    Value lo = c.b.vec(VecOp::ZipLo, Type::V128, kLane, a, b);
    return c.b.vec(VecOp::ByteShr, Type::V128, 0, lo, ir::kNoValue, 8);
  });
}

// packss/packus: dst and src side by side in one vector, packed with itself.
template <VecOp kOp, unsigned kLane>
bool pack(Ctx& c) {
  return mm_binary(c, [&](Value a, Value b) {
    Value both = c.b.vec(VecOp::ZipLo, Type::V128, 3, a, b);
    return c.b.vec(kOp, Type::V128, kLane, both, both);
  });
}

template <VecOp kImmOp, VecOp kVecOp, unsigned kLane>
bool shift(Ctx& c) {
  if (!is_mm(c.op(0))) return false;
  if (c.op(1).type != ZYDIS_OPERAND_TYPE_IMMEDIATE) return bin<kVecOp, kLane>(c);
  Value a = read_mm(c, 0);
  enter_mmx_mode(c);
  write_mm(c, 0, c.b.vec(kImmOp, Type::V128, kLane, a, ir::kNoValue, c.op(1).imm.value.u & 0xff));
  return true;
}

// The horizontal SSSE3 operations: dst and src side by side in one vector,
// whose low half then holds the MMX result.
Value side_by_side(Ctx& c, Value a, Value b) { return c.b.vec(VecOp::ZipLo, Type::V128, 3, a, b); }

// phaddw/phaddd.
template <unsigned kLane>
bool add_pairs(Ctx& c) {
  return mm_binary(c, [&](Value a, Value b) {
    Value both = side_by_side(c, a, b);
    return c.b.vec(VecOp::AddPairs, Type::V128, kLane, both, both);
  });
}

// phaddsw/phsub*: even elements combined with the odd ones.
template <VecOp kOp, unsigned kLane>
bool horizontal(Ctx& c) {
  return mm_binary(c, [&](Value a, Value b) {
    Value both = side_by_side(c, a, b);
    Value even = c.b.vec(VecOp::UnzipEven, Type::V128, kLane, both, both);
    Value odd = c.b.vec(VecOp::UnzipOdd, Type::V128, kLane, both, both);
    return c.b.vec(kOp, Type::V128, kLane, even, odd);
  });
}

// pshufb mm: an index selects among 8 bytes (its low 3 bits; bit 7 zeroes).
bool pshufb(Ctx& c) {
  return mm_binary(c, [&](Value a, Value b) {
    Value mask = c.b.vec(VecOp::FromGpr, Type::V128, 3, c.b.constant(Type::I64, 0x8787878787878787ull));
    return c.b.vec(VecOp::ByteTable, Type::V128, 0, a, c.b.vec(VecOp::And, Type::V128, 0, b, mask));
  });
}

// palignr mm: bytes imm.. of src (low) : dst (high).
bool palignr(Ctx& c) {
  const uint64_t imm = c.op(2).imm.value.u & 0xff;
  return mm_binary(c, [&](Value a, Value b) {
    return c.b.vec(VecOp::ByteShr, Type::V128, 0, side_by_side(c, b, a), ir::kNoValue, imm);
  });
}

template <unsigned kLane>
bool abs(Ctx& c) {
  if (!is_mm(c.op(0))) return false;
  Value src = read_mm(c, 1);
  enter_mmx_mode(c);
  write_mm(c, 0, c.b.vec(VecOp::Abs, Type::V128, kLane, src));
  return true;
}

// pshufw mm, mm/m64, imm8.
bool pshufw(Ctx& c) {
  if (!is_mm(c.op(0))) return false;
  Value src = read_mm(c, 1);
  enter_mmx_mode(c);
  write_mm(c, 0, c.b.vec(VecOp::ShuffleLo16, Type::V128, 1, src, ir::kNoValue, c.op(2).imm.value.u & 0xff));
  return true;
}

// movd/movq between MM registers, general registers and memory.
bool mov_dq(Ctx& c) {
  const ZydisDecodedOperand& dst = c.op(0);
  const ZydisDecodedOperand& src = c.op(1);
  if (is_mm(dst)) {
    Value v;
    if (src.type == ZYDIS_OPERAND_TYPE_REGISTER && !is_mm(src))
      v = c.b.vec(VecOp::FromGpr, Type::V128, src.size == 64 ? 3 : 2, read_gpr(c, src.reg.value));
    else
      v = read_mm(c, 1);
    enter_mmx_mode(c);
    write_mm(c, 0, v);
    return true;
  }
  Value v = read_mm(c, 1);
  enter_mmx_mode(c);
  if (dst.type == ZYDIS_OPERAND_TYPE_REGISTER)
    write_gpr(c, dst.reg.value, c.b.vec(VecOp::Extract, dst.size == 64 ? Type::I64 : Type::I32, dst.size == 64 ? 3 : 2, v));
  else
    c.b.vstore(effective_address(c, 0), v, dst.size / 8);
  return true;
}

// movq2dq xmm, mm / movdq2q mm, xmm.
bool mov_between(Ctx& c) {
  Value v = c.b.vec(VecOp::LowOnly, Type::V128, 3, read_mm(c, 1));
  enter_mmx_mode(c);
  if (is_mm(c.op(0))) write_mm(c, 0, v);
  else sse::write_vec(c, 0, v);
  return true;
}

bool pmovmskb(Ctx& c) {
  Value v = read_mm(c, 1);
  enter_mmx_mode(c);
  Value mask = c.b.vec(VecOp::MovMask, Type::I32, 0, v);
  write_gpr(c, c.op(0).reg.value, c.b.zext(operand_type(c.op(0)), mask));
  return true;
}

bool pextrw(Ctx& c) {
  Value v = read_mm(c, 1);
  enter_mmx_mode(c);
  Value word = c.b.vec(VecOp::Extract, Type::I16, 1, v, ir::kNoValue, c.op(2).imm.value.u & 3);
  write_gpr(c, c.op(0).reg.value, c.b.zext(operand_type(c.op(0)), word));
  return true;
}

bool pinsrw(Ctx& c) {
  if (!is_mm(c.op(0))) return false;
  Value a = read_mm(c, 0);
  Value w = c.b.trunc(Type::I16, read_operand(c, 1));
  enter_mmx_mode(c);
  write_mm(c, 0, c.b.vec(VecOp::InsertGpr, Type::V128, 1, a, w, c.op(2).imm.value.u & 3));
  return true;
}

// cvtpi2ps xmm, mm/m64: two floats into the low half, the high half kept.
bool cvtpi2ps(Ctx& c) {
  Value dst = sse::read_vec(c, 0);
  Value f = c.b.vec(VecOp::CvtI32ToF32, Type::V128, 2, read_mm(c, 1));
  enter_mmx_mode(c);
  sse::write_vec(c, 0, c.b.vec(VecOp::InsertLane, Type::V128, 3, dst, f, 0));
  return true;
}

bool cvtpi2pd(Ctx& c) {
  Value d = c.b.vec(VecOp::CvtI32ToF64, Type::V128, 3, read_mm(c, 1));
  enter_mmx_mode(c);
  sse::write_vec(c, 0, d);
  return true;
}

// cvt(t)ps2pi mm, xmm/m64 and cvt(t)pd2pi mm, xmm/m128.
// The float forms see only the low two floats: the others are cleared first
// so that they cannot raise MXCSR exception flags.
template <VecOp kOp, bool kTruncate>
bool cvt_to_pi(Ctx& c) {
  const bool m128 = c.op(1).type == ZYDIS_OPERAND_TYPE_MEMORY && c.op(1).size == 128;
  Value src = sse::read_vec(c, 1, m128);
  if (kOp == VecOp::CvtF32ToI32) src = c.b.vec(VecOp::LowOnly, Type::V128, 3, src);
  Value ints = c.b.vec(kOp, Type::V128, 2, src, ir::kNoValue, kTruncate ? 1 : 0);
  enter_mmx_mode(c);
  write_mm(c, 0, ints);
  return true;
}

// maskmovq mm, mm: the bytes of the first whose mask byte (second) has its
// top bit set go to [RDI].  Rare: a helper, on the registers in memory.
uint64_t helper_maskmovq(GuestState* s, uint64_t regs, uint64_t) {
  const uint8_t* data = s->st[regs & 7];
  const uint8_t* mask = s->st[(regs >> 8) & 7];
  auto* dst = reinterpret_cast<uint8_t*>(((regs >> 16) & 1) ? s->gpr[RDI] & 0xffffffffu : s->gpr[RDI]);
  for (unsigned i = 0; i < 8; ++i)
    if (mask[i] & 0x80) dst[i] = data[i];
  return 0;
}

bool maskmovq(Ctx& c) {
  enter_mmx_mode(c);
  // Bit 16: the address-size prefix, [EDI] instead of [RDI].
  const uint64_t regs = mm_index(c.op(0)) | (uint64_t{mm_index(c.op(1))} << 8) |
                        (uint64_t{c.d.info.address_width == 32} << 16);
  c.b.call(Type::Void, reinterpret_cast<const void*>(&helper_maskmovq), c.b.constant(Type::I64, regs));
  return true;
}

// emms: every x87 register empty again, and TOP = 0 as well (measured:
// also after x87 pushes with no MMX instruction before the emms).
bool emms(Ctx& c) {
  reset_fpu_stack(c, 0xffff);
  return true;
}

void register_arithmetic(HandlerTable& t) {
#define OP(mnemonic, op, lane) t.add(ZYDIS_MNEMONIC_##mnemonic, bin<VecOp::op, lane>);
#include "x86/vector_int_ops.inc"
#undef OP
  t.add(ZYDIS_MNEMONIC_PANDN, andnot);
}

void register_shifts_and_permutations(HandlerTable& t) {
#define SHIFT(mnemonic, imm_op, vec_op, lane) \
  t.add(ZYDIS_MNEMONIC_##mnemonic, shift<VecOp::imm_op, VecOp::vec_op, lane>);
#include "x86/vector_shift_ops.inc"
#undef SHIFT
  t.add(ZYDIS_MNEMONIC_PUNPCKHBW, unpack_high<0>);
  t.add(ZYDIS_MNEMONIC_PUNPCKHWD, unpack_high<1>);
  t.add(ZYDIS_MNEMONIC_PUNPCKHDQ, unpack_high<2>);
  t.add(ZYDIS_MNEMONIC_PACKSSWB, pack<VecOp::PackSS, 1>);
  t.add(ZYDIS_MNEMONIC_PACKSSDW, pack<VecOp::PackSS, 2>);
  t.add(ZYDIS_MNEMONIC_PACKUSWB, pack<VecOp::PackUS, 1>);
  t.add(ZYDIS_MNEMONIC_PSHUFW, pshufw);
}

void register_ssse3(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_PSHUFB, pshufb);
  t.add(ZYDIS_MNEMONIC_PALIGNR, palignr);
  t.add(ZYDIS_MNEMONIC_PABSB, abs<0>);
  t.add(ZYDIS_MNEMONIC_PABSW, abs<1>);
  t.add(ZYDIS_MNEMONIC_PABSD, abs<2>);
  t.add(ZYDIS_MNEMONIC_PHADDW, add_pairs<1>);
  t.add(ZYDIS_MNEMONIC_PHADDD, add_pairs<2>);
  t.add(ZYDIS_MNEMONIC_PHADDSW, horizontal<VecOp::AddSatS, 1>);
  t.add(ZYDIS_MNEMONIC_PHSUBW, horizontal<VecOp::Sub, 1>);
  t.add(ZYDIS_MNEMONIC_PHSUBD, horizontal<VecOp::Sub, 2>);
  t.add(ZYDIS_MNEMONIC_PHSUBSW, horizontal<VecOp::SubSatS, 1>);
}

void register_moves_and_conversions(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_MOVD, mov_dq);
  t.add(ZYDIS_MNEMONIC_MOVQ, mov_dq);
  t.add(ZYDIS_MNEMONIC_MOVNTQ, mov_dq);
  t.add(ZYDIS_MNEMONIC_MOVQ2DQ, mov_between);
  t.add(ZYDIS_MNEMONIC_MOVDQ2Q, mov_between);
  t.add(ZYDIS_MNEMONIC_MASKMOVQ, maskmovq);
  t.add(ZYDIS_MNEMONIC_PMOVMSKB, pmovmskb);
  t.add(ZYDIS_MNEMONIC_PEXTRW, pextrw);
  t.add(ZYDIS_MNEMONIC_PINSRW, pinsrw);
  t.add(ZYDIS_MNEMONIC_CVTPI2PS, cvtpi2ps);
  t.add(ZYDIS_MNEMONIC_CVTPI2PD, cvtpi2pd);
  t.add(ZYDIS_MNEMONIC_CVTPS2PI, cvt_to_pi<VecOp::CvtF32ToI32, false>);
  t.add(ZYDIS_MNEMONIC_CVTTPS2PI, cvt_to_pi<VecOp::CvtF32ToI32, true>);
  t.add(ZYDIS_MNEMONIC_CVTPD2PI, cvt_to_pi<VecOp::CvtF64ToI32, false>);
  t.add(ZYDIS_MNEMONIC_CVTTPD2PI, cvt_to_pi<VecOp::CvtF64ToI32, true>);
}

}  // namespace

void register_mmx(HandlerTable& mmx, HandlerTable& main) {
  register_arithmetic(mmx);
  register_shifts_and_permutations(mmx);
  register_moves_and_conversions(mmx);
  register_ssse3(mmx);
  main.add(ZYDIS_MNEMONIC_EMMS, emms);
}

}  // namespace phybin::x86
