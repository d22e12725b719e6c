// Lowering of the vector IR (XMM values, ir/vecops.inc) to NEON.  A
// VectorLowering lives for one IR instruction and works on its
// BlockCompiler's registers and code; the block-wide state is VectorState.
//
// Register rules of every lowering: the result register may be the guest
// register of an operand (destination hints), so a sequence that writes
// its result before it has read all operands goes through kVTmp0/kVTmp1.
#pragma once

#include "arm64/compile_vector_ops.h"
#include "arm64/compiler.h"

namespace phybin::arm64 {

// A float lane's (2 float, 3 double) vector arrangement and scalar size.
inline VArr farr(unsigned lane) { return lane == 3 ? VArr::D2 : VArr::S4; }
inline FSize fsize(unsigned lane) { return lane == 3 ? FSize::D : FSize::S; }

using ir::in_family;

// One operation of a NaN-check group, with its registers (compile_vector_nan.cpp).
struct NanStep {
  FpArithOp op;
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
void emit_fp_op(Assembler& a, FpArithOp op, unsigned lane, VReg r, VReg x, VReg y);
void packed_nan_fixup(Assembler& a, unsigned lane, bool unary, VReg r, VReg x, VReg y, VReg t);
void scalar_nan_fixup(Assembler& a, unsigned lane, bool unary, VReg r, VReg x, VReg y, Label& done);

class VectorLowering {
 public:
  explicit VectorLowering(BlockCompiler& bc) : c_(bc), a_(bc.a_) {}
  void lower(ir::Value v);
  // Before the first instruction of an XMM commit region whose arithmetic
  // is checked at its end (compile_vector_nan.cpp; the check is the
  // region's FpRegionCheck).
  void begin_checked_region();
  // A VLoad or VStore through m (BlockCompiler::lower_access_with_update).
  void lower_memory_at(ir::Value v, const Mem& m);

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
  void end_checked_region(ir::Value v);
  void copy(VReg d, VReg s) {
    if (d != s) a_.mov(VArr::B16, d, s);
  }
  // One NEON instruction: d = op(a, b) (three_same) or d = op(a) (two_reg).
  using ThreeSame = void (Assembler::*)(VArr, VReg, VReg, VReg);
  using TwoReg = void (Assembler::*)(VArr, VReg, VReg);
  void three_same(ir::Value v, VArr arr, ThreeSame emit);  // compile_vector_int.cpp
  void two_reg(ir::Value v, VArr arr, TwoReg emit);        // compile_vector_fp.cpp

  // ---- VUnary/VBinary/VTernary: the family's lowering, which lowers the
  // operation (compile_vector_ops.h).  Each switches over its family's
  // operations without a default.
  void lower_vecop(ir::Value v);
  void lower_move(ir::Value v, MoveOp op);        // compile_vector.cpp
  void lower_int(ir::Value v, IntOp op);          // compile_vector_int.cpp
  void lower_int_ext(ir::Value v, IntExtOp op);   // compile_vector_ext.cpp
  void lower_crypto(ir::Value v, CryptoOp op);    // compile_vector_ext.cpp
  void lower_fp_arith(ir::Value v, FpArithOp op); // compile_vector_fp.cpp
  void lower_fp(ir::Value v, FpOp op);            // compile_vector_fp.cpp
  void lower_mxcsr(ir::Value v, MxcsrOp op);      // compile_vector_mxcsr.cpp

  // ---- Move (compile_vector.cpp)
  void lower_from_gpr(ir::Value v);
  void lower_extract(ir::Value v);
  void lower_insert_gpr(ir::Value v);
  void lower_insert_lane(ir::Value v);
  void lower_low_only(ir::Value v);
  void lower_movmask(ir::Value v);

