// Zydis, configured once for 64-bit user code, and what the rest of phybin
// needs from a decoded instruction: its text and ISA extension.
#pragma once

#include <Zydis/Zydis.h>

#include <cstdint>
#include <string>

namespace phybin::x86 {

struct DecodedInsn {
  ZydisDecodedInstruction info;
  ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
  uint64_t address = 0;
  // Operands decoded in ops: the visible ones and, when there are two
  // hidden ones or more, those too (a single hidden operand is RFLAGS,
  // which cpu_flags describes already).
  uint8_t operand_count = 0;
  // decode() failed because the bytes ended inside the instruction (it
  // runs into memory that cannot be fetched), not because they are invalid.
  bool truncated = false;
};

class Decoder {
 public:
  Decoder();
  // Decodes at `address`, reading at most `max_len` bytes from `code`,
  // with the hidden operands that matter (implicit registers, the stack).
  bool decode(const uint8_t* code, size_t max_len, uint64_t address, DecodedInsn& out) const;
  // Instruction only, without operands: cheaper, for looking ahead.  With
  // `context`, finish() can add the operands later without decoding again.
  bool decode_instruction(const uint8_t* code, size_t max_len, ZydisDecodedInstruction& out,
                          ZydisDecoderContext& context) const;
  // decode() from out.info and the context decode_instruction left.
  bool finish(const ZydisDecoderContext& context, uint64_t address, DecodedInsn& out) const;
  // AT&T-free Intel syntax, e.g. "vpaddd ymm2, ymm1, ymm0".
  std::string format(const DecodedInsn& insn) const;

 private:
  ZydisDecoder decoder_;
  ZydisFormatter formatter_;
};

const char* isa_extension_name(const DecodedInsn& insn);

// Arithmetic RFLAGS bits the instruction reads, and those it always
// overwrites.  A shift or rotate by CL may leave the flags alone (count 0),
// so it overwrites none.
uint64_t flags_tested(const ZydisDecodedInstruction& insn);
// Privileged and I/O instructions: #GP (SIGSEGV) in user mode.  The one
// list: the frontend registers a trap for each, and always_traps knows them.
inline constexpr ZydisMnemonic kPrivilegedMnemonics[] = {
    ZYDIS_MNEMONIC_HLT,   ZYDIS_MNEMONIC_IN,     ZYDIS_MNEMONIC_OUT,   ZYDIS_MNEMONIC_INSB,   ZYDIS_MNEMONIC_INSW,
    ZYDIS_MNEMONIC_INSD,  ZYDIS_MNEMONIC_OUTSB,  ZYDIS_MNEMONIC_OUTSW, ZYDIS_MNEMONIC_OUTSD,  ZYDIS_MNEMONIC_CLI,
    ZYDIS_MNEMONIC_STI,   ZYDIS_MNEMONIC_CLTS,   ZYDIS_MNEMONIC_INVD,  ZYDIS_MNEMONIC_WBINVD, ZYDIS_MNEMONIC_WRMSR,
    ZYDIS_MNEMONIC_RDMSR, ZYDIS_MNEMONIC_LLDT,   ZYDIS_MNEMONIC_LTR,   ZYDIS_MNEMONIC_LGDT,   ZYDIS_MNEMONIC_LIDT,
    ZYDIS_MNEMONIC_LMSW,  ZYDIS_MNEMONIC_INVLPG, ZYDIS_MNEMONIC_SWAPGS, ZYDIS_MNEMONIC_SYSRET, ZYDIS_MNEMONIC_SYSEXIT};
// ud2, int3, int n, icebp, the privileged instructions, mov to/from CR/DR: always a
// signal, which ends the block and shows the handler every flag.
bool always_traps(const ZydisDecodedInstruction& insn);
// The arithmetic flags the instruction writes whatever its operands...
uint64_t flags_killed(const ZydisDecodedInstruction& insn);
// ...and those it may write (a shift by CL writes them unless CL is 0).
uint64_t flags_maybe_written(const ZydisDecodedInstruction& insn);

// The GPR number (RAX 0 .. R15 15) holding a general register of any
// width, AH..BH included (bits 8-15 of RAX..RBX); -1 for anything else.
// Arithmetic on Zydis's register order: the frontend asks it for every
// operand.
inline int gpr_holding(ZydisRegister reg) {
  if (reg >= ZYDIS_REGISTER_RAX && reg <= ZYDIS_REGISTER_R15) return reg - ZYDIS_REGISTER_RAX;
  if (reg >= ZYDIS_REGISTER_EAX && reg <= ZYDIS_REGISTER_R15D) return reg - ZYDIS_REGISTER_EAX;
  if (reg >= ZYDIS_REGISTER_AX && reg <= ZYDIS_REGISTER_R15W) return reg - ZYDIS_REGISTER_AX;
  if (reg >= ZYDIS_REGISTER_AL && reg <= ZYDIS_REGISTER_R15B) {
    const int i = reg - ZYDIS_REGISTER_AL;  // AL CL DL BL AH CH DH BH SPL BPL SIL DIL R8B..
    return i < 4 ? i : i - 4;
  }
  return -1;
}

// The GPR number (RAX 0 .. R15 15) of a general register of any width but
// AH/BH/CH/DH (which are not a register's low bits); -1 for anything else.
int whole_gpr_number(ZydisRegister reg);
// Whether the instruction writes GPR `gpr` (hidden operands included: it
// must come from decode).
bool writes_gpr(const DecodedInsn& insn, int gpr);
std::string bytes_hex(const uint8_t* code, size_t len);

}  // namespace phybin::x86
