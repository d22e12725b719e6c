// System and flag-register instructions: syscall, cpuid, rdtsc, traps,
// the FS/GS base instructions, fences, cld/std, clc/stc/cmc, lahf/sahf,
// pushf/popf.
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

bool syscall(Ctx& c) {
  if (!c.hooks.syscall) return false;
  uint64_t nr;
  ir::NativeCallShape shape;
  if (c.hooks.native_call && c.b.reg_is_known(RAX, nr) && c.hooks.native_call(nr, shape)) {
    // A forwarded function's entry (mov $NR, %eax; syscall; ret): called
    // as the SysV function it stands for, which leaves RCX and R11
    // undefined, as they are after any call.
    c.b.emit(Opcode::CallNative, Type::Void, ir::kNoValue, ir::kNoValue, ir::kNoValue, shape.pack());
    return true;
  }
  c.b.call(Type::Void, reinterpret_cast<const void*>(c.hooks.syscall));
  // The CPU leaves the return address in RCX and RFLAGS in R11.
  c.b.set_reg(RCX, c.b.guest_address(c.next));
  c.b.set_reg(R11, c.b.emit(Opcode::GetFlags, Type::I64));
  return true;
}

bool cpuid(Ctx& c) {
  c.b.call(Type::Void, reinterpret_cast<const void*>(&helper_cpuid));
  return true;
}

bool rdtsc(Ctx& c) {
  c.b.call(Type::Void, reinterpret_cast<const void*>(&helper_rdtsc));
  return true;
}

bool rdtscp(Ctx& c) {
  c.b.call(Type::Void, reinterpret_cast<const void*>(&helper_rdtscp));
  return true;
}

bool rdpid(Ctx& c) {
  write_operand(c, 0, c.b.call(Type::I64, reinterpret_cast<const void*>(&helper_tsc_aux)));
  return true;
}

// smsw: the machine status word, CR0's low bits.  The CPU phybin presents
// (a Westmere, CPUID) has no UMIP, so user code may read it: Linux runs
// with PE MP ET NE WP AM PG.  A word into memory, else the whole value.
bool smsw(Ctx& c) {
  constexpr uint64_t kCr0 = 0x80050033;
  const Type t = operand_type(c.op(0));
  write_operand(c, 0, c.b.constant(t, t == Type::I16 ? kCr0 & 0xffff : kCr0));
  return true;
}

// Faults (ud2, hlt) report the instruction's own address; the traps of
// int3 and icebp report the address after it, as the CPU does.
template <int kSignal>
bool trap(Ctx& c) {
  end_with_trap(c, kSignal == SIGTRAP || kSignal == kTrapDebug ? c.next : c.rip, kSignal);
  return true;
}

// int n.  Linux's IDT lets user code through three gates: 3 (#BP, as
// int3), 4 (#OF) and 0x80 (the i386 system call, with IA32 emulation as in
// Debian's kernels).  Every other vector is #GP naming the IDT entry, at
// the instruction.
bool interrupt(Ctx& c) {
  const auto vector = static_cast<uint8_t>(c.op(0).imm.value.u);
  switch (vector) {
    case 3: end_with_trap(c, c.next, SIGTRAP); return true;
    case 4: end_with_trap(c, c.next, kTrapOverflow); return true;
    case 0x80:
      if (!c.hooks.int80) break;
      c.b.call(Type::Void, reinterpret_cast<const void*>(c.hooks.int80));
      return true;
    default: break;
  }
  c.b.call(Type::Void, reinterpret_cast<const void*>(&helper_raise_gp), c.b.constant(Type::I64, vector));
  end_with_trap(c, c.rip, SIGSEGV);  // not reached: the helper raised the signal
  return true;
}

bool nop(Ctx&) { return true; }

// rdfsbase, rdgsbase, wrfsbase, wrgsbase: Linux (5.9 and later) lets user
// code run them.  The 32-bit forms read the base's low half and write a
// base zero-extended; a 64-bit base that is not canonical is #GP(0), which
// helper_write_segment_base raises.
template <uint32_t kOffset>
bool read_segment_base(Ctx& c) {
  const ir::Value base = c.b.load_state(Type::I64, kOffset);
  write_operand(c, 0, c.d.info.operand_width == 32 ? c.b.trunc(Type::I32, base) : base);
  return true;
}

template <unsigned kSegment>
bool write_segment_base(Ctx& c) {
  c.b.call(Type::Void, reinterpret_cast<const void*>(&helper_write_segment_base),
           c.b.zext(Type::I64, read_operand(c, 0)), c.b.constant(Type::I64, kSegment));
  return true;
}

template <uint8_t kBit, int kValue>
bool set_flag_const(Ctx& c) {
  put_flag(c, kBit, c.b.constant(Type::I1, kValue));
  return true;
}

bool cmc(Ctx& c) {
  put_flag(c, kCF, c.b.binary(Opcode::Xor, Type::I1, c.b.get_flag(kCF), c.b.constant(Type::I1, 1)));
  return true;
}

constexpr uint64_t kWritableFlags = kArithFlags | kFlagMask(kDF);
constexpr uint64_t kFixedFlags = 0x202;  // bit 1 is always set, IF is on in user mode

