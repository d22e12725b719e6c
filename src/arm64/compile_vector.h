// Lowering of the vector IR (XMM values, ir/vecops.inc) to NEON.  A
// VectorLowering lives for one IR instruction and works on its
// BlockCompiler's registers and code; the block-wide state is VectorState.
//
// Register rules of every lowering: the result register may be the guest
// register of an operand (destination hints), so a sequence that writes
// its result before it has read all operands goes through kVTmp0/kVTmp1.
#pragma once

#include "arm64/compiler.h"

namespace phybin::arm64 {

// A float lane's (2 float, 3 double) vector arrangement and scalar size.
inline VArr farr(unsigned lane) { return lane == 3 ? VArr::D2 : VArr::S4; }
inline FSize fsize(unsigned lane) { return lane == 3 ? FSize::D : FSize::S; }

// One operation of a NaN-check group, with its registers (compile_vector_nan.cpp).
struct NanStep {
  ir::VecOp op;
  unsigned lane;
  bool scalar;
  VReg r, x, y;
};
inline bool reads_register(const std::vector<NanStep>& group, VReg v) {
  for (const NanStep& s : group)
    if (s.r == v || s.x == v || s.y == v) return true;
  return false;
}

// The SSE arithmetic and x86's NaN fix-ups (compile_vector_nan.cpp).
void emit_fp_op(Assembler& a, ir::VecOp op, unsigned lane, VReg r, VReg x, VReg y);
void packed_nan_fixup(Assembler& a, unsigned lane, bool unary, VReg r, VReg x, VReg y, VReg t);
void scalar_nan_fixup(Assembler& a, unsigned lane, bool unary, VReg r, VReg x, VReg y, Label& done);

class VectorLowering {
 public:
  explicit VectorLowering(BlockCompiler& bc) : c_(bc), a_(bc.a_) {}
  void lower(ir::Value v);

 private:
  // ---- common (compile_vector.cpp)
  const ir::Inst& inst(ir::Value v) const { return c_.b_.at(v); }
  VReg def(ir::Value v);         // result register (a hinted guest XMM or a pool register)
  VReg vreg_of(ir::Value v) { return c_.use_v(v); }
  VReg scratch();                // a pool register until the end of this instruction
  void evacuate_xmm(unsigned guest, ir::Value at, ir::Value keep);
  bool move_to_copy(ir::Value r);  // r's register changes: to a guest XMM holding a copy of it
  // Emits b.cond to a cold path; the code after this call is its resume point.
  void cold(Cond cond, std::function<void(Assembler&, Label& resume)> body);
  void lower_set_xmm(ir::Value v);
  void lower_memory(ir::Value v);
  void lower_check_align(ir::Value v);
  void lower_move(ir::Value v);         // FromGpr, Extract, InsertGpr, InsertLane, LowOnly
  void lower_movmask(ir::Value v);
  void copy(VReg d, VReg s) {
    if (d != s) a_.mov(VArr::B16, d, s);
  }

  // ---- integer (compile_vector_int.cpp)
  bool lower_int(ir::Value v);          // false when the op is not an integer one
  void lower_shift_imm(ir::Value v);
  void lower_shift_vec(ir::Value v);
  void lower_byte_shift(ir::Value v);
  void lower_pack(ir::Value v);
  void lower_shuffle(ir::Value v);
  void lower_shuffle16(ir::Value v);
  void lower_shuffle2(ir::Value v);
  void lower_multiply(ir::Value v);
  void shuffle32(VReg d, VReg x, unsigned imm);

  // ---- SSSE3/SSE4.1, AES, PCLMULQDQ (compile_vector_ext.cpp)
  bool lower_ext(ir::Value v);
  void lower_pairwise(ir::Value v);
  void lower_extend(ir::Value v);
  void lower_byte_permute(ir::Value v);
  void lower_test_zero(ir::Value v);
  void lower_blend_imm(ir::Value v);
  void lower_blend_var(ir::Value v);
  void lower_aes_round(ir::Value v);
  void lower_clmul(ir::Value v);
  void select(VReg d, VReg mask, VReg if_set, VReg if_clear);

  // ---- floating point (compile_vector_fp.cpp)
  bool lower_fp(ir::Value v);
  void lower_fp_packed(ir::Value v);
  void flush_tiny(VReg d, VReg x, VReg t);
  void lower_fp_scalar(ir::Value v);
  void lower_fminmax(ir::Value v, bool scalar);
  void lower_fcmp(ir::Value v, bool scalar);
  void lower_fcmp_flag(ir::Value v);
 public:
  // comis/ucomis + jcc whose x86 condition is one AArch64 condition after
  // FCMP (ja, jae, jb, jbe, jp, jnp): the exit branch tests NZCV itself.
  static bool fcmp_branch_cond(const ir::Inst& in, Cond& cond);
  void lower_fcmp_for_branch(ir::Value v);

 private:
  void lower_cvt_to_int(ir::Value v);
  void lower_cvt_packed(ir::Value v);
  void lower_round(ir::Value v);
  void round(VArr arr, FSize fs, bool scalar, VReg d, VReg x, unsigned imm);
  // ---- x86 NaN rules and NaN-check groups (compile_vector_nan.cpp)
  std::vector<NanStep> nan_group(ir::Value v);
  void check_nan(ir::Value v, VReg r, VReg x, VReg y, VReg t, std::vector<NanStep> group);
  // Writes scalar element 0 (in kVTmp0) over `base` into d.
  void merge_low(VReg d, VReg base, unsigned lane);

  // ---- MXCSR modes without an FPCR bit (compile_vector_mxcsr.cpp)
  bool lower_mxcsr_mode(ir::Value v);
  void lower_denorm_check(ir::Value v);
  void lower_flush(ir::Value v, bool raise);
  void load_limit(VReg limit, unsigned lane, uint64_t value);
  void exponent_zero_mask(unsigned lane, VReg mask, VReg x, VReg limit, VReg t, VReg z, bool with_zero);
  void any_element(unsigned lane, uint64_t elems, Reg out, VReg mask, VReg t);
  void set_mxcsr_flags_if(Reg any, uint32_t flags);

  BlockCompiler& c_;
  Assembler& a_;
  std::vector<VReg> scratch_;
};

}  // namespace phybin::arm64
