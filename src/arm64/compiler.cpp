// Block compiler: analysis of the IR block and register management.
#include "arm64/compiler.h"
#include "arm64/compile_vector.h"

#include <algorithm>

namespace phybin::arm64 {

using ir::Inst;
using ir::Opcode;
using ir::Type;
using ir::Value;

Size size_of(Type t) { return t == Type::I64 ? Size::X : Size::W; }

Cond arm_cond(ir::Cond c) {
  switch (c) {
    case ir::Cond::EQ: return Cond::EQ;
    case ir::Cond::NE: return Cond::NE;
    case ir::Cond::ULT: return Cond::LO;
    case ir::Cond::ULE: return Cond::LS;
    case ir::Cond::UGT: return Cond::HI;
    case ir::Cond::UGE: return Cond::HS;
    case ir::Cond::SLT: return Cond::LT;
    case ir::Cond::SLE: return Cond::LE;
    case ir::Cond::SGT: return Cond::GT;
    case ir::Cond::SGE: return Cond::GE;
  }
  return Cond::AL;
}

namespace {
// The per-block tables keep their memory from block to block: allocation
// was a fifth of the translation time.
struct Scratch {
  std::vector<Value> rep, last_use;
  std::vector<uint8_t> bits_valid, demand;
  std::vector<uint8_t> narrow;
  std::vector<int8_t> hint_guest;
  std::vector<bool> folded;
  std::vector<Loc> loc;
  std::array<std::vector<Value>, 16> holders;
  std::vector<uint32_t> uses, memory_uses;
  std::vector<int> memory_log2;
};
thread_local Scratch t_scratch;
}  // namespace

void BlockCompiler::swap_scratch() {
  rep_.swap(t_scratch.rep);
  last_use_.swap(t_scratch.last_use);
  bits_valid_.swap(t_scratch.bits_valid);
  narrow_.swap(t_scratch.narrow);
  hint_guest_.swap(t_scratch.hint_guest);
  folded_.swap(t_scratch.folded);
  loc_.swap(t_scratch.loc);
  for (unsigned g = 0; g < 16; ++g) gpr_holders_[g].swap(t_scratch.holders[g]);
}

BlockCompiler::BlockCompiler(const ir::Block& block, Assembler& a, const BackendConfig& config)
    : b_(block), a_(a), cfg_(config), n_(block.insts.size()) {
  swap_scratch();
  for (auto& h : gpr_holders_) h.clear();
}

BlockCompiler::~BlockCompiler() { swap_scratch(); }

bool BlockCompiler::is_const(Value v) const { return b_.at(v).op == Opcode::Const; }
uint64_t BlockCompiler::const_of(Value v) const { return b_.at(v).imm; }

namespace {

bool is_memory_op(Opcode op) {
  return op == Opcode::Load || op == Opcode::Store || op == Opcode::VLoad || op == Opcode::VStore;
}

// Instructions whose code may fault and so hand the guest registers to a
// signal handler in the middle of a block.
bool may_fault(Opcode op) {
  switch (op) {
    case Opcode::Load: case Opcode::Store: case Opcode::VLoad: case Opcode::VStore: case Opcode::VCheckAlign:
    case Opcode::AtomicRmw: case Opcode::AtomicCas:
      return true;
    default: return false;
  }
}

bool commutes(Opcode op) { return op == Opcode::Add || op == Opcode::And || op == Opcode::Or || op == Opcode::Xor; }

// Offsets any access size can use as [base, #imm] (scaled or unscaled).
bool foldable_offset(uint64_t imm) {
  auto s = static_cast<int64_t>(imm);
  return s >= -256 && s <= 255;
}

}  // namespace

unsigned BlockCompiler::access_log2(Value mem_op) const {
  const Inst& in = b_.at(mem_op);
  switch (in.op) {
    case Opcode::Load: return static_cast<unsigned>(__builtin_ctz(type_bits(in.type) / 8));
    case Opcode::Store: return static_cast<unsigned>(__builtin_ctz(type_bits(b_.at(in.args[1]).type) / 8));
    default: return static_cast<unsigned>(__builtin_ctzll(in.imm ? in.imm : 16));  // VLoad/VStore: imm = bytes
  }
}

bool BlockCompiler::is_const_shift(Value v) const {
  const Inst& in = b_.at(v);
  return (in.op == Opcode::Shl || in.op == Opcode::Lshr || in.op == Opcode::Ashr) && is_const(in.args[1]) &&
         !is_const(in.args[0]) && (in.type == Type::I64 || in.type == Type::I32);
}

// Decides which instructions produce no code of their own because their
// only users embed them: base+offset and base+index(<<size) addresses in
// loads and stores, constant shifts in the second operand of ALU ops, and
// a compare whose only use chooses a Select (which does "cmp; csel cond"
// instead of testing a materialised cset: cmovcc after cmp).
void BlockCompiler::fold_operands() {
  folded_.assign(n_, false);
  std::vector<uint32_t>& uses = t_scratch.uses;
  std::vector<uint32_t>& memory_uses = t_scratch.memory_uses;
  std::vector<int>& memory_log2 = t_scratch.memory_log2;  // access size of the memory users; -2 when mixed
  uses.assign(n_, 0);
  memory_uses.assign(n_, 0);
  memory_log2.assign(n_, -1);
  for (Value i = 0; i < n_; ++i) {
    const Inst& in = b_.at(i);
    if (in.dead) continue;
    for (int k = 0; k < 3; ++k) {
      Value a = in.args[k];
      if (a == ir::kNoValue) continue;
      ++uses[a];
      // An ordered integer access takes a plain base register (LDAR,
      // STLR); an ordered vector access is a plain one between barriers.
      const bool vector = in.op == Opcode::VLoad || in.op == Opcode::VStore;
      if (is_memory_op(in.op) && k == 0 && (vector || !ordered_access(i))) {
        ++memory_uses[a];
        int l = static_cast<int>(access_log2(i));
        memory_log2[a] = memory_log2[a] == -1 || memory_log2[a] == l ? l : -2;
      }
    }
  }
  for (Value v : {b_.exit.cond, b_.exit.address})
    if (v != ir::kNoValue) ++uses[v];
  for (Value i = 0; i < n_; ++i) {
    const Inst& in = b_.at(i);
    if (in.dead) continue;
    if (in.op == Opcode::Select) {
      if (b_.at(in.args[0]).op == Opcode::ICmp && uses[in.args[0]] == 1) folded_[in.args[0]] = true;
      continue;
    }
    bool is_sub = in.op == Opcode::Sub && is_const(in.args[1]);
    bool address_only = (in.op == Opcode::Add || is_sub) && in.type == Type::I64 && uses[i] == memory_uses[i] &&
                        uses[i] > 0;
    if (address_only && !is_const(in.args[0])) {
      Value y = in.args[1];
      if (is_const(y)) {
        auto offset = is_sub ? -static_cast<int64_t>(const_of(y)) : static_cast<int64_t>(const_of(y));
        folded_[i] = memory_log2[i] >= 0 ? Assembler::is_mem_offset_encodable(static_cast<unsigned>(memory_log2[i]), offset)
                                         : foldable_offset(static_cast<uint64_t>(offset));
      } else if (is_const_shift(y) && uses[y] == 1 && b_.at(y).op == Opcode::Shl) {
        folded_[i] = folded_[y] = memory_log2[i] >= 0 && const_of(b_.at(y).args[1]) == static_cast<uint64_t>(memory_log2[i]);
      } else {
        folded_[i] = true;
      }
      if (folded_[i]) continue;
    }
    switch (in.op) {
      case Opcode::Add: case Opcode::Sub: case Opcode::And: case Opcode::Or: case Opcode::Xor:
      case Opcode::AndNot: {
        if (in.type != Type::I64 && in.type != Type::I32) break;
        auto foldable = [&](Value v) { return is_const_shift(v) && uses[v] == 1 && b_.at(v).type == in.type; };
        if (!is_const(in.args[0]) && foldable(in.args[1])) {
          folded_[in.args[1]] = true;
        } else if (commutes(in.op) && !is_const(in.args[1]) && foldable(in.args[0])) {
          // The shifted operand must be the second: lowering swaps them.
          folded_[in.args[0]] = true;
        }
        break;
      }
      default: break;
    }
  }
}

template <typename Fn>
void BlockCompiler::for_each_input(Value v, Fn&& fn) const {
  if (!folded_[v]) {
    fn(v);
    return;
  }
  for (Value a : b_.at(v).args)
    if (a != ir::kNoValue && !is_const(a)) for_each_input(a, fn);
}

void BlockCompiler::analyse() {
  rep_.resize(n_);
  last_use_.assign(n_, 0);
  for (Value i = 0; i < n_; ++i) {
    rep_[i] = i;
    last_use_[i] = i;
  }
  fold_operands();
  find_narrow_ops();
  compute_bits_valid();
  // Values that share their source's register: truncations, and
  // zero-extensions of values already zero above the source width.
  for (Value i = 0; i < n_; ++i) {
    const Inst& in = b_.at(i);
    if (in.dead || in.args[0] == ir::kNoValue || is_const(in.args[0])) continue;
    Value src = in.args[0];
    bool alias = (in.op == Opcode::Trunc && in.type != Type::I1) ||
                 (in.op == Opcode::ZExt && bits_valid_[src] <= type_bits(b_.at(src).type)) ||
                 ((in.op == Opcode::ZExt || in.op == Opcode::SExt) && narrow_[i]) ||
                 (in.op == Opcode::Trunc && in.type == Type::I1 && bits_valid_[src] <= 1);
    if (alias && !folded_[src]) rep_[i] = rep_[src];
  }
  auto use_at = [&](Value v, Value at) {
    if (v == ir::kNoValue) return;
    for_each_input(v, [&](Value in) { last_use_[rep_[in]] = std::max(last_use_[rep_[in]], at); });
  };
  for (Value i = 0; i < n_; ++i) {
    const Inst& in = b_.at(i);
    if (in.dead) continue;
    for (Value a : in.args) use_at(a, i);
  }
  fused_cond_ = ir::kNoValue;
  Value exit_at = static_cast<Value>(n_);
  use_at(b_.exit.cond, exit_at);
  use_at(b_.exit.address, exit_at);
  // An ICmp feeding only the exit branch, with nothing that touches NZCV
  // after it (it is the last live instruction, so nothing else uses it
  // either), becomes "cmp; b.cond"; so does a comis/ucomis whose condition
  // is a single AArch64 one ("fcmp; b.hi").
  Cond fcmp_cond;
  if (b_.exit.kind == ir::ExitKind::Branch && next_live(b_.exit.cond) >= n_ &&
      (b_.at(b_.exit.cond).op == Opcode::ICmp || VectorLowering::fcmp_branch_cond(b_.at(b_.exit.cond), fcmp_cond)))
    fused_cond_ = b_.exit.cond;
  if (fused_cond_ != ir::kNoValue)
    for (Value a : b_.at(fused_cond_).args) use_at(a, exit_at);
  find_side_exit_compares(use_at);
  find_writeback_accesses();
  find_low_only();
  find_xmm_regions();
  find_nan_groups();  // extends the lives of the operands it keeps
  choose_region_checks();
  find_destination_hints();
  find_later_steps();
  analyse_vectors();
  loc_.assign(n_, Loc{});
}

// An ICmp right before the SideExit that is its only user becomes "cmp;
// b.cond" there (its operands then live until the side exit).
template <typename UseAt>
void BlockCompiler::find_side_exit_compares(UseAt&& use_at) {
  side_cond_.assign(n_, 0);
  if (b_.side_exits.empty()) return;
  for (Value s = 0; s < n_; ++s) {
    const Inst& in = b_.at(s);
    if (in.dead || in.op != Opcode::SideExit) continue;
    const Value c = in.args[0];
    if (b_.at(c).op == Opcode::ICmp && next_live(c) == s && rep_[c] == c && !folded_[c] && last_use_[c] == s) {
      side_cond_[c] = 1;
      for (Value a : b_.at(c).args) use_at(a, s);
    }
  }
}

// x86 32-bit arithmetic reaches the IR as 64-bit operations truncated to
// 32 bits (lea, imul r32, address-size sums), and a 32-bit register's
// value as a zero-extension that the next 32-bit operation truncates
// again.  Walking backwards, each value learns how many of its bits its
// users read; a 64-bit operation whose low 32 result bits depend only on
// the operands' low 32 bits, read only that far, is done in W registers
// (zero-extended for free), and an extension read only within its source
// width is the source itself.
bool BlockCompiler::narrowable(Value v) const {
  const Inst& in = b_.at(v);
  if (in.type != Type::I64) return false;
  switch (in.op) {
    case Opcode::ZExt: case Opcode::SExt: return type_bits(b_.at(in.args[0]).type) == 32;
    case Opcode::Not: case Opcode::Neg: case Opcode::Mul: return true;
    case Opcode::Shl: return is_const(in.args[1]) && const_of(in.args[1]) < 32;
    case Opcode::Add: case Opcode::Sub: case Opcode::And: case Opcode::Or: case Opcode::Xor:
    case Opcode::AndNot: {
      // A folded shifted operand must stay exact in 32 bits: LSL below 32.
      const Value y = in.args[1];
      if (is_const(y) || !folded_[y]) return true;
      const Inst& sh = b_.at(y);
      return sh.op == Opcode::Shl && const_of(sh.args[1]) < 32;
    }
    default: return false;
  }
}

void BlockCompiler::find_narrow_ops() {
  narrow_.assign(n_, 0);
  std::vector<uint8_t>& demand = t_scratch.demand;
  demand.assign(n_, 0);
  auto need = [&](Value a, int bits) {
    if (a != ir::kNoValue) demand[a] = std::max(demand[a], static_cast<uint8_t>(bits));
  };
  need(b_.exit.cond, 64);
  need(b_.exit.address, 64);
  // Only 64-bit values can be narrowed: only their demand is kept.
  for (Value u = static_cast<Value>(n_); u-- > 0;) {
    const Inst& in = b_.at(u);
    if (in.dead) continue;
    if (in.type == Type::I64 && demand[u] <= 32 && narrowable(u)) {
      narrow_[u] = true;
      need(in.args[0], 32);
      need(in.args[1], 32);
      continue;
    }
    const int bits = in.op == Opcode::Trunc ? type_bits(in.type) : 64;
    for (Value a : in.args)
      if (a != ir::kNoValue && b_.at(a).type == Type::I64) need(a, bits);
  }
}

void BlockCompiler::compute_bits_valid() {
  bits_valid_.assign(n_, 64);
  for (Value i = 0; i < n_; ++i) {
    const Inst& in = b_.at(i);
    if (in.dead) continue;
    uint8_t bits = 64;
    int tb = type_bits(in.type);
    switch (in.op) {
      case Opcode::Const: bits = static_cast<uint8_t>(in.imm ? 64 - __builtin_clzll(in.imm) : 0); break;
      case Opcode::ICmp:
      case Opcode::Parity:
      case Opcode::GetFlag: bits = 1; break;
      case Opcode::Load:
      case Opcode::AtomicRmw:
      case Opcode::AtomicCas:
      case Opcode::LoadState: bits = static_cast<uint8_t>(tb); break;
      case Opcode::ZExt:  // movzbl then cmp $13, %al: still a byte
        bits = std::min(static_cast<uint8_t>(type_bits(b_.at(in.args[0]).type)), bits_valid_[in.args[0]]);
        if (narrow_[i]) bits = bits_valid_[in.args[0]];  // shares the source's register as it is
        break;
      case Opcode::ExtractBits: bits = static_cast<uint8_t>(in.imm); break;
      case Opcode::Trunc: bits = bits_valid_[in.args[0]]; break;
      default:
        // Everything else computed in a W register is zero above bit 31.
        if (tb <= 32 && in.type != Type::Void && in.type != Type::V128) bits = 32;
        break;
    }
    if (in.type == Type::I1) bits = 1;
    if (narrow_[i] && in.op != Opcode::ZExt && in.op != Opcode::SExt) bits = 32;
    bits_valid_[i] = bits;
  }
}

// `def` is the representative of a SetReg's value: the value itself, or
// what it zero-extends for free (its register already holds all 64 bits).
bool BlockCompiler::hint_allowed(Value def) const {
  const Inst& d = b_.at(def);
  if (folded_[def] || (d.type != Type::I64 && bits_valid_[def] > 32)) return false;
  switch (d.op) {
    case Opcode::Add: case Opcode::Sub: case Opcode::And: case Opcode::Or: case Opcode::Xor:
    case Opcode::AndNot: case Opcode::Mul: case Opcode::Shl: case Opcode::Lshr: case Opcode::Ashr:
    case Opcode::Ror: case Opcode::Load: case Opcode::GuestAddr: case Opcode::ZExt: case Opcode::SExt:
    case Opcode::Select: case Opcode::Not: case Opcode::Neg: case Opcode::Bswap: case Opcode::InsertBits:
      return true;
    default: return false;
  }
}

// A result can be computed straight into the guest register a later SetReg
// writes it to when, from the moment it is computed, nothing else needs
// that register's old contents: every value that holds the register (a
// GetReg, or an earlier such result) is dead by then, and no GetReg, SetReg
// or call of that register lies between the computation and the SetReg.
// Nor a load or store: one that faults must find the register unchanged
// (the value may be the load itself, which writes only when it succeeds).
void BlockCompiler::find_destination_hints() {
  hint_guest_.assign(n_, -1);
  std::array<Value, 16> last_touch;    // last GetReg/SetReg of the register
  std::array<Value, 16> holders_live;  // last use of any value holding it
  last_touch.fill(ir::kNoValue);
  holders_live.fill(0);
  Value last_barrier = ir::kNoValue;
  auto before = [](Value x, Value d) { return x == ir::kNoValue || x < d; };
  for (Value j = 0; j < n_; ++j) {
    const Inst& in = b_.at(j);
    if (in.dead) continue;
    if (opcode_is_call(in.op) || in.op == Opcode::Trap || in.op == Opcode::FpTrapCheck || in.op == Opcode::SideExit ||
        in.op == Opcode::FpRegionCheck || may_fault(in.op))
      last_barrier = j;
    if (in.op == Opcode::GetReg) {
      last_touch[in.aux] = j;
      holders_live[in.aux] = std::max(holders_live[in.aux], last_use_[rep_[j]]);
      continue;
    }
    if (in.op != Opcode::SetReg) continue;
    unsigned g = in.aux;
    Value v = is_const(in.args[0]) ? in.args[0] : rep_[in.args[0]];
    if (!is_const(v) && update_in_access_[v]) {  // in the register from its access on, like a hint
      holders_live[g] = std::max(holders_live[g], last_use_[v]);
      last_touch[g] = j;
      continue;
    }
    bool no_barrier = before(last_barrier, v) || (last_barrier == v && may_fault(b_.at(v).op));
    if (!is_const(v) && hint_guest_[v] < 0 && hint_allowed(v) && before(last_touch[g], v) && no_barrier &&
        holders_live[g] <= v) {
      hint_guest_[v] = static_cast<int8_t>(g);
      holders_live[g] = std::max(holders_live[g], last_use_[rep_[v]]);
    }
    last_touch[g] = j;
  }
}

// A 64-bit register plus or minus a constant that a pre- or post-index
// access can add: -256..255.
bool BlockCompiler::is_small_step(Value v) const {
  const Inst& in = b_.at(v);
  if ((in.op != Opcode::Add && in.op != Opcode::Sub) || in.dead || folded_[v] || rep_[v] != v ||
      in.type != Type::I64 || is_const(in.args[0]) || !is_const(in.args[1]))
    return false;
  const int64_t step = step_of(v);
  return step >= -256 && step <= 255;
}

int64_t BlockCompiler::step_of(Value v) const {
  const Inst& in = b_.at(v);
  const auto c = static_cast<int64_t>(const_of(in.args[1]));
  return in.op == Opcode::Sub ? -c : c;
}

// A guest register stepped by a constant right before a load or store
// through the new value, or right after one through the old (push, call,
// pop, ret, a pointer bumped after its access), and set to the new value
// right then, becomes one access with writeback: "str x, [sp, #-8]!" for
// "t = sp - 8; store [t]; sp = t", "ldr x, [sp], #8" for "load [sp];
// sp += 8".  Precise like the three: an access that faults writes nothing
// back.  Only when the three are adjacent in the IR, so that nothing sees
// the register change early, and the register's old value dies there.
void BlockCompiler::find_writeback_accesses() {
  access_update_.assign(n_, ir::kNoValue);
  update_guest_.assign(n_, -1);
  update_in_access_.assign(n_, 0);
  later_steps_.clear();
  for (Value access = 0; access < n_; ++access) {
    const Inst& in = b_.at(access);
    if (in.dead || !is_memory_op(in.op) || ordered_access(access)) continue;
    const Value addr = in.args[0];
    if (is_const(addr) || folded_[addr]) continue;
    Value update = addr;  // pre-index: the access goes through the new value
    if (!(is_small_step(addr) && next_live(addr) == access)) {
      update = next_live(access);  // post-index: through the old one
      if (update >= n_ || !is_small_step(update) || b_.at(update).args[0] != addr) {
        const Value later = post_index_update(access);
        if (later < n_) later_steps_.push_back({access, later});
        continue;
      }
    }
    mark_writeback(access, update);
  }
}

// Whether `update`, right before the SetReg of its register, is what the
// access can do; then marks the pair.
bool BlockCompiler::mark_writeback(Value access, Value update) {
  const Value set = next_live(std::max(access, update));
  if (set >= n_ || b_.at(set).op != Opcode::SetReg || b_.at(set).args[0] != update) return false;
  const Value base = b_.at(update).args[0];
  if (last_use_[rep_[base]] > std::max(access, update)) return false;
  access_update_[access] = update;
  update_guest_[access] = static_cast<int8_t>(b_.at(set).aux);
  update_in_access_[update] = 1;
  return true;
}

// Post-index steps some instructions after the access (after the
// destination hints, which tell where the base and the step live): only
// when the base is in the register the step goes to and the step was going
// there anyway, so that doing it early costs nothing elsewhere.
void BlockCompiler::find_later_steps() {
  for (const auto& [access, update] : later_steps_) {
    const Value addr = b_.at(access).args[0];
    const Value set = next_live(update);
    if (set >= n_ || b_.at(set).op != Opcode::SetReg) continue;
    const unsigned g = b_.at(set).aux;
    const Value base = rep_[addr];
    const auto in_g = [&](Value v) { return hint_guest_[v] == static_cast<int8_t>(g); };
    const bool base_in_g = (b_.at(base).op == Opcode::GetReg && b_.at(base).aux == g) || in_g(base);
    if (base_in_g && in_g(update) && !touches_guest_gpr(access, update, g)) mark_writeback(access, update);
  }
}

// The step of an access's base register a few instructions after it that
// the access can do itself (post-index): the x86 instruction stepping the
// register comes after the access, so a fault in the access rightly finds
// it unstepped.  Nothing in between may read the old value or see the
// register (a fault, a call, a side exit, a region's check).
Value BlockCompiler::post_index_update(Value access) const {
  constexpr Value kLookAhead = 24;
  const Value addr = b_.at(access).args[0];
  const Value old = rep_[addr];
  // The step is the old value's last use (mark_writeback).
  const Value update = last_use_[old];
  if (update <= access || update >= n_ || update - access > kLookAhead || b_.at(update).args[0] != addr ||
      !is_small_step(update))
    return ir::kNoValue;
  for (Value i = next_live(access); i < update; i = next_live(i)) {
    const Inst& in = b_.at(i);
    if (may_fault(in.op) || opcode_is_call(in.op) || in.op == Opcode::SideExit || in.op == Opcode::Trap ||
        in.op == Opcode::FpRegionCheck || in.op == Opcode::FpTrapBegin || in.op == Opcode::FpTrapCheck)
      return ir::kNoValue;
    bool reads_old = false;
    for (Value a : in.args)
      if (a != ir::kNoValue && !is_const(a)) for_each_input(a, [&](Value x) { reads_old |= rep_[x] == old; });
    if (reads_old) return ir::kNoValue;
  }
  return update;
}

// Whether an instruction strictly between the two reads or writes guest GPR g.
bool BlockCompiler::touches_guest_gpr(Value from, Value to, unsigned g) const {
  for (Value i = next_live(from); i < to; i = next_live(i)) {
    const Inst& in = b_.at(i);
    if ((in.op == Opcode::GetReg || in.op == Opcode::SetReg) && in.aux == g) return true;
  }
  return false;
}

Reg BlockCompiler::alloc_gpr() {
  for (Reg r : regmap::kValueGprs)
    if (!gpr_busy_[r.code]) {
      gpr_busy_[r.code] = true;
      return r;
    }
  throw BlockTooComplex();
}

VReg BlockCompiler::alloc_vreg() {
  for (unsigned i = 0; i < regmap::kNumValueVregs; ++i)
    if (!vreg_busy_[i]) {
      vreg_busy_[i] = true;
      return V(i);
    }
  throw BlockTooComplex();
}

Reg BlockCompiler::def_gpr(Value v) {
  Value r = rep_[v];
  if (r != v) return Reg{loc_[r].reg};  // shares its source's register
  if (hint_guest_[v] >= 0) {
    unsigned g = static_cast<unsigned>(hint_guest_[v]);
    loc_[v] = Loc{Loc::Gpr, regmap::kGuestGpr[g].code, static_cast<int8_t>(g)};
    gpr_holders_[g].push_back(v);
    return regmap::kGuestGpr[g];
  }
  Reg reg = alloc_gpr();
  loc_[v] = Loc{Loc::Gpr, reg.code, -1};
  return reg;
}

VReg BlockCompiler::def_vreg(Value v) {
  VReg reg = alloc_vreg();
  loc_[v] = Loc{Loc::Vreg, reg.code, -1};
  return reg;
}

Reg BlockCompiler::use(Value v, Reg tmp) {
  if (is_const(v)) {
    a_.mov_imm(Size::X, tmp, const_of(v));
    return tmp;
  }
  return Reg{loc_[rep_[v]].reg};
}

VReg BlockCompiler::use_v(Value v) { return VReg{loc_[rep_[v]].reg}; }

void BlockCompiler::release_dead_args(Value at) {
  auto release_one = [&](Value v) {
    Value r = rep_[v];
    Loc& l = loc_[r];
    if (last_use_[r] > at || l.guest >= 0) return;
    if (l.kind == Loc::Gpr) gpr_busy_[l.reg] = false;
    if (l.kind == Loc::Vreg && l.reg < regmap::kNumValueVregs) vreg_busy_[l.reg] = false;
    if (l.kind == Loc::Gpr || l.kind == Loc::Vreg) l.kind = Loc::None;
  };
  auto release = [&](Value v) {
    if (v != ir::kNoValue) for_each_input(v, release_one);
  };
  const Inst& in = b_.at(at);
  for (Value a : in.args) release(a);
  if (!opcode_has_side_effect(in.op) || in.type != Type::Void) release(at);
  // A NaN-check group's root is where its members and their operands die.
  if (vec_.nan_first.empty() || vec_.nan_first[at] == ir::kNoValue) return;
  for (Value m = vec_.nan_first[at]; m < at; ++m)
    if (vec_.nan_root[m] == at) {
      release(m);
      for (Value a : b_.at(m).args) release(a);
    }
}

// Before guest register `guest` changes, values that still read its old
// contents through the alias get their own register.
void BlockCompiler::evacuate_guest_gpr(unsigned guest, Value at) {
  for (Value r : gpr_holders_[guest]) {
    Loc& l = loc_[r];
    if (l.kind != Loc::Gpr || l.guest != static_cast<int8_t>(guest)) continue;  // moved already
    if (last_use_[r] <= at) {
      l.guest = -1;
      l.kind = Loc::None;
      continue;
    }
    Reg fresh = alloc_gpr();
    a_.mov(Size::X, fresh, Reg{l.reg});
    l = Loc{Loc::Gpr, fresh.code, -1};
  }
  gpr_holders_[guest].clear();
}

void BlockCompiler::evacuate_all_guest(Value at) {
  for (unsigned g = 0; g < 16; ++g) evacuate_guest_gpr(g, at);
  for (Value r = 0; r < at; ++r) {
    Loc& l = loc_[r];
    if (rep_[r] != r || l.kind != Loc::Vreg || l.guest < 0 || last_use_[r] <= at) continue;
    VReg fresh = alloc_vreg();
    a_.mov(VArr::B16, fresh, VReg{l.reg});
    l = Loc{Loc::Vreg, fresh.code, -1};
  }
}

// A helper call clobbers x0..x18 and v0..v31: live values there move to
// callee-saved registers (vectors cannot survive; the block is split).
void BlockCompiler::preserve_caller_saved(Value at) {
  for (Value r = 0; r < at; ++r) {
    Loc& l = loc_[r];
    if (rep_[r] != r || last_use_[r] <= at) continue;
    if (l.kind == Loc::Vreg) throw BlockTooComplex();
    if (l.kind != Loc::Gpr || !regmap::is_caller_saved(Reg{l.reg}) || l.guest >= 0) continue;
    Reg fresh{0};
    bool found = false;
    for (Reg c : regmap::kValueGprs)
      if (!regmap::is_caller_saved(c) && !gpr_busy_[c.code]) {
        fresh = c;
        found = true;
        break;
      }
    if (!found) throw BlockTooComplex();
    gpr_busy_[fresh.code] = true;
    gpr_busy_[l.reg] = false;
    a_.mov(Size::X, fresh, Reg{l.reg});
    l.reg = fresh.code;
  }
}

void BlockCompiler::compile() {
  block_begin_ = a_.cursor();
  a_.bind(main_entry_);
  current_rip_ = b_.guest_start;
  analyse();
  for (Value v = 0; v < n_; ++v) {
    const Inst& in = b_.at(v);
    if (in.insn_start) {
      mark_insn(b_.guest_start + in.guest_offset, in.replay, in.replay != 0 && vec_.region_checked_at_end(v));
      if (in.replay == 1 && vec_.region_checked_at_end(v)) VectorLowering(*this).begin_checked_region();
    }
    if (in.dead || folded_[v] || update_in_access_[v]) continue;
    lower(v);
    release_dead_args(v);
    if (access_update_[v] != ir::kNoValue) release_dead_args(access_update_[v]);
  }
  lower_exit();
  emit_side_exit_stubs();
  emit_cold_paths();
  if (b_.flags_live_in && cfg_.materialise_flags) emit_indirect_entry();
  emit_address_pool();
}

bool compile_block(const ir::Block& block, Assembler& a, const BackendConfig& config,
                   std::vector<InsnMark>* marks, uint32_t* indirect_entry, AddressPool* pool) {
  if (marks) marks->clear();
  BlockCompiler compiler(block, a, config);
  compiler.set_marks(marks);
  compiler.compile();
  if (indirect_entry) *indirect_entry = compiler.indirect_entry_words();
  if (pool) *pool = compiler.address_pool();
  return !a.overflowed();
}

}  // namespace phybin::arm64
