// Data movement: mov and its extending forms, lea, xchg, push/pop (64 and
// 16 bits), segment registers (mov Sreg, push/pop fs/gs, lss/lfs/lgs),
// cmovcc, setcc, sign-extension of the accumulator, bswap, enter/leave,
// nops, cmpxchg, xadd.
#include <csignal>
#include <cstddef>

#include "x86/flags.h"
#include "x86/helpers.h"
#include "x86/operands.h"

namespace phybin::x86 {

using ir::Opcode;
using ir::Type;
using ir::Value;

namespace {

bool is_segment(const ZydisDecodedOperand& op) {
  return op.type == ZYDIS_OPERAND_TYPE_REGISTER && ZydisRegisterGetClass(op.reg.value) == ZYDIS_REGCLASS_SEGMENT;
}

// Zydis numbers ES..GS in the Sreg order of SegReg.
static_assert(ZYDIS_REGISTER_SS - ZYDIS_REGISTER_ES == kSS && ZYDIS_REGISTER_GS - ZYDIS_REGISTER_ES == kGS);
uint64_t segreg_of(ZydisRegister seg) { return static_cast<uint64_t>(seg - ZYDIS_REGISTER_ES); }

// The selector in a segment register, as a word.  CS is a constant: phybin
// runs only 64-bit code, under Linux's __USER_CS.
Value read_selector(Ctx& c, ZydisRegister seg) {
  if (seg == ZYDIS_REGISTER_CS) return c.b.constant(Type::I16, kUserCodeSelector);
  return c.b.load_state(Type::I16, static_cast<uint32_t>(offsetof(GuestState, selector) + 2 * segreg_of(seg)));
}

// Loads the word `sel` into `seg`: the helper checks it against the GDT
// (#GP before anything changed) and sets the FS or GS base, which the
// address of every later FS/GS operand reads from the state.
void load_selector(Ctx& c, ZydisRegister seg, Value sel) {
  c.b.call(Type::Void, reinterpret_cast<const void*>(&helper_load_segment), c.b.zext(Type::I64, sel),
           c.b.constant(Type::I64, segreg_of(seg)));
}

bool is_system_register(const ZydisDecodedOperand& op) {
  if (op.type != ZYDIS_OPERAND_TYPE_REGISTER) return false;
  const ZydisRegisterClass k = ZydisRegisterGetClass(op.reg.value);
  return k == ZYDIS_REGCLASS_CONTROL || k == ZYDIS_REGCLASS_DEBUG;
}

// mov to or from CR/DR: #GP in user mode.  mov r/m, Sreg: a word into
// memory; into a register of any width, the selector zero-extended (a
// 16-bit register keeps its upper bits).  mov Sreg, r/m reads a word
// whatever the operand size (mov cs does not decode: #UD).
bool mov(Ctx& c) {
  if (is_system_register(c.op(0)) || is_system_register(c.op(1))) {
    end_with_trap(c, c.rip, SIGSEGV);
    return true;
  }
  if (is_segment(c.op(0))) {
    if (c.op(0).reg.value == ZYDIS_REGISTER_CS) return false;
    load_selector(c, c.op(0).reg.value, read_operand(c, 1));
    return true;
  }
  if (is_segment(c.op(1))) {
    write_operand(c, 0, c.b.zext(operand_type(c.op(0)), read_selector(c, c.op(1).reg.value)));
    return true;
  }
  write_operand(c, 0, read_operand(c, 1));
  return true;
}

template <bool kSign>
bool mov_extend(Ctx& c) {
  const Type to = operand_type(c.op(0));
  // movsxd r16, r/m (66 63): no extension, a word moved; Intel CPUs read
  // only the word of a memory source.
  if (type_bits(to) < type_bits(operand_type(c.op(1)))) {
    const Value v = c.op(1).type == ZYDIS_OPERAND_TYPE_MEMORY ? c.b.load(to, effective_address(c, 1))
                                                               : c.b.trunc(to, read_operand(c, 1));
    write_operand(c, 0, v);
    return true;
  }
  write_operand(c, 0, read_operand_ext(c, 1, to, kSign));
  return true;
}

bool lea(Ctx& c) {
  Value addr = effective_address(c, 1);
  write_operand(c, 0, c.b.trunc(operand_type(c.op(0)), addr));
  return true;
}

bool xchg(Ctx& c) {
  if (is_locked(c)) {  // with memory
    const int mem = c.op(0).type == ZYDIS_OPERAND_TYPE_MEMORY ? 0 : 1;
    write_operand(c, 1 - mem, atomic_rmw(c, mem, ir::AtomicOp::Swap, read_operand(c, 1 - mem)));
    return true;
  }
  Value a = read_operand(c, 0);
  Value b = read_operand(c, 1);
  write_operand(c, 0, b);
  write_operand(c, 1, a);
  return true;
}

// push/pop move 8 bytes, or 2 with a 66 prefix (push r16/m16/imm16, pop
// r16/m16, push fs/gs: the selector zero-extended to the operand size).
bool push(Ctx& c) {
  Type t = type_of_size(c.d.info.operand_width);
  if (is_segment(c.op(0))) {
    push_stack(c, c.b.zext(t, read_selector(c, c.op(0).reg.value)));
    return true;
  }
  if (c.op(0).type != ZYDIS_OPERAND_TYPE_IMMEDIATE) {
    push_stack(c, read_operand(c, 0));
    return true;
  }
  // Zydis sign-extends the immediate to 64 bits; keep the operand's width.
  uint64_t mask = t == Type::I64 ? ~uint64_t{0} : (uint64_t{1} << type_bits(t)) - 1;
  push_stack(c, c.b.constant(t, c.op(0).imm.value.u & mask));
  return true;
}

// pop fs/gs (8 bytes, or 2 with 66): RSP moves only when the selector
// loads, so the helper runs before it is written.
bool pop_segment(Ctx& c) {
  const Type t = type_of_size(c.d.info.operand_width);
  Value sp = c.b.get_reg(RSP);
  Value v = c.b.load(t, sp);
  load_selector(c, c.op(0).reg.value, c.b.trunc(Type::I16, v));
  c.b.set_reg(RSP, c.b.binary(Opcode::Add, Type::I64, sp, c.b.constant(Type::I64, type_bits(t) / 8)));
  return true;
}

bool pop(Ctx& c) {
  if (is_segment(c.op(0))) return pop_segment(c);
  Value v = pop_stack(c, type_of_size(c.d.info.operand_width));
  // pop [rsp+disp] addresses with the incremented RSP, which the forwarding
  // of the SetReg above gives us for free.
  write_operand(c, 0, v);
  return true;
}

// lss/lfs/lgs r, m16:16|32|64: the offset in the operand size, then the
// selector after it; both are read before the selector is checked, and
// the register is written only once it loaded.  With REX.W the pointer is
// m16:64 as on Intel CPUs (AMD reads m16:32).
bool load_far_pointer(Ctx& c) {
  if (c.op(1).type != ZYDIS_OPERAND_TYPE_MEMORY) return false;
  const ZydisRegister seg = c.mnemonic() == ZYDIS_MNEMONIC_LSS   ? ZYDIS_REGISTER_SS
                            : c.mnemonic() == ZYDIS_MNEMONIC_LFS ? ZYDIS_REGISTER_FS
                                                                 : ZYDIS_REGISTER_GS;
  const Type t = operand_type(c.op(0));
  Value addr = effective_address(c, 1);
  Value offset = c.b.load(t, addr);
  Value sel = c.b.load(Type::I16, c.b.binary(Opcode::Add, Type::I64, addr, c.b.constant(Type::I64, type_bits(t) / 8)));
  load_selector(c, seg, sel);
  write_operand(c, 0, offset);
  return true;
}

bool cmovcc(Ctx& c) {
  Type t = operand_type(c.op(0));
  Value cond = condition(c, condition_code(c));
  Value src = read_operand(c, 1);
  Value old = read_operand(c, 0);
  // A 32-bit cmov writes (and zero-extends) the destination even when the
  // condition is false.
  write_operand(c, 0, c.b.select(t, cond, src, old));
  return true;
}

bool setcc(Ctx& c) {
  write_operand(c, 0, c.b.zext(Type::I8, condition(c, condition_code(c))));
  return true;
}

// cbw/cwde/cdqe: sign-extend the lower half of the accumulator in place.
bool extend_accumulator(Ctx& c) {
  unsigned bits = c.d.info.operand_width;
  Value full = c.b.get_reg(RAX);
  Value half = c.b.trunc(type_of_size(bits / 2), full);
  Value wide = c.b.sext(type_of_size(bits), half);
  if (bits == 64) c.b.set_reg(RAX, wide);
  else if (bits == 32) c.b.set_reg(RAX, c.b.zext(Type::I64, wide));
  else c.b.set_reg(RAX, c.b.insert(Type::I64, full, wide, 0, 16));
  return true;
}

// cwd/cdq/cqo: fill the data register with the accumulator's sign.
bool sign_to_rdx(Ctx& c) {
  unsigned bits = c.d.info.operand_width;
  Type t = type_of_size(bits);
  Value a = c.b.trunc(t, c.b.get_reg(RAX));
  // cwd shifts the word sign-extended to 32 bits, then keeps the low word.
  const Type wide = bits < 32 ? Type::I32 : t;
  Value fill = c.b.trunc(t, c.b.binary(Opcode::Ashr, wide, c.b.sext(wide, a),
                                       c.b.constant(wide, type_bits(wide) - 1)));
  if (bits == 64) c.b.set_reg(RDX, fill);
  else if (bits == 32) c.b.set_reg(RDX, c.b.zext(Type::I64, fill));
  else c.b.set_reg(RDX, c.b.insert(Type::I64, c.b.get_reg(RDX), fill, 0, 16));
  return true;
}

bool bswap(Ctx& c) {
  Type t = operand_type(c.op(0));
  if (t == Type::I16) {
    write_operand(c, 0, c.b.constant(Type::I16, 0));  // 16-bit bswap is undefined; CPUs give 0
    return true;
  }
  write_operand(c, 0, c.b.unary(Opcode::Bswap, t, read_operand(c, 0)));
  return true;
}

// xlat: AL = [RBX + AL] (EBX + AL with the address-size prefix), through
// an FS or GS override when there is one.
bool xlat(Ctx& c) {
  Value addr = c.b.binary(Opcode::Add, Type::I64, c.b.get_reg(RBX),
                          c.b.zext(Type::I64, c.b.trunc(Type::I8, c.b.get_reg(RAX))));
  if (c.d.info.address_width == 32) addr = c.b.zext(Type::I64, c.b.trunc(Type::I32, addr));
  const auto attrs = c.d.info.attributes;
  if (attrs & (ZYDIS_ATTRIB_HAS_SEGMENT_FS | ZYDIS_ATTRIB_HAS_SEGMENT_GS)) {
    const uint32_t base = (attrs & ZYDIS_ATTRIB_HAS_SEGMENT_FS) ? offsetof(GuestState, fs_base)
                                                                 : offsetof(GuestState, gs_base);
    addr = c.b.binary(Opcode::Add, Type::I64, c.b.load_state(Type::I64, base), addr);
  }
  c.b.set_reg(RAX, c.b.insert(Type::I64, c.b.get_reg(RAX), c.b.load(Type::I8, addr), 0, 8));
  return true;
}

// Replaces the frame-pointer part an instruction of width t writes: all of
// RBP at 64 bits, only BP at 16 (the CPU keeps RBP's upper 48 bits).
void set_frame_pointer(Ctx& c, Type t, Value v) {
  if (t == Type::I64) c.b.set_reg(RBP, v);
  else c.b.set_reg(RBP, c.b.insert(Type::I64, c.b.get_reg(RBP), c.b.trunc(Type::I16, v), 0, 16));
}

// leave (64 or 16 bits): RSP gets all of RBP even with a 66 prefix, then the
// pop (a word into BP for leavew).
bool leave(Ctx& c) {
  Type t = type_of_size(c.d.info.operand_width);
  if (t != Type::I64 && t != Type::I16) return false;
  c.b.set_reg(RSP, c.b.get_reg(RBP));
  set_frame_pointer(c, t, pop_stack(c, t));
  return true;
}

// enter size, level: push RBP, then for a nesting level L > 0 copy L-1 frame
// pointers from the old frame (the display of enclosing procedures, read
// below the old RBP) and push the new frame pointer; RBP gets the frame,
// RSP drops by size.  The level is taken modulo 32.  With a 66 prefix every
// push and copy is a word (copies read at RBP-2*i), RSP still moves in 64
// bits and only BP gets the frame (measured on the CPU).
bool enter(Ctx& c) {
  Type t = type_of_size(c.d.info.operand_width);
  if (t != Type::I64 && t != Type::I16) return false;
  const uint64_t bytes = type_bits(t) / 8;
  uint64_t size = c.op(0).imm.value.u & 0xffff;
  unsigned level = static_cast<unsigned>(c.op(1).imm.value.u) & 31;
  Value old_rbp = c.b.get_reg(RBP);
  push_stack(c, c.b.trunc(t, old_rbp));
  Value frame = c.b.get_reg(RSP);
  if (level > 0) {
    for (unsigned i = 1; i < level; ++i)
      push_stack(c, c.b.load(t, c.b.binary(Opcode::Sub, Type::I64, old_rbp, c.b.constant(Type::I64, bytes * i))));
    push_stack(c, c.b.trunc(t, frame));
  }
  set_frame_pointer(c, t, frame);
  Value rsp = c.b.binary(Opcode::Sub, Type::I64, c.b.get_reg(RSP), c.b.constant(Type::I64, size));
  // The CPU checks that the final RSP can be written (measured: the page
  // fault reports it): a byte stored back as it was.
  if (size > 0) c.b.store(rsp, c.b.load(Type::I8, rsp));
  c.b.set_reg(RSP, rsp);
  return true;
}

bool nop(Ctx&) { return true; }

bool is_accumulator(ZydisRegister r) {
  return r == ZYDIS_REGISTER_AL || r == ZYDIS_REGISTER_AX || r == ZYDIS_REGISTER_EAX || r == ZYDIS_REGISTER_RAX;
}

// Locked (lock cmpxchg m, r), the compare and the store are one atomic.
bool cmpxchg(Ctx& c) {
  Type t = operand_type(c.op(0));
  const bool locked = is_locked(c);
  Value acc = c.b.trunc(t, c.b.get_reg(RAX));
  Value src = read_operand(c, 1);
  Value dest = locked ? c.b.atomic_cas(t, effective_address(c, 0), acc, src) : read_operand(c, 0);
  flags_sub(c, acc, dest, c.b.binary(Opcode::Sub, t, acc, dest));
  Value equal = c.b.icmp(ir::Cond::EQ, acc, dest);
  if (c.op(0).type == ZYDIS_OPERAND_TYPE_MEMORY) {
    // The processor always writes the destination (the old value when
    // unequal); so does the atomic.
    if (!locked) write_operand(c, 0, c.b.select(t, equal, src, dest));
    Value rax = c.b.get_reg(RAX);
    Value new_acc = c.b.select(t, equal, acc, dest);
    if (t == Type::I64) c.b.set_reg(RAX, new_acc);
    else if (t == Type::I32) c.b.set_reg(RAX, c.b.select(Type::I64, equal, rax, c.b.zext(Type::I64, dest)));
    else c.b.set_reg(RAX, c.b.insert(Type::I64, rax, new_acc, 0, type_bits(t)));
    return true;
  }
  // The accumulator as destination always compares equal: it gets src.
  if (is_accumulator(c.op(0).reg.value)) {
    write_operand(c, 0, src);
    return true;
  }
  // Register destination: x86 writes only one of dest/RAX, but a 32-bit
  // write zero-extends whichever it writes.
  if (t == Type::I32) {
    Value old_dest_full = c.b.get_reg(gpr_index(c.op(0).reg.value));
    Value rax = c.b.get_reg(RAX);
    c.b.set_reg(RAX, c.b.select(Type::I64, equal, rax, c.b.zext(Type::I64, dest)));
    c.b.set_reg(gpr_index(c.op(0).reg.value),
                c.b.select(Type::I64, equal, c.b.zext(Type::I64, src), old_dest_full));
    return true;
  }
  write_operand(c, 0, c.b.select(t, equal, src, dest));
  Value rax = c.b.get_reg(RAX);
  c.b.set_reg(RAX, t == Type::I64 ? c.b.select(t, equal, rax, dest)
                                  : c.b.insert(Type::I64, rax, c.b.select(t, equal, acc, dest), 0, type_bits(t)));
  return true;
}

bool xadd(Ctx& c) {
  Type t = operand_type(c.op(0));
  const bool locked = is_locked(c);
  Value b = read_operand(c, 1);
  Value a = locked ? atomic_rmw(c, 0, ir::AtomicOp::Add, b) : read_operand(c, 0);
  Value r = c.b.binary(Opcode::Add, t, a, b);
  write_operand(c, 1, a);
  if (!locked) write_operand(c, 0, r);
  flags_add(c, a, b, r);
  return true;
}

}  // namespace

void register_data(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_MOV, mov);
  t.add(ZYDIS_MNEMONIC_MOVZX, mov_extend<false>);
  t.add(ZYDIS_MNEMONIC_MOVSX, mov_extend<true>);
  t.add(ZYDIS_MNEMONIC_MOVSXD, mov_extend<true>);
  t.add(ZYDIS_MNEMONIC_LEA, lea);
  t.add(ZYDIS_MNEMONIC_XCHG, xchg);
  t.add(ZYDIS_MNEMONIC_PUSH, push);
  t.add(ZYDIS_MNEMONIC_POP, pop);
  t.add(ZYDIS_MNEMONIC_LSS, load_far_pointer);
  t.add(ZYDIS_MNEMONIC_LFS, load_far_pointer);
  t.add(ZYDIS_MNEMONIC_LGS, load_far_pointer);
  for (int m = ZYDIS_MNEMONIC_CMOVB; m <= ZYDIS_MNEMONIC_CMOVZ; ++m) t.add(static_cast<ZydisMnemonic>(m), cmovcc);
  for (int m = ZYDIS_MNEMONIC_SETB; m <= ZYDIS_MNEMONIC_SETZ; ++m)
    if (m != ZYDIS_MNEMONIC_SETSSBSY) t.add(static_cast<ZydisMnemonic>(m), setcc);
  t.add(ZYDIS_MNEMONIC_CBW, extend_accumulator);
  t.add(ZYDIS_MNEMONIC_CWDE, extend_accumulator);
  t.add(ZYDIS_MNEMONIC_CDQE, extend_accumulator);
  t.add(ZYDIS_MNEMONIC_CWD, sign_to_rdx);
  t.add(ZYDIS_MNEMONIC_CDQ, sign_to_rdx);
  t.add(ZYDIS_MNEMONIC_CQO, sign_to_rdx);
  t.add(ZYDIS_MNEMONIC_BSWAP, bswap);
  t.add(ZYDIS_MNEMONIC_XLAT, xlat);
  t.add(ZYDIS_MNEMONIC_LEAVE, leave);
  t.add(ZYDIS_MNEMONIC_ENTER, enter);
  t.add(ZYDIS_MNEMONIC_NOP, nop);
  t.add(ZYDIS_MNEMONIC_ENDBR64, nop);
  t.add(ZYDIS_MNEMONIC_PREFETCHT0, nop);
  t.add(ZYDIS_MNEMONIC_PREFETCHT1, nop);
  t.add(ZYDIS_MNEMONIC_PREFETCHT2, nop);
  t.add(ZYDIS_MNEMONIC_PREFETCHNTA, nop);
  t.add(ZYDIS_MNEMONIC_PREFETCHW, nop);
  t.add(ZYDIS_MNEMONIC_PREFETCH, nop);      // 0F 0D /0 and the reserved forms: hints
  t.add(ZYDIS_MNEMONIC_PREFETCHWT1, nop);
  t.add(ZYDIS_MNEMONIC_CMPXCHG, cmpxchg);
  t.add(ZYDIS_MNEMONIC_XADD, xadd);
}

}  // namespace phybin::x86