  // ---- Int (compile_vector_int.cpp)
  void lower_shift_imm(ir::Value v, IntOp op);
  void lower_shift_vec(ir::Value v, IntOp op);
  void lower_byte_shift(ir::Value v, IntOp op);
  void lower_pack(ir::Value v, IntOp op);
  void lower_shuffle(ir::Value v);
  void lower_shuffle16(ir::Value v, IntOp op);
  void lower_shuffle2(ir::Value v);
  void lower_mul_high(ir::Value v, bool sign);
  void lower_mul_even_u(ir::Value v);
  void lower_madd_pairs(ir::Value v);
  void lower_sad(ir::Value v);
  void shuffle32(VReg d, VReg x, unsigned imm);

  // ---- IntExt and Crypto (compile_vector_ext.cpp)
  void lower_abs(ir::Value v);
  void lower_sign(ir::Value v);
  void lower_mul_even_s(ir::Value v);
  void lower_mul_high_round(ir::Value v);
  void lower_madd_ubs(ir::Value v);
  void lower_extend(ir::Value v, bool sign);
  void lower_byte_table(ir::Value v);
  void lower_align_right(ir::Value v);
  void lower_test_zero(ir::Value v);
  void lower_blend_imm(ir::Value v);
  void lower_blend_var(ir::Value v);
  void lower_aes_round(ir::Value v, CryptoOp op);
  void lower_aes_imc(ir::Value v);
  void lower_clmul(ir::Value v);
  void select(VReg d, VReg mask, VReg if_set, VReg if_clear);

  // ---- FpArith and Fp (compile_vector_fp.cpp)
  // An operation x86's NaN rules are checked for: operands x, y, result d
  // computed in r (beside the operands when the check needs them).
  struct FpRegs {
    VReg x, y, d, r;
    std::vector<NanStep> group;  // the members its check covers
    bool low_only = false;       // scalar: d is its own register, not merged
    bool whole = false;          // scalar: r is the whole result (a is zero above)
  };
  FpRegs packed_regs(ir::Value v, bool unary);
  FpRegs scalar_regs(ir::Value v);
  bool checked_at_region_end(ir::Value v) const;
  bool checked_here(ir::Value v) const;
  void check_packed(ir::Value v, FpRegs& o);
  void check_scalar(ir::Value v, FpRegs& o);
  void finish_scalar(ir::Value v, const FpRegs& o);
  void lower_fp_packed(ir::Value v, FpArithOp op);
  void lower_fp_scalar(ir::Value v, FpArithOp op);
  void lower_estimate_packed(ir::Value v, bool rsqrt);
  void lower_estimate_scalar(ir::Value v, bool rsqrt);
  void flush_tiny(VReg d, VReg x, VReg t);
  void lower_fminmax(ir::Value v, bool is_min, bool scalar);
  void lower_fcmp(ir::Value v, bool scalar);
  void lower_fcmp_flag(ir::Value v, bool flag);
 public:
  // comis/ucomis + jcc whose x86 condition is one AArch64 condition after
  // FCMP (ja, jae, jb, jbe, jp, jnp): the exit branch tests NZCV itself.
  static bool fcmp_branch_cond(const ir::Inst& in, Cond& cond);
  void lower_fcmp_for_branch(ir::Value v);

 private:
  void lower_cvt_int_to_scalar(ir::Value v);
  void lower_cvt_fp_scalar(ir::Value v);
  void lower_cvt_to_int(ir::Value v);
  void lower_cvt_i32_to_f64(ir::Value v);
  void lower_cvt_f32_to_i32(ir::Value v);
  void lower_cvt_f64_to_i32(ir::Value v);
  void lower_round(ir::Value v, bool scalar);
  void round(VArr arr, FSize fs, bool scalar, VReg d, VReg x, unsigned imm);
  // ---- x86 NaN rules and NaN-check groups (compile_vector_nan.cpp)
  std::vector<NanStep> nan_group(ir::Value v);
  void check_nan(ir::Value v, VReg r, VReg x, VReg y, VReg t, std::vector<NanStep> group);
  // Writes scalar element 0 (in kVTmp0) over `base` into d.
  void merge_low(VReg d, VReg base, unsigned lane);

  // ---- Mxcsr: MXCSR modes without an FPCR bit (compile_vector_mxcsr.cpp)
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
