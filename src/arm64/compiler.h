// The block compiler's internals, shared by the files that lower each
// group of IR opcodes (compile_*.cpp).  Not part of the backend's API.
#pragma once

#include <array>
#include <deque>
#include <functional>
#include <memory>
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

// Out-of-line code for the rare case of one instruction (an x86 NaN rule, a
// misaligned access): the hot path branches to `entry`; the body, emitted
// after the block's exit, may branch to `resume` and falls through to a
// branch there.
struct ColdPath {
  Label entry, resume;
  std::function<void(Assembler&, Label& resume)> body;
  uint64_t guest = 0;  // address of the guest instruction it belongs to
  // Where a fault there is reported (BlockCompiler::mark_insn).
  uint64_t reported = 0;
  uint8_t replay = 0;
  bool restores_fpsr = false;
};

// An XMM commit region of the block (ir::Inst::replay): what the guest
// XMM registers held at its start (as far as the block shows), which of
// those values it reads, and whether its SSE arithmetic is checked for
// x86's NaN rules once, at its FpRegionCheck (FPSR.IOC), instead of
// operation by operation.
struct XmmRegionInfo {
  std::array<ir::Value, 16> entry;
  uint16_t entry_read = 0, written = 0;
  unsigned own_checks = 0;  // instructions of its operations' own NaN checks
  bool check = false, checked_at_end = false;
  ir::Value last_exit = ir::kNoValue;  // its last point that may leave for a replay
  XmmRegionInfo() { entry.fill(ir::kNoValue); }
};

// What the vector lowering keeps for the whole block (compile_vector*.cpp).
struct VectorState {
  std::vector<int8_t> hint_guest;  // vector result goes straight into this guest XMM
  std::array<std::vector<ir::Value>, 16> holders;  // values living in each guest XMM register
  // A value a SetXmm copied into each guest XMM register (movapd xmm0,
  // xmm2), valid until that register is written again: when the value's
  // own register changes, it moves there instead of to a new register.
  std::array<ir::Value, 16> copy_of;
  // A scalar SSE result whose users read only its element 0 (addsd's
  // second operand, a comisd, a movsd store): no merge with operand a.
  std::vector<uint8_t> low_only;
  // The value a scalar result takes its elements above from when that is
  // not its operand a (find_upper_sources); empty: none.
  std::vector<ir::Value> upper_from;
  ir::Value upper_source(ir::Value v, const ir::Inst& in) const {
    return upper_from.empty() || upper_from[v] == ir::kNoValue ? in.args[0] : upper_from[v];
  }
  // How many bytes from the bottom of each vector value may be nonzero
  // (movss/movsd loads leave the rest zero, and so do scalar operations on
  // them).  A scalar result whose operand a is zero above its element is
  // what AArch64's scalar instruction writes: no merge with a.
  std::vector<uint8_t> width;
  // NaN-check groups (compile_vector_nan.cpp): the operation that checks
  // this one's NaNs, and a root's first member.
  std::vector<ir::Value> nan_root, nan_first;
  // The XMM commit region each value belongs to (find_xmm_regions), 0: none,
  // and what is known of each region (from 1).
  std::vector<uint16_t> region;
  std::vector<XmmRegionInfo> regions;
  unsigned region_of(ir::Value v) const { return region.empty() ? 0 : region[v]; }
  bool region_checked_at_end(ir::Value v) const { return !regions.empty() && regions[region_of(v)].checked_at_end; }
  bool any_fp_arith = false;  // the block has SSE arithmetic (find_low_only)
  // Empty tables mean "none" (blocks without SSE arithmetic).
  bool is_low_only(ir::Value v) const { return !low_only.empty() && low_only[v]; }
  bool zero_above(ir::Value v, unsigned lane) const { return !width.empty() && width[v] <= (1u << lane); }
  ir::Value nan_root_of(ir::Value v) const { return nan_root.empty() ? ir::kNoValue : nan_root[v]; }
  std::vector<std::unique_ptr<ColdPath>> cold;
  // Shared by the block's misaligned-access traps: x16 = guest RIP, w17 = the
  // signal (SIGSEGV, or kTrapReplay in an XMM commit region).
  Label segv_stub;
  bool segv_used = false;
  // The last comis/ucomis compare, so that the flags it sets one by one
  // reuse NZCV while nothing has been emitted in between.
  // The same compare means the same operands, width and kind: ucomiss
  // then ucomisd of one register pair are two compares.
  const uint32_t* fcmp_end = nullptr;
  ir::Value fcmp_args[2] = {ir::kNoValue, ir::kNoValue};
  unsigned fcmp_lane = 0;
  bool fcmp_signalling = false;
};

