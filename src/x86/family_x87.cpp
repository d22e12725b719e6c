// x87 control and status: the part of the FPU that SSE-only code still
// touches (glibc reads the rounding mode from the x87 control word).  The
// x87 data registers and arithmetic are not translated yet.
#include <cstddef>

#include "x86/operands.h"

namespace phybin::x86 {

using ir::Type;
using ir::Value;

namespace {

constexpr uint32_t kFcw = offsetof(GuestState, fcw);
constexpr uint32_t kFsw = offsetof(GuestState, fsw);
constexpr uint32_t kFtw = offsetof(GuestState, ftw);

bool fnstcw(Ctx& c) {
  write_operand(c, 0, c.b.load_state(Type::I16, kFcw));
  return true;
}

bool fldcw(Ctx& c) {
  c.b.store_state(kFcw, read_operand(c, 0));
  return true;
}

bool fnstsw(Ctx& c) {
  write_operand(c, 0, c.b.load_state(Type::I16, kFsw));
  return true;
}

// fninit: control word 0x37F (all exceptions masked, 64-bit precision,
// round to nearest), empty stack.
bool fninit(Ctx& c) {
  c.b.store_state(kFcw, c.b.constant(Type::I16, 0x37f));
  c.b.store_state(kFsw, c.b.constant(Type::I16, 0));
  c.b.store_state(kFtw, c.b.constant(Type::I16, 0xffff));
  return true;
}

bool fnclex(Ctx& c) {
  Value fsw = c.b.load_state(Type::I16, kFsw);
  c.b.store_state(kFsw, c.b.binary(ir::Opcode::And, Type::I16, fsw, c.b.constant(Type::I16, 0x7f00)));
  return true;
}

bool nop(Ctx&) { return true; }

}  // namespace

void register_x87(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_FNSTCW, fnstcw);
  t.add(ZYDIS_MNEMONIC_FLDCW, fldcw);
  t.add(ZYDIS_MNEMONIC_FNSTSW, fnstsw);
  t.add(ZYDIS_MNEMONIC_FNINIT, fninit);
  t.add(ZYDIS_MNEMONIC_FNCLEX, fnclex);
  t.add(ZYDIS_MNEMONIC_FWAIT, nop);
}

}  // namespace phybin::x86
