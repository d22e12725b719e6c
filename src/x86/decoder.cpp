#include "x86/decoder.h"

#include <array>
#include <cstdio>

#include "common/guest_state.h"

namespace phybin::x86 {

Decoder::Decoder() {
  ZydisDecoderInit(&decoder_, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
  // F3 0F BC/BD are TZCNT/LZCNT on a CPU with BMI1/LZCNT and BSF/BSR
  // without: CPUID advertises both (helpers.cpp), so decoding must agree.
  ZydisDecoderEnableMode(&decoder_, ZYDIS_DECODER_MODE_TZCNT, ZYAN_TRUE);
  ZydisDecoderEnableMode(&decoder_, ZYDIS_DECODER_MODE_LZCNT, ZYAN_TRUE);
  // MPX, CET and CLDEMOTE reuse the hint-NOP space 0F 18-1F (bndmov, rdssp,
  // endbr64, cldemote ...).  CPUID advertises none of them, and a CPU
  // without them runs those encodings as the NOPs they are: decode them so
  // (libgcc's unwinder reads the shadow-stack pointer with rdsspq, which
  // must leave its zeroed register alone).
  ZydisDecoderEnableMode(&decoder_, ZYDIS_DECODER_MODE_MPX, ZYAN_FALSE);
  ZydisDecoderEnableMode(&decoder_, ZYDIS_DECODER_MODE_CET, ZYAN_FALSE);
  ZydisDecoderEnableMode(&decoder_, ZYDIS_DECODER_MODE_CLDEMOTE, ZYAN_FALSE);
  ZydisFormatterInit(&formatter_, ZYDIS_FORMATTER_STYLE_INTEL);
}

bool Decoder::decode(const uint8_t* code, size_t max_len, uint64_t address, DecodedInsn& out) const {
  ZydisDecoderContext context;
  const ZyanStatus status = ZydisDecoderDecodeInstruction(&decoder_, &context, code, max_len, &out.info);
  out.truncated = status == ZYDIS_STATUS_NO_MORE_DATA;
  out.address = address;
  return ZYAN_SUCCESS(status) && finish(context, address, out);
}

bool Decoder::finish(const ZydisDecoderContext& context, uint64_t address, DecodedInsn& out) const {
  out.address = address;
  // Hidden operands too (implicit RSP/RAX, the stack...): handlers never
  // read them, but the frontend's fault-flag rule needs what each
  // instruction touches (x86/fault_flags.h).  Most instructions have one,
  // RFLAGS, described by cpu_flags: decoding it would cost a third more.
  const uint8_t visible = out.info.operand_count_visible;
  out.operand_count = out.info.operand_count - visible >= 2 ? out.info.operand_count : visible;
  return ZYAN_SUCCESS(ZydisDecoderDecodeOperands(&decoder_, &context, &out.info, out.ops, out.operand_count));
}

bool Decoder::decode_instruction(const uint8_t* code, size_t max_len, ZydisDecodedInstruction& out,
                                 ZydisDecoderContext& context) const {
  return ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&decoder_, &context, code, max_len, &out));
}

namespace {

// kPrivilegedMnemonics as a table by mnemonic: always_traps runs for every
// decoded instruction.
constexpr auto kPrivileged = [] {
  std::array<bool, ZYDIS_MNEMONIC_MAX_VALUE + 1> table{};
  for (ZydisMnemonic m : kPrivilegedMnemonics) table[m] = true;
  return table;
}();

}  // namespace

bool always_traps(const ZydisDecodedInstruction& insn) {
  switch (insn.mnemonic) {
    case ZYDIS_MNEMONIC_UD0: case ZYDIS_MNEMONIC_UD1: case ZYDIS_MNEMONIC_UD2: case ZYDIS_MNEMONIC_INT3:
    case ZYDIS_MNEMONIC_INT1:
      return true;
    case ZYDIS_MNEMONIC_INT:  // all but the i386 system call trap
      return insn.raw.imm[0].value.u != 0x80;
    case ZYDIS_MNEMONIC_MOV:  // 0F 20..23: to or from a control or debug register
      return insn.opcode_map == ZYDIS_OPCODE_MAP_0F && insn.opcode >= 0x20 && insn.opcode <= 0x23;
    default: return kPrivileged[insn.mnemonic];
  }
}

