// FaultFlagTracker: which flags of a block's last flag writer the fault
// path can work out again, and how (see fault_flags.h).
#include "x86/fault_flags.h"

#include <bit>

#include "common/guest_state.h"
#include "x86/lazy_flags.h"
#include "x86/operands.h"

namespace phybin::x86 {

namespace {

constexpr uint64_t kC = kFlagMask(kCF), kP = kFlagMask(kPF), kA = kFlagMask(kAF), kZ = kFlagMask(kZF),
                   kS = kFlagMask(kSF), kO = kFlagMask(kOF);
constexpr uint64_t kStatus = kArithFlags;

uint64_t mask_of(unsigned bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }
uint64_t sign_of(uint64_t v, unsigned bits) { return (v >> (bits - 1)) & 1; }

bool is_memory(const ZydisDecodedOperand& op) {
  return op.type == ZYDIS_OPERAND_TYPE_MEMORY && op.mem.type == ZYDIS_MEMOP_TYPE_MEM;
}

bool has_explicit_operand(const DecodedInsn& d, unsigned k) {
  return d.info.operand_count_visible > k && d.ops[k].visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT;
}

bool same_register(const DecodedInsn& d) {
  return d.ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER && d.ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER &&
         d.ops[0].reg.value == d.ops[1].reg.value;
}

uint64_t status_written(const ZydisDecodedInstruction& info) { return flags_maybe_written(info) & kStatus; }

// The count of a shift or rotate when it is a constant (by 1, by an
// immediate), masked as the CPU masks it; -1 when it is CL.
int constant_count(const DecodedInsn& d) {
  // CL shows as an implicit operand (D2/D3), 1 as an immediate or nothing.
  uint64_t count = 1;
  if (d.info.operand_count_visible > 1) {
    if (d.ops[1].type != ZYDIS_OPERAND_TYPE_IMMEDIATE) return -1;
    count = d.ops[1].imm.value.u;
  }
  return static_cast<int>(count & (d.info.operand_width == 64 ? 63 : 31));
}

// Shifts and rotates by CL, and by an immediate count of 0: when the
// count is 0 the flags stay those of the writer before.
bool conditional(const DecodedInsn& d) { return status_written(d.info) && !(flags_killed(d.info) & kStatus); }

bool register_destination(const DecodedInsn& d) {
  return d.ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER && gpr_holding(d.ops[0].reg.value) >= 0;
}

// Writers whose flags depend on the destination's old value, which their
// result does not give back: translated code saves that register in
// GuestState::fault_spill before them (when an instruction after them may
// fault), and the fault path computes their flags from it.
bool spills(const DecodedInsn& d) {
  if (!register_destination(d)) return false;
  switch (d.info.mnemonic) {
    case ZYDIS_MNEMONIC_SHL: case ZYDIS_MNEMONIC_SHR: case ZYDIS_MNEMONIC_SAR: return constant_count(d) != 0;
    case ZYDIS_MNEMONIC_IMUL: return d.info.operand_count_visible == 2;
    case ZYDIS_MNEMONIC_ADD: return same_register(d);  // add r, r: the input is gone
    default: return false;
  }
}

// Whether flags_from_inputs can redo d when it overwrites a register
// another of its inputs uses (`add rax, [rax+8]`, `imul eax, eax, 5`).
bool redone_from_inputs(const DecodedInsn& d) {
  if (!register_destination(d)) return false;
  switch (d.info.mnemonic) {
    case ZYDIS_MNEMONIC_ADD: case ZYDIS_MNEMONIC_SUB: return true;
    case ZYDIS_MNEMONIC_IMUL: return d.info.operand_count_visible >= 2;
    default: return spills(d);
  }
}

// The status flags reconstruct() restores after d (whose inputs are
// intact; `spilled`: its destination's old value saved): a rotation is
// undone from its result; a shift without the spill keeps ZF, SF, PF (AF 0)
// of the result while its CF (and shl's and shr's OF) came from bits that
// are gone; a one-operand multiply leaves both halves.
uint64_t recoverable_flags(const DecodedInsn& d, bool spilled) {
  switch (d.info.mnemonic) {
    case ZYDIS_MNEMONIC_ADD: return spilled || !same_register(d) ? kStatus : 0;
    case ZYDIS_MNEMONIC_SUB: case ZYDIS_MNEMONIC_CMP: case ZYDIS_MNEMONIC_AND: case ZYDIS_MNEMONIC_OR:
    case ZYDIS_MNEMONIC_XOR: case ZYDIS_MNEMONIC_TEST: case ZYDIS_MNEMONIC_NEG:
      return kStatus;
    case ZYDIS_MNEMONIC_INC: case ZYDIS_MNEMONIC_DEC: return kStatus & ~kC;
    // OF of a rotate by more than 1 is undefined; phybin computes it from
    // the result as for 1, and so does this.  By CL the count must be
    // told at the fault: not when CL is the rotated register.
    case ZYDIS_MNEMONIC_ROL: case ZYDIS_MNEMONIC_ROR:
      if (constant_count(d) == 0) return 0;
      if (constant_count(d) < 0 && gpr_holding(d.ops[0].reg.value) == RCX) return 0;
      return kC | kO;
    case ZYDIS_MNEMONIC_SHL: case ZYDIS_MNEMONIC_SHR: case ZYDIS_MNEMONIC_SAR:
      if (spilled) return kStatus;
      if (constant_count(d) <= 0) return 0;
      // sar's OF: 0 (by more than 1 undefined; phybin's 0 too).
      return kZ | kS | kP | kA | (d.info.mnemonic == ZYDIS_MNEMONIC_SAR ? kO : 0);
    case ZYDIS_MNEMONIC_MUL: return kC | kO;
    case ZYDIS_MNEMONIC_IMUL: return spilled || d.info.operand_count_visible == 3 ? kC | kO : 0;
    default: return 0;
  }
}

// Guest address of memory operand `op` of d, from the registers now.
uint64_t effective_address(const DecodedInsn& d, const ZydisDecodedOperand& op, const FaultView& at) {
  const auto& m = op.mem;
  uint64_t ea = static_cast<uint64_t>(m.disp.value);
  if (m.base == ZYDIS_REGISTER_RIP) ea += d.address + d.info.length;
  else if (m.base != ZYDIS_REGISTER_NONE) ea += at.gpr[gpr_holding(m.base)];
  if (m.index != ZYDIS_REGISTER_NONE) ea += at.gpr[gpr_holding(m.index)] * m.scale;
  if (d.info.address_width == 32) ea &= 0xffffffff;
  if (m.segment == ZYDIS_REGISTER_FS) ea += at.fs_base;
  if (m.segment == ZYDIS_REGISTER_GS) ea += at.gs_base;
  return ea;
}

// Operand k of d as it is now, in the instruction's operand width.
bool operand_now(const DecodedInsn& d, unsigned k, const FaultView& at, uint64_t& v) {
  const ZydisDecodedOperand& op = d.ops[k];
  const uint64_t mask = mask_of(d.info.operand_width);
  switch (op.type) {
    case ZYDIS_OPERAND_TYPE_REGISTER: {
      const int n = gpr_holding(op.reg.value);
      if (n < 0) return false;
      v = (at.gpr[n] >> (is_high_byte(op.reg.value) ? 8 : 0)) & mask;
      return true;
    }
    case ZYDIS_OPERAND_TYPE_IMMEDIATE: v = op.imm.value.u & mask; return true;
    case ZYDIS_OPERAND_TYPE_MEMORY:
      v = 0;
      return is_memory(op) && at.read(&v, effective_address(d, op, at), d.info.operand_width / 8);
    default: return false;
  }
}

// The two-operand ALU forms: operand 0 now holds the result (or, for cmp
// and test, is unchanged), operand 1 is unchanged.
bool alu_flags(const DecodedInsn& d, const FaultView& at, uint64_t& out) {
  const unsigned bytes = d.info.operand_width / 8;
  const uint64_t mask = mask_of(d.info.operand_width);
  uint64_t x, b = 0;
  if (!operand_now(d, 0, at, x)) return false;
  if (has_explicit_operand(d, 1) && !operand_now(d, 1, at, b)) return false;
  switch (d.info.mnemonic) {
    case ZYDIS_MNEMONIC_ADD: out = add_flags((x - b) & mask, b, bytes); return true;
    case ZYDIS_MNEMONIC_SUB:
      out = same_register(d) ? sub_flags(0, 0, bytes) : sub_flags((x + b) & mask, b, bytes);
      return true;
    case ZYDIS_MNEMONIC_CMP: out = sub_flags(x, b, bytes); return true;
    case ZYDIS_MNEMONIC_AND: case ZYDIS_MNEMONIC_OR: case ZYDIS_MNEMONIC_XOR: out = logic_flags(x, bytes); return true;
    case ZYDIS_MNEMONIC_TEST: out = logic_flags(x & b, bytes); return true;
    case ZYDIS_MNEMONIC_NEG: out = lazy_flags_value(lazy_record::of(LazyOp::Neg, bytes), (0 - x) & mask, 0); return true;
    case ZYDIS_MNEMONIC_INC: out = lazy_flags_value(lazy_record::of(LazyOp::Inc, bytes), x - 1, 0); return true;
    case ZYDIS_MNEMONIC_DEC: out = lazy_flags_value(lazy_record::of(LazyOp::Dec, bytes), x + 1, 0); return true;
    default: return false;
  }
}

bool shift_flags(const DecodedInsn& d, const FaultView& at, uint64_t& out) {
  const unsigned bits = d.info.operand_width;
  uint64_t r;
  if (!operand_now(d, 0, at, r)) return false;
  switch (d.info.mnemonic) {
    case ZYDIS_MNEMONIC_ROL: {
      const uint64_t cf = r & 1;
      out = (cf ? kC : 0) | ((sign_of(r, bits) ^ cf) ? kO : 0);
      return true;
    }
    case ZYDIS_MNEMONIC_ROR:
      out = (sign_of(r, bits) ? kC : 0) | ((sign_of(r, bits) ^ sign_of(r << 1, bits)) ? kO : 0);
      return true;
    default: out = logic_flags(r, bits / 8); return true;  // OF of sar by 1: 0
  }
}

// Whether the signed product of two `bits`-wide values does not fit them.
bool signed_product_overflows(uint64_t a, uint64_t b, unsigned bits) {
  const auto sa = static_cast<__int128>(static_cast<int64_t>(a << (64 - bits)) >> (64 - bits));
  const auto sb = static_cast<__int128>(static_cast<int64_t>(b << (64 - bits)) >> (64 - bits));
  const __int128 p = sa * sb;
  const auto low = static_cast<__int128>(static_cast<int64_t>(static_cast<uint64_t>(p) << (64 - bits)) >> (64 - bits));
  return p != low;
}

// CF = OF = the product does not fit the low half.
bool multiply_flags(const DecodedInsn& d, const FaultView& at, uint64_t& out) {
  const unsigned bits = d.info.operand_width;
  const uint64_t mask = mask_of(bits);
  bool overflow;
  if (d.info.operand_count_visible == 1) {
    const uint64_t lo = bits == 8 ? at.gpr[RAX] & 0xff : at.gpr[RAX] & mask;
    const uint64_t hi = bits == 8 ? (at.gpr[RAX] >> 8) & 0xff : at.gpr[RDX] & mask;
    overflow = d.info.mnemonic == ZYDIS_MNEMONIC_MUL ? hi != 0 : hi != (sign_of(lo, bits) ? mask : 0);
  } else {
    uint64_t a, b;
    if (!operand_now(d, 1, at, a) || !operand_now(d, 2, at, b)) return false;
    overflow = signed_product_overflows(a, b, bits);
  }
  out = overflow ? kC | kO : 0;
  return true;
}

bool flags_of(const DecodedInsn& d, const FaultView& at, uint64_t& out) {
  switch (d.info.mnemonic) {
    case ZYDIS_MNEMONIC_ROL: case ZYDIS_MNEMONIC_ROR: case ZYDIS_MNEMONIC_SHL: case ZYDIS_MNEMONIC_SHR:
    case ZYDIS_MNEMONIC_SAR:
      return shift_flags(d, at, out);
    case ZYDIS_MNEMONIC_MUL: case ZYDIS_MNEMONIC_IMUL: return multiply_flags(d, at, out);
    default: return alu_flags(d, at, out);
  }
}

// The count of a shift or rotate as it was (CL from the registers `at`).
unsigned count_at(const DecodedInsn& d, const FaultView& at) {
  const int c = constant_count(d);
  return c >= 0 ? static_cast<unsigned>(c) : at.gpr[RCX] & (d.info.operand_width == 64 ? 63 : 31);
}

// phybin's flags of a shift by n != 0 of a (family_shift.cpp): narrow
// operands are shifted in 32 bits.
uint64_t shift_flags_from_input(ZydisMnemonic m, uint64_t a, unsigned n, unsigned bits) {
  const uint64_t mask = mask_of(bits);
  uint64_t r, cf, of;
  switch (m) {
    case ZYDIS_MNEMONIC_SHL:
      if (bits < 32) {
        const uint64_t wide = (a << n) & 0xffffffff;
        r = wide & mask;
        cf = (wide >> bits) & 1;
      } else {
        r = (a << n) & mask;
        cf = (a >> (bits - n)) & 1;
      }
      of = sign_of(r, bits) ^ cf;
      break;
    case ZYDIS_MNEMONIC_SHR:
      r = (a >> n) & mask;
      cf = (a >> (n - 1)) & 1;
      of = sign_of(a, bits);
      break;
    default: {  // SAR
      const auto sa = static_cast<int64_t>(a << (64 - bits)) >> (64 - bits);
      r = static_cast<uint64_t>(sa >> n) & mask;
      cf = static_cast<uint64_t>(sa >> (n - 1)) & 1;
      of = 0;
      break;
    }
  }
  return logic_flags(r, bits / 8) | (cf ? kC : 0) | (of ? kO : 0);
}

// The flags of a writer that destroys an input (its destination, saved in
// the spill), from its inputs as they were (`before`).
bool flags_from_inputs(const DecodedInsn& d, const FaultView& before, uint64_t& out) {
  const unsigned bits = d.info.operand_width;
  uint64_t a;
  if (!operand_now(d, 0, before, a)) return false;
  switch (d.info.mnemonic) {
    case ZYDIS_MNEMONIC_ADD: case ZYDIS_MNEMONIC_SUB: {
      uint64_t b;
      if (!operand_now(d, 1, before, b)) return false;
      out = d.info.mnemonic == ZYDIS_MNEMONIC_ADD ? add_flags(a, b, bits / 8) : sub_flags(a, b, bits / 8);
      return true;
    }
    case ZYDIS_MNEMONIC_IMUL: {
      const bool three = d.info.operand_count_visible == 3;
      uint64_t b;
      if ((three && !operand_now(d, 1, before, a)) || !operand_now(d, three ? 2 : 1, before, b)) return false;
      out = signed_product_overflows(a, b, bits) ? kC | kO : 0;
      return true;
    }
    default: out = shift_flags_from_input(d.info.mnemonic, a, count_at(d, before), bits); return true;
  }
}

// How much a push or pop moves RSP (0 for other instructions, and for
// pop rsp, which loads it).
int64_t stack_move(const DecodedInsn& d) {
  switch (d.info.mnemonic) {
    case ZYDIS_MNEMONIC_PUSH: case ZYDIS_MNEMONIC_PUSHFQ: return -int64_t{d.info.operand_width / 8};
    case ZYDIS_MNEMONIC_POP:
      if (d.ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER && gpr_holding(d.ops[0].reg.value) == RSP) return 0;
      return d.info.operand_width / 8;
    default: return 0;
  }
}

// What reconstruct() reads of the registers and memory at the fault to
// redo a writer: its operands (bit k: visible operand k; its result, or an
// unchanged input) and other GPRs.  A spilled destination comes from the
// spill.  Logic ops, inc/dec/neg and rotates need their result only, so
// the sources may change after them.
struct ReadAtFault {
  uint32_t operands = 0;
  uint32_t gprs = 0;
  bool op0_unchanged = false;  // cmp, test: operand 0 is an input
};

ReadAtFault read_at_fault(const DecodedInsn& d) {
  constexpr uint32_t kRcx = 1u << RCX;
  const bool by_cl = constant_count(d) < 0;
  switch (d.info.mnemonic) {
    case ZYDIS_MNEMONIC_ADD: case ZYDIS_MNEMONIC_SUB: return {0b11, 0};
    case ZYDIS_MNEMONIC_CMP: case ZYDIS_MNEMONIC_TEST: return {0b11, 0, true};
    case ZYDIS_MNEMONIC_AND: case ZYDIS_MNEMONIC_OR: case ZYDIS_MNEMONIC_XOR: case ZYDIS_MNEMONIC_INC:
    case ZYDIS_MNEMONIC_DEC: case ZYDIS_MNEMONIC_NEG:
      return {0b1, 0};
    case ZYDIS_MNEMONIC_ROL: case ZYDIS_MNEMONIC_ROR: case ZYDIS_MNEMONIC_SHL: case ZYDIS_MNEMONIC_SHR:
    case ZYDIS_MNEMONIC_SAR:
      return {0b1, by_cl ? kRcx : 0};
    case ZYDIS_MNEMONIC_MUL: return {0, (1u << RAX) | (1u << RDX)};  // the product's halves
    case ZYDIS_MNEMONIC_IMUL:
      if (d.info.operand_count_visible == 1) return {0, (1u << RAX) | (1u << RDX)};
      return {d.info.operand_count_visible == 2 ? 0b11u : 0b110u, 0, true};
    default: return {};
  }
}

}  // namespace

InsnEffects effects_of(const DecodedInsn& insn, bool fp_traps) {
  const ZydisDecodedInstruction& info = insn.info;
  InsnEffects e;
  bool hint = false;
  switch (info.mnemonic) {
    // Hints: no access, no fault.
    case ZYDIS_MNEMONIC_NOP: case ZYDIS_MNEMONIC_PREFETCHT0: case ZYDIS_MNEMONIC_PREFETCHT1:
    case ZYDIS_MNEMONIC_PREFETCHT2: case ZYDIS_MNEMONIC_PREFETCHNTA: case ZYDIS_MNEMONIC_PREFETCHW:
    case ZYDIS_MNEMONIC_PREFETCH:
      hint = true;
      break;
    case ZYDIS_MNEMONIC_DIV: case ZYDIS_MNEMONIC_IDIV: case ZYDIS_MNEMONIC_XGETBV: e.may_fault = true; break;
    // Their one hidden operand, [RDI], is not decoded (DecodedInsn::operand_count).
    case ZYDIS_MNEMONIC_MASKMOVDQU: case ZYDIS_MNEMONIC_MASKMOVQ: e.may_fault = e.writes_memory = true; break;
    default: break;
  }
  if (info.meta.isa_ext == ZYDIS_ISA_EXT_X87) e.may_fault = true;
  if (fp_traps && (info.meta.exception_class == ZYDIS_EXCEPTION_CLASS_SSE2 ||
                   info.meta.exception_class == ZYDIS_EXCEPTION_CLASS_SSE3))
    e.may_fault = true;
  for (unsigned i = 0; i < insn.operand_count; ++i) {
    const ZydisDecodedOperand& op = insn.ops[i];
    const bool written = (op.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0;
    if (op.type == ZYDIS_OPERAND_TYPE_MEMORY) {
      if (op.mem.type == ZYDIS_MEMOP_TYPE_MEM && !hint) e.may_fault = true;
      e.writes_memory |= written;
    } else if (op.type == ZYDIS_OPERAND_TYPE_REGISTER && written) {
      const int n = gpr_holding(op.reg.value);
      if (n >= 0) e.gprs_written |= 1u << n;
      // A segment register load: #GP for a bad selector.
      if (op.reg.value >= ZYDIS_REGISTER_ES && op.reg.value <= ZYDIS_REGISTER_GS) e.may_fault = true;
    }
  }
  return e;
}

bool may_fault(const DecodedInsn& insn, bool fp_traps) { return effects_of(insn, fp_traps).may_fault; }

bool FaultFlagTracker::step(const DecodedInsn& insn) { return step(insn, effects_of(insn, false)); }

bool FaultFlagTracker::step(const DecodedInsn& insn, const InsnEffects& effects) {
  if ((last_.insn && last_.intact) || (prev_.insn && prev_.intact)) {
    const int64_t moved = stack_move(insn);
    for (Writer* w : {&last_, &prev_})
      if (w->insn && w->intact) w->intact = !disturbs_inputs(*w, effects, moved);
  }
  const uint64_t written = status_written(insn.info);
  if (!written) return false;
  prev_ = last_;
  Writer& w = last_;
  w.insn = &insn;
  w.intact = true;
  w.destroys = spills(insn);
  w.spill_reg = w.destroys ? gpr_holding(insn.ops[0].reg.value) : -1;
  w.input_gprs = 0;
  w.input_memory = false;
  w.rsp_moved = 0;
  w.written_before = written_;
  written_ |= written;
  auto add = [&](ZydisRegister r) {
    const int n = gpr_holding(r);
    if (n >= 0) w.input_gprs |= 1u << n;
  };
  // A result is read as the writer left it; every other register it reads
  // must not be one the writer itself overwrote (else it is redone from
  // its inputs, the destination saved first).
  const ReadAtFault reads = read_at_fault(insn);
  w.input_gprs = reads.gprs;
  const bool product = insn.info.mnemonic == ZYDIS_MNEMONIC_MUL || insn.info.operand_count_visible == 1;
  uint32_t results = product ? reads.gprs : 0;  // one-operand multiplies: RDX:RAX
  for (unsigned i = 0; i < insn.info.operand_count_visible; ++i) {
    if (!(reads.operands >> i & 1)) continue;
    const ZydisDecodedOperand& op = insn.ops[i];
    if (op.type == ZYDIS_OPERAND_TYPE_REGISTER) {
      add(op.reg.value);
      if (i == 0 && !reads.op0_unchanged) results |= 1u << gpr_holding(op.reg.value);
    }
    if (is_memory(op)) {
      w.input_memory = true;
      add(op.mem.base);
      add(op.mem.index);
    }
  }
  if (!w.destroys && (effects.gprs_written & w.input_gprs & ~results)) {
    if (!redone_from_inputs(insn)) {
      w.intact = false;
      return true;
    }
    w.destroys = true;
    w.spill_reg = gpr_holding(insn.ops[0].reg.value);
    for (unsigned i = 0; i < insn.info.operand_count_visible; ++i) {  // all of them now, as they were
      const ZydisDecodedOperand& op = insn.ops[i];
      if (op.type == ZYDIS_OPERAND_TYPE_REGISTER) add(op.reg.value);
      if (is_memory(op)) {
        w.input_memory = true;
        add(op.mem.base);
        add(op.mem.index);
      }
    }
  }
  if (w.destroys) w.input_gprs &= ~(1u << w.spill_reg);
  return true;
}

// push and pop move RSP by a known amount: the epilogue `add rsp, n; pop
// rbx; ...; ret` keeps the add's inputs, RSP less what the pops added.
bool FaultFlagTracker::disturbs_inputs(Writer& w, const InsnEffects& effects, int64_t stack_moved) {
  uint32_t gprs = effects.gprs_written;
  if (stack_moved) {
    w.rsp_moved += stack_moved;
    gprs &= ~(1u << RSP);
  }
  if (effects.writes_memory && w.input_memory) return true;
  const uint32_t hit = gprs & w.input_gprs;
  if (!hit) return false;
  // One register it needs may be overwritten: translated code then saves
  // it after the writer (`sub esi, eax; lea eax, [rcx+rsi]; movzx ...`).
  if (w.spill_reg >= 0 || (hit & (hit - 1))) return true;
  w.spill_reg = std::countr_zero(hit);
  w.input_gprs &= ~hit;
  return false;
}

// A writer by CL (or by 0) falls back to the one before when its count is
// 0: that one counts only when the count can be told and it needs no spill.
bool FaultFlagTracker::previous_counts() const {
  return last_.intact && prev_.insn && prev_.intact && prev_.spill_reg < 0 && !conditional(*prev_.insn);
}

uint64_t FaultFlagTracker::unrecoverable() const {
  if (!last_.insn) return 0;
  uint64_t out = written_ & ~(last_.intact ? recoverable_flags(*last_.insn, last_.destroys) : 0);
  if (conditional(*last_.insn))
    out |= last_.written_before & ~(previous_counts() ? recoverable_flags(*prev_.insn, false) : 0);
  return out;
}

int FaultFlagTracker::spill_wanted(bool& before) const {
  before = last_.destroys;
  return last_.insn ? last_.spill_reg : -1;
}

void FaultFlagTracker::restore(const Writer& w, const FaultView& at, uint64_t& rflags) {
  // The registers as the writer left them (or, when it destroys its
  // destination, as it found them).
  uint64_t gpr[16];
  for (int n = 0; n < 16; ++n) gpr[n] = at.gpr[n];
  gpr[RSP] -= static_cast<uint64_t>(w.rsp_moved);
  if (w.spill_reg >= 0) gpr[w.spill_reg] = at.spill;
  const FaultView then{gpr, at.fs_base, at.gs_base, at.spill, at.read};
  const uint64_t restored = recoverable_flags(*w.insn, w.destroys);
  if (!restored) return;
  if (conditional(*w.insn) && count_at(*w.insn, then) == 0) return;  // caller's case
  uint64_t flags = 0;
  if (w.destroys ? flags_from_inputs(*w.insn, then, flags) : flags_of(*w.insn, then, flags))
    rflags = (rflags & ~restored) | (flags & restored);
}

void FaultFlagTracker::reconstruct(const FaultView& at, uint64_t& rflags) const {
  if (!last_.insn || !last_.intact) return;
  if (conditional(*last_.insn)) {
    uint64_t gpr[16];
    for (int n = 0; n < 16; ++n) gpr[n] = at.gpr[n];
    if (last_.spill_reg >= 0) gpr[last_.spill_reg] = at.spill;
    const FaultView then{gpr, at.fs_base, at.gs_base, at.spill, at.read};
    if (count_at(*last_.insn, then) == 0) {
      if (previous_counts()) restore(prev_, at, rflags);
      return;
    }
  }
  restore(last_, at, rflags);
}

}  // namespace phybin::x86
