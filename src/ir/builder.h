// Appends instructions to an ir::Block; the frontend's only way to make IR.
#pragma once

#include "ir/fp_mode.h"
#include "ir/ir.h"

namespace phybin::ir {

class Builder {
 public:
  explicit Builder(Block& block) : block_(block) {}
  Block& block() { return block_; }

  Value emit(Opcode op, Type type, Value a = kNoValue, Value b = kNoValue, Value c = kNoValue,
             uint64_t imm = 0, uint8_t aux = 0);

  Value constant(Type t, uint64_t v) { return emit(Opcode::Const, t, kNoValue, kNoValue, kNoValue, v); }
  Value guest_address(uint64_t v) { return emit(Opcode::GuestAddr, Type::I64, kNoValue, kNoValue, kNoValue, v); }
  Value get_reg(uint8_t reg) { return emit(Opcode::GetReg, Type::I64, kNoValue, kNoValue, kNoValue, 0, reg); }
  void set_reg(uint8_t reg, Value v) { emit(Opcode::SetReg, Type::Void, v, kNoValue, kNoValue, 0, reg); }
  Value get_flag(uint8_t bit) { return emit(Opcode::GetFlag, Type::I1, kNoValue, kNoValue, kNoValue, 0, bit); }
  void set_flag(uint8_t bit, Value v) { emit(Opcode::SetFlag, Type::Void, v, kNoValue, kNoValue, 0, bit); }
  Value load(Type t, Value addr) { return emit(Opcode::Load, t, addr); }
  void store(Value addr, Value v) { emit(Opcode::Store, Type::Void, addr, v); }
  Value atomic_rmw(AtomicOp op, Type t, Value addr, Value v) {
    return emit(Opcode::AtomicRmw, t, addr, v, kNoValue, 0, static_cast<uint8_t>(op));
  }
  Value atomic_cas(Type t, Value addr, Value expected, Value desired) {
    return emit(Opcode::AtomicCas, t, addr, expected, desired);
  }
  void fence() { emit(Opcode::Fence, Type::Void); }
  void side_exit(Value cond, uint64_t target, uint64_t live_flags) {
    const auto index = static_cast<uint8_t>(block_.side_exits.size());
    block_.side_exits.push_back(SideExitInfo{target, live_flags});
    emit(Opcode::SideExit, Type::Void, cond, kNoValue, kNoValue, 0, index);
  }
  Value load_state(Type t, uint32_t offset) {
    return emit(Opcode::LoadState, t, kNoValue, kNoValue, kNoValue, offset);
  }
  void store_state(uint32_t offset, Value v) {
    emit(Opcode::StoreState, Type::Void, v, kNoValue, kNoValue, offset);
  }

  Value binary(Opcode op, Type t, Value a, Value b) { return emit(op, t, a, b); }
  Value unary(Opcode op, Type t, Value a) { return emit(op, t, a); }
  Value icmp(Cond c, Value a, Value b) {
    return emit(Opcode::ICmp, Type::I1, a, b, kNoValue, 0, static_cast<uint8_t>(c));
  }
  Value select(Type t, Value cond, Value a, Value b) { return emit(Opcode::Select, t, cond, a, b); }
  Value zext(Type to, Value v);
  Value sext(Type to, Value v);
  Value trunc(Type to, Value v);
  Value extract(Value v, unsigned lsb, unsigned width) {
    return emit(Opcode::ExtractBits, width <= 32 ? Type::I32 : Type::I64, v, kNoValue, kNoValue,
                width, static_cast<uint8_t>(lsb));
  }
  Value insert(Type t, Value base, Value v, unsigned lsb, unsigned width) {
    return emit(Opcode::InsertBits, t, base, v, kNoValue, width, static_cast<uint8_t>(lsb));
  }
  // Calls `fn(GuestState*, a, b)`; `fn` may read and write guest state.
  Value call(Type result, const void* fn, Value a = kNoValue, Value b = kNoValue) {
    return emit(Opcode::CallHelper, result, a, b, kNoValue, reinterpret_cast<uint64_t>(fn));
  }

  // A vector operation (VUnary or VBinary by `b`) on elements of 8 << lane bits.
  Value vec(VecOp op, Type result, unsigned lane, Value a, Value b = kNoValue, uint64_t imm = 0) {
    return fp_mode_.any() ? fp_vec(op, result, lane, a, b, imm) : plain_vec(op, result, lane, a, b, imm);
  }
  // The MXCSR modes the following floating-point operations run in.
  void set_fp_mode(const FpMode& mode) { fp_mode_ = mode; }
  const FpMode& fp_mode() const { return fp_mode_; }
  Value plain_vec(VecOp op, Type result, unsigned lane, Value a, Value b = kNoValue, uint64_t imm = 0) {
    Value v = emit(b == kNoValue ? Opcode::VUnary : Opcode::VBinary, result, a, b, kNoValue, imm,
                   static_cast<uint8_t>(op));
    block_.at(v).lane = static_cast<uint8_t>(lane);
    return v;
  }
  Value vec3(VecOp op, unsigned lane, Value a, Value b, Value c) {
    Value v = emit(Opcode::VTernary, Type::V128, a, b, c, 0, static_cast<uint8_t>(op));
    block_.at(v).lane = static_cast<uint8_t>(lane);
    return v;
  }
  Value vload(Value addr, unsigned bytes) { return emit(Opcode::VLoad, Type::V128, addr, kNoValue, kNoValue, bytes); }
  void vstore(Value addr, Value v, unsigned bytes) { emit(Opcode::VStore, Type::Void, addr, v, kNoValue, bytes); }

  // The constant a guest register holds at this point of the block, when
  // the block wrote it one (and called nothing since).
  bool reg_is_known(uint8_t reg, uint64_t& value) const {
    for (size_t i = block_.insts.size(); i-- > 0;) {
      const Inst& in = block_.insts[i];
      if (opcode_is_call(in.op)) return false;
      if (in.op != Opcode::SetReg || in.aux != reg) continue;
      if (!is_const(in.args[0])) return false;
      value = const_value(in.args[0]);
      return true;
    }
    return false;
  }

  // Guest XMM registers.  In an XMM commit region, from defer_xmm_writes()
  // to commit_xmm_writes(), set_xmm writes no register but is held back
  // (the last one per register), and get_xmm of a held register is the
  // held value; commit_xmm_writes() emits the held writes.  The frontend
  // brackets runs of SSE instructions that write nothing but XMM registers
  // (x86/xmm_regions.cpp).
  Value get_xmm(uint8_t xmm);
  void set_xmm(uint8_t xmm, Value v);
  void defer_xmm_writes() { deferring_xmm_ = true; }
  void commit_xmm_writes();
  bool deferring_xmm_writes() const { return deferring_xmm_; }

  Type type_of(Value v) const { return block_.at(v).type; }
  bool is_const(Value v) const { return block_.at(v).op == Opcode::Const; }
  uint64_t const_value(Value v) const { return block_.at(v).imm; }

 private:
  Value fp_vec(VecOp op, Type result, unsigned lane, Value a, Value b, uint64_t imm);  // ir/fp_mode.cpp

  Block& block_;
  FpMode fp_mode_;
  bool deferring_xmm_ = false;
  uint16_t held_xmm_mask_ = 0;
  Value held_xmm_[16] = {};
};

}  // namespace phybin::ir
