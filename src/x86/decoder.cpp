#include "x86/decoder.h"

#include <cstdio>

namespace phybin::x86 {

Decoder::Decoder() {
  ZydisDecoderInit(&decoder_, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
  // CPUID does not advertise BMI1/LZCNT yet, so F3 0F BC/BD must mean
  // BSF/BSR as on a CPU without them: decoding and CPUID have to agree.
  ZydisDecoderEnableMode(&decoder_, ZYDIS_DECODER_MODE_TZCNT, ZYAN_FALSE);
  ZydisDecoderEnableMode(&decoder_, ZYDIS_DECODER_MODE_LZCNT, ZYAN_FALSE);
  ZydisFormatterInit(&formatter_, ZYDIS_FORMATTER_STYLE_INTEL);
}

bool Decoder::decode(const uint8_t* code, size_t max_len, uint64_t address, DecodedInsn& out) const {
  out.address = address;
  return ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder_, code, max_len, &out.info, out.ops));
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

}  // namespace phybin::x86
