#include "x86/operands.h"

#include <cstddef>

namespace phybin::x86 {

using ir::Opcode;
using ir::Type;
using ir::Value;

Type type_of_size(unsigned bits) { return ir::int_type_of_bits(static_cast<int>(bits)); }

Type operand_type(const ZydisDecodedOperand& op) { return type_of_size(op.size); }

uint8_t gpr_index(ZydisRegister reg) {
  ZydisRegister full = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, reg);
  return static_cast<uint8_t>(full - ZYDIS_REGISTER_RAX);
}

bool is_high_byte(ZydisRegister reg) {
  return reg == ZYDIS_REGISTER_AH || reg == ZYDIS_REGISTER_CH || reg == ZYDIS_REGISTER_DH ||
         reg == ZYDIS_REGISTER_BH;
}

Value read_gpr(Ctx& c, ZydisRegister reg) {
  Value full = c.b.get_reg(gpr_index(reg));
  if (is_high_byte(reg)) return c.b.trunc(Type::I8, c.b.extract(full, 8, 8));
  unsigned width = ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, reg);
  return c.b.trunc(type_of_size(width), full);
}

void write_gpr(Ctx& c, ZydisRegister reg, Value v) {
  uint8_t index = gpr_index(reg);
  if (is_high_byte(reg)) {
    c.b.set_reg(index, c.b.insert(Type::I64, c.b.get_reg(index), v, 8, 8));
    return;
  }
  unsigned width = ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, reg);
  switch (width) {
    case 64: c.b.set_reg(index, v); break;
    case 32: c.b.set_reg(index, c.b.zext(Type::I64, v)); break;
    default: c.b.set_reg(index, c.b.insert(Type::I64, c.b.get_reg(index), v, 0, width)); break;
  }
}

static Value segment_base(Ctx& c, ZydisRegister seg) {
  if (seg == ZYDIS_REGISTER_FS) return c.b.load_state(Type::I64, offsetof(GuestState, fs_base));
  if (seg == ZYDIS_REGISTER_GS) return c.b.load_state(Type::I64, offsetof(GuestState, gs_base));
  return ir::kNoValue;  // CS/DS/ES/SS have base 0 in 64-bit mode
}

Value effective_address(Ctx& c, int index) {
  if (c.address_cache[index] != ir::kNoValue) return c.address_cache[index];
  const ZydisDecodedOperand& op = c.op(index);
  const auto& mem = op.mem;
  Value addr = ir::kNoValue;
  auto add = [&](Value v) { addr = addr == ir::kNoValue ? v : c.b.binary(Opcode::Add, Type::I64, addr, v); };
  // With the address-size prefix a RIP-relative operand is EIP-relative
  // (the sum truncated to 32 bits below).
  if (mem.base == ZYDIS_REGISTER_RIP || mem.base == ZYDIS_REGISTER_EIP) {
    addr = c.b.guest_address(c.next + static_cast<uint64_t>(mem.disp.value));
  } else {
    if (mem.base != ZYDIS_REGISTER_NONE) add(c.b.get_reg(gpr_index(mem.base)));
    if (mem.index != ZYDIS_REGISTER_NONE) {
      Value idx = c.b.get_reg(gpr_index(mem.index));
      if (mem.scale > 1) {
        unsigned shift = mem.scale == 2 ? 1 : mem.scale == 4 ? 2 : 3;
        idx = c.b.binary(Opcode::Shl, Type::I64, idx, c.b.constant(Type::I64, shift));
      }
      add(idx);
    }
    if (mem.disp.has_displacement && mem.disp.value != 0)
      add(c.b.constant(Type::I64, static_cast<uint64_t>(mem.disp.value)));
    if (addr == ir::kNoValue) addr = c.b.constant(Type::I64, 0);
  }
  if (c.d.info.address_width == 32) addr = c.b.zext(Type::I64, c.b.trunc(Type::I32, addr));
  Value base = segment_base(c, mem.segment);
  if (base != ir::kNoValue) addr = c.b.binary(Opcode::Add, Type::I64, base, addr);
  c.address_cache[index] = addr;
  return addr;
}

bool is_locked(const Ctx& c) {
  if (c.d.info.attributes & ZYDIS_ATTRIB_HAS_LOCK) return true;
  return c.mnemonic() == ZYDIS_MNEMONIC_XCHG &&
         (c.op(0).type == ZYDIS_OPERAND_TYPE_MEMORY || c.op(1).type == ZYDIS_OPERAND_TYPE_MEMORY);
}

Value atomic_rmw(Ctx& c, int index, ir::AtomicOp op, Value v) {
  return c.b.atomic_rmw(op, operand_type(c.op(index)), effective_address(c, index), v);
}

Value read_operand(Ctx& c, int index) {
  const ZydisDecodedOperand& op = c.op(index);
  Type t = operand_type(op);
  switch (op.type) {
    case ZYDIS_OPERAND_TYPE_REGISTER: return read_gpr(c, op.reg.value);
    case ZYDIS_OPERAND_TYPE_MEMORY: return c.b.load(t, effective_address(c, index));
    case ZYDIS_OPERAND_TYPE_IMMEDIATE: {
      // An immediate takes the width of the operand it combines with;
      // Zydis has already sign-extended it to 64 bits.
      if (index > 0 && c.op(0).type != ZYDIS_OPERAND_TYPE_IMMEDIATE) t = operand_type(c.op(0));
      uint64_t v = op.imm.value.u;
      if (type_bits(t) < 64) v &= (uint64_t{1} << type_bits(t)) - 1;
      return c.b.constant(t, v);
    }
    default: return ir::kNoValue;
  }
}

Value read_operand_ext(Ctx& c, int index, Type to, bool sign) {
  Value v = read_operand(c, index);
  return sign ? c.b.sext(to, v) : c.b.zext(to, v);
}

void write_operand(Ctx& c, int index, Value v) {
  const ZydisDecodedOperand& op = c.op(index);
  if (op.type == ZYDIS_OPERAND_TYPE_REGISTER)
    write_gpr(c, op.reg.value, v);
  else
    c.b.store(effective_address(c, index), v);
}

void push_stack(Ctx& c, Value v) {
  uint64_t bytes = type_bits(c.b.type_of(v)) / 8;
  Value sp = c.b.binary(Opcode::Sub, Type::I64, c.b.get_reg(RSP), c.b.constant(Type::I64, bytes));
  c.b.store(sp, v);
  c.b.set_reg(RSP, sp);
}

Value pop_stack(Ctx& c, Type t) {
  Value sp = c.b.get_reg(RSP);
  Value v = c.b.load(t, sp);
  c.b.set_reg(RSP, c.b.binary(Opcode::Add, Type::I64, sp, c.b.constant(Type::I64, type_bits(t) / 8)));
  return v;
}

void end_with_trap(Ctx& c, uint64_t at, int signal) {
  c.b.emit(ir::Opcode::Trap, ir::Type::Void, ir::kNoValue, ir::kNoValue, ir::kNoValue, at, static_cast<uint8_t>(signal));
  c.exit() = ir::Exit{ir::ExitKind::Jump, ir::kNoValue, ir::kNoValue, at, 0, 0};
  c.ends_block = true;
}

}  // namespace phybin::x86
