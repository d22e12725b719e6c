// Integer extensions outside BMI: adcx/adox (ADX), movbe, cmpxchg8b and
// cmpxchg16b (CX8/CX16).
#include "x86/flags.h"
#include "x86/helpers.h"
#include "x86/operands.h"
#include "x86/sse.h"

namespace phybin::x86 {

using ir::Cond;
using ir::Opcode;
using ir::Type;
using ir::Value;

namespace {

// adcx (carry in CF) and adox (carry in OF): an add with carry that reads
// and writes that one flag only, so two carry chains can interleave.
template <uint8_t kCarryFlag>
bool add_carry_flag(Ctx& c) {
  Type t = operand_type(c.op(0));
  Value a = read_operand(c, 0);
  Value b = read_operand(c, 1);
  Value carry_in = c.b.get_flag(kCarryFlag);
  Value r = c.b.binary(Opcode::Add, t, c.b.binary(Opcode::Add, t, a, b), c.b.zext(t, carry_in));
  write_operand(c, 0, r);
  // Carry out: the sum wrapped below a, or carry in with b = all ones.
  Value wrapped = c.b.icmp(Cond::ULT, r, a);
  Value same = c.b.binary(Opcode::And, Type::I1, carry_in, c.b.icmp(Cond::EQ, r, a));
  put_flag(c, kCarryFlag, c.b.binary(Opcode::Or, Type::I1, wrapped, same));
  return true;
}

// movbe: a load or store with the bytes reversed.
bool movbe(Ctx& c) {
  Type t = operand_type(c.op(0));
  Value v = read_operand(c, 1);
  Value swapped;
  if (t == Type::I16) {
    Value wide = c.b.unary(Opcode::Bswap, Type::I32, c.b.zext(Type::I32, v));
    swapped = c.b.trunc(Type::I16, c.b.binary(Opcode::Lshr, Type::I32, wide, c.b.constant(Type::I32, 16)));
  } else {
    swapped = c.b.unary(Opcode::Bswap, t, v);
  }
  write_operand(c, 0, swapped);
  return true;
}

// cmpxchg8b m64: compares EDX:EAX with the memory; equal: stores ECX:EBX
// and sets ZF; else loads the memory into EDX:EAX (zero-extended) and
// clears ZF.  Like every locked read-modify-write on x86 it always writes
// memory (the old value when unequal); locked, the compare and the store
// are one atomic.
bool cmpxchg8b(Ctx& c) {
  Value addr = effective_address(c, 0);
  Value rax = c.b.get_reg(RAX), rdx = c.b.get_reg(RDX);
  auto pair = [&](Value hi, Value lo) {
    return c.b.insert(Type::I64, c.b.zext(Type::I64, c.b.trunc(Type::I32, lo)), c.b.zext(Type::I64, c.b.trunc(Type::I32, hi)), 32, 32);
  };
  Value expected = pair(rdx, rax);
  Value desired = pair(c.b.get_reg(RCX), c.b.get_reg(RBX));
  const bool locked = is_locked(c);
  Value old = locked ? c.b.atomic_cas(Type::I64, addr, expected, desired) : c.b.load(Type::I64, addr);
  Value equal = c.b.icmp(Cond::EQ, old, expected);
  if (!locked) c.b.store(addr, c.b.select(Type::I64, equal, desired, old));
  Value old_lo = c.b.zext(Type::I64, c.b.trunc(Type::I32, old));
  Value old_hi = c.b.zext(Type::I64, c.b.extract(old, 32, 32));
  c.b.set_reg(RAX, c.b.select(Type::I64, equal, rax, old_lo));
  c.b.set_reg(RDX, c.b.select(Type::I64, equal, rdx, old_hi));
  put_flag(c, kZF, equal);
  return true;
}

// cmpxchg16b m128: the same on RDX:RAX / RCX:RBX, in a helper that makes
// it atomic on the host.  A misaligned operand is #GP (SIGSEGV).
bool cmpxchg16b(Ctx& c) {
  Value addr = effective_address(c, 0);
  sse::check_align(c, addr);
  c.b.call(Type::Void, reinterpret_cast<const void*>(&helper_cmpxchg16b), addr);
  return true;
}

}  // namespace

void register_intext(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_ADCX, add_carry_flag<kCF>);
  t.add(ZYDIS_MNEMONIC_ADOX, add_carry_flag<kOF>);
  t.add(ZYDIS_MNEMONIC_MOVBE, movbe);
  t.add(ZYDIS_MNEMONIC_CMPXCHG8B, cmpxchg8b);
  t.add(ZYDIS_MNEMONIC_CMPXCHG16B, cmpxchg16b);
}

}  // namespace phybin::x86
