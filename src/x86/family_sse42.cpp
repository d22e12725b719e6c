// SSE4.2: crc32 (inline CRC32C on hosts with the AArch64 CRC32
// instructions, a helper elsewhere), pcmpgtq, and the string compares
// pcmpestri/pcmpestrm/pcmpistri/pcmpistrm (helpers: they are rare, and
// their 128 modes have no NEON shape).
#include "x86/flags.h"
#include "x86/operands.h"
#include "x86/sse.h"
#include "x86/sse42.h"

namespace phybin::x86 {

using ir::Opcode;
using ir::Type;
using ir::Value;
using ir::VecOp;

namespace {

// crc32 r32/r64, r/m8..64: CRC32C (reflected, no inversion) of the source
// into the low 32 bits of the destination; a 64-bit destination gets the
// result zero-extended.
template <bool kInline>
bool crc32(Ctx& c) {
  Type dst_type = operand_type(c.op(0));
  Type src_type = operand_type(c.op(1));
  Value crc = c.b.trunc(Type::I32, read_operand(c, 0));
  Value data = read_operand(c, 1);
  Value r;
  if (kInline) {
    r = c.b.emit(Opcode::Crc32c, Type::I32, crc, data);
  } else {
    const void* fn = src_type == Type::I8    ? reinterpret_cast<const void*>(&helper_crc32c<1>)
                     : src_type == Type::I16 ? reinterpret_cast<const void*>(&helper_crc32c<2>)
                     : src_type == Type::I32 ? reinterpret_cast<const void*>(&helper_crc32c<4>)
                                             : reinterpret_cast<const void*>(&helper_crc32c<8>);
    r = c.b.trunc(Type::I32, c.b.call(Type::I64, fn, c.b.zext(Type::I64, crc), c.b.zext(Type::I64, data)));
  }
  write_operand(c, 0, dst_type == Type::I64 ? c.b.zext(Type::I64, r) : r);
  return true;
}

// pcmpXstrX xmm1, xmm2/m128, imm8: one helper call with the operands
// described in PcmpstrDesc; it writes ECX or XMM0 and the flags.
template <bool kExplicit, bool kMask>
bool pcmpstr(Ctx& c) {
  if (!sse::is_xmm(c.op(0))) return false;
  PcmpstrDesc d;
  d.imm = static_cast<uint8_t>(c.op(2).imm.value.u);
  d.reg_a = sse::xmm_index(c.op(0));
  d.explicit_length = kExplicit;
  d.mask_output = kMask;
  d.wide_lengths = c.d.info.raw.rex.W != 0;
  Value address = c.b.constant(Type::I64, 0);
  if (sse::is_xmm(c.op(1))) {
    d.b_in_register = true;
    d.reg_b = sse::xmm_index(c.op(1));
  } else {
    address = effective_address(c, 1);
  }
  c.b.call(Type::Void, reinterpret_cast<const void*>(&helper_pcmpstr), c.b.constant(Type::I64, d.pack()), address);
  return true;
}

}  // namespace

void register_sse42(HandlerTable& t, bool host_crc32) {
  t.add(ZYDIS_MNEMONIC_CRC32, host_crc32 ? crc32<true> : crc32<false>);
  t.add(ZYDIS_MNEMONIC_PCMPGTQ, sse::bin<VecOp::CmpGtS, 3>);
  t.add(ZYDIS_MNEMONIC_PCMPESTRI, pcmpstr<true, false>);
  t.add(ZYDIS_MNEMONIC_PCMPESTRM, pcmpstr<true, true>);
  t.add(ZYDIS_MNEMONIC_PCMPISTRI, pcmpstr<false, false>);
  t.add(ZYDIS_MNEMONIC_PCMPISTRM, pcmpstr<false, true>);
}

}  // namespace phybin::x86
