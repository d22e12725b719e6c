// The RFLAGS a guest's fault handler sees.  Translated code computes a
// flag only where something reads it, so at a faulting instruction the
// flags of an earlier instruction whose flags the block overwrites unread
// may never have been computed.  Computing every flag before every access
// that may fault costs 1.9x (measured); instead the fault path computes
// them here from the last flag-setting instruction before the fault, when
// its inputs can still be told from the registers at the fault.
#include <cstdint>

#include "runtime/runtime.h"
#include "x86/decoder.h"

namespace phybin::runtime {

namespace {

constexpr uint64_t kCF = 1u << 0, kPF = 1u << 2, kAF = 1u << 4, kZF = 1u << 6, kSF = 1u << 7, kOF = 1u << 11;
constexpr uint64_t kStatus = kCF | kPF | kAF | kZF | kSF | kOF;

// SF, ZF, PF of result r (width bits), and the carry/overflow/adjust
// flags the caller computed.
uint64_t result_flags(uint64_t r, unsigned bits) {
  const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  r &= mask;
  uint64_t f = 0;
  if (r == 0) f |= kZF;
  if ((r >> (bits - 1)) & 1) f |= kSF;
  if (!(__builtin_popcount(static_cast<unsigned>(r & 0xff)) & 1)) f |= kPF;
  return f;
}

struct Operands {
  int dst = -1;          // GPR of operand 0
  uint64_t a = 0, b = 0;  // operand 0 and 1 (b: register or immediate)
  int src = -1;          // GPR of operand 1, -1 for an immediate
  unsigned bits = 0;
};

// Operand 0 a plain GPR, operand 1 (if any) a GPR or an immediate.
bool read_operands(const x86::DecodedInsn& d, const GuestState& st, Operands& o) {
  const ZydisDecodedOperand& x = d.ops[0];
  if (x.type != ZYDIS_OPERAND_TYPE_REGISTER || (o.dst = x86::whole_gpr_number(x.reg.value)) < 0)
    return false;
  o.bits = d.info.operand_width;
  const uint64_t mask = o.bits == 64 ? ~uint64_t{0} : (uint64_t{1} << o.bits) - 1;
  o.a = st.gpr[o.dst] & mask;
  if (d.info.operand_count_visible < 2) return true;
  const ZydisDecodedOperand& y = d.ops[1];
  if (y.type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
    o.b = y.imm.value.u & mask;
    return true;
  }
  if (y.type != ZYDIS_OPERAND_TYPE_REGISTER || (o.src = x86::whole_gpr_number(y.reg.value)) < 0) return false;
  o.b = st.gpr[o.src] & mask;
  return true;
}

// The status flags instruction d left, from the registers now (after it);
// false when they cannot be told.
bool flags_of(const x86::DecodedInsn& d, const GuestState& st, uint64_t& out) {
  Operands o;
  if (!read_operands(d, st, o)) return false;
  const unsigned msb = o.bits - 1;
  const uint64_t mask = o.bits == 64 ? ~uint64_t{0} : (uint64_t{1} << o.bits) - 1;
  uint64_t a, b = o.b, r, f;
  switch (d.info.mnemonic) {
    case ZYDIS_MNEMONIC_ADD:
      if (o.src == o.dst) return false;  // add r, r: the input is gone
      r = o.a, a = (r - b) & mask;
      f = result_flags(r, o.bits) | (r < a ? kCF : 0) | ((((a ^ r) & (b ^ r)) >> msb) & 1 ? kOF : 0);
      break;
    case ZYDIS_MNEMONIC_SUB:
      if (o.src == o.dst) return false;
      r = o.a, a = (r + b) & mask;
      f = result_flags(r, o.bits) | (a < b ? kCF : 0) | ((((a ^ b) & (a ^ r)) >> msb) & 1 ? kOF : 0);
      break;
    case ZYDIS_MNEMONIC_CMP:
      a = o.a, r = (a - b) & mask;
      f = result_flags(r, o.bits) | (a < b ? kCF : 0) | ((((a ^ b) & (a ^ r)) >> msb) & 1 ? kOF : 0);
      break;
    case ZYDIS_MNEMONIC_AND: case ZYDIS_MNEMONIC_OR: case ZYDIS_MNEMONIC_XOR:
      out = result_flags(o.a, o.bits);  // CF, OF, AF 0 (AF: phybin's model)
      return true;
    case ZYDIS_MNEMONIC_TEST:
      out = result_flags(o.a & b, o.bits);
      return true;
    case ZYDIS_MNEMONIC_NEG:
      r = o.a, a = (0 - r) & mask, b = 0;
      f = result_flags(r, o.bits) | (a != 0 ? kCF : 0) | (r == (uint64_t{1} << msb) ? kOF : 0);
      a = 0, b = (0 - r) & mask;  // for AF: 0 - b
      break;
    default: return false;
  }
  out = f | ((a ^ b ^ r) & kAF);
  return true;
}

bool writes_flags(const x86::DecodedInsn& d) {
  return d.info.cpu_flags &&
         ((d.info.cpu_flags->modified | d.info.cpu_flags->set_0 | d.info.cpu_flags->set_1 |
           d.info.cpu_flags->undefined) & kStatus) != 0;
}

}  // namespace

void Runtime::repair_fault_flags(GuestState& st, uint64_t block_start) const {
  constexpr unsigned kMaxInsns = 64;
  const x86::Decoder& decoder = frontend_.decoder();
  x86::DecodedInsn last{}, insn{};
  bool have_last = false;
  int touched[2] = {-1, -1};  // the last flag setter's registers
  bool intact = false;
  unsigned count = 0;
  for (uint64_t pc = block_start; pc < st.rip && count < kMaxInsns; ++count) {
    const auto* code = reinterpret_cast<const uint8_t*>(pc);
    if (!decoder.decode_all(code, st.rip - pc < 15 ? st.rip - pc : 15, pc, insn)) return;
    if (writes_flags(insn)) {
      last = insn;
      have_last = intact = true;
      touched[0] = insn.ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER ? x86::whole_gpr_number(insn.ops[0].reg.value) : -1;
      touched[1] = insn.info.operand_count_visible > 1 && insn.ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER
                       ? x86::whole_gpr_number(insn.ops[1].reg.value) : -1;
    } else if (have_last) {
      for (int r : touched)
        if (r >= 0 && x86::writes_gpr(insn, r)) intact = false;
    }
    pc += insn.info.length;
  }
  uint64_t flags;
  // The flag setter's own write is what read_operands reads (its result).
  if (have_last && intact && flags_of(last, st, flags)) st.rflags = (st.rflags & ~kStatus) | flags;
}

}  // namespace phybin::runtime
