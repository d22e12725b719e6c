// The RFLAGS a guest's fault handler sees.  Translated code computes a
// flag only where something reads it, so at a faulting instruction the
// flags of an earlier instruction whose flags the block overwrites unread
// may never have been computed.  Computing every flag before every access
// that may fault costs 1.9x (measured); instead the fault path computes
// them here from the last flag-setting instruction before the fault, when
// its inputs can still be told from the registers and memory at the fault
// (nothing since wrote them): its result and one operand give the other.
#include <cstdint>

#include "runtime/runtime.h"
#include "runtime/signals.h"
#include "x86/decoder.h"
#include "x86/lazy_flags.h"
#include "x86/operands.h"

namespace phybin::runtime {

namespace {

constexpr uint64_t kCF = 1u << 0, kPF = 1u << 2, kAF = 1u << 4, kZF = 1u << 6, kSF = 1u << 7, kOF = 1u << 11;
constexpr uint64_t kStatus = kCF | kPF | kAF | kZF | kSF | kOF;

uint64_t mask_of(unsigned bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

// The GPR holding r (AH..DH: the one whose bits 8-15 they are), -1 if none.
int gpr_holding(ZydisRegister r) {
  const ZydisRegister full = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
  return full >= ZYDIS_REGISTER_RAX && full <= ZYDIS_REGISTER_R15 ? full - ZYDIS_REGISTER_RAX : -1;
}

// Guest address of memory operand `op` of d, from the registers now.
uint64_t effective_address(const x86::DecodedInsn& d, const ZydisDecodedOperand& op, const GuestState& st) {
  const auto& m = op.mem;
  uint64_t ea = static_cast<uint64_t>(m.disp.value);
  if (m.base == ZYDIS_REGISTER_RIP) ea += d.address + d.info.length;
  else if (m.base != ZYDIS_REGISTER_NONE) ea += st.gpr[gpr_holding(m.base)];
  if (m.index != ZYDIS_REGISTER_NONE) ea += st.gpr[gpr_holding(m.index)] * m.scale;
  if (d.info.address_width == 32) ea &= 0xffffffff;
  if (m.segment == ZYDIS_REGISTER_FS) ea += st.fs_base;
  if (m.segment == ZYDIS_REGISTER_GS) ea += st.gs_base;
  return ea;
}

// Operand k of d as it is now, in the instruction's operand width.
bool operand_now(const x86::DecodedInsn& d, unsigned k, const GuestState& st, uint64_t& v) {
  const ZydisDecodedOperand& op = d.ops[k];
  const uint64_t mask = mask_of(d.info.operand_width);
  switch (op.type) {
    case ZYDIS_OPERAND_TYPE_REGISTER: {
      const int n = gpr_holding(op.reg.value);
      if (n < 0) return false;
      v = (st.gpr[n] >> (x86::is_high_byte(op.reg.value) ? 8 : 0)) & mask;
      return true;
    }
    case ZYDIS_OPERAND_TYPE_IMMEDIATE: v = op.imm.value.u & mask; return true;
    case ZYDIS_OPERAND_TYPE_MEMORY:
      v = 0;
      return op.mem.type == ZYDIS_MEMOP_TYPE_MEM && guest_read(&v, effective_address(d, op, st), d.info.operand_width / 8);
    default: return false;
  }
}

bool same_register(const x86::DecodedInsn& d) {
  return d.ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER && d.ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER &&
         d.ops[0].reg.value == d.ops[1].reg.value;
}

uint64_t sign_of(uint64_t v, unsigned bits) { return (v >> (bits - 1)) & 1; }

// The two-operand ALU forms: operand 0 now holds the result (or, for cmp
// and test, is unchanged), operand 1 is unchanged.
bool alu_flags(const x86::DecodedInsn& d, const GuestState& st, uint64_t& out, uint64_t& defined) {
  using x86::LazyOp;
  const unsigned bits = d.info.operand_width, bytes = bits / 8;
  const uint64_t mask = mask_of(bits);
  uint64_t x, b = 0;
  if (!operand_now(d, 0, st, x)) return false;
  const bool binary = d.info.operand_count_visible > 1 && d.ops[1].visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT;
  if (binary && !operand_now(d, 1, st, b)) return false;
  defined = kStatus;
  switch (d.info.mnemonic) {
    // adc/sbb are left out: their carry-in may itself never have reached
    // RFLAGS (stc; adc hands it over as a value).
    case ZYDIS_MNEMONIC_ADD:
      if (same_register(d)) return false;  // add r, r: the input is gone
      out = x86::add_flags((x - b) & mask, b, bytes);
      return true;
    case ZYDIS_MNEMONIC_SUB:
      out = same_register(d) ? x86::sub_flags(0, 0, bytes) : x86::sub_flags((x + b) & mask, b, bytes);
      return true;
    case ZYDIS_MNEMONIC_CMP: out = x86::sub_flags(x, b, bytes); return true;
    case ZYDIS_MNEMONIC_AND: case ZYDIS_MNEMONIC_OR: case ZYDIS_MNEMONIC_XOR:
      out = x86::logic_flags(x, bytes);  // CF, OF, AF 0 (AF: phybin's model)
      return true;
    case ZYDIS_MNEMONIC_TEST: out = x86::logic_flags(x & b, bytes); return true;
    case ZYDIS_MNEMONIC_NEG: out = x86::lazy_flags_value(x86::lazy_record::of(LazyOp::Neg, bytes), (0 - x) & mask, 0); return true;
    case ZYDIS_MNEMONIC_INC: case ZYDIS_MNEMONIC_DEC: {
      const bool inc = d.info.mnemonic == ZYDIS_MNEMONIC_INC;
      const uint64_t record = x86::lazy_record::of(inc ? LazyOp::Inc : LazyOp::Dec, bytes);
      defined = x86::lazy_defined_flags(record);
      out = x86::lazy_flags_value(record, inc ? x - 1 : x + 1, 0);
      return true;
    }
    default: return false;
  }
}

// Shifts and rotates by an immediate, by 1 or by CL: a rotation is undone
// from its result; a shift keeps ZF, SF, PF (AF 0) of the result, while
// its CF (and OF) came from bits it shifted out, which are gone.
bool shift_flags(const x86::DecodedInsn& d, const GuestState& st, uint64_t& out, uint64_t& defined) {
  const unsigned bits = d.info.operand_width;
  uint64_t r, count = 1;
  if (!operand_now(d, 0, st, r)) return false;
  if (d.info.operand_count_visible > 1 && d.ops[1].visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT) {
    const ZydisDecodedOperand& c = d.ops[1];
    count = c.type == ZYDIS_OPERAND_TYPE_IMMEDIATE ? c.imm.value.u : st.gpr[RCX];
  }
  count &= bits == 64 ? 63 : 31;
  if (count == 0) {  // no flag changes
    defined = 0;
    return true;
  }
  switch (d.info.mnemonic) {
    case ZYDIS_MNEMONIC_ROL: case ZYDIS_MNEMONIC_ROR: {
      const bool left = d.info.mnemonic == ZYDIS_MNEMONIC_ROL;
      const uint64_t cf = left ? r & 1 : sign_of(r, bits);
      out = cf ? kCF : 0;
      defined = kCF;
      if (count == 1) {  // OF is defined for rotates by 1 only
        out |= (left ? sign_of(r, bits) ^ cf : sign_of(r, bits) ^ sign_of(r << 1, bits)) ? kOF : 0;
        defined |= kOF;
      }
      return true;
    }
    case ZYDIS_MNEMONIC_SHL: case ZYDIS_MNEMONIC_SHR: case ZYDIS_MNEMONIC_SAR:
      out = x86::logic_flags(r, bits / 8);
      defined = kZF | kSF | kPF | kAF;
      if (d.info.mnemonic == ZYDIS_MNEMONIC_SAR && count == 1) defined |= kOF;  // 0
      return true;
    default: return false;
  }
}

// Multiplies: CF = OF = the product does not fit the low half, from the
// halves one-operand mul/imul leave in RDX:RAX, or computed again for
// imul r, r/m, imm.  Their other flags are undefined: phybin keeps them.
bool multiply_flags(const x86::DecodedInsn& d, const GuestState& st, uint64_t& out, uint64_t& defined) {
  const unsigned bits = d.info.operand_width;
  const uint64_t mask = mask_of(bits);
  bool overflow;
  if (d.info.operand_count_visible == 1) {
    const uint64_t lo = bits == 8 ? st.gpr[RAX] & 0xff : st.gpr[RAX] & mask;
    const uint64_t hi = bits == 8 ? (st.gpr[RAX] >> 8) & 0xff : st.gpr[RDX] & mask;
    overflow = d.info.mnemonic == ZYDIS_MNEMONIC_MUL ? hi != 0 : hi != (sign_of(lo, bits) ? mask : 0);
  } else if (d.info.operand_count_visible == 3 && d.info.mnemonic == ZYDIS_MNEMONIC_IMUL) {
    uint64_t a, b;
    if (!operand_now(d, 1, st, a) || !operand_now(d, 2, st, b)) return false;
    const auto sa = static_cast<__int128>(static_cast<int64_t>(a << (64 - bits)) >> (64 - bits));
    const auto sb = static_cast<__int128>(static_cast<int64_t>(b << (64 - bits)) >> (64 - bits));
    const __int128 p = sa * sb;
    const auto low = static_cast<__int128>(static_cast<int64_t>(static_cast<uint64_t>(p) << (64 - bits)) >> (64 - bits));
    overflow = p != low;
  } else {
    return false;  // imul r, r/m: the first factor is gone
  }
  out = overflow ? kCF | kOF : 0;
  defined = kCF | kOF;
  return true;
}

// The status flags instruction d left, from the registers and memory now
// (after it): `defined` says which; false when they cannot be told.
bool flags_of(const x86::DecodedInsn& d, const GuestState& st, uint64_t& out, uint64_t& defined) {
  switch (d.info.mnemonic) {
    case ZYDIS_MNEMONIC_ROL: case ZYDIS_MNEMONIC_ROR: case ZYDIS_MNEMONIC_SHL: case ZYDIS_MNEMONIC_SHR:
    case ZYDIS_MNEMONIC_SAR:
      return shift_flags(d, st, out, defined);
    case ZYDIS_MNEMONIC_MUL: case ZYDIS_MNEMONIC_IMUL: return multiply_flags(d, st, out, defined);
    default: return alu_flags(d, st, out, defined);
  }
}

bool writes_flags(const x86::DecodedInsn& d) {
  return d.info.cpu_flags &&
         ((d.info.cpu_flags->modified | d.info.cpu_flags->set_0 | d.info.cpu_flags->set_1 |
           d.info.cpu_flags->undefined) & kStatus) != 0;
}

// The GPRs instruction d reads or writes (bit n = GPR n), and whether it
// touches memory through an operand.
struct Footprint {
  uint32_t gprs = 0;
  bool memory = false;
};

Footprint footprint_of(const x86::DecodedInsn& d) {
  Footprint f;
  auto add = [&](ZydisRegister r) {
    const int n = gpr_holding(r);
    if (n >= 0) f.gprs |= 1u << n;
  };
  for (unsigned i = 0; i < d.info.operand_count; ++i) {
    const ZydisDecodedOperand& op = d.ops[i];
    if (op.type == ZYDIS_OPERAND_TYPE_REGISTER) add(op.reg.value);
    if (op.type == ZYDIS_OPERAND_TYPE_MEMORY && op.mem.type == ZYDIS_MEMOP_TYPE_MEM) {
      f.memory = true;
      add(op.mem.base);
      add(op.mem.index);
    }
  }
  return f;
}

// Whether d changes any of the registers, or (when `memory`) any memory.
bool disturbs(const x86::DecodedInsn& d, const Footprint& f) {
  for (int n = 0; n < 16; ++n)
    if ((f.gprs >> n & 1) && x86::writes_gpr(d, n)) return true;
  if (!f.memory) return false;
  for (unsigned i = 0; i < d.info.operand_count; ++i)
    if (d.ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY && (d.ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
      return true;
  return false;
}

}  // namespace

void Runtime::repair_fault_flags(GuestState& st, uint64_t block_start) const {
  constexpr unsigned kMaxInsns = 64;
  const x86::Decoder& decoder = frontend_.decoder();
  x86::DecodedInsn last{}, insn{};
  bool have_last = false, intact = false;
  Footprint uses;
  unsigned count = 0;
  for (uint64_t pc = block_start; pc < st.rip && count < kMaxInsns; ++count) {
    const auto* code = reinterpret_cast<const uint8_t*>(pc);
    if (!decoder.decode_all(code, st.rip - pc < 15 ? st.rip - pc : 15, pc, insn)) return;
    if (writes_flags(insn)) {
      last = insn;
      have_last = intact = true;
      uses = footprint_of(insn);
    } else if (have_last && disturbs(insn, uses)) {
      intact = false;
    }
    pc += insn.info.length;
  }
  uint64_t flags = 0, defined = 0;
  // The flag setter's own writes are what flags_of reads (its result).
  if (have_last && intact && flags_of(last, st, flags, defined))
    st.rflags = (st.rflags & ~defined) | (flags & defined);
}

}  // namespace phybin::runtime
