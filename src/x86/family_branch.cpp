// Control transfer: jmp, jcc, call, ret, jrcxz/loop.  Each ends the block
// and describes its exit; the backend links direct exits block to block.
#include "x86/flags.h"
#include "x86/helpers.h"
#include "x86/operands.h"

namespace phybin::x86 {

using ir::Opcode;
using ir::Type;
using ir::Value;

namespace {

uint64_t relative_target(const Ctx& c) {
  return c.next + static_cast<uint64_t>(c.op(0).imm.value.s);
}

bool is_relative(const Ctx& c) {
  return c.op(0).type == ZYDIS_OPERAND_TYPE_IMMEDIATE && c.op(0).imm.is_relative;
}

void jump_to(Ctx& c, uint64_t target) {
  c.exit() = ir::Exit{ir::ExitKind::Jump, ir::kNoValue, ir::kNoValue, target, 0, 0};
  c.ends_block = true;
}

void jump_indirect(Ctx& c, Value address, ir::ExitKind kind) {
  c.exit() = ir::Exit{kind, ir::kNoValue, address, 0, 0, 0};
  c.ends_block = true;
}

void branch(Ctx& c, Value cond) {
  c.exit() = ir::Exit{ir::ExitKind::Branch, cond, ir::kNoValue, relative_target(c), c.next, 0};
  c.ends_block = true;
}

bool is_far(const Ctx& c) { return c.d.info.meta.branch_type == ZYDIS_BRANCH_TYPE_FAR; }

// jmp/call far [m16:16|32|64], retf and iret: the helper checks the
// selectors and moves the stack; the block leaves through the indirect exit.
bool far_transfer(Ctx& c, FarTransfer::Kind kind) {
  Value address = c.b.constant(Type::I64, 0);
  uint16_t ret_imm = 0;
  if (kind == FarTransfer::InterruptReturn) {
    // nothing but the stack
  } else if (kind == FarTransfer::Return) {
    if (c.d.info.operand_count_visible > 0) ret_imm = static_cast<uint16_t>(c.op(0).imm.value.u);
  } else {
    if (c.op(0).type != ZYDIS_OPERAND_TYPE_MEMORY) return false;
    address = effective_address(c, 0);
  }
  const uint64_t packed = FarTransfer::pack(kind, c.d.info.operand_width / 8, c.d.info.length, ret_imm);
  Value target = c.b.call(Type::I64, reinterpret_cast<const void*>(&helper_far_transfer), address,
                          c.b.constant(Type::I64, packed));
  jump_indirect(c, target, ir::ExitKind::Indirect);
  return true;
}

bool jmp(Ctx& c) {
  if (is_far(c)) return far_transfer(c, FarTransfer::Jump);
  if (is_relative(c)) jump_to(c, relative_target(c));
  else jump_indirect(c, read_operand(c, 0), ir::ExitKind::Indirect);
  return true;
}

bool jcc(Ctx& c) {
  branch(c, condition(c, condition_code(c)));
  return true;
}

bool call(Ctx& c) {
  if (is_far(c)) return far_transfer(c, FarTransfer::Call);
  Value target = is_relative(c) ? ir::kNoValue : read_operand(c, 0);
  push64(c, c.b.guest_address(c.next));
  if (target == ir::kNoValue) jump_to(c, relative_target(c));
  else jump_indirect(c, target, ir::ExitKind::Indirect);
  c.exit().abi_boundary = true;
  return true;
}

bool ret(Ctx& c) {
  if (is_far(c)) return far_transfer(c, FarTransfer::Return);
  Value target = pop64(c);
  if (c.d.info.operand_count_visible > 0) {
    Value extra = c.b.constant(Type::I64, c.op(0).imm.value.u);
    c.b.set_reg(RSP, c.b.binary(Opcode::Add, Type::I64, c.b.get_reg(RSP), extra));
  }
  jump_indirect(c, target, ir::ExitKind::Return);
  c.exit().abi_boundary = true;
  return true;
}

bool jrcxz(Ctx& c) {
  Type t = c.mnemonic() == ZYDIS_MNEMONIC_JECXZ ? Type::I32 : Type::I64;
  Value rcx = c.b.trunc(t, c.b.get_reg(RCX));
  branch(c, c.b.icmp(ir::Cond::EQ, rcx, c.b.constant(t, 0)));
  return true;
}

// loop / loope / loopne: decrement RCX (flags untouched), then branch.
// With the address-size prefix the count is ECX, written as any 32-bit
// register (zero-extended).
bool loop(Ctx& c) {
  const Type t = c.d.info.address_width == 32 ? Type::I32 : Type::I64;
  Value count = c.b.binary(Opcode::Sub, t, c.b.trunc(t, c.b.get_reg(RCX)), c.b.constant(t, 1));
  c.b.set_reg(RCX, t == Type::I64 ? count : c.b.zext(Type::I64, count));
  Value cond = c.b.icmp(ir::Cond::NE, count, c.b.constant(t, 0));
  if (c.mnemonic() != ZYDIS_MNEMONIC_LOOP) {
    Value zf = c.b.get_flag(kZF);
    if (c.mnemonic() == ZYDIS_MNEMONIC_LOOPNE) zf = c.b.binary(Opcode::Xor, Type::I1, zf, c.b.constant(Type::I1, 1));
    cond = c.b.binary(Opcode::And, Type::I1, cond, zf);
  }
  branch(c, cond);
  return true;
}

}  // namespace

void register_branch(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_JMP, jmp);
  t.add(ZYDIS_MNEMONIC_CALL, call);
  t.add(ZYDIS_MNEMONIC_RET, ret);
  for (ZydisMnemonic m : {ZYDIS_MNEMONIC_IRET, ZYDIS_MNEMONIC_IRETD, ZYDIS_MNEMONIC_IRETQ})
    t.add(m, [](Ctx& c) { return far_transfer(c, FarTransfer::InterruptReturn); });
  for (ZydisMnemonic m : {ZYDIS_MNEMONIC_JB, ZYDIS_MNEMONIC_JBE, ZYDIS_MNEMONIC_JL, ZYDIS_MNEMONIC_JLE,
                          ZYDIS_MNEMONIC_JNB, ZYDIS_MNEMONIC_JNBE, ZYDIS_MNEMONIC_JNL, ZYDIS_MNEMONIC_JNLE,
                          ZYDIS_MNEMONIC_JNO, ZYDIS_MNEMONIC_JNP, ZYDIS_MNEMONIC_JNS, ZYDIS_MNEMONIC_JNZ,
                          ZYDIS_MNEMONIC_JO, ZYDIS_MNEMONIC_JP, ZYDIS_MNEMONIC_JS, ZYDIS_MNEMONIC_JZ})
    t.add(m, jcc);
  t.add(ZYDIS_MNEMONIC_JRCXZ, jrcxz);
  t.add(ZYDIS_MNEMONIC_JECXZ, jrcxz);
  t.add(ZYDIS_MNEMONIC_LOOP, loop);
  t.add(ZYDIS_MNEMONIC_LOOPE, loop);
  t.add(ZYDIS_MNEMONIC_LOOPNE, loop);
}

}  // namespace phybin::x86
