// String instructions (movs, stos, lods, cmps, scas) with and without rep
// prefixes: one helper call runs the whole repetition.
#include "x86/helpers.h"
#include "x86/operands.h"

namespace phybin::x86 {

namespace {

template <StringOp::Kind kKind>
bool string_op(Ctx& c) {
  const auto attrs = c.d.info.attributes;
  StringOp::RepKind rep = StringOp::None;
  if (attrs & ZYDIS_ATTRIB_HAS_REPE) rep = StringOp::RepE;
  else if (attrs & ZYDIS_ATTRIB_HAS_REPNE) rep = StringOp::RepNE;
  else if (attrs & ZYDIS_ATTRIB_HAS_REP) rep = StringOp::Rep;
  if (kKind != StringOp::Cmps && kKind != StringOp::Scas && rep != StringOp::None) rep = StringOp::Rep;
  unsigned size = c.d.info.operand_width / 8;
  uint64_t packed = StringOp::pack(kKind, rep, size, c.d.info.address_width == 32);
  c.b.call(ir::Type::Void, reinterpret_cast<const void*>(&helper_string), c.b.constant(ir::Type::I64, packed));
  return true;
}

}  // namespace

void register_string(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_MOVSB, string_op<StringOp::Movs>);
  t.add(ZYDIS_MNEMONIC_MOVSW, string_op<StringOp::Movs>);
  t.add(ZYDIS_MNEMONIC_MOVSQ, string_op<StringOp::Movs>);
  t.add(ZYDIS_MNEMONIC_MOVSD, string_op<StringOp::Movs>);
  t.add(ZYDIS_MNEMONIC_STOSB, string_op<StringOp::Stos>);
  t.add(ZYDIS_MNEMONIC_STOSW, string_op<StringOp::Stos>);
  t.add(ZYDIS_MNEMONIC_STOSD, string_op<StringOp::Stos>);
  t.add(ZYDIS_MNEMONIC_STOSQ, string_op<StringOp::Stos>);
  t.add(ZYDIS_MNEMONIC_LODSB, string_op<StringOp::Lods>);
  t.add(ZYDIS_MNEMONIC_LODSW, string_op<StringOp::Lods>);
  t.add(ZYDIS_MNEMONIC_LODSD, string_op<StringOp::Lods>);
  t.add(ZYDIS_MNEMONIC_LODSQ, string_op<StringOp::Lods>);
  t.add(ZYDIS_MNEMONIC_CMPSB, string_op<StringOp::Cmps>);
  t.add(ZYDIS_MNEMONIC_CMPSW, string_op<StringOp::Cmps>);
  t.add(ZYDIS_MNEMONIC_CMPSQ, string_op<StringOp::Cmps>);
  t.add(ZYDIS_MNEMONIC_CMPSD, string_op<StringOp::Cmps>);
  t.add(ZYDIS_MNEMONIC_SCASB, string_op<StringOp::Scas>);
  t.add(ZYDIS_MNEMONIC_SCASW, string_op<StringOp::Scas>);
  t.add(ZYDIS_MNEMONIC_SCASD, string_op<StringOp::Scas>);
  t.add(ZYDIS_MNEMONIC_SCASQ, string_op<StringOp::Scas>);
}

}  // namespace phybin::x86

namespace phybin::x86 {
// MOVSD and CMPSD name both a string instruction and an SSE2 one; the SSE
// family owns the mnemonics and hands the string forms over to these.
bool string_movsd(Ctx& c) { return string_op<StringOp::Movs>(c); }
bool string_cmpsd(Ctx& c) { return string_op<StringOp::Cmps>(c); }
}  // namespace phybin::x86
