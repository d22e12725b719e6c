// The block compiler's internals, shared by the files that lower each
// group of IR opcodes (compile_*.cpp).  Not part of the backend's API.
#pragma once

#include <array>
#include <vector>

#include "arm64/backend.h"
#include "arm64/regmap.h"

namespace phybin::arm64 {

// Where an IR value lives during the block.
struct Loc {
  enum Kind : uint8_t { None, Const, Gpr, Vreg } kind = None;
  uint8_t reg = 0;
  int8_t guest = -1;  // aliases guest GPR/XMM `guest` (GetReg/GetXmm): moved away before it changes
};

class BlockCompiler {
 public:
  BlockCompiler(const ir::Block& block, Assembler& a, const BackendConfig& config);
  void compile();

 private:
  // ---- analysis (compiler.cpp)
  void analyse();
  void compute_bits_valid();
  void fold_addresses();
  void find_destination_hints();
  bool hint_allowed(ir::Value def, ir::Value set_reg) const;

  // ---- registers (compiler.cpp)
  ir::Value rep(ir::Value v) const { return rep_[v]; }
  bool dies_at(ir::Value v, ir::Value at) const { return last_use_[rep_[v]] <= at; }
  Reg alloc_gpr();
  VReg alloc_vreg();
  void release_dead_args(ir::Value at);
  Reg def_gpr(ir::Value v);    // register for the result of v (honours hints)
  VReg def_vreg(ir::Value v);
  Reg use(ir::Value v, Reg tmp);          // operand in a register (constants into tmp)
  VReg use_v(ir::Value v);
  bool is_const(ir::Value v) const;
  uint64_t const_of(ir::Value v) const;
  void evacuate_guest_gpr(unsigned guest, ir::Value at);
  void evacuate_all_guest(ir::Value at);
  void preserve_caller_saved(ir::Value at);

  // ---- integer lowering (compile_int.cpp)
  void lower(ir::Value v);
  void lower_arith(ir::Value v);
  void lower_shift(ir::Value v);
  void lower_extend(ir::Value v);
  void lower_bits(ir::Value v);
  void lower_icmp(ir::Value v, bool for_branch);
  void lower_select(ir::Value v);
  void lower_memory(ir::Value v);
  void lower_state(ir::Value v);
  Mem address_of(ir::Value addr, unsigned log2_size);
  void load_value(ir::Type t, Reg rt, const Mem& m);

  // ---- calls and exits (compile_exit.cpp)
  void lower_call(ir::Value v);
  void lower_trap(ir::Value v);
  void save_guest_state();
  void load_guest_state();
  void call_host(uint64_t fn);
  void lower_exit();
  void exit_to(uint64_t target);
  void exit_indirect(Reg target);

  // ---- vectors (compile_vector.cpp)
  void lower_vector(ir::Value v);

  const ir::Block& b_;
  Assembler& a_;
  const BackendConfig& cfg_;
  size_t n_;
  std::vector<ir::Value> rep_;
  std::vector<ir::Value> last_use_;
  std::vector<uint8_t> bits_valid_;     // bits above this are known zero
  std::vector<int8_t> hint_guest_;      // result goes straight into this guest GPR
  std::vector<bool> folded_;            // an Add folded into memory operands
  std::vector<Loc> loc_;
  std::array<bool, 32> gpr_busy_{};
  std::array<bool, 32> vreg_busy_{};
  std::vector<ir::Value> live_reps_;    // reps currently holding a register
  ir::Value fused_cond_ = ir::kNoValue;  // ICmp consumed directly by the exit branch
  Cond fused_arm_cond_ = Cond::AL;
};

Size size_of(ir::Type t);
Cond arm_cond(ir::Cond c);

}  // namespace phybin::arm64
