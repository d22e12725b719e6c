// SSE/SSE2: XMM operand access shared by the SSE family files, the data
// movement instructions (movd/movq, movaps/movdqu..., movss/movsd, movhps...,
// movmsk*, pinsrw/pextrw, maskmovdqu) and the state instructions (ldmxcsr,
// stmxcsr, fxsave, fxrstor, emms, clflush).  Arithmetic lives in
// family_sse_int.cpp and family_sse_fp.cpp.
#include "x86/operands.h"
#include "x86/sse.h"

namespace phybin::x86 {

using ir::Opcode;
using ir::Type;
using ir::Value;
using ir::VecOp;

namespace sse {

bool is_xmm(const ZydisDecodedOperand& op) {
  return op.type == ZYDIS_OPERAND_TYPE_REGISTER && ZydisRegisterGetClass(op.reg.value) == ZYDIS_REGCLASS_XMM;
}

uint8_t xmm_index(const ZydisDecodedOperand& op) { return static_cast<uint8_t>(op.reg.value - ZYDIS_REGISTER_XMM0); }

bool no_mmx(const Ctx& c) {
  for (unsigned i = 0; i < c.d.info.operand_count_visible; ++i)
    if (c.op(static_cast<int>(i)).type == ZYDIS_OPERAND_TYPE_REGISTER &&
        ZydisRegisterGetClass(c.op(static_cast<int>(i)).reg.value) == ZYDIS_REGCLASS_MMX)
      return false;
  return true;
}

void check_align(Ctx& c, Value addr) {
  c.b.emit(Opcode::VCheckAlign, Type::Void, addr, ir::kNoValue, ir::kNoValue, c.rip);
}

Value read_vec(Ctx& c, int index, bool aligned) {
  const ZydisDecodedOperand& op = c.op(index);
  if (op.type == ZYDIS_OPERAND_TYPE_REGISTER)
    return c.b.get_xmm(xmm_index(op));
  Value addr = effective_address(c, index);
  if (aligned) check_align(c, addr);
  return c.b.vload(addr, op.size / 8);
}

void write_vec(Ctx& c, int index, Value v, bool aligned) {
  const ZydisDecodedOperand& op = c.op(index);
  if (op.type == ZYDIS_OPERAND_TYPE_REGISTER) {
    c.b.set_xmm(xmm_index(op), v);
    return;
  }
  Value addr = effective_address(c, index);
  if (aligned) check_align(c, addr);
  c.b.vstore(addr, v, op.size / 8);
}

namespace {
bool same_registers(const Ctx& c) {
  return c.op(1).type == ZYDIS_OPERAND_TYPE_REGISTER && c.op(0).reg.value == c.op(1).reg.value;
}
}  // namespace

bool binary(Ctx& c, VecOp op, unsigned lane, uint64_t imm) {
  if (!is_xmm(c.op(0)) || !no_mmx(c)) return false;
  // xor/sub/andnot of a register with itself: zero, whatever it held.
  if ((op == VecOp::Xor || op == VecOp::Sub || op == VecOp::AndNot) && same_registers(c)) {
    write_vec(c, 0, c.b.emit(Opcode::VZero, Type::V128));
    return true;
  }
  Value a = read_vec(c, 0);
  Value b = read_vec(c, 1);
  write_vec(c, 0, c.b.vec(op, Type::V128, lane, a, b, imm));
  return true;
}

bool unary(Ctx& c, VecOp op, unsigned lane, uint64_t imm) {
  if (!is_xmm(c.op(0)) || !no_mmx(c)) return false;
  write_vec(c, 0, c.b.vec(op, Type::V128, lane, read_vec(c, 1), ir::kNoValue, imm));
  return true;
}

Value read_xmm0(Ctx& c) {
  return c.b.get_xmm(0);
}

bool call_vector_helper(Ctx& c, VectorHelperOp op, uint64_t imm) {
  if (!is_xmm(c.op(0)) || !no_mmx(c)) return false;
  uint64_t desc = static_cast<uint64_t>(op) | uint64_t{xmm_index(c.op(0))} << 8 | imm << 32;
  Value addr = c.b.constant(Type::I64, 0);
  if (is_xmm(c.op(1))) desc |= uint64_t{xmm_index(c.op(1))} << 16;
  else {
    desc |= uint64_t{1} << 24;
    addr = effective_address(c, 1);
  }
  c.b.call(Type::Void, reinterpret_cast<const void*>(&helper_vector), c.b.constant(Type::I64, desc), addr);
  return true;
}

}  // namespace sse

namespace {

using sse::is_xmm;
using sse::read_vec;
using sse::write_vec;

// movd/movq in all their SSE forms: xmm <- r32/r64/m32/m64/xmm (zeroing the
// rest of the register), r/m <- xmm.
bool mov_dq(Ctx& c) {
  if (!sse::no_mmx(c)) return false;
  const ZydisDecodedOperand& dst = c.op(0);
  const ZydisDecodedOperand& src = c.op(1);
  unsigned lane = (is_xmm(dst) ? src.size : dst.size) == 64 ? 3 : 2;
  if (is_xmm(dst)) {
    Value v;
    if (is_xmm(src)) v = c.b.vec(VecOp::LowOnly, Type::V128, 3, read_vec(c, 1));
    else if (src.type == ZYDIS_OPERAND_TYPE_REGISTER) v = c.b.vec(VecOp::FromGpr, Type::V128, lane, read_gpr(c, src.reg.value));
    else v = read_vec(c, 1);
    write_vec(c, 0, v);
    return true;
  }
  Value x = read_vec(c, 1);
  if (dst.type == ZYDIS_OPERAND_TYPE_REGISTER)
    write_gpr(c, dst.reg.value, c.b.vec(VecOp::Extract, lane == 3 ? Type::I64 : Type::I32, lane, x));
  else
    write_vec(c, 0, x);
  return true;
}

// 128-bit moves; the aligned ones fault on a misaligned memory operand.
template <bool kAligned>
bool mov_full(Ctx& c) {
  if (!sse::no_mmx(c)) return false;
  write_vec(c, 0, read_vec(c, 1, kAligned), kAligned);
  return true;
}

// movss/movsd: a register source replaces the low element only; a memory
// source zeroes the rest; a memory destination gets the low element.
template <unsigned kLane>
bool mov_scalar(Ctx& c) {
  // movs dword: no visible operands (their slots are not even decoded)
  if (c.d.info.meta.category == ZYDIS_CATEGORY_STRINGOP) return string_movsd(c);
  if (is_xmm(c.op(0)) && is_xmm(c.op(1))) {
    write_vec(c, 0, c.b.vec(VecOp::InsertLane, Type::V128, kLane, read_vec(c, 0), read_vec(c, 1), 0));
    return true;
  }
  write_vec(c, 0, read_vec(c, 1));
  return true;
}

// movhps/movhpd (kHigh) and movlps/movlpd: one quadword between memory and
// the high or low half of a register, the other half unchanged.
template <unsigned kHalf>
bool mov_half(Ctx& c) {
  if (is_xmm(c.op(0))) {
    Value loaded = read_vec(c, 1);
    write_vec(c, 0, c.b.vec(VecOp::InsertLane, Type::V128, 3, read_vec(c, 0), loaded, kHalf));
    return true;
  }
  Value x = read_vec(c, 1);
  if (kHalf == 0) write_vec(c, 0, x);
  else c.b.store(effective_address(c, 0), c.b.vec(VecOp::Extract, Type::I64, 3, x, ir::kNoValue, 1));
  return true;
}

// movhlps: low half <- source's high half; movlhps: high half <- source's low.
template <unsigned kTo, unsigned kFrom>
bool mov_halves(Ctx& c) {
  write_vec(c, 0, c.b.vec(VecOp::InsertLane, Type::V128, 3, read_vec(c, 0), read_vec(c, 1), kTo | (kFrom << 8)));
  return true;
}

template <unsigned kLane>
bool movmsk(Ctx& c) {
  if (!sse::no_mmx(c)) return false;
  Value mask = c.b.vec(VecOp::MovMask, Type::I32, kLane, read_vec(c, 1));
  write_gpr(c, c.op(0).reg.value, c.b.zext(operand_type(c.op(0)), mask));
  return true;
}

bool pinsrw(Ctx& c) {
  if (!sse::no_mmx(c)) return false;
  const ZydisDecodedOperand& src = c.op(1);
  Value word = src.type == ZYDIS_OPERAND_TYPE_REGISTER ? c.b.trunc(Type::I16, read_gpr(c, src.reg.value))
                                                      : c.b.load(Type::I16, effective_address(c, 1));
  uint64_t index = c.op(2).imm.value.u & 7;
  write_vec(c, 0, c.b.vec(VecOp::InsertGpr, Type::V128, 1, read_vec(c, 0), word, index));
  return true;
}

bool pextrw(Ctx& c) {
  if (!sse::no_mmx(c)) return false;
  uint64_t index = c.op(2).imm.value.u & 7;
  Value word = c.b.vec(VecOp::Extract, Type::I16, 1, read_vec(c, 1), ir::kNoValue, index);
  if (c.op(0).type == ZYDIS_OPERAND_TYPE_MEMORY) c.b.store(effective_address(c, 0), word);
  else write_gpr(c, c.op(0).reg.value, c.b.zext(operand_type(c.op(0)), word));
  return true;
}

bool maskmovdqu(Ctx& c) {
  // Bit 16: the address-size prefix, [EDI] instead of [RDI].
  uint64_t regs = sse::xmm_index(c.op(0)) | (uint64_t{sse::xmm_index(c.op(1))} << 8) |
                  (uint64_t{c.d.info.address_width == 32} << 16);
  c.b.call(Type::Void, reinterpret_cast<const void*>(&sse::helper_maskmovdqu), c.b.constant(Type::I64, regs));
  return true;
}

bool movnti(Ctx& c) {
  write_operand(c, 0, read_operand(c, 1));
  return true;
}

// After a new MXCSR the code that follows may need translating anew (with
// or without SSE exception checks): the block ends with an exit through
// the indirect-branch table, which the runtime empties when that happens.
void end_block_after_mxcsr_change(Ctx& c) {
  c.exit() = ir::Exit{ir::ExitKind::Indirect, ir::kNoValue, c.b.guest_address(c.next), 0, 0};
  c.ends_block = true;
}

bool ldmxcsr(Ctx& c) {
  Value v = c.b.zext(Type::I64, c.b.load(Type::I32, effective_address(c, 0)));
  c.b.call(Type::Void, reinterpret_cast<const void*>(&sse::helper_ldmxcsr), v);
  end_block_after_mxcsr_change(c);
  return true;
}

bool stmxcsr(Ctx& c) {
  Value addr = effective_address(c, 0);
  Value v = c.b.call(Type::I64, reinterpret_cast<const void*>(&sse::helper_stmxcsr));
  c.b.store(addr, c.b.trunc(Type::I32, v));
  return true;
}

template <bool kSave>
bool fxsave(Ctx& c) {
  Value addr = effective_address(c, 0);
  c.b.call(Type::Void, reinterpret_cast<const void*>(kSave ? &sse::helper_fxsave : &sse::helper_fxrstor), addr);
  if (!kSave) end_block_after_mxcsr_change(c);
  return true;
}

bool nop(Ctx&) { return true; }

}  // namespace

namespace sse {

void register_moves(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_MOVD, mov_dq);
  t.add(ZYDIS_MNEMONIC_MOVQ, mov_dq);
  for (auto m : {ZYDIS_MNEMONIC_MOVDQA, ZYDIS_MNEMONIC_MOVAPS, ZYDIS_MNEMONIC_MOVAPD, ZYDIS_MNEMONIC_MOVNTDQ,
                 ZYDIS_MNEMONIC_MOVNTPS, ZYDIS_MNEMONIC_MOVNTPD})
    t.add(m, mov_full<true>);
  for (auto m : {ZYDIS_MNEMONIC_MOVDQU, ZYDIS_MNEMONIC_MOVUPS, ZYDIS_MNEMONIC_MOVUPD, ZYDIS_MNEMONIC_LDDQU})
    t.add(m, mov_full<false>);
  t.add(ZYDIS_MNEMONIC_MOVSS, mov_scalar<2>);
  t.add(ZYDIS_MNEMONIC_MOVSD, mov_scalar<3>);
  t.add(ZYDIS_MNEMONIC_MOVHPS, mov_half<1>);
  t.add(ZYDIS_MNEMONIC_MOVHPD, mov_half<1>);
  t.add(ZYDIS_MNEMONIC_MOVLPS, mov_half<0>);
  t.add(ZYDIS_MNEMONIC_MOVLPD, mov_half<0>);
  t.add(ZYDIS_MNEMONIC_MOVHLPS, mov_halves<0, 1>);
  t.add(ZYDIS_MNEMONIC_MOVLHPS, mov_halves<1, 0>);
  t.add(ZYDIS_MNEMONIC_PMOVMSKB, movmsk<0>);
  t.add(ZYDIS_MNEMONIC_MOVMSKPS, movmsk<2>);
  t.add(ZYDIS_MNEMONIC_MOVMSKPD, movmsk<3>);
  t.add(ZYDIS_MNEMONIC_PINSRW, pinsrw);
  t.add(ZYDIS_MNEMONIC_PEXTRW, pextrw);
  t.add(ZYDIS_MNEMONIC_MASKMOVDQU, maskmovdqu);
  t.add(ZYDIS_MNEMONIC_MOVNTI, movnti);
  t.add(ZYDIS_MNEMONIC_LDMXCSR, ldmxcsr);
  t.add(ZYDIS_MNEMONIC_STMXCSR, stmxcsr);
  t.add(ZYDIS_MNEMONIC_FXSAVE, fxsave<true>);
  t.add(ZYDIS_MNEMONIC_FXSAVE64, fxsave<true>);
  t.add(ZYDIS_MNEMONIC_FXRSTOR, fxsave<false>);
  t.add(ZYDIS_MNEMONIC_FXRSTOR64, fxsave<false>);
  t.add(ZYDIS_MNEMONIC_CLFLUSH, nop);
  t.add(ZYDIS_MNEMONIC_CLFLUSHOPT, nop);
  t.add(ZYDIS_MNEMONIC_CLWB, nop);
}

}  // namespace sse

// Runs last among the families: MOVSD and CMPSD are overridden here and
// hand their string forms back to family_string.cpp.
void register_sse(HandlerTable& t) {
  sse::register_moves(t);
  sse::register_integer(t);
  sse::register_float(t);
  sse::register_sse3(t);
  sse::register_ssse3(t);
  sse::register_sse41(t);
  sse::register_sse41_float(t);
}

}  // namespace phybin::x86
