// C++ implementations of x86 instructions too rare or too irregular to be
// worth inline code: they run on the guest state in memory and are called
// from translated code through CallHelper (signature HelperFn).
#pragma once

#include "x86/context.h"

namespace phybin::x86 {

void set_helper_hooks(const Hooks& hooks);
// Delivers a synchronous guest signal from inside a helper (through the
// runtime's Hooks::raise_signal): a signal number or a kTrap code
// (common/guest_state.h), such as gp_error(selector).
void helper_raise_signal(GuestState* s, int signal);
// Hooks::fp_traps_changed, if the runtime gave one.
void helper_fp_traps_changed(GuestState* s);

// a = packed StringOp (see below), b unused.
uint64_t helper_string(GuestState* s, uint64_t op, uint64_t);
struct StringOp {
  enum Kind : uint8_t { Movs, Stos, Lods, Cmps, Scas };
  enum RepKind : uint8_t { None, Rep, RepE, RepNE };
  // addr32: the address-size prefix, ESI/EDI/ECX instead of RSI/RDI/RCX.
  static uint64_t pack(Kind k, RepKind r, unsigned size, bool addr32) {
    return k | (r << 8) | (uint64_t{size} << 16) | (uint64_t{addr32} << 24);
  }
};

// Unsigned/signed division of RDX:RAX (or AX / DX:AX / EDX:EAX) by `divisor`;
// b = operand bits | 0x100 when signed.  Raises SIGFPE like the CPU's #DE.
uint64_t helper_div(GuestState* s, uint64_t divisor, uint64_t kind);

// Far jmp/call through memory, far ret and iret (FarTransfer::pack): the
// selector must be the one 64-bit code segment Linux gives user code
// (0x33), else #GP (SIGSEGV): phybin runs no 32-bit code.  Pushes or pops
// CS and RIP in the operand size; returns the new RIP.  iret also pops
// RFLAGS (the bits popf may change), RSP and SS (a writable data segment
// of RPL 3, else #GP), as it does in 64-bit mode at CPL 3.
struct FarTransfer {
  enum Kind : uint8_t { Jump, Call, Return, InterruptReturn };
  static uint64_t pack(Kind k, unsigned operand_bytes, unsigned insn_length, uint16_t ret_imm) {
    return operand_bytes | (uint64_t{k} << 8) | (uint64_t{insn_length} << 16) | (uint64_t{ret_imm} << 32);
  }
};
uint64_t helper_far_transfer(GuestState* s, uint64_t address, uint64_t packed);

// mov Sreg, pop fs/gs, lss/lfs/lgs: loads `selector` into segment
// register `sreg` (a SegReg, never CS) as the CPU does at CPL 3 with
// Linux's GDT, or raises #GP (SIGSEGV, SI_KERNEL, gp_error(selector))
// and changes nothing.
// FS and GS also get their base: the descriptor's, 0 for every user
// descriptor, and 0 for a null selector (Intel clears it).
uint64_t helper_load_segment(GuestState* s, uint64_t selector, uint64_t sreg);
// `int n` through a gate user code may not use: raises #GP (SIGSEGV) with
// the IDT error code of `vector`.  Does not return.
uint64_t helper_raise_gp(GuestState* s, uint64_t vector, uint64_t);
// wrfsbase/wrgsbase: `base` into segment `sreg` (kFS or kGS), or #GP(0)
// when it is not canonical.
uint64_t helper_write_segment_base(GuestState* s, uint64_t base, uint64_t sreg);

// rcl/rcr of `value`; b = count << 16 | 0x100 (left) | operand bits.
// Updates CF and OF in the guest state; returns the result.
uint64_t helper_rotate_carry(GuestState* s, uint64_t value, uint64_t b);

// pdep/pext of 64-bit values (int_helpers.cpp).
uint64_t helper_pdep(GuestState* s, uint64_t src, uint64_t mask);
uint64_t helper_pext(GuestState* s, uint64_t src, uint64_t mask);
// cmpxchg16b on the 16 aligned bytes at `addr`: RDX:RAX, RCX:RBX and ZF
// in the guest state; atomic on AArch64 hosts.
uint64_t helper_cmpxchg16b(GuestState* s, uint64_t addr, uint64_t);

uint64_t helper_cpuid(GuestState* s, uint64_t, uint64_t);
uint64_t helper_rdtsc(GuestState* s, uint64_t, uint64_t);
uint64_t helper_rdtscp(GuestState* s, uint64_t, uint64_t);  // RDX:RAX and RCX = TSC_AUX
uint64_t helper_tsc_aux(GuestState* s, uint64_t, uint64_t);

// CPUID.1:EDX as advertised (the loader puts it in AT_HWCAP).
uint32_t cpuid_leaf1_edx();
// AT_HWCAP2 as Linux fills it for the CPU CPUID describes: FSGSBASE (bit 1)
// when CPUID.7:EBX says the instructions are there.
uint32_t at_hwcap2();

}  // namespace phybin::x86
