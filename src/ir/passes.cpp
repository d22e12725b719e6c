#include "ir/passes.h"

#include <algorithm>
#include <array>

#include "common/guest_state.h"
#include "ir/fp_mode.h"

namespace phybin::ir {
namespace {

void rewrite_args(Inst& in, const std::vector<Value>& replace) {
  for (Value& a : in.args)
    if (a != kNoValue) a = replace[a];
}

void rewrite_exit(Exit& e, const std::vector<Value>& replace) {
  if (e.cond != kNoValue) e.cond = replace[e.cond];
  if (e.address != kNoValue) e.address = replace[e.address];
}

uint64_t mask_of(Type t) {
  int bits = type_bits(t);
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

bool compare_constants(Cond c, Type t, uint64_t a, uint64_t b) {
  int bits = type_bits(t);
  uint64_t m = mask_of(t);
  a &= m;
  b &= m;
  auto sa = bits >= 64 ? static_cast<int64_t>(a) : static_cast<int64_t>(a << (64 - bits)) >> (64 - bits);
  auto sb = bits >= 64 ? static_cast<int64_t>(b) : static_cast<int64_t>(b << (64 - bits)) >> (64 - bits);
  switch (c) {
    case Cond::EQ: return a == b;
    case Cond::NE: return a != b;
    case Cond::ULT: return a < b;
    case Cond::ULE: return a <= b;
    case Cond::UGT: return a > b;
    case Cond::UGE: return a >= b;
    case Cond::SLT: return sa < sb;
    case Cond::SLE: return sa <= sb;
    case Cond::SGT: return sa > sb;
    case Cond::SGE: return sa >= sb;
  }
  return false;
}

}  // namespace

// Per-block tables of the passes: reused, not allocated for every block.
static std::vector<Value>& scratch_values(size_t n, Value fill) {
  static thread_local std::vector<Value> table;
  table.assign(n, fill);
  return table;
}

void forward_state(Block& block) {
  std::vector<Value>& replace = scratch_values(block.insts.size(), 0);
  std::array<Value, kNumGuestGprs> reg_value;
  std::array<Value, 64> flag_value;
  std::array<Value, 16> xmm_value;
  reg_value.fill(kNoValue);
  flag_value.fill(kNoValue);
  xmm_value.fill(kNoValue);
  for (Value i = 0; i < block.insts.size(); ++i) {
    Inst& in = block.insts[i];
    replace[i] = i;
    if (in.dead) continue;
    rewrite_args(in, replace);
    // A read takes the value last written or read; else later reads share it.
    auto read = [&](Value& known) {
      if (known != kNoValue) {
        replace[i] = known;
        in.dead = true;
      } else {
        known = i;
      }
    };
    switch (in.op) {
      case Opcode::SetReg: reg_value[in.aux] = in.args[0]; break;
      case Opcode::GetReg: read(reg_value[in.aux]); break;
      case Opcode::SetXmm: xmm_value[in.aux] = in.args[0]; break;
      case Opcode::GetXmm: read(xmm_value[in.aux]); break;
      // A flag may be set from a wider value's bit 0 (AF from an
      // ExtractBits): only an I1 can stand in for GetFlag.
      case Opcode::SetFlag:
        flag_value[in.aux] = block.at(in.args[0]).type == Type::I1 ? in.args[0] : kNoValue;
        break;
      case Opcode::GetFlag: read(flag_value[in.aux]); break;
      case Opcode::SetFlags:
      case Opcode::LazyFlags: flag_value.fill(kNoValue); break;
      case Opcode::CallHelper:
      case Opcode::CallNative:
        reg_value.fill(kNoValue);
        flag_value.fill(kNoValue);
        xmm_value.fill(kNoValue);
        break;
      default: break;
    }
  }
  rewrite_exit(block.exit, replace);
}

void eliminate_dead_flags(Block& block) {
  uint64_t live = block.exit.live_flags;
  bool may_fault = false;  // in the guest instruction being walked
  for (size_t i = block.insts.size(); i-- > 0;) {
    Inst& in = block.insts[i];
    if (!in.dead) {
      switch (in.op) {
        case Opcode::SetFlag:
          if (!(live & kFlagMask(static_cast<FlagBit>(in.aux)))) in.dead = true;
          live &= ~kFlagMask(static_cast<FlagBit>(in.aux));
          break;
        case Opcode::GetFlag: live |= kFlagMask(static_cast<FlagBit>(in.aux)); break;
        case Opcode::SetFlags: live &= ~(kArithFlags | kFlagMask(kDF)); break;
        case Opcode::LazyFlags: live &= ~in.imm; break;
        case Opcode::SideExit: live |= block.side_exits[in.aux].live_flags; break;
        case Opcode::GetFlags:
        case Opcode::CallHelper:
        case Opcode::CallNative:
        case Opcode::FpTrapCheck:
        case Opcode::Trap: live = ~uint64_t{0}; break;
        case Opcode::Load: case Opcode::Store: case Opcode::VLoad: case Opcode::VStore:
        case Opcode::VCheckAlign: case Opcode::AtomicRmw: case Opcode::AtomicCas: case Opcode::FpRegionCheck:
          may_fault = true;
          break;
        default: break;
      }
    }
    // A guest handler that returns from a fault runs the instruction
    // again: the flags the code from there on reads must be in RFLAGS
    // (the IR may have handed them to a later reader as values).
    if (in.insn_start) {
      if (may_fault) live |= in.flags_live_in;
      may_fault = false;
    }
  }
}

void eliminate_dead_register_writes(Block& block) {
  // Walking backwards: a SetReg is dead when the same register is written
  // again before anything reads it.  Calls and traps read all of them, and
  // so do memory accesses: one may fault, and the guest's signal handler
  // must then see every register as it was before the faulting instruction.
  // The same for XMM registers.
  uint32_t overwritten = 0;  // bit per guest GPR
  uint32_t xmm_overwritten = 0;
  for (size_t i = block.insts.size(); i-- > 0;) {
    Inst& in = block.insts[i];
    if (in.dead) continue;
    switch (in.op) {
      case Opcode::SetReg:
        if (overwritten & (1u << in.aux)) in.dead = true;
        overwritten |= 1u << in.aux;
        break;
      case Opcode::GetReg: overwritten &= ~(1u << in.aux); break;
      case Opcode::SetXmm:
        if (xmm_overwritten & (1u << in.aux)) in.dead = true;
        xmm_overwritten |= 1u << in.aux;
        break;
      case Opcode::GetXmm: xmm_overwritten &= ~(1u << in.aux); break;
      case Opcode::CallHelper:
      case Opcode::CallNative:
      case Opcode::Trap:
      case Opcode::FpTrapCheck:
      case Opcode::SideExit:
      case Opcode::Load:
      case Opcode::Store:
      case Opcode::VLoad:
      case Opcode::VStore:
      case Opcode::VCheckAlign:
      case Opcode::AtomicRmw:
      case Opcode::AtomicCas:
      case Opcode::FpRegionCheck:
        overwritten = 0;
        xmm_overwritten = 0;
        break;
      default: break;
    }
  }
}

void reassociate_offsets(Block& block) {
  // (x + c1) + c2 -> x + (c1 + c2), and the same with subtractions, when
  // the inner sum has no other user: it then dies.  When it lives on (a
  // pointer bump written back to its register, then -8(%rax) read through
  // it) nothing is saved, and x would have to outlive the register write:
  // the backend copies it away first.
  std::vector<uint32_t>& uses = scratch_values(block.insts.size(), 0);
  for (const Inst& in : block.insts)
    if (!in.dead)
      for (Value a : in.args)
        if (a != kNoValue) ++uses[a];
  auto offset_of = [&](const Inst& in, int64_t& c) {
    if ((in.op != Opcode::Add && in.op != Opcode::Sub) || in.type != Type::I64) return false;
    const Inst& k = block.at(in.args[1]);
    if (k.op != Opcode::Const) return false;
    c = in.op == Opcode::Add ? static_cast<int64_t>(k.imm) : -static_cast<int64_t>(k.imm);
    return true;
  };
  for (Inst& in : block.insts) {
    int64_t outer, inner;
    if (in.dead || !offset_of(in, outer) || uses[in.args[1]] != 1) continue;
    const Inst& base = block.at(in.args[0]);
    if (base.dead || uses[in.args[0]] != 1 || !offset_of(base, inner)) continue;
    int64_t sum = outer + inner;
    --uses[in.args[0]];
    in.args[0] = base.args[0];
    in.op = sum >= 0 ? Opcode::Add : Opcode::Sub;
    block.at(in.args[1]).imm = static_cast<uint64_t>(sum >= 0 ? sum : -sum);
  }
}

void eliminate_redundant_align_checks(Block& block) {
  // An address is (base value + constant); two with the same base and
  // constants equal modulo 16 are both aligned or both not, so only the
  // first check can fault.  Loops of movaps through one pointer
  // (memcpy, spills to the stack) keep one check per pointer.  A check
  // with an offset that is a multiple of 16 tests the base itself, which
  // leaves the offset to the load or store's addressing mode.
  static thread_local std::vector<std::pair<Value, uint64_t>> checked;  // reused, like the tables above
  checked.clear();
  for (Inst& in : block.insts) {
    if (in.dead || in.op != Opcode::VCheckAlign) continue;
    Value base = in.args[0];
    uint64_t offset = 0;
    for (;;) {
      const Inst& a = block.at(base);
      if ((a.op != Opcode::Add && a.op != Opcode::Sub) || a.type != Type::I64 ||
          block.at(a.args[1]).op != Opcode::Const)
        break;
      const uint64_t k = block.at(a.args[1]).imm;
      offset += a.op == Opcode::Add ? k : 0 - k;
      base = a.args[0];
    }
    const std::pair<Value, uint64_t> key{base, offset & 15};
    if (std::find(checked.begin(), checked.end(), key) != checked.end()) {
      in.dead = true;
      continue;
    }
    checked.push_back(key);
    if (key.second == 0) in.args[0] = base;
  }
}

void fold_constants(Block& block) {
  auto is_const = [&](Value v) { return v != kNoValue && block.at(v).op == Opcode::Const; };
  for (Inst& in : block.insts) {
    if (in.dead || !is_const(in.args[0]) || (opcode_arg_count(in.op) == 2 && !is_const(in.args[1])))
      continue;
    uint64_t a = block.at(in.args[0]).imm;
    uint64_t b = opcode_arg_count(in.op) == 2 ? block.at(in.args[1]).imm : 0;
    uint64_t r;
    switch (in.op) {
      case Opcode::Add: r = a + b; break;
      case Opcode::Sub: r = a - b; break;
      case Opcode::And: r = a & b; break;
      case Opcode::Or: r = a | b; break;
      case Opcode::Xor: r = a ^ b; break;
      case Opcode::Shl: r = b < 64 ? a << b : 0; break;
      case Opcode::Lshr: r = b < 64 ? (a & mask_of(in.type)) >> b : 0; break;
      case Opcode::Not: r = ~a; break;
      case Opcode::Neg: r = 0 - a; break;
      case Opcode::ZExt: r = a & mask_of(block.at(in.args[0]).type); break;
      case Opcode::SExt: {
        int bits = type_bits(block.at(in.args[0]).type);
        r = bits >= 64 ? a : static_cast<uint64_t>(static_cast<int64_t>(a << (64 - bits)) >> (64 - bits));
        break;
      }
      case Opcode::Parity: r = __builtin_parityll(a & 0xff) ? 0 : 1; break;
      case Opcode::ICmp: r = compare_constants(static_cast<Cond>(in.aux), block.at(in.args[0]).type, a, b); break;
      case Opcode::Trunc: r = a; break;
      default: continue;
    }
    in.op = Opcode::Const;
    in.imm = r & mask_of(in.type);
    in.args[0] = in.args[1] = in.args[2] = kNoValue;
  }
}

void eliminate_dead_code(Block& block) {
  std::vector<uint32_t>& uses = scratch_values(block.insts.size(), 0);
  auto count = [&](Value v) {
    if (v != kNoValue) ++uses[v];
  };
  for (const Inst& in : block.insts)
    if (!in.dead)
      for (Value a : in.args) count(a);
  count(block.exit.cond);
  count(block.exit.address);
  for (size_t i = block.insts.size(); i-- > 0;) {
    Inst& in = block.insts[i];
    if (in.dead || uses[i] != 0 || opcode_has_side_effect(in.op) || raises_fp_flags(in)) continue;
    in.dead = true;
    for (Value a : in.args)
      if (a != kNoValue) --uses[a];
  }
}

void optimize(Block& block) {
  forward_state(block);
  fold_constants(block);
  eliminate_dead_flags(block);
  // Before reassociating: a dead register write no longer counts as a use.
  eliminate_dead_register_writes(block);
  reassociate_offsets(block);
  eliminate_redundant_align_checks(block);
  eliminate_dead_code(block);
}

}  // namespace phybin::ir