// pushf/popf, and pushfw/popfw (66 prefix) which move only the low 16 bits:
// every flag a user program can write lives there.
bool pushf(Ctx& c) {
  Type t = type_of_size(c.d.info.operand_width);
  push_stack(c, c.b.trunc(t, c.b.emit(Opcode::GetFlags, Type::I64)));
  return true;
}

bool popf(Ctx& c) {
  Value popped = c.b.zext(Type::I64, pop_stack(c, type_of_size(c.d.info.operand_width)));
  Value v = c.b.binary(Opcode::And, Type::I64, popped, c.b.constant(Type::I64, kWritableFlags));
  c.b.emit(Opcode::SetFlags, Type::Void, c.b.binary(Opcode::Or, Type::I64, v, c.b.constant(Type::I64, kFixedFlags)));
  return true;
}

bool lahf(Ctx& c) {
  Value low = c.b.trunc(Type::I8, c.b.emit(Opcode::GetFlags, Type::I64));
  c.b.set_reg(RAX, c.b.insert(Type::I64, c.b.get_reg(RAX), low, 8, 8));
  return true;
}

bool fence(Ctx& c) {
  c.b.fence();
  return true;
}

bool sahf(Ctx& c) {
  Value ah = c.b.extract(c.b.get_reg(RAX), 8, 8);
  for (uint8_t bit : {kCF, kPF, kAF, kZF, kSF}) put_flag(c, bit, c.b.extract(ah, bit, 1));
  return true;
}

}  // namespace

void register_system(HandlerTable& t) {
  t.add(ZYDIS_MNEMONIC_SYSCALL, syscall);
  t.add(ZYDIS_MNEMONIC_CPUID, cpuid);
  t.add(ZYDIS_MNEMONIC_RDTSC, rdtsc);
  t.add(ZYDIS_MNEMONIC_RDTSCP, rdtscp);
  t.add(ZYDIS_MNEMONIC_RDPID, rdpid);
  t.add(ZYDIS_MNEMONIC_SMSW, smsw);
  // CPUID does not advertise OSXSAVE, so xgetbv is #UD as on such a CPU.
  t.add(ZYDIS_MNEMONIC_XGETBV, trap<SIGILL>);
  t.add(ZYDIS_MNEMONIC_UD2, trap<SIGILL>);
  t.add(ZYDIS_MNEMONIC_UD0, trap<SIGILL>);
  t.add(ZYDIS_MNEMONIC_UD1, trap<SIGILL>);
  t.add(ZYDIS_MNEMONIC_INT3, trap<SIGTRAP>);
  t.add(ZYDIS_MNEMONIC_INT, interrupt);
  t.add(ZYDIS_MNEMONIC_INT1, trap<kTrapDebug>);
  // Privileged and I/O instructions: #GP in user mode (Linux gives no
  // process I/O permission unless it asks with ioperm/iopl, which phybin
  // does not pass on), SIGSEGV with SI_KERNEL.
  for (ZydisMnemonic m : kPrivilegedMnemonics) t.add(m, trap<SIGSEGV>);
  t.add(ZYDIS_MNEMONIC_RDFSBASE, read_segment_base<offsetof(GuestState, fs_base)>);
  t.add(ZYDIS_MNEMONIC_RDGSBASE, read_segment_base<offsetof(GuestState, gs_base)>);
  t.add(ZYDIS_MNEMONIC_WRFSBASE, write_segment_base<kFS>);
  t.add(ZYDIS_MNEMONIC_WRGSBASE, write_segment_base<kGS>);
  t.add(ZYDIS_MNEMONIC_PAUSE, nop);
  // mfence orders every earlier access before every later one, which x86's
  // TSO alone does not give for a store followed by a load.  lfence and
  // sfence order what TSO already orders (sfence matters for non-temporal
  // stores, which phybin performs as ordinary ones).
  t.add(ZYDIS_MNEMONIC_LFENCE, nop);
  t.add(ZYDIS_MNEMONIC_MFENCE, fence);
  t.add(ZYDIS_MNEMONIC_SFENCE, nop);
  t.add(ZYDIS_MNEMONIC_CLD, set_flag_const<kDF, 0>);
  t.add(ZYDIS_MNEMONIC_STD, set_flag_const<kDF, 1>);
  t.add(ZYDIS_MNEMONIC_CLC, set_flag_const<kCF, 0>);
  t.add(ZYDIS_MNEMONIC_STC, set_flag_const<kCF, 1>);
  t.add(ZYDIS_MNEMONIC_CMC, cmc);
  t.add(ZYDIS_MNEMONIC_PUSHFQ, pushf);
  t.add(ZYDIS_MNEMONIC_POPFQ, popf);
  t.add(ZYDIS_MNEMONIC_PUSHF, pushf);
  t.add(ZYDIS_MNEMONIC_POPF, popf);
  t.add(ZYDIS_MNEMONIC_LAHF, lahf);
  t.add(ZYDIS_MNEMONIC_SAHF, sahf);
}

}  // namespace phybin::x86