class BlockCompiler {
 public:
  BlockCompiler(const ir::Block& block, Assembler& a, const BackendConfig& config);
  ~BlockCompiler();
  BlockCompiler(const BlockCompiler&) = delete;
  BlockCompiler& operator=(const BlockCompiler&) = delete;
  void compile();
  void set_marks(std::vector<InsnMark>* marks) { marks_ = marks; }
  // Where the indirect-branch table enters the block, in words from its
  // start (0: the block's start).
  uint32_t indirect_entry_words() const {
    return indirect_entry_ ? static_cast<uint32_t>(indirect_entry_ - block_begin_) : 0;
  }

 private:
  // ---- analysis (compiler.cpp)
  void swap_scratch();
  void analyse();
  void compute_bits_valid();
  void fold_operands();
  void find_narrow_ops();
  bool narrowable(ir::Value v) const;
  unsigned access_log2(ir::Value mem_op) const;
  bool is_const_shift(ir::Value v) const;
  template <typename Fn>
  void for_each_input(ir::Value v, Fn&& fn) const;
  void find_destination_hints();
  void find_writeback_accesses();
  template <typename UseAt>
  void find_side_exit_compares(UseAt&& use_at);
  bool is_small_step(ir::Value v) const;
  bool mark_writeback(ir::Value access, ir::Value update);
  void find_later_steps();
  ir::Value post_index_update(ir::Value access) const;
  bool touches_guest_gpr(ir::Value from, ir::Value to, unsigned g) const;
  int64_t step_of(ir::Value v) const;  // what an Add/Sub of a constant adds
  // The first instruction after v that is not dead (n_ when none).
  ir::Value next_live(ir::Value v) const {
    do ++v;
    while (v < n_ && b_.at(v).dead);
    return v;
  }
  bool hint_allowed(ir::Value def) const;

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
  void lower_plain_memory(ir::Value v);
  void lower_access_with_update(ir::Value access, ir::Value update);
  void lower_state(ir::Value v);
  void lower_lazy_flags(ir::Value v);
  void lower_atomic(ir::Value v);  // compile_atomic.cpp
  // TSO (BackendConfig::tso): whether the Load/Store/VLoad/VStore v is
  // ordered, and its lowering then (compile_atomic.cpp).
  bool ordered_access(ir::Value v) const;
  void lower_ordered_memory(ir::Value v);
  std::unique_ptr<ColdPath> branch_if_misaligned(Reg addr, unsigned log2);
  friend class AtomicOperands;
  Mem address_of(ir::Value addr);
  Reg second_operand(ir::Value v, Shift& shift, unsigned& amount);
  void load_value(ir::Type t, Reg rt, const Mem& m);

  // ---- calls and exits (compile_exit.cpp)
  void lower_call(ir::Value v);
  void lower_native_call(ir::Value v);
  void lower_trap(ir::Value v);
  // A guest instruction's code starts here; replay: its place in an XMM
  // commit region (ir::Inst::replay), whose first instruction a fault in
  // it is reported at.
  void mark_insn(uint64_t guest, uint8_t replay = 0, bool restores_fpsr = false) {
    if (replay == 1) region_start_ = guest;
    mark_reported(guest, replay ? region_start_ : guest, replay, restores_fpsr);
  }
  void mark_reported(uint64_t guest, uint64_t reported, uint8_t replay, bool restores_fpsr) {
    current_rip_ = guest;
    reported_rip_ = reported;
    replay_ = replay;
    restores_fpsr_ = restores_fpsr;
    if (!marks_) return;
    auto offset = static_cast<uint32_t>(a_.cursor() - block_begin_);
    const InsnMark mark{offset, reported, replay, restores_fpsr};
    // The previous instruction produced no code: the fault lookup picks
    // the last mark at or before an offset, so it would never be found.
    if (!marks_->empty() && marks_->back().host_offset == offset) marks_->back() = mark;
    else marks_->push_back(mark);
  }
  // A cold path of the instruction being lowered.
  std::unique_ptr<ColdPath> new_cold_path() {
    auto path = std::make_unique<ColdPath>();
    path->guest = current_rip_;
    path->reported = reported_rip_;
    path->replay = replay_;
    path->restores_fpsr = restores_fpsr_;
    return path;
  }
  void save_guest_state();
  void load_guest_state();
  void call_host(uint64_t fn);
  void raise_at(uint64_t rip, int code);
  void lower_fp_trap(ir::Value v);
  void lower_exit();
  void lower_side_exit(ir::Value v);
  void emit_side_exit_stubs();  // after the exit
  bool branch_on_zero(ir::Value cmp, Label& taken, const uint32_t*& branch);
  void exit_to(uint64_t target, const uint32_t* link_site = nullptr);
  // Guest addresses (exit targets, the RIP stored for helpers and traps,
  // GuestAddr values) are loaded from the block's address pool, never
  // built from immediates: a saved block that the next run needs at
  // another guest address gets its pool rewritten, its code stays.
  Label& pooled_guest_address(uint64_t guest);
  void load_guest_address(Reg rd, uint64_t guest) { a_.ldr(Size::X, rd, pooled_guest_address(guest)); }
  void emit_address_pool();
  void exit_indirect(Reg target, uint64_t lazy_record);
  void store_lazy_record(uint64_t record);
  void emit_indirect_entry();

