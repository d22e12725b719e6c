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
  // decode() failed because the bytes ended inside the instruction (it
  // runs into memory that cannot be fetched), not because they are invalid.
  bool truncated = false;
};

class Decoder {
 public:
  Decoder();
  // Decodes at `address`, reading at most `max_len` bytes from `code`.
  bool decode(const uint8_t* code, size_t max_len, uint64_t address, DecodedInsn& out) const;
  // With every operand, hidden ones too (implicit registers): for the
  // fault path, which must know everything an instruction writes.
  bool decode_all(const uint8_t* code, size_t max_len, uint64_t address, DecodedInsn& out) const;
  // Instruction only, without operands: cheaper, for looking ahead.
  bool decode_instruction(const uint8_t* code, size_t max_len, ZydisDecodedInstruction& out) const;
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
// ud2, int3, hlt, privileged and I/O instructions: always a signal, which
// ends the block and shows the handler every flag.
bool always_traps(const ZydisDecodedInstruction& insn);
uint64_t flags_killed(const ZydisDecodedInstruction& insn);
std::string bytes_hex(const uint8_t* code, size_t len);

}  // namespace phybin::x86