uint64_t flags_tested(const ZydisDecodedInstruction& insn) {
  // syscall hands RFLAGS to the kernel in R11, and traps to a signal
  // handler's context: all of them are read.
  if (insn.mnemonic == ZYDIS_MNEMONIC_SYSCALL || insn.mnemonic == ZYDIS_MNEMONIC_INT || always_traps(insn))
    return kArithFlags;
  return insn.cpu_flags ? insn.cpu_flags->tested & kArithFlags : 0;
}

uint64_t flags_maybe_written(const ZydisDecodedInstruction& insn) {
  if (!insn.cpu_flags) return 0;
  const ZydisAccessedFlags& f = *insn.cpu_flags;
  return (f.modified | f.set_0 | f.set_1 | f.undefined) & kArithFlags;
}

uint64_t flags_killed(const ZydisDecodedInstruction& insn) {
  if (!insn.cpu_flags) return 0;
  switch (insn.mnemonic) {
    case ZYDIS_MNEMONIC_SYSCALL: return 0;  // the kernel restores RFLAGS from R11
    case ZYDIS_MNEMONIC_INT: case ZYDIS_MNEMONIC_INT1: case ZYDIS_MNEMONIC_INT3: return 0;
    case ZYDIS_MNEMONIC_SHL: case ZYDIS_MNEMONIC_SHR: case ZYDIS_MNEMONIC_SAR: case ZYDIS_MNEMONIC_ROL:
    case ZYDIS_MNEMONIC_ROR: case ZYDIS_MNEMONIC_RCL: case ZYDIS_MNEMONIC_RCR: case ZYDIS_MNEMONIC_SHLD:
    case ZYDIS_MNEMONIC_SHRD:
      // By 1 (D0/D1) or by a non-zero immediate the flags are written; a
      // count in CL may be 0, and then they are not.
      if (insn.opcode != 0xD0 && insn.opcode != 0xD1) {
        unsigned mask = insn.operand_width == 64 ? 63 : 31;
        if (insn.raw.imm[0].size == 0 || (insn.raw.imm[0].value.u & mask) == 0) return 0;
      }
      break;
    default: break;
  }
  const ZydisAccessedFlags& f = *insn.cpu_flags;
  return (f.modified | f.set_0 | f.set_1 | f.undefined) & kArithFlags;
}

std::string Decoder::format(const DecodedInsn& insn) const {
  char buf[256];
  if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&formatter_, &insn.info, insn.ops,
                                                    insn.info.operand_count_visible, buf, sizeof buf,
                                                    insn.address, nullptr)))
    return "(unformattable)";
  return buf;
}

const char* isa_extension_name(const DecodedInsn& insn) {
  return ZydisISAExtGetString(insn.info.meta.isa_ext);
}

std::string bytes_hex(const uint8_t* code, size_t len) {
  std::string out;
  char b[4];
  for (size_t i = 0; i < len; ++i) {
    std::snprintf(b, sizeof b, i ? " %02x" : "%02x", code[i]);
    out += b;
  }
  return out;
}

int whole_gpr_number(ZydisRegister reg) {
  if (reg == ZYDIS_REGISTER_AH || reg == ZYDIS_REGISTER_BH || reg == ZYDIS_REGISTER_CH || reg == ZYDIS_REGISTER_DH)
    return -1;
  return gpr_holding(reg);
}

bool writes_gpr(const DecodedInsn& insn, int gpr) {
  for (unsigned i = 0; i < insn.operand_count; ++i) {
    const ZydisDecodedOperand& op = insn.ops[i];
    if (op.type == ZYDIS_OPERAND_TYPE_REGISTER && (op.actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
        gpr_holding(op.reg.value) == gpr)
      return true;
  }
  return false;
}

}  // namespace phybin::x86