  // ---- vectors (compile_vector*.cpp, through VectorLowering)
  friend class VectorLowering;
  void lower_vector(ir::Value v);
  void analyse_vectors();   // destination hints of vector values (end of analyse)
  void find_low_only();
  void find_upper_sources();
  void find_nan_groups();
  void find_xmm_regions();
  void note_region_inst(XmmRegionInfo& r, const ir::Inst& in, ir::Value i);
  void keep_replayed_registers();
  void choose_region_checks();
  void find_widths();
  void emit_cold_paths();   // after the exit

  const ir::Block& b_;
  Assembler& a_;
  const BackendConfig& cfg_;
  size_t n_;
  std::vector<ir::Value> rep_;
  std::vector<ir::Value> last_use_;
  std::vector<uint8_t> bits_valid_;     // bits above this are known zero
  // Only the low 32 bits of this 64-bit value are ever read: computed in a
  // W register, or (an extension from 32 bits) nothing to do.
  std::vector<uint8_t> narrow_;
  std::vector<int8_t> hint_guest_;      // result goes straight into this guest GPR
  std::vector<bool> folded_;            // embedded in its users (addresses, shifted operands)
  // Accesses that update their base register (find_writeback_accesses):
  // by access, its Add/Sub and the guest register; by Add/Sub, whether an
  // access lowers it.
  std::vector<ir::Value> access_update_;
  std::vector<int8_t> update_guest_;
  std::vector<uint8_t> update_in_access_;
  std::vector<std::pair<ir::Value, ir::Value>> later_steps_;  // access, step (find_later_steps)
  std::vector<Loc> loc_;
  std::array<bool, 32> gpr_busy_{};
  std::array<bool, 32> vreg_busy_{};
  std::array<std::vector<ir::Value>, 16> gpr_holders_;  // values living in each guest GPR's register
  ir::Value fused_cond_ = ir::kNoValue;  // ICmp consumed directly by the exit branch
  std::vector<uint8_t> side_cond_;       // ICmp consumed directly by the SideExit after it
  // A side exit's way out, emitted after the block's exit: the branch to
  // it (its link site) and its target.
  struct SideStub {
    Label entry;
    uint64_t target = 0;
    const uint32_t* site = nullptr;
  };
  std::deque<SideStub> side_stubs_;
  ir::Value sext_loaded_ = ir::kNoValue;  // SExt done by the sign-extending load before it
  Cond fused_arm_cond_ = Cond::AL;
  VectorState vec_;
  // Fault lookup: where each guest instruction's code starts (may be null).
  std::vector<InsnMark>* marks_ = nullptr;
  const uint32_t* block_begin_ = nullptr;
  const uint32_t* indirect_entry_ = nullptr;
  Label main_entry_;
  uint64_t current_rip_ = 0;  // guest address of the instruction being lowered
  uint64_t reported_rip_ = 0;  // where a fault in it is reported (mark_insn)
  uint8_t replay_ = 0;
  bool restores_fpsr_ = false;
  uint64_t region_start_ = 0;  // of the XMM commit region being lowered
  struct PooledAddress {
    uint64_t guest = 0;
    Label literal;
  };
  std::deque<PooledAddress> pool_;  // deque: labels stay where they are
  AddressPool pool_layout_;

 public:
  const AddressPool& address_pool() const { return pool_layout_; }
};

Size size_of(ir::Type t);
unsigned log2_bytes(ir::Type t);  // of an integer type's size in bytes
Cond arm_cond(ir::Cond c);

}  // namespace phybin::arm64
